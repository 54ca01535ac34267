//! `dossier-server --hostname 127.0.0.1 --port 4096`: serves the ledger named by
//! `DOSSIER_DATA_DIR` / `DOSSIER_CONFIG` and prints one line once it answers requests. The
//! environment's password and allowed hosts and origins are read in `StartEnvironment`.

use dossier_core::LedgerOptions;
use dossier_server::server_options::StartEnvironment;
use dossier_server::{bind, serve, termination_signal, ServerError, ServerOptions};
use std::process::ExitCode;

/// `DOSSIER_UI_DIR`, else `ui/dist` in the working folder, else beside a checkout's build
/// (`target/<profile>/dossier-server` → `ui/dist`); only a folder holding `index.html` counts.
fn default_ui_directory() -> Option<std::path::PathBuf> {
    let from_environment = std::env::var_os("DOSSIER_UI_DIR").map(std::path::PathBuf::from);
    let from_working_folder = std::env::current_dir()
        .ok()
        .map(|folder| folder.join("ui/dist"));
    let beside_build = std::env::current_exe().ok().and_then(|executable| {
        executable
            .ancestors()
            .nth(3)
            .map(|root| root.join("ui/dist"))
    });
    [from_environment, from_working_folder, beside_build]
        .into_iter()
        .flatten()
        .find(|folder| folder.join("index.html").is_file())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO)
        .init();
    let environment = StartEnvironment::read();
    let options = match ServerOptions::from_arguments(std::env::args().skip(1), environment) {
        Ok(mut options) => {
            if options.ui_directory.is_none() {
                options.ui_directory = default_ui_directory();
            }
            options
        }
        Err(ServerError::HelpRequested) => {
            println!("{}", ServerError::HelpRequested);
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("dossier-server: {error}");
            return ExitCode::from(2);
        }
    };
    let listener = match bind(&options).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("dossier-server: {error}");
            return ExitCode::FAILURE;
        }
    };
    let ledger = dossier_core::start_up::open(LedgerOptions::from_env());
    let outcome = serve(
        listener,
        ledger,
        &options,
        termination_signal(),
        |address| {
            println!("dossier server listening on http://{address}");
        },
    )
    .await;
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("dossier-server: {error}");
            ExitCode::FAILURE
        }
    }
}
