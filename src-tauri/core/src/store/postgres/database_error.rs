//! Postgres errors in the ledger's terms: the conditions a person can act on get the same
//! `LedgerError` variants as SQLite's (`store::sqlite::database_error`), the rest stay `Database` in
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
/// The database ended the connection: its administrator (`pg_terminate_backend`, a fast
/// shutdown), a crash of another backend, or it is starting or stopping.
const ADMIN_SHUTDOWN: &str = "57P01";
const CRASH_SHUTDOWN: &str = "57P02";
const CANNOT_CONNECT_NOW: &str = "57P03";
/// Class 08, connection exceptions.
const CONNECTION_EXCEPTION_CLASS: &str = "08";

pub(crate) fn from_postgres(error: sqlx::Error) -> LedgerError {
    let code = match &error {
        sqlx::Error::Database(database) => database.code().map(|code| code.into_owned()),
        // The pool got no connection within its acquire timeout (`database_connection`): the
        // database is down or unreachable, or every connection stayed busy that long.
        sqlx::Error::PoolTimedOut => {
            return connection_lost("Dossier got no connection to it in time".to_string())
        }
        // A connection that broke mid-work (reset, closed by the server's machine).
        sqlx::Error::Io(io) => return connection_lost(io.to_string()),
        _ => None,
    };
    if let Some(code) = code.as_deref() {
        if matches!(code, ADMIN_SHUTDOWN | CRASH_SHUTDOWN | CANNOT_CONNECT_NOW)
            || code.starts_with(CONNECTION_EXCEPTION_CLASS)
        {
            return connection_lost(error_message(&error));
        }
    }
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

/// Logged here as well as answered: the answer is `busy`, which adapters do not log, and
/// whoever runs the server needs to see that its database went away.
fn connection_lost(reason: String) -> LedgerError {
    tracing::warn!(%reason, "the ledger's database cannot be reached");
    LedgerError::DatabaseConnectionLost { reason }
}

/// The database's own message, without sqlx's "error returned from database:" prefix.
fn error_message(error: &sqlx::Error) -> String {
    match error {
        sqlx::Error::Database(database) => database.message().to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_that_gets_no_connection_is_told_to_try_again_not_an_internal_error() {
        let error = from_postgres(sqlx::Error::PoolTimedOut);
        assert!(
            matches!(&error, LedgerError::DatabaseConnectionLost { reason } if reason.contains("in time")),
            "{error:?}"
        );
        assert_eq!(error.kind(), crate::wire::error::ErrorKind::Busy);
        let broken = from_postgres(sqlx::Error::Io(std::io::Error::from(
            std::io::ErrorKind::ConnectionReset,
        )));
        assert!(
            matches!(broken, LedgerError::DatabaseConnectionLost { .. }),
            "{broken:?}"
        );
    }
}
