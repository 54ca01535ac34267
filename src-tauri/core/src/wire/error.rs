//! The one error type of the core. Each variant carries the data a person needs to understand
//! what went wrong; `kind()` maps it onto the small closed set that the UI and HTTP statuses use.

use serde::Serialize;
use ts_rs::TS;

/// The closed set of error kinds shared with every adapter (`not_found` → 404, `invalid` → 400,
/// `conflict`, `busy` and `read_only` → 409, `unavailable` → 503, `internal` → 500).
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
    /// The ledger was opened read-only (a newer Dossier's database): nothing may be written.
    ReadOnly,
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
    /// `token revoke NAME` for a name no token has (the message names it, never a token).
    #[error("No access token is named \"{0}\"")]
    AccessTokenNotFound(String),
    #[error(
        "An access token named \"{0}\" already exists; revoke it first or choose another name"
    )]
    AccessTokenExists(String),
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
    /// The PostgreSQL database could not be reached when the ledger was opened: nothing
    /// listens at its address, it did not answer within the connect timeout, or its name was
    /// not found (`store::postgres::database_connection`). `database` is the URL without its
    /// password.
    #[error("Dossier could not connect to its database {database}: {reason}. Nothing was opened or changed. Check that the PostgreSQL server is running and that this machine can reach it (the host and port in the database URL, a firewall, a private network), then start Dossier again.")]
    DatabaseUnreachable { database: String, reason: String },
    /// The PostgreSQL database was reached, but the connection's TLS was refused: its
    /// certificate is not trusted or not for the URL's host, the server offers no TLS where the
    /// URL's `sslmode` requires it, or the `sslrootcert` file cannot be read.
    #[error("Dossier did not connect to its database {database}: {reason}. Nothing was opened or changed. Check the database URL's sslmode and sslrootcert and the database server's TLS settings: sslrootcert must name the certificate authority that signed the server's certificate, and with sslmode=verify-full the URL's host must be a name that certificate is for.")]
    DatabaseTlsRefused { database: String, reason: String },
    /// A running server lost its PostgreSQL database: no connection within the connect timeout
    /// (the database is down or unreachable, or every connection stayed busy), or a connection
    /// that broke or was ended by the database's administrator (`store::postgres::database_error`).
    /// Postgres rolls back a transaction whose connection ends, so what the request was
    /// changing was not saved — unless the connection broke after the database committed and
    /// before it answered, which no client can tell apart.
    #[error("Dossier cannot reach its database right now ({reason}), so this was not done; everything saved before is safe. Try again in a moment. If it keeps happening, whoever runs the Dossier server should check that its PostgreSQL database is running and reachable.")]
    DatabaseConnectionLost { reason: String },
    /// The engine's own error, in its words (`store::sqlite::database_error` makes it).
    #[error("Database error: {0}")]
    Database(Box<dyn std::error::Error + Send + Sync>),
    #[error("Database migration failed: {0}")]
    Migration(Box<dyn std::error::Error + Send + Sync>),
    #[error("Stored data is unreadable: {0}")]
    Corrupt(String),
    /// An operation the PostgreSQL engine does not have yet (`store::engine::not_on_postgres`).
    #[error("{0} is not available on a PostgreSQL ledger yet.")]
    NotOnPostgres(String),
    /// A PostgreSQL database was configured for a build without the `postgres` feature (the
    /// desktop app's, which reaches a team's ledger through its server). `database` is the URL
    /// without its password (`store::database_url`).
    #[error("This build of Dossier has no PostgreSQL engine, so it cannot open the ledger at {database}. Nothing was changed. Use dossier-server, which has it, or leave the database setting empty to use the ledger file in the data folder.")]
    PostgresNotInThisBuild { database: String },
    /// A file chosen as a backup is not an SQLite database at all.
    #[error("{path} is not a Dossier backup: it is not a database file at all. Nothing was changed; choose a file that Dossier's \"Back up now\" or its automatic backups wrote.")]
    BackupNotADatabase { path: String },
    /// A file chosen as a backup is cut short or damaged.
    #[error("The backup {path} is incomplete or damaged ({detail}); it may have been cut off while it was copied. Nothing was changed; choose another backup.")]
    BackupIncomplete { path: String, detail: String },
    /// A file chosen as a backup is an SQLite database of some other program.
    #[error("{path} is a database, but not one of Dossier's: it holds no Dossier sessions. Nothing was changed; choose a file that Dossier's \"Back up now\" or its automatic backups wrote.")]
    BackupFromAnotherApp { path: String },
    /// The copy of a backup written beside the ledger did not check out (integrity check or row
    /// counts), so the restore stopped before replacing anything.
    #[error("The copy of the backup {backup} did not check out after it was written ({detail}), so nothing was restored and your sessions are as they were. Try again, or choose another backup.")]
    RestoreNotVerified { backup: String, detail: String },
    /// The start-up page's restore, but the file it was to replace now passes the check (put
    /// right by hand meanwhile, say): it is not replaced.
    #[error("Your saved sessions file {database} is no longer damaged, so nothing was restored over it. Quit and start Dossier again to open it.")]
    NoLongerDamaged { database: String },
    /// The start-up page's restore could not keep a copy of the damaged file in `damaged/`
    /// first, so it did not replace it.
    #[error("A copy of the damaged file {database} could not be put aside ({detail}), so nothing was restored and the file is as it was. Free some disk space or fix the data folder's permissions, then try again.")]
    DamagedCopyNotKept { database: String, detail: String },
    /// "Move data folder…" was given the folder in use, or a folder inside it.
    #[error("{target} is the data folder in use, or a folder inside it. Nothing was moved; choose a folder outside {current}.")]
    MoveIntoCurrentFolder { target: String, current: String },
    /// The chosen folder holds files that are not Dossier's; a move never mixes with them.
    #[error("{target} already holds files that are not Dossier's (for example {example}). Nothing was moved; choose an empty folder, or make a new one.")]
    MoveTargetNotEmpty { target: String, example: String },
    /// The chosen folder already holds a Dossier ledger, which a move would replace.
    #[error("{target} already holds Dossier sessions of its own. Nothing was moved, so they stay as they are; choose an empty folder.")]
    MoveTargetHasLedger { target: String },
    #[error("Dossier cannot write to {target} ({detail}). Nothing was moved; choose a folder you can write to.")]
    MoveTargetReadOnly { target: String, detail: String },
    #[error("The disk that holds {target} has {} free, and the move needs about {}. Nothing was moved; free some space there or choose another disk.", crate::wire::human_size::human_size(*available), crate::wire::human_size::human_size(*needed))]
    MoveTargetTooSmall {
        target: String,
        needed: u64,
        available: u64,
    },
    /// Another process (the server, a second app) has the data folder open; its writes after
    /// the copy would be lost.
    #[error("Another Dossier program (dossier-server, or Dossier run as another user or with another setting) is using {folder}. Nothing was changed; quit it, then try again.")]
    DataFolderInUse { folder: String },
    /// `DOSSIER_DATA_DIR` names the folder, and it wins at every start.
    #[error("The data folder {folder} is set by the DOSSIER_DATA_DIR environment variable, which wins at every start, so Dossier cannot move it. Nothing was moved; move the folder and change the variable instead.")]
    DataFolderSetByEnvironment { folder: String },
    /// The copy in the new folder did not check out; the ledger in use is unchanged.
    #[error("The copy of your sessions in {target} did not check out after it was written ({detail}), so nothing was moved and Dossier still uses {current}. Try again, or choose another folder.")]
    MoveNotVerified {
        target: String,
        current: String,
        detail: String,
    },
    /// "Remove the old copy" with no old copy left to remove.
    #[error("There is no old copy of the data folder to remove.")]
    NoPreviousDataFolder,
    /// The folder the sessions were moved to is gone (an external disk not connected?).
    #[error("Your sessions were moved to {folder}, but Dossier cannot find them there. If that folder is on a disk that is not connected, connect it and start Dossier again. Nothing was created or changed; the setting is kept in {pointer}.")]
    DataFolderMissing { folder: String, pointer: String },
    /// The pointer file exists but cannot be read, so where the sessions are is unknown.
    #[error("Dossier cannot read {pointer}, the note of where your sessions were moved ({detail}). Nothing was opened or created, so no empty ledger stands beside yours. Fix or remove that file (without it, Dossier uses its default folder), then start Dossier again.")]
    DataFolderPointerUnreadable { pointer: String, detail: String },
    /// Both the default folder and the one an earlier release used hold sessions.
    #[error("Dossier found saved sessions in two places: {current_sessions} in {current} and {former_sessions} in {former}, where an earlier version kept them. To keep both safe, nothing was moved or changed. Rename the folder you do not want to use (for example to {former}-old), then start Dossier again.")]
    LedgersInTwoPlaces {
        current: String,
        current_sessions: i64,
        former: String,
        former_sessions: i64,
    },
    /// Updating the database to this build's schema failed. The update runs as one
    /// transaction, so the database is exactly as it was; `backup` is the copy written first
    /// (none when the database was new and held nothing).
    #[error("{}", migration_failed_message(database, *from_version, *to_version, backup.as_deref(), reason))]
    MigrationFailed {
        database: String,
        from_version: i64,
        to_version: i64,
        backup: Option<String>,
        reason: String,
    },
    /// The database holds migrations this build does not know: a newer Dossier wrote it, and
    /// writing to it could break what that version stored.
    #[error("{}", newer_database_message(database, *schema_version, *known_version, made_by.as_deref()))]
    NewerDatabase {
        database: String,
        schema_version: i64,
        known_version: i64,
        /// The Dossier version that applied the newest migration, when it recorded one.
        made_by: Option<String>,
    },
    /// A write to a ledger opened read-only (a database a newer Dossier wrote, opened so its
    /// sessions can still be read). Nothing was written.
    #[error("{}", read_only_message(made_by.as_deref()))]
    ReadOnly {
        /// The Dossier version that last changed the database's format, when it recorded one.
        made_by: Option<String>,
    },
    /// `PRAGMA quick_check` found damage, or SQLite cannot read the file as a database.
    #[error("{}", damaged_database_message(database, detail, kept_at.as_deref(), newest_backup.as_deref()))]
    DatabaseDamaged {
        database: String,
        detail: String,
        /// Where a copy of the damaged file was put aside, if it could be.
        kept_at: Option<String>,
        newest_backup: Option<String>,
    },
    /// No keychain to keep a key in; the message says how to go on without one.
    #[error("No keychain is available to store the key: {0}. Save the provider without a key and set its API key environment variable instead, or unlock or install a keychain (on Linux, a Secret Service such as GNOME Keyring).")]
    KeychainUnavailable(String),
    #[error("The keychain failed: {0}")]
    Keychain(String),
    /// An MCP server could not do what was asked. `mcp::mcp_error` (a floor above this one)
    /// makes it, with the message and the kind of its own typed error.
    #[error("{message}")]
    Mcp { kind: ErrorKind, message: String },
    /// The model library could not do what was asked (a download, a model file).
    /// `local_models::local_model_error` (a floor above this one) makes it, with the message
    /// and the kind of its own typed error.
    #[error("{message}")]
    LocalModel { kind: ErrorKind, message: String },
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
            | Self::AccessTokenNotFound(_)
            | Self::ProviderNotFound(_) => ErrorKind::NotFound,
            Self::InvalidPrompt(_)
            | Self::InvalidRequest(_)
            | Self::InvalidId { .. }
            | Self::InvalidData { .. }
            | Self::DefaultAgentUnusable { .. }
            | Self::Config { .. }
            | Self::File { .. }
            | Self::BackupNotADatabase { .. }
            | Self::BackupIncomplete { .. }
            | Self::BackupFromAnotherApp { .. }
            | Self::MoveIntoCurrentFolder { .. }
            | Self::MoveTargetNotEmpty { .. }
            | Self::MoveTargetHasLedger { .. }
            | Self::MoveTargetReadOnly { .. }
            | Self::MoveTargetTooSmall { .. } => ErrorKind::Invalid,
            Self::DuplicateId(_) | Self::AccessTokenExists(_) => ErrorKind::Conflict,
            Self::DataFolderInUse { .. }
            | Self::DataFolderSetByEnvironment { .. }
            | Self::NoPreviousDataFolder
            | Self::NoLongerDamaged { .. }
            | Self::LedgersInTwoPlaces { .. } => ErrorKind::Conflict,
            Self::Busy(_) | Self::StorageBusy => ErrorKind::Busy,
            Self::RepliesUnavailable | Self::KeychainUnavailable(_) => ErrorKind::Unavailable,
            // Only at start (the server stops with the message), so `unavailable`'s meaning to
            // the UI — "your message was saved, only the reply is missing" — never meets it.
            Self::DatabaseUnreachable { .. } => ErrorKind::Unavailable,
            // The URL's TLS settings and the server's certificate disagree: trying again does
            // not help until one of them changes.
            Self::DatabaseTlsRefused { .. } => ErrorKind::Invalid,
            // A setting this program cannot honour: trying again does not help until the
            // setting, or the program, changes.
            Self::PostgresNotInThisBuild { .. } => ErrorKind::Invalid,
            // Like `StorageBusy`: nothing was changed and trying again in a moment can work.
            // Not `unavailable`, which would tell the UI that a prompt was saved.
            Self::DatabaseConnectionLost { .. } => ErrorKind::Busy,
            Self::ReplyFailed(_)
            | Self::Io { .. }
            // Not `unavailable`: to the UI that means "your message was saved, only the reply
            // is missing", and here nothing was saved. The message says what to do.
            | Self::DiskFull
            | Self::StorageReadOnly
            | Self::Database(_)
            | Self::Migration(_)
            | Self::Corrupt(_)
            | Self::NotOnPostgres(_)
            | Self::MigrationFailed { .. }
            | Self::DatabaseDamaged { .. }
            | Self::RestoreNotVerified { .. }
            | Self::DamagedCopyNotKept { .. }
            | Self::MoveNotVerified { .. }
            | Self::DataFolderMissing { .. }
            | Self::DataFolderPointerUnreadable { .. }
            | Self::Keychain(_) => ErrorKind::Internal,
            // Not ours to change: a newer version owns that file.
            Self::NewerDatabase { .. } => ErrorKind::Conflict,
            Self::ReadOnly { .. } => ErrorKind::ReadOnly,
            Self::Mcp { kind, .. } | Self::LocalModel { kind, .. } => *kind,
        }
    }

    /// Whether the message already says what to do about the ledger's file (a database from a
    /// newer Dossier, a damaged one, an update that failed), so an adapter adds no advice of
    /// its own that could contradict it.
    pub fn says_what_to_do(&self) -> bool {
        matches!(
            self,
            Self::MigrationFailed { .. }
                | Self::NewerDatabase { .. }
                | Self::DatabaseDamaged { .. }
                | Self::DataFolderMissing { .. }
                | Self::DataFolderPointerUnreadable { .. }
                | Self::LedgersInTwoPlaces { .. }
        )
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

fn migration_failed_message(
    database: &str,
    from_version: i64,
    to_version: i64,
    backup: Option<&str>,
    reason: &str,
) -> String {
    let copy = match backup {
        Some(backup) => format!(" A copy made just before the update is also at {backup}."),
        None => String::new(),
    };
    format!(
        "Dossier could not update your saved sessions from format {from_version} to format \
         {to_version}: {reason}. Nothing was changed: {database} is exactly as it was.{copy} \
         Keep these files. To go on working, start the Dossier version you used before, or \
         report this problem with this message."
    )
}

fn newer_database_message(
    database: &str,
    schema_version: i64,
    known_version: i64,
    made_by: Option<&str>,
) -> String {
    let maker = maker_name(made_by);
    format!(
        "Your saved sessions in {database} were last updated by {maker} (format \
         {schema_version}); this version of Dossier only knows formats up to {known_version}. To \
         keep them safe, nothing was opened or changed. Install {maker} or later to use them."
    )
}

/// "Dossier 3.1.0", or "a newer version of Dossier" when the database did not record which.
pub fn maker_name(made_by: Option<&str>) -> String {
    match made_by {
        Some(version) => format!("Dossier {version}"),
        None => "a newer version of Dossier".to_string(),
    }
}

fn read_only_message(made_by: Option<&str>) -> String {
    let maker = maker_name(made_by);
    format!(
        "Your saved sessions are open read-only: they were last written by {maker}, and this \
         version cannot change them without risking what that version stored. Nothing was \
         changed. Install {maker} or later to change them."
    )
}

fn damaged_database_message(
    database: &str,
    detail: &str,
    kept_at: Option<&str>,
    newest_backup: Option<&str>,
) -> String {
    let kept = match kept_at {
        Some(kept_at) => format!(" A copy of the damaged file was put aside at {kept_at}."),
        None => String::new(),
    };
    let what_to_do = match newest_backup {
        Some(backup) => format!(
            "The newest good backup is {backup}: quit Dossier, move {database} somewhere else, \
             copy the backup in its place under the same name, then start Dossier again."
        ),
        None => "There is no good backup in the backups folder; SQLite's \".recover\" command \
                 can often get most of the sessions back from the damaged file."
            .to_string(),
    };
    format!(
        "Your saved sessions file {database} is damaged ({detail}), so Dossier did not open or \
         change it.{kept} {what_to_do}"
    )
}

pub type LedgerResult<T> = Result<T, LedgerError>;
