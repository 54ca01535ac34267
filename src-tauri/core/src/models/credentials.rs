//! Provider API keys kept out of the config file and the database: in the operating system's
//! keychain (`os_keychain`), or in memory for tests (`in_memory`). A provider's key is looked up
//! in a fixed order — the config's `options.apiKey`, then the environment, then the keychain — so
//! an explicit setting always wins over a stored one. Keys leave this module only towards a
//! provider's request; everything shown to a person is a `key_hint`.

use crate::models::config::ProviderConfig;
use crate::models::provider::{self, ModelProvider, ProviderFailure};
use crate::models::settings::Settings;
use crate::wire::error::LedgerError;
use crate::wire::message::ModelRef;
use serde::Serialize;
use std::sync::Arc;
use ts_rs::TS;

pub mod in_memory;
pub mod os_keychain;
pub mod remembered;

pub use in_memory::InMemoryCredentials;
pub use os_keychain::OsKeychain;
pub use remembered::RememberedCredentials;

/// Where provider keys are kept. Small on purpose: store, read, remove one provider's key.
/// Calls may block (a keychain may ask the person to unlock it); the ledger runs them off the
/// async threads.
pub trait CredentialStore: Send + Sync {
    fn read(&self, provider_id: &str) -> Result<Option<String>, CredentialError>;
    fn store(&self, provider_id: &str, key: &str) -> Result<(), CredentialError>;
    /// `false` when there was no key to remove.
    fn remove(&self, provider_id: &str) -> Result<bool, CredentialError>;
}

/// Why the keychain could not be used. Never carries a key: only the platform's reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    /// No keychain on this computer (no Secret Service on a Linux session bus, no session bus at
    /// all) or it refused access (locked, access denied).
    #[error("{reason}")]
    Unavailable { reason: String },
    /// The keychain answered but the operation failed.
    #[error("{reason}")]
    Failed { reason: String },
}

impl From<CredentialError> for LedgerError {
    fn from(error: CredentialError) -> Self {
        match error {
            CredentialError::Unavailable { reason } => Self::KeychainUnavailable(reason),
            CredentialError::Failed { reason } => Self::Keychain(reason),
        }
    }
}

/// Where the key in use came from, for the settings view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// `options.apiKey` in the config file.
    Config,
    /// An environment variable (the provider's `env`, `<ID>_API_KEY`, or `{env:NAME}`).
    Environment,
    Keychain,
}

/// A key that was found, and where. Deliberately not `Debug`: it holds the key itself.
pub struct FoundKey {
    pub key: String,
    pub source: KeySource,
}

/// The config's key or the environment's, in `provider::api_key_of`'s order, with its source.
pub fn configured_key(
    provider_id: &str,
    provider: &ProviderConfig,
    environment: impl Fn(&str) -> Option<String>,
) -> Option<FoundKey> {
    let key = provider::api_key_of(provider_id, provider, environment)?;
    let literal = provider
        .options
        .api_key
        .as_deref()
        .is_some_and(|configured| !configured.starts_with("{env:"));
    let source = if literal {
        KeySource::Config
    } else {
        KeySource::Environment
    };
    Some(FoundKey { key, source })
}

/// The whole lookup order as a pure function: config, environment, then `keychain` (called only
/// when the first two have nothing). A keychain that cannot be read counts as "no key": the
/// request then fails with the provider's own authentication error, which says what is wrong.
pub fn find_key(
    provider_id: &str,
    provider: &ProviderConfig,
    environment: impl Fn(&str) -> Option<String>,
    keychain: impl FnOnce() -> Result<Option<String>, CredentialError>,
) -> Option<FoundKey> {
    if let Some(found) = configured_key(provider_id, provider, environment) {
        return Some(found);
    }
    match keychain() {
        Ok(key) => key.filter(|key| !key.is_empty()).map(|key| FoundKey {
            key,
            source: KeySource::Keychain,
        }),
        Err(error) => {
            tracing::debug!(provider_id, %error, "keychain not read");
            None
        }
    }
}

/// What a person may see of a key: a short known prefix and the last four characters
/// (`sk-…abcd`), and nothing of keys too short for that to leave most of them hidden.
pub fn key_hint(key: &str) -> String {
    let characters: Vec<char> = key.trim().chars().collect();
    if characters.len() < 16 {
        return "…".into();
    }
    // Providers start keys with a public marker such as `sk-` or `gsk_`; it helps a person tell
    // keys apart and says nothing secret. Longer markers (`sk-ant-api03-`) are cut to the first.
    let prefix: String = characters
        .iter()
        .take(5)
        .position(|symbol| *symbol == '-' || *symbol == '_')
        .map(|end| characters[..=end].iter().collect())
        .unwrap_or_default();
    let last: String = characters[characters.len() - 4..].iter().collect();
    format!("{prefix}…{last}")
}

/// Rejects what cannot be a key (empty, spaces or line breaks inside: usually a pasted sentence).
pub fn check_key(key: &str) -> Result<&str, LedgerError> {
    let key = key.trim();
    if key.is_empty() {
        return Err(LedgerError::InvalidRequest("the API key is empty".into()));
    }
    if key
        .chars()
        .any(|symbol| symbol.is_whitespace() || symbol.is_control())
    {
        return Err(LedgerError::InvalidRequest(
            "the API key contains spaces or line breaks; paste the key alone".into(),
        ));
    }
    Ok(key)
}

impl Settings {
    pub(crate) fn credentials(&self) -> Arc<dyn CredentialStore> {
        self.credentials.clone()
    }

    /// Runs a keychain call on the blocking pool: it may wait on D-Bus or on an unlock prompt.
    pub(crate) async fn with_credentials<T: Send + 'static>(
        &self,
        call: impl FnOnce(&dyn CredentialStore) -> Result<T, CredentialError> + Send + 'static,
    ) -> Result<T, CredentialError> {
        let store = self.credentials();
        tokio::task::spawn_blocking(move || call(store.as_ref()))
            .await
            .unwrap_or_else(|error| {
                Err(CredentialError::Failed {
                    reason: format!("the keychain call did not finish: {error}"),
                })
            })
    }

    /// The key a request to `provider_id` uses, in the lookup order above.
    pub async fn provider_key(&self, provider_id: &str) -> Option<FoundKey> {
        let config = self.config();
        let provider = config.provider.get(provider_id)?;
        if let Some(found) = configured_key(provider_id, provider, |name| std::env::var(name).ok())
        {
            return Some(found);
        }
        let id = provider_id.to_string();
        let stored = self.with_credentials(move |store| store.read(&id)).await;
        find_key(provider_id, provider, |_| None, || stored)
    }

    /// The client for `model`, with its key from the config, the environment or the keychain.
    pub async fn model_provider(
        &self,
        model: &ModelRef,
        client: &reqwest::Client,
    ) -> Result<Arc<dyn ModelProvider>, ProviderFailure> {
        if model.provider_id == provider::local_model::PROVIDER_ID {
            if let Some(engine) = &self.local_engine {
                return Ok(Arc::new(provider::local_model::LocalModel::new(
                    Arc::clone(engine),
                )));
            }
        }
        let key = self
            .provider_key(&model.provider_id)
            .await
            .map(|found| found.key);
        provider::resolve_with_key(&self.config(), model, client, key)
    }
}

#[cfg(test)]
mod tests;
