//! The shell's one error type and how it crosses to the webview: always `{kind, message}`, the
//! same body the core and the HTTP server use, so the UI handles one shape for both transports.

use dossier_attached_client::server_address::AddressProblem;
use dossier_attached_client::AttachedError;
use dossier_core::models::credentials::CredentialError;
use dossier_core::{ErrorKind, LedgerError};
use serde::{Serialize, Serializer};

/// The kinds the webview is told: the core's closed set, plus `unauthorized`, which the core never
/// needs (it is nobody's client) — a Dossier server this window is attached to refusing its access
/// token. Spelled as the HTTP adapter spells it, so the UI reads one set of kinds whichever side
/// answered, and shows that state rather than an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellErrorKind {
    Core(ErrorKind),
    Unauthorized,
}

impl From<ErrorKind> for ShellErrorKind {
    fn from(kind: ErrorKind) -> Self {
        Self::Core(kind)
    }
}

impl PartialEq<ErrorKind> for ShellErrorKind {
    fn eq(&self, other: &ErrorKind) -> bool {
        *self == Self::Core(*other)
    }
}

impl Serialize for ShellErrorKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Core(kind) => kind.serialize(serializer),
            Self::Unauthorized => serializer.serialize_str("unauthorized"),
        }
    }
}

/// What crosses to the webview: the core's `ErrorBody`, with the shell's kinds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShellErrorBody {
    pub kind: ShellErrorKind,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// The webview named a file it was never given by a drop, the dialog or a paste.
    #[error("Dossier may only read files you dropped or picked: {path} was not one of them")]
    PathNotAllowed { path: String },
    #[error("Invalid file link \"{url}\": {reason}")]
    InvalidFileUrl {
        url: String,
        reason: dossier_core::pipeline::draft_resolution::FileUrlError,
    },
    /// A test-only hook was called in a normal run.
    #[error("{what} is only available when the app runs under the end-to-end test")]
    TestHookDisabled { what: String },
    #[error("Could not reach the window: {0}")]
    Window(String),
    /// A file of the shell's own (the update schedule) could not be written.
    #[error("Could not use {path}: {reason}")]
    File { path: String, reason: String },
    /// Offline, a proxy, or no release published yet: the person can try again later.
    #[error("Could not reach the update server: {reason}")]
    UpdateServerUnreachable { reason: String },
    /// The download does not match Dossier's signing key: never installed.
    #[error("The update was refused because its signature does not match Dossier's signing key, so it may have been damaged or altered. Nothing was installed. ({reason})")]
    UpdateSignatureRejected { reason: String },
    #[error("There is no update to download: check for updates first")]
    NoUpdateToDownload,
    #[error("There is no downloaded update to install: download it first")]
    NoUpdateToInstall,
    #[error("This copy of Dossier was built from source, so it does not update itself: get the new version and build it again")]
    BuiltFromSource,
    #[error("The update could not be installed: {reason}. Dossier was not changed")]
    UpdateInstallFailed { reason: String },
    /// "Restore" was confirmed with no checked backup chosen (or it was already used).
    #[error("Choose a backup to restore from first: nothing was changed")]
    NoBackupChosen,
    /// The updater's configuration or platform (no endpoint, a malformed key).
    #[error("The updater cannot run: {0}")]
    Updater(String),
    /// A command that needs the ledger, called while the window shows why it could not be
    /// opened (`start_up_problem`).
    #[error("Dossier has not opened your saved sessions, so this cannot be done yet: {reason}")]
    LedgerNotOpen { reason: String },
    /// "Open read-only" for a problem that a read-only open cannot get round.
    #[error("Opening read-only is only offered for sessions saved by a newer Dossier: {reason}")]
    ReadOnlyNotOffered { reason: String },
    /// "Restore the newest good backup" for a problem it does not fix, with no backup named,
    /// or while a restore is already under way.
    #[error("Restoring a backup from this page is only offered for a damaged sessions file with a good backup: {reason}")]
    RestoreNotOffered { reason: String },
    /// Settings → "Connect to a Dossier server": an address refused before anything was sent.
    #[error("Cannot use {address}: {problem}")]
    ServerAddressRefused {
        address: String,
        problem: AddressProblem,
    },
    /// Talking to the attached server (`dossier-attached-client`): unreachable, a refused
    /// certificate or token, not a Dossier server, a refused route or file, a refused export.
    #[error(transparent)]
    Attached(#[from] AttachedError),
    #[error("This window uses this computer's ledger, not a Dossier server")]
    NotAttached,
    #[error("The server's access token could not be kept in the system keychain: {0}")]
    TokenKeychain(CredentialError),
    /// A link in a reply that is not a web link: never handed to the system.
    #[error("Dossier opens only web links (http and https) in your browser, so it did not open \"{link}\": {reason}")]
    LinkRefused {
        link: String,
        reason: crate::link_opening::LinkRefusal,
    },
    /// The system could not start its browser or file manager (none installed, say).
    #[error("Could not open {what}: {reason}")]
    SystemOpenerFailed { what: String, reason: String },
}

