//! The one error type of the core. Each variant carries the data a person needs to understand
//! what went wrong; `kind()` maps it onto the small closed set that the UI and HTTP statuses use.

use serde::Serialize;
use ts_rs::TS;

/// The closed set of error kinds shared with every adapter (`not_found` → 404, `invalid` → 400,
/// `conflict` and `busy` → 409, `unavailable` → 503, `internal` → 500).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    NotFound,
    Invalid,
    Conflict,
    Busy,
    Unavailable,
    Internal,
}

/// What crosses to the UI and over HTTP: `{kind, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ErrorBody {
    pub kind: ErrorKind,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("Session not found: {0}")]
    SessionNotFound(String),
    #[error("Message not found: {message_id} in session {session_id}")]
    MessageNotFound {
        session_id: String,
        message_id: String,
    },
    #[error("Part not found: {part_id} in message {message_id}")]
    PartNotFound { message_id: String, part_id: String },
    #[error("Agent not found: \"{name}\". Available agents: {}", available.join(", "))]
    AgentNotFound {
        name: String,
        available: Vec<String>,
    },
    #[error("Model not found: {provider_id}/{model_id}. Available models: {}", available.join(", "))]
    ModelNotFound {
        provider_id: String,
        model_id: String,
        available: Vec<String>,
    },
    #[error("The default agent \"{name}\" cannot be used: {reason}")]
    DefaultAgentUnusable { name: String, reason: String },
    #[error("Invalid prompt: {0}")]
    InvalidPrompt(String),
    #[error("Invalid request: {0}")]
    InvalidRequest(String),
    #[error("Invalid id \"{id}\": {reason}")]
    InvalidId { id: String, reason: String },
    #[error("The id {0} is already used")]
    DuplicateId(String),
    #[error("Invalid data for {what}: {reason}")]
    InvalidData { what: String, reason: String },
    #[error("Session {0} is busy")]
    Busy(String),
    #[error("Cannot read the config file {path}: {message}")]
    Config { path: String, message: String },
    #[error("Dossier saved your message, but replies are not available in this build yet")]
    RepliesUnavailable,
    #[error("Provider not found in the config file: {0}")]
    ProviderNotFound(String),
    #[error("Permission request not found: {0}")]
    PermissionRequestNotFound(String),
    #[error("The reply could not be completed: {0}")]
    ReplyFailed(String),
    #[error("File system error at {path}: {message}")]
    Io { path: String, message: String },
    /// SQLite could not grow the file (`SQLITE_FULL`, or `ENOSPC` from the file system).
    #[error("The disk that holds Dossier's data is full, so this was not saved. Everything saved before is safe. Free some space on the disk, then try again.")]
    DiskFull,
    /// The database file or its folder cannot be written (`SQLITE_READONLY`).
    #[error("Dossier's data folder cannot be written to (it is read-only, or its permissions changed), so this was not saved. Everything saved before is safe.")]
    StorageReadOnly,
    /// Other work (another process, a long import) held the write lock past the busy timeout
    /// (`SQLITE_BUSY`/`SQLITE_LOCKED`).
    #[error("Dossier's data stayed locked by other work (another Dossier window or server, or a long import) for too long, so nothing was changed. Try again in a moment.")]
    StorageBusy,
    #[error("Database error: {0}")]
    Database(sqlx::Error),
    #[error("Database migration failed: {0}")]
    Migration(sqlx::migrate::MigrateError),
    #[error("Stored data is unreadable: {0}")]
    Corrupt(String),
    /// No keychain to keep a key in; the message says how to go on without one.
    #[error("No keychain is available to store the key: {0}. Save the provider without a key and set its API key environment variable instead, or unlock or install a keychain (on Linux, a Secret Service such as GNOME Keyring).")]
    KeychainUnavailable(String),
    #[error("The keychain failed: {0}")]
    Keychain(String),
}

impl LedgerError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::SessionNotFound(_)
            | Self::MessageNotFound { .. }
            | Self::PartNotFound { .. }
            | Self::AgentNotFound { .. }
            | Self::ModelNotFound { .. }
            | Self::PermissionRequestNotFound(_)
            | Self::ProviderNotFound(_) => ErrorKind::NotFound,
            Self::InvalidPrompt(_)
            | Self::InvalidRequest(_)
            | Self::InvalidId { .. }
            | Self::InvalidData { .. }
            | Self::DefaultAgentUnusable { .. }
            | Self::Config { .. } => ErrorKind::Invalid,
            Self::DuplicateId(_) => ErrorKind::Conflict,
            Self::Busy(_) | Self::StorageBusy => ErrorKind::Busy,
            Self::RepliesUnavailable | Self::KeychainUnavailable(_) => ErrorKind::Unavailable,
            Self::ReplyFailed(_)
            | Self::Io { .. }
            // Not `unavailable`: to the UI that means "your message was saved, only the reply
            // is missing", and here nothing was saved. The message says what to do.
            | Self::DiskFull
            | Self::StorageReadOnly
            | Self::Database(_)
            | Self::Migration(_)
            | Self::Corrupt(_)
            | Self::Keychain(_) => ErrorKind::Internal,
        }
    }

    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
        }
    }

    pub(crate) fn io(path: impl AsRef<std::path::Path>, error: std::io::Error) -> Self {
        Self::Io {
            path: path.as_ref().display().to_string(),
            message: error.to_string(),
        }
    }
}

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
        let primary_code = match &error {
            sqlx::Error::Database(database) => database
                .code()
                .and_then(|code| code.parse::<i32>().ok())
                // sqlx reports the extended code; its low byte is the primary one.
                .map(|code| code & 0xff),
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
            Some(SQLITE_FULL) => Self::DiskFull,
            Some(SQLITE_READONLY) => Self::StorageReadOnly,
            Some(SQLITE_BUSY | SQLITE_LOCKED) => Self::StorageBusy,
            _ => Self::Database(error),
        }
    }
}

/// A migration that failed for a reason a person can act on (a full disk at the first start of a
/// new version) says so, like any other write.
impl From<sqlx::migrate::MigrateError> for LedgerError {
    fn from(error: sqlx::migrate::MigrateError) -> Self {
        match error {
            sqlx::migrate::MigrateError::Execute(inner) => match Self::from(inner) {
                Self::Database(inner) => {
                    Self::Migration(sqlx::migrate::MigrateError::Execute(inner))
                }
                actionable => actionable,
            },
            other => Self::Migration(other),
        }
    }
}

pub type LedgerResult<T> = Result<T, LedgerError>;

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
