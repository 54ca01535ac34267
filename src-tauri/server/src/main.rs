//! `dossier-server --hostname 127.0.0.1 --port 4096`: serves the ledger named by
//! `DOSSIER_DATA_DIR` / `DOSSIER_CONFIG` and prints one line once it answers requests. The
//! environment's password and allowed hosts and origins are read in `StartEnvironment`.
//! `dossier-server token …` manages the ledger's access tokens instead (`token_command`).

use dossier_core::models::config::Locations;
use dossier_core::LedgerOptions;
use dossier_server::database_choice::DatabaseUrl;
use dossier_server::server_options::{is_loopback, StartEnvironment};
use dossier_server::token_command::TokenCommand;
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

fn main() -> ExitCode {
    // Before any thread exists: a thread keeps the malloc arena it first got.
    dossier_allocator_arenas::limit_allocator_arenas();
    dossier_allocator_arenas::return_free_memory_periodically();
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(serve_from_command_line()),
        Err(error) => {
            eprintln!("dossier-server: could not start its runtime: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_from_command_line() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO)
        .init();
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if arguments.first().map(String::as_str) == Some("token") {
        return token(&arguments[1..]).await;
    }
    let environment = StartEnvironment::read();
    let options = match ServerOptions::from_arguments(arguments, environment) {
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
    // Beyond loopback without a password, only tokens can let anyone in: refuse before
    // binding (the server checks again once its ledger is open).
    if options.password.is_none() && !is_loopback(&options.hostname) {
        let data_dir = Locations::from_env().data_dir;
        let database = options.database.as_ref();
        match dossier_server::token_command::tokens_exist(&data_dir, database).await {
            Ok(exist) => {
                if let Err(error) = options.check_credentials(exist) {
                    eprintln!("dossier-server: {error}");
                    return ExitCode::from(2);
                }
            }
            // The ledger could not be opened (a database that cannot be reached, say): a
            // failure, as it is on loopback, not a refused argument.
            Err(error) => {
                eprintln!("dossier-server: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let listener = match bind(&options).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("dossier-server: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut ledger_options = LedgerOptions::from_env();
    if let Some(database) = &options.database {
        tracing::info!("keeping the ledger in {}", database.redacted());
        ledger_options.database_url = Some(database.expose().to_string());
    }
    if let Some(folder) = &options.models_dir {
        tracing::info!("serving the models in {}", folder.display());
        ledger_options.local_models =
            Some(dossier_core::local_models::local_engine::LocalEngineOptions::new(folder.clone()));
    }
    let ledger = dossier_core::start_up::open(ledger_options);
    let scheme = if options.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let outcome = serve(
        listener,
        ledger,
        &options,
        termination_signal(),
        |address| {
            println!("dossier server listening on {scheme}://{address}");
        },
    )
    .await;
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("dossier-server: {error}");
            // Like a refused flag: what was asked for is not allowed, nothing failed.
            if matches!(error, ServerError::PasswordRequired { .. }) {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

async fn token(arguments: &[String]) -> ExitCode {
    let command = match TokenCommand::parse(arguments) {
        Ok(command) => command,
        Err(error) => {
            eprintln!("dossier-server: {error}");
            return ExitCode::from(2);
        }
    };
    let data_dir = Locations::from_env().data_dir;
    let database = match DatabaseUrl::from_environment() {
        Ok(database) => database,
        Err(error) => {
            eprintln!("dossier-server: {error}");
            return ExitCode::from(2);
        }
    };
    let outcome = command
        .run(
            &data_dir,
            database.as_ref(),
            &mut std::io::stdout(),
            &mut std::io::stderr(),
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
