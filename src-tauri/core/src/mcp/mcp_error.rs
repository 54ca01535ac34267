//! Why an MCP operation failed, said so a person (and the model, which reads the same text in a
//! failed tool part) understands what happened and whose fault it is. The server's own words are
//! kept where it gave some; Dossier's side (not configured, still connecting, timed out) is
//! named as such.

use crate::wire::error::{ErrorKind, LedgerError};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    #[error("MCP server \"{0}\" is not configured")]
    UnknownServer(String),
    #[error("MCP server \"{0}\" is disabled")]
    Disabled(String),
    #[error("MCP server \"{0}\" is still connecting")]
    Connecting(String),
    /// The server failed (or was disconnected); `reason` is why, as its status says.
    #[error("MCP server \"{name}\" is not connected: {reason}")]
    NotConnected { name: String, reason: String },
    /// The program of a local server could not be started at all.
    #[error("Could not start {command}: {reason}")]
    Start { command: String, reason: String },
    /// The program of a local server does not exist (not on the PATH, or no such file).
    #[error("Could not start {program}: the command was not found")]
    CommandNotFound { program: String },
    /// Two servers' names give their tools the same prefix, so the model could not tell their
    /// tools apart.
    #[error("The server name \"{name}\" gives its tools the same names as the server \"{other}\" ({prefix}_…); choose a name that differs in more than spaces and punctuation")]
    PrefixTaken {
        name: String,
        other: String,
        prefix: String,
    },
    #[error("The header name \"{0}\" is not valid")]
    BadHeaderName(String),
    #[error("The value of header \"{0}\" is not valid")]
    BadHeaderValue(String),
    /// The server did not finish `initialize` and its first listings in time.
    #[error("The MCP server did not finish starting within {milliseconds} ms")]
    StartTimeout { milliseconds: u128 },
    /// A call got no answer in time.
    #[error("The MCP server did not answer within {milliseconds} ms")]
    Timeout { milliseconds: u128 },
    #[error("The MCP server closed the connection")]
    Closed,
    /// The connection had been working and then ended (the process exited, the stream closed).
    #[error("The MCP server stopped")]
    Stopped,
    /// The server answered with an MCP error; its own message.
    #[error("{0}")]
    ServerError(String),
    /// What came back is not MCP as the SDK understands it (garbage on stdout, a bad handshake).
    #[error("{0}")]
    Protocol(String),
    /// The entry in the config file cannot be used; `reason` says what to fix.
    #[error("The config entry for MCP server \"{name}\" cannot be used: {reason}")]
    BadEntry { name: String, reason: String },
    /// A `{keychain:…}` reference names a secret the keychain does not have.
    #[error("The secret value of {name} is not in the keychain any more; edit the server in Settings and type it again")]
    MissingSecret { name: String },
    /// A `{env:NAME}` reference names a variable that is not set.
    #[error("The environment variable {variable} (used by {name}) is not set")]
    MissingVariable { name: String, variable: String },
    #[error("No keychain is available to keep the secret values of MCP servers: {0}. Write such a value as {{env:NAME}} and set that environment variable instead, or unlock or install a keychain (on Linux, a Secret Service such as GNOME Keyring).")]
    KeychainUnavailable(String),
    #[error("The keychain failed: {0}")]
    Keychain(String),
    /// A Claude Desktop config chosen for import cannot be read.
    #[error("{0}")]
    Import(#[from] crate::mcp::claude_desktop_import::ClaudeDesktopImportError),
    /// Listing what a server offers failed right after it connected.
    #[error("Listing {what} failed: {reason}")]
    Listing { what: &'static str, reason: String },
}

impl McpError {
    /// The adapters' kind: a name nobody configured is not found; a server in the wrong state
    /// for the request is a conflict; a bad entry is invalid; the server's own failures (it timed
    /// out, closed, answered with an error) make it unavailable.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::UnknownServer(_) => ErrorKind::NotFound,
            Self::Disabled(_) | Self::Connecting(_) | Self::NotConnected { .. } => {
                ErrorKind::Conflict
            }
            Self::PrefixTaken { .. } => ErrorKind::Conflict,
            Self::Start { .. }
            | Self::CommandNotFound { .. }
            | Self::BadHeaderName(_)
            | Self::BadHeaderValue(_)
            | Self::BadEntry { .. }
            | Self::MissingSecret { .. }
            | Self::MissingVariable { .. }
            | Self::Import(_) => ErrorKind::Invalid,
            Self::KeychainUnavailable(_) => ErrorKind::Unavailable,
            Self::Keychain(_) => ErrorKind::Internal,
            Self::StartTimeout { .. }
            | Self::Timeout { .. }
            | Self::Closed
            | Self::Stopped
            | Self::ServerError(_)
            | Self::Protocol(_)
            | Self::Listing { .. } => ErrorKind::Unavailable,
        }
    }
}

impl From<rmcp::ServiceError> for McpError {
    fn from(error: rmcp::ServiceError) -> Self {
        match error {
            rmcp::ServiceError::McpError(data) => Self::ServerError(data.message.to_string()),
            rmcp::ServiceError::TransportClosed => Self::Closed,
            other => Self::Protocol(other.to_string()),
        }
    }
}

impl From<crate::models::credentials::CredentialError> for McpError {
    fn from(error: crate::models::credentials::CredentialError) -> Self {
        match error {
            crate::models::credentials::CredentialError::Unavailable { reason } => {
                Self::KeychainUnavailable(reason)
            }
            crate::models::credentials::CredentialError::Failed { reason } => {
                Self::Keychain(reason)
            }
        }
    }
}

impl From<McpError> for LedgerError {
    fn from(error: McpError) -> Self {
        Self::Mcp {
            kind: error.kind(),
            message: error.to_string(),
        }
    }
}
