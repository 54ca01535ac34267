//! The settings view's providers: list what is configured (never a key, only a hint), add or
//! change a provider in the OpenCode-shaped config file, remove one, and keep its key in the
//! keychain rather than in that file. After each change the ledger reloads the config, so the
//! model catalog and the next reply see it without a restart.
//!
//! Only the `provider` section changes; agents and hooks keep their start-up values until the
//! app restarts.

use crate::models::config::{Config, ProviderConfig};
use crate::models::credentials::{self, check_key, key_hint, KeySource};
use crate::models::model_catalog::{ModelCatalog, OFFLINE_PROVIDER_ID};
use crate::models::settings::{Configured, Settings};
use crate::wire::error::LedgerError;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use ts_rs::TS;

pub(crate) mod config_file;

use config_file::ConfigFile;

/// The provider packages Dossier can speak, as OpenCode's config names them.
pub const PROVIDER_PACKAGES: [&str; 3] = [
    "@ai-sdk/openai-compatible",
    "@ai-sdk/openai",
    "@ai-sdk/anthropic",
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSettings {
    pub providers: Vec<ProviderSetting>,
    /// The file the settings are saved in (the same file a person may edit by hand).
    pub config_path: String,
    pub keychain: KeychainStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ProviderSetting {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub npm: Option<String>,
    /// The configured base URL, else the well-known one for the provider's id or package.
    #[serde(rename = "baseURL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub base_url: Option<String>,
    pub models: Vec<String>,
    /// The key requests would use now, shown only as a hint; absent when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub key: Option<KeyStatus>,
    /// False for providers Dossier found by itself (a local Ollama), which are not in the file.
    pub editable: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct KeyStatus {
    pub source: KeySource,
    /// For example `sk-…abcd`; never the key.
    pub hint: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct KeychainStatus {
    pub available: bool,
    /// Why keys cannot be stored, when they cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reason: Option<String>,
}

/// A provider as the settings form sends it.
#[derive(Clone, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderInput {
    pub id: String,
    #[serde(default)]
    #[ts(optional)]
    pub name: Option<String>,
    pub npm: String,
    #[serde(rename = "baseURL", default)]
    #[ts(optional)]
    pub base_url: Option<String>,
    pub models: Vec<String>,
    /// A new key for the keychain; absent keeps the stored one.
    #[serde(default)]
    #[ts(optional)]
    pub api_key: Option<String>,
}

// Hand-written so the key never reaches a log line through `{:?}`.
impl std::fmt::Debug for ProviderInput {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ProviderInput")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("npm", &self.npm)
            .field("base_url", &self.base_url)
            .field("models", &self.models)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// A provider input that passed `check_input`: trimmed, with empty optional fields removed.
#[derive(Clone, PartialEq, Eq)]
pub struct CheckedProvider {
    pub id: String,
    pub name: Option<String>,
    pub npm: String,
    pub base_url: Option<String>,
    pub models: Vec<String>,
    pub api_key: Option<String>,
}

/// Validates a provider from the settings form; each refusal says what to fix.
pub fn check_input(input: &ProviderInput) -> Result<CheckedProvider, LedgerError> {
    let invalid = |reason: String| Err(LedgerError::InvalidRequest(reason));
    let id = input.id.trim();
    if id.is_empty() {
        return invalid("the provider needs an id, for example \"openai\"".into());
    }
    if id.len() > 64
        || !id
            .chars()
            .all(|symbol| symbol.is_ascii_alphanumeric() || matches!(symbol, '-' | '_' | '.'))
    {
        return invalid(format!(
            "the provider id \"{id}\" may only use letters, digits, '-', '_' and '.' (at most 64)"
        ));
    }
    if id == OFFLINE_PROVIDER_ID {
        return invalid(format!(
            "\"{OFFLINE_PROVIDER_ID}\" is the built-in offline model's id; choose another"
        ));
    }
    let npm = input.npm.trim();
    if !PROVIDER_PACKAGES.contains(&npm) {
        return invalid(format!(
            "unknown provider package \"{npm}\"; use one of {}",
            PROVIDER_PACKAGES.join(", ")
        ));
    }
    let base_url = input
        .base_url
        .as_deref()
        .map(str::trim)
        .filter(|url| !url.is_empty());
    if let Some(url) = base_url {
        match url::Url::parse(url) {
            Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.has_host() => {}
            _ => {
                return invalid(format!(
                    "the base URL \"{url}\" is not an http:// or https:// address"
                ))
            }
        }
    }
    let probe = ProviderConfig {
        npm: Some(npm.to_string()),
        options: crate::models::config::ProviderOptions {
            base_url: base_url.map(str::to_string),
            api_key: None,
        },
        ..ProviderConfig::default()
    };
    if crate::models::provider::base_url_of(id, &probe).is_none() {
        return invalid(format!(
            "\"{id}\" needs a base URL, for example http://127.0.0.1:8080/v1"
        ));
    }
    let mut models: Vec<String> = Vec::new();
    for model in input.models.iter().map(|model| model.trim()) {
        if model.is_empty() {
            continue;
        }
        if model.chars().any(char::is_whitespace) {
            return invalid(format!("the model id \"{model}\" contains a space"));
        }
        if !models.iter().any(|known| known == model) {
            models.push(model.to_string());
        }
    }
    if models.is_empty() {
        return invalid("list at least one model id, for example gpt-4o-mini".into());
    }
    let api_key = match input.api_key.as_deref() {
        Some(key) if !key.trim().is_empty() => Some(check_key(key)?.to_string()),
        _ => None,
    };
    Ok(CheckedProvider {
        id: id.to_string(),
        name: input
            .name
            .as_deref()
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string),
        npm: npm.to_string(),
        base_url: base_url.map(|url| url.trim_end_matches('/').to_string()),
        models,
        api_key,
    })
}

impl Settings {
    /// The providers in the config file (and any found on this computer), with key hints.
    pub async fn provider_settings(&self) -> Result<ProviderSettings, LedgerError> {
        let path = self.locations().config_path.clone();
        let in_file = Config::load(&path)?;
        let running = self.config();
        let mut listed: Vec<(String, ProviderConfig, bool)> = in_file
            .provider
            .iter()
            .map(|(id, provider)| (id.clone(), provider.clone(), true))
            .collect();
        listed.extend(
            running
                .provider
                .iter()
                .filter(|(id, _)| !in_file.provider.contains_key(*id))
                .map(|(id, provider)| (id.clone(), provider.clone(), false)),
        );
        // One trip to the keychain for every provider, plus the offline model's id, which never
        // has a key: it tells whether there is a keychain at all when nothing is configured.
        let ids: Vec<String> = listed
            .iter()
            .map(|(id, _, _)| id.clone())
            .chain(std::iter::once(OFFLINE_PROVIDER_ID.to_string()))
            .collect();
        let stored = self
            .with_credentials(move |store| {
                Ok(ids.iter().map(|id| store.read(id)).collect::<Vec<_>>())
            })
            .await?;
        let keychain = match stored.iter().find_map(|read| read.as_ref().err()) {
            Some(credentials::CredentialError::Unavailable { reason }) => KeychainStatus {
                available: false,
                reason: Some(reason.clone()),
            },
            _ => KeychainStatus {
                available: true,
                reason: None,
            },
        };
        let providers = listed
            .into_iter()
            .zip(stored)
            .map(|((id, provider, editable), stored)| {
                let found = credentials::find_key(
                    &id,
                    &provider,
                    |name| std::env::var(name).ok(),
                    || stored,
                );
                ProviderSetting {
                    base_url: crate::models::provider::base_url_of(&id, &provider),
                    name: provider.name.clone(),
                    npm: provider.npm.clone(),
                    models: provider.models.keys().cloned().collect(),
                    key: found.map(|found| KeyStatus {
                        source: found.source,
                        hint: key_hint(&found.key),
                    }),
                    editable,
                    id,
                }
            })
            .collect();
        Ok(ProviderSettings {
            providers,
            config_path: path.display().to_string(),
            keychain,
        })
    }

    /// Adds or changes a provider. A new key goes to the keychain first; if it cannot be stored
    /// nothing is written, so the file never names a provider whose key silently went missing.
    pub async fn save_provider(
        &self,
        input: ProviderInput,
    ) -> Result<ProviderSettings, LedgerError> {
        let checked = check_input(&input)?;
        let guard = self.settings_writes.lock().await;
        let path = self.locations().config_path.clone();
        let mut file = ConfigFile::read(&path)?;
        if let Some(key) = checked.api_key.clone() {
            let id = checked.id.clone();
            self.with_credentials(move |store| store.store(&id, &key))
                .await?;
        }
        file.apply(&checked)?;
        file.write()?;
        tracing::info!(provider = %checked.id, key_stored = checked.api_key.is_some(), "provider saved");
        drop(guard);
        self.reload_config().await?;
        self.provider_settings().await
    }

    /// Removes a provider from the config file and its key from the keychain.
    pub async fn remove_provider(
        &self,
        provider_id: &str,
    ) -> Result<ProviderSettings, LedgerError> {
        let guard = self.settings_writes.lock().await;
        let path = self.locations().config_path.clone();
        let mut file = ConfigFile::read(&path)?;
        if !file.remove_provider(provider_id)? {
            return Err(LedgerError::ProviderNotFound(provider_id.to_string()));
        }
        file.write()?;
        let id = provider_id.to_string();
        // The provider is gone from the file either way; a key left in a locked keychain only
        // comes back if a provider with the same id is added again.
        if let Err(error) = self.with_credentials(move |store| store.remove(&id)).await {
            tracing::warn!(provider = provider_id, %error, "key not removed from the keychain");
        }
        tracing::info!(provider = provider_id, "provider removed");
        drop(guard);
        self.reload_config().await?;
        self.provider_settings().await
    }

    /// Forgets a provider's key in the keychain; the provider stays.
    pub async fn remove_provider_key(
        &self,
        provider_id: &str,
    ) -> Result<ProviderSettings, LedgerError> {
        let id = provider_id.to_string();
        let removed = self
            .with_credentials(move |store| store.remove(&id))
            .await?;
        tracing::info!(provider = provider_id, removed, "provider key removed");
        self.provider_settings().await
    }

    /// Reads the config file again and rebuilds the model catalog from it. Replies already
    /// running keep the config they started with.
    pub async fn reload_config(&self) -> Result<(), LedgerError> {
        let mut config = Config::load(&self.locations().config_path)?;
        if let Some(url) = &self.detect_ollama {
            crate::models::provider::ollama::add_detected(&mut config, url).await;
        }
        if let Some(engine) = &self.local_engine {
            crate::models::provider::local_model::add_installed(&mut config, engine);
        }
        let catalog = ModelCatalog::from_config(&config);
        self.replace(Configured {
            config: Arc::new(config),
            catalog: Arc::new(catalog),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests;
