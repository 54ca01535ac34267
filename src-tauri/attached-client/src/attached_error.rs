//! What can go wrong talking to an attached server, in words a person can act on. The shell
//! wraps these in its own error (`ShellError::Attached`), so they reach the window as
//! `{kind, message}` like every other error.

use dossier_core::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum AttachedError {
    #[error("Could not reach the Dossier server at {address}: {reason}")]
    ServerUnreachable { address: String, reason: String },
    #[error("The certificate of {address} was refused, so nothing was sent: {reason}. Ask whoever runs the server for a certificate this computer trusts")]
    ServerCertificateRefused { address: String, reason: String },
    #[error("{address} refused the access token: check it, or ask whoever runs the server for a new one")]
    ServerTokenRefused { address: String },
    /// While attached: the server refused the token it accepted when this computer connected
    /// (revoked, most likely). Unlike `ServerTokenRefused` (a token being tried in Settings), the
    /// window shows this as the connection's state, not as the failure of one action.
    #[error("{address} no longer accepts this computer's access token (it may have been revoked). Nothing on this computer was lost. Enter a new token in Settings → Connect to a Dossier server, or use this computer's ledger")]
    ServerTokenNoLongerAccepted { address: String },
    #[error("{address} does not answer like a Dossier server: {reason}")]
    NotADossierServer { address: String, reason: String },
    /// The webview asked the relay for a route the attached UI never uses (`relay_paths`).
    #[error("Dossier does not send {method} {path} to the server")]
    RelayRefused { method: String, path: String },
    /// A prompt for the server still names a file on this disk (attached before connecting).
    #[error("{name} was attached from this computer's disk, which the server cannot read: remove it and add it again")]
    LocalFileForServer { name: String },
    /// The attached server refused a request made for the webview (an export).
    #[error("The server refused: {message}")]
    ServerRefused { status: u16, message: String },
}

impl AttachedError {
    /// The kind the window and HTTP statuses use. `ServerTokenNoLongerAccepted` is the
    /// connection's state rather than a failed action: the shell reports it as `unauthorized`,
    /// a kind of its own, before asking this.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::ServerTokenRefused { .. }
            | Self::NotADossierServer { .. }
            | Self::RelayRefused { .. }
            | Self::LocalFileForServer { .. }
            | Self::ServerTokenNoLongerAccepted { .. } => ErrorKind::Invalid,
            Self::ServerUnreachable { .. } | Self::ServerCertificateRefused { .. } => {
                ErrorKind::Unavailable
            }
            Self::ServerRefused { status, .. } => match status {
                404 => ErrorKind::NotFound,
                400 => ErrorKind::Invalid,
                409 => ErrorKind::Conflict,
                503 => ErrorKind::Unavailable,
                _ => ErrorKind::Internal,
            },
        }
    }
}
