//! The access token of the server the app is attached to, kept in the operating system's
//! keychain beside the provider keys (service `dossier`, account `server:<origin>`), never in a
//! file and never in the webview. It speaks the core's `CredentialStore`, so tests use the
//! core's in-memory store and a computer without a keychain is the same typed `Unavailable`.

use dossier_core::models::credentials::{CredentialError, CredentialStore};

const SERVICE: &str = "dossier";

/// The keychain entries of server tokens; the id handed in is the server's origin.
#[derive(Debug, Default, Clone, Copy)]
pub struct ServerTokenKeychain;

impl ServerTokenKeychain {
    fn entry(origin: &str) -> Result<keyring::Entry, CredentialError> {
        keyring::Entry::new(SERVICE, &format!("server:{origin}")).map_err(convert)
    }
}

impl CredentialStore for ServerTokenKeychain {
    fn read(&self, origin: &str) -> Result<Option<String>, CredentialError> {
        match Self::entry(origin)?.get_password() {
            Ok(token) => Ok(Some(token)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(error) => Err(convert(error)),
        }
    }

    fn store(&self, origin: &str, token: &str) -> Result<(), CredentialError> {
        Self::entry(origin)?.set_password(token).map_err(convert)
    }

    fn remove(&self, origin: &str) -> Result<bool, CredentialError> {
        match Self::entry(origin)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(error) => Err(convert(error)),
        }
    }
}

/// The platform's reason, never the stored value (`BadEncoding` carries it).
fn convert(error: keyring::Error) -> CredentialError {
    match error {
        keyring::Error::PlatformFailure(cause) => CredentialError::Unavailable {
            reason: format!("the system keychain cannot be reached ({cause})"),
        },
        keyring::Error::NoStorageAccess(cause) => CredentialError::Unavailable {
            reason: format!("the system keychain is locked or refused access ({cause})"),
        },
        keyring::Error::BadEncoding(_) => CredentialError::Failed {
            reason: "the stored token is not text".into(),
        },
        _ => CredentialError::Failed {
            reason: "the system keychain failed".into(),
        },
    }
}
