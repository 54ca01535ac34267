//! Postgres errors in the ledger's terms: the conditions a person can act on get the same
//! `LedgerError` variants as SQLite's (`store::database_error`), the rest stay `Database` in
//! Postgres's words. The one place that knows Postgres's error codes.
//!
//! A function rather than `From`: `From<sqlx::Error>` is SQLite's, and reads SQLite's numeric
//! result codes, which Postgres's five-character SQLSTATEs are not.

use crate::wire::error::LedgerError;

/// SQLSTATEs a person (or the caller) can act on
/// (<https://www.postgresql.org/docs/current/errcodes-appendix.html>).
const DISK_FULL: &str = "53100";
const READ_ONLY_TRANSACTION: &str = "25006";
const SERIALIZATION_FAILURE: &str = "40001";
const DEADLOCK_DETECTED: &str = "40P01";
const LOCK_NOT_AVAILABLE: &str = "55P03";

pub(crate) fn from_postgres(error: sqlx::Error) -> LedgerError {
    let code = match &error {
        sqlx::Error::Database(database) => database.code().map(|code| code.into_owned()),
        _ => None,
    };
    match code.as_deref() {
        Some(DISK_FULL) => LedgerError::DiskFull,
        // A read-only replica or a database set to default_transaction_read_only.
        Some(READ_ONLY_TRANSACTION) => LedgerError::StorageReadOnly,
        // Other work held what this needed; trying again in a moment can succeed.
        Some(SERIALIZATION_FAILURE | DEADLOCK_DETECTED | LOCK_NOT_AVAILABLE) => {
            LedgerError::StorageBusy
        }
        _ => LedgerError::Database(Box::new(error)),
    }
}
