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
    InvalidId {
        id: String,
        reason: crate::wire::id::IdError,
    },
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
    /// An export or import file the person chose could not be written or read.
    #[error("Could not use {path}: {reason}")]
    File { path: String, reason: String },
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
    /// The engine's own error, in its words (`store::database_error` makes it).
    #[error("Database error: {0}")]
    Database(Box<dyn std::error::Error + Send + Sync>),
    #[error("Database migration failed: {0}")]
    Migration(Box<dyn std::error::Error + Send + Sync>),
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
            | Self::Config { .. }
            | Self::File { .. } => ErrorKind::Invalid,
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

    pub(crate) fn file(path: impl AsRef<std::path::Path>, reason: String) -> Self {
        Self::File {
            path: path.as_ref().display().to_string(),
            reason,
        }
    }

    pub(crate) fn io(path: impl AsRef<std::path::Path>, error: std::io::Error) -> Self {
        Self::Io {
            path: path.as_ref().display().to_string(),
            message: error.to_string(),
        }
    }
}

pub type LedgerResult<T> = Result<T, LedgerError>;
