//! A PostgreSQL database asked of a build without the core's `postgres` feature (the desktop
//! app's): `Store::open_postgres` refuses with `PostgresNotInThisBuild`. CI builds the core with
//! the feature, so the refusal itself is built here directly: what a person reads, and the kind
//! adapters map it to.

use dossier_core::wire::error::{ErrorKind, LedgerError};

#[test]
fn the_refusal_names_the_database_says_nothing_changed_and_what_to_do() {
    let error = LedgerError::PostgresNotInThisBuild {
        database: "postgres://dossier@db.example:5432/team".to_string(),
    };
    assert_eq!(
        error.to_string(),
        "This build of Dossier has no PostgreSQL engine, so it cannot open the ledger at \
         postgres://dossier@db.example:5432/team. Nothing was changed. Use dossier-server, which \
         has it, or leave the database setting empty to use the ledger file in the data folder."
    );
    // A setting this program cannot honour: not a fault of Dossier's (`internal`) and nothing
    // that trying again could cure (`unavailable`, `busy`).
    assert_eq!(error.kind(), ErrorKind::Invalid);
}
