//! Database errors in words a person can act on: SQLite's full disk, read-only file and held
//! write lock get their own `LedgerError` variants; the rest stay `Database` in SQLite's words.
//! The one place that knows the engine's error codes.

#[cfg(test)]
use crate::wire::error::ErrorKind;
use crate::wire::error::LedgerError;

/// SQLite's primary result codes that a person can act on (<https://sqlite.org/rescode.html>).
const SQLITE_BUSY: i32 = 5;
const SQLITE_LOCKED: i32 = 6;
const SQLITE_READONLY: i32 = 8;
const SQLITE_FULL: i32 = 13;
/// `ENOSPC` on Linux and macOS.
#[cfg(unix)]
const NO_SPACE: &[i32] = &[28];
/// `ERROR_HANDLE_DISK_FULL` and `ERROR_DISK_FULL` on Windows.
#[cfg(windows)]
const NO_SPACE: &[i32] = &[39, 112];

/// A database error that a person can do something about gets its own variant and message;
/// the rest stay `Database` with SQLite's own words.
impl From<sqlx::Error> for LedgerError {
    fn from(error: sqlx::Error) -> Self {
        actionable(&error).unwrap_or_else(|| Self::Database(Box::new(error)))
    }
}

/// The variant of a database error a person can act on, if it is one.
fn actionable(error: &sqlx::Error) -> Option<LedgerError> {
    let primary_code = match error {
        // Only SQLite's numeric codes: Postgres reports SQLSTATEs such as "23505", which
        // would parse as numbers too and could be mistaken for SQLite's.
        sqlx::Error::Database(database)
            if database
                .try_downcast_ref::<sqlx::sqlite::SqliteError>()
                .is_some() =>
        {
            database
                .code()
                .and_then(|code| code.parse::<i32>().ok())
                // sqlx reports the extended code; its low byte is the primary one.
                .map(|code| code & 0xff)
        }
        sqlx::Error::Io(io)
            if io
                .raw_os_error()
                .is_some_and(|code| NO_SPACE.contains(&code)) =>
        {
            Some(SQLITE_FULL)
        }
        _ => None,
    };
    match primary_code {
        Some(SQLITE_FULL) => Some(LedgerError::DiskFull),
        Some(SQLITE_READONLY) => Some(LedgerError::StorageReadOnly),
        Some(SQLITE_BUSY | SQLITE_LOCKED) => Some(LedgerError::StorageBusy),
        _ => None,
    }
}

/// A migration that failed for a reason a person can act on (a full disk at the first start of a
/// new version) says so, like any other write.
impl From<sqlx::migrate::MigrateError> for LedgerError {
    fn from(error: sqlx::migrate::MigrateError) -> Self {
        match error {
            sqlx::migrate::MigrateError::Execute(inner) => match actionable(&inner) {
                Some(actionable) => actionable,
                None => Self::Migration(Box::new(sqlx::migrate::MigrateError::Execute(inner))),
            },
            other => Self::Migration(Box::new(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{ConnectOptions, Connection, SqliteConnection};
    use std::time::Duration;

    async fn connect(options: SqliteConnectOptions) -> SqliteConnection {
        options
            .connect()
            .await
            .unwrap_or_else(|error| panic!("{error}"))
    }

    async fn in_memory() -> SqliteConnection {
        SqliteConnection::connect("sqlite::memory:")
            .await
            .unwrap_or_else(|error| panic!("{error}"))
    }

    async fn run(connection: &mut SqliteConnection, statement: &str) {
        sqlx::query(statement)
            .execute(connection)
            .await
            .unwrap_or_else(|error| panic!("{statement}: {error}"));
    }

    /// The error SQLite really returns for `statement` on `connection`.
    async fn failure_of(connection: &mut SqliteConnection, statement: &str) -> LedgerError {
        match sqlx::query(statement).execute(connection).await {
            Ok(_) => panic!("{statement} did not fail"),
            Err(error) => LedgerError::from(error),
        }
    }

    /// A database file with one table, and the options to open it again.
    async fn file_database(folder: &tempfile::TempDir) -> SqliteConnectOptions {
        let options = SqliteConnectOptions::new()
            .filename(folder.path().join("test.db"))
            .create_if_missing(true);
        let mut connection = connect(options.clone()).await;
        run(&mut connection, "CREATE TABLE note (body BLOB)").await;
        connection
            .close()
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        options.create_if_missing(false)
    }

    #[tokio::test]
    async fn a_full_database_is_a_full_disk_with_nothing_lost() {
        let mut connection = in_memory().await;
        run(&mut connection, "CREATE TABLE note (body BLOB)").await;
        run(&mut connection, "INSERT INTO note VALUES ('kept')").await;
        // What a full disk looks like to SQLite: the file cannot grow.
        run(&mut connection, "PRAGMA max_page_count = 4").await;
        let error = failure_of(
            &mut connection,
            "INSERT INTO note VALUES (zeroblob(100000))",
        )
        .await;
        assert!(matches!(error, LedgerError::DiskFull), "{error:?}");
        assert_eq!(error.kind(), ErrorKind::Internal);
        assert!(error
            .to_string()
            .contains("Everything saved before is safe"));
        let kept: Vec<String> = sqlx::query_scalar("SELECT body FROM note")
            .fetch_all(&mut connection)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(kept, ["kept"]);
    }

    #[test]
    fn no_space_from_the_file_system_is_a_full_disk() {
        for &code in NO_SPACE {
            let error = LedgerError::from(sqlx::Error::Io(std::io::Error::from_raw_os_error(code)));
            assert!(matches!(error, LedgerError::DiskFull), "{error:?}");
        }
    }

    #[tokio::test]
    async fn a_read_only_database_says_so() {
        let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut connection = connect(file_database(&folder).await.read_only(true)).await;
        let error = failure_of(&mut connection, "INSERT INTO note VALUES ('new')").await;
        assert!(matches!(error, LedgerError::StorageReadOnly), "{error:?}");
        assert_eq!(error.kind(), ErrorKind::Internal);
    }

    #[tokio::test]
    async fn a_write_lock_held_elsewhere_is_busy() {
        let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let options = file_database(&folder).await;
        let mut holder = connect(options.clone()).await;
        run(&mut holder, "BEGIN IMMEDIATE").await;
        let mut waiter = connect(options.busy_timeout(Duration::ZERO)).await;
        let error = failure_of(&mut waiter, "BEGIN IMMEDIATE").await;
        assert!(matches!(error, LedgerError::StorageBusy), "{error:?}");
        assert_eq!(error.kind(), ErrorKind::Busy);
    }

    #[tokio::test]
    async fn other_database_errors_keep_sqlites_words() {
        let mut connection = in_memory().await;
        let error = failure_of(&mut connection, "SELECT * FROM nowhere").await;
        assert!(matches!(error, LedgerError::Database(_)), "{error:?}");
        assert!(error.to_string().contains("no such table: nowhere"));
        assert_eq!(error.kind(), ErrorKind::Internal);
    }
}
