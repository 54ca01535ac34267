//! Which engine a bench's ledger is on: SQLite in a temporary folder, as the app keeps it, or
//! the PostgreSQL database named by `DOSSIER_BENCH_DATABASE_URL` (`postgres://…`), as a team's
//! server keeps it (`docs/postgres.md`). The database must be empty: a bench's figures are of the
//! rows it wrote, and a second run into the same database would measure twice the ledger.

use dossier_core::models::config::{Config, Locations};
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::{Ledger, LedgerOptions};
use std::path::Path;

pub const DATABASE_URL_VARIABLE: &str = "DOSSIER_BENCH_DATABASE_URL";

pub enum Engine {
    Sqlite,
    Postgres,
}

impl Engine {
    pub fn name(&self) -> &'static str {
        match self {
            Self::Sqlite => "SQLite",
            Self::Postgres => "PostgreSQL",
        }
    }
}

/// Opens the bench's ledger on the engine the environment names; `folder` holds the SQLite file
/// (or, on Postgres, only the data folder the ledger is given and never writes a ledger into).
pub async fn open_ledger(folder: &Path) -> (Ledger, Engine) {
    let mut options = LedgerOptions::at(Locations {
        data_dir: folder.join("data"),
        config_path: folder.join("none.json"),
    });
    options.config = Some(Config::default());
    options.default_directory = Some(folder.to_path_buf());
    let engine = match std::env::var(DATABASE_URL_VARIABLE) {
        Ok(url) if !url.trim().is_empty() => {
            options.database_url = Some(url);
            Engine::Postgres
        }
        _ => Engine::Sqlite,
    };
    let ledger = dossier_core::start_up::open(options)
        .await
        .unwrap_or_else(|error| panic!("opening the {} ledger: {error}", engine.name()));
    let existing = ledger
        .sessions()
        .list(&SessionQuery {
            limit: Some(1),
            include_archived: true,
            ..SessionQuery::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        existing.sessions.is_empty(),
        "the bench needs an empty database: {DATABASE_URL_VARIABLE} names one that already holds \
         sessions (create a fresh one, e.g. CREATE DATABASE bench_search)"
    );
    (ledger, engine)
}