impl ShellError {
    pub fn kind(&self) -> ShellErrorKind {
        let core = match self {
            Self::Ledger(error) => error.kind(),
            Self::PathNotAllowed { .. } | Self::InvalidFileUrl { .. } => ErrorKind::Invalid,
            Self::TestHookDisabled { .. } => ErrorKind::NotFound,
            Self::Window(_) => ErrorKind::Internal,
            Self::File { .. } => ErrorKind::Internal,
            Self::UpdateServerUnreachable { .. } | Self::BuiltFromSource => ErrorKind::Unavailable,
            Self::UpdateSignatureRejected { .. } => ErrorKind::Invalid,
            Self::NoUpdateToDownload | Self::NoUpdateToInstall | Self::NoBackupChosen => {
                ErrorKind::Conflict
            }
            Self::UpdateInstallFailed { .. } | Self::Updater(_) => ErrorKind::Internal,
            Self::LedgerNotOpen { .. } => ErrorKind::Unavailable,
            Self::ReadOnlyNotOffered { .. } | Self::RestoreNotOffered { .. } => ErrorKind::Conflict,
            Self::ServerAddressRefused { .. } => ErrorKind::Invalid,
            Self::Attached(AttachedError::ServerTokenNoLongerAccepted { .. }) => {
                return ShellErrorKind::Unauthorized
            }
            Self::Attached(error) => error.kind(),
            Self::NotAttached => ErrorKind::Conflict,
            Self::TokenKeychain(CredentialError::Unavailable { .. }) => ErrorKind::Unavailable,
            Self::TokenKeychain(CredentialError::Failed { .. }) => ErrorKind::Internal,
            Self::LinkRefused { .. } => ErrorKind::Invalid,
            // Not `unavailable`: the conversation reads that as "replies are not available".
            Self::SystemOpenerFailed { .. } => ErrorKind::Internal,
        };
        core.into()
    }

    pub fn body(&self) -> ShellErrorBody {
        ShellErrorBody {
            kind: self.kind(),
            message: self.to_string(),
        }
    }
}

/// Tauri serialises a command's `Err` as the value the webview's `invoke` rejects with.
impl Serialize for ShellError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.body().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ledger_errors_keep_their_kind_and_message() {
        let error = ShellError::from(LedgerError::SessionNotFound("ses_x".into()));
        assert_eq!(
            serde_json::to_value(&error).expect("serialises"),
            json!({"kind": "not_found", "message": "Session not found: ses_x"})
        );
    }

    #[test]
    fn replies_unavailable_is_reported_as_unavailable() {
        let error = ShellError::from(LedgerError::RepliesUnavailable);
        assert_eq!(error.kind(), ErrorKind::Unavailable);
        assert!(error
            .to_string()
            .contains("not available in this build yet"));
    }

    #[test]
    fn a_token_the_attached_server_no_longer_accepts_is_unauthorized() {
        let error = ShellError::Attached(AttachedError::ServerTokenNoLongerAccepted {
            address: "https://dossier.example.com".into(),
        });
        let body = serde_json::to_value(&error).expect("serialises");
        assert_eq!(body["kind"], "unauthorized");
        let message = body["message"].as_str().expect("message");
        assert!(
            message.starts_with(
                "https://dossier.example.com no longer accepts this computer's access token"
            ) && message.contains("Nothing on this computer was lost"),
            "{message}"
        );
    }

    #[test]
    fn refused_path_is_invalid_and_names_the_path() {
        let error = ShellError::PathNotAllowed {
            path: "/etc/passwd".into(),
        };
        assert_eq!(
            serde_json::to_value(&error).expect("serialises"),
            json!({
                "kind": "invalid",
                "message": "Dossier may only read files you dropped or picked: /etc/passwd was not one of them"
            })
        );
    }
}
