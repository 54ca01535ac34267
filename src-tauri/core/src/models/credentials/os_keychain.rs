//! The operating system's keychain through the `keyring` crate: the macOS Keychain, the Windows
//! Credential Manager, the Secret Service (GNOME Keyring, KWallet) on Linux. Each provider's key
//! is one entry, service `dossier`, account `provider:<id>`; the access token of a server the
//! desktop app attaches to is account `server:<origin>` (`OsKeychain::SERVER_TOKENS`).
//!
//! A Linux session without a Secret Service — CI, a bare window manager, no session bus at all —
//! is normal, not a crash: it comes back as `CredentialError::Unavailable`.

use super::{CredentialError, CredentialStore};

const SERVICE: &str = "dossier";

/// One kind of secret in the keychain: its entries are accounts `<kind>:<id>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OsKeychain {
    account_kind: &'static str,
}

impl Default for OsKeychain {
    fn default() -> Self {
        Self::PROVIDER_KEYS
    }
}

impl OsKeychain {
    /// Provider keys, by provider id.
    pub const PROVIDER_KEYS: Self = Self {
        account_kind: "provider",
    };
    /// Access tokens of the servers the desktop app attaches to, by the server's origin.
    pub const SERVER_TOKENS: Self = Self {
        account_kind: "server",
    };

    fn entry(&self, id: &str) -> Result<keyring::Entry, CredentialError> {
        keyring::Entry::new(SERVICE, &format!("{}:{id}", self.account_kind)).map_err(convert)
    }
}

impl CredentialStore for OsKeychain {
    fn read(&self, provider_id: &str) -> Result<Option<String>, CredentialError> {
        match self.entry(provider_id)?.get_password() {
            Ok(key) => Ok(Some(key)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(error) => Err(convert(error)),
        }
    }

    fn store(&self, provider_id: &str, key: &str) -> Result<(), CredentialError> {
        self.entry(provider_id)?.set_password(key).map_err(convert)
    }

    fn remove(&self, provider_id: &str) -> Result<bool, CredentialError> {
        match self.entry(provider_id)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(error) => Err(convert(error)),
        }
    }
}

/// Maps the crate's errors without ever formatting one that can hold secret bytes
/// (`BadEncoding` carries the stored value).
fn convert(error: keyring::Error) -> CredentialError {
    match error {
        keyring::Error::PlatformFailure(cause) => CredentialError::Unavailable {
            reason: format!("the system keychain cannot be reached ({cause})"),
        },
        keyring::Error::NoStorageAccess(cause) => CredentialError::Unavailable {
            reason: format!("the system keychain is locked or refused access ({cause})"),
        },
        keyring::Error::NoEntry => CredentialError::Failed {
            reason: "nothing is stored under this name".into(),
        },
        keyring::Error::BadEncoding(_) => CredentialError::Failed {
            reason: "the stored secret is not text".into(),
        },
        keyring::Error::TooLong(attribute, limit) => CredentialError::Failed {
            reason: format!("the keychain limits {attribute} to {limit} characters"),
        },
        keyring::Error::Invalid(attribute, reason) => CredentialError::Failed {
            reason: format!("the keychain refused {attribute}: {reason}"),
        },
        keyring::Error::Ambiguous(matches) => CredentialError::Failed {
            reason: format!(
                "{} keychain entries match this name; remove the extra ones",
                matches.len()
            ),
        },
        // The enum is non-exhaustive; a future variant still gets a plain message.
        _ => CredentialError::Failed {
            reason: "the system keychain failed".into(),
        },
    }
}
