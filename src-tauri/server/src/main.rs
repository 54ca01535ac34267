//! `dossier-server --hostname 127.0.0.1 --port 4096`: serves the ledger named by
//! `DOSSIER_DATA_DIR` / `DOSSIER_CONFIG` and prints one line once it answers requests.

use dossier_core::{Ledger, LedgerOptions};
use dossier_server::server_options::PASSWORD_VARIABLE;
use dossier_server::{bind, serve, termination_signal, ServerError, ServerOptions};
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO)
        .init();
    let password = std::env::var(PASSWORD_VARIABLE).ok();
    let options = match ServerOptions::from_arguments(std::env::args().skip(1), password) {
        Ok(options) => options,
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
    let ledger = Ledger::open(LedgerOptions::from_env());
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
