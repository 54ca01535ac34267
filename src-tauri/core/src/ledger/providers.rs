//! The models and providers handle: the agents, the model catalog and the config as they are
//! now, where the config files live, provider keys, and the settings view's providers (save,
//! remove, remove the key, reload). A feature about models or providers edits this file, not the
//! `Ledger` facade.
//!
//! The functions an adapter reaches through the operation table (`operations.rs`) follow its
//! one convention: `async`, ids as `&str`, the body by value, `Result<_, LedgerError>`.

use crate::models::agent::{Agent, AgentRegistry};
use crate::models::config::{Config, Locations};
use crate::models::credentials::FoundKey;
use crate::models::model_catalog::ModelCatalog;
use crate::models::provider_settings::{ProviderInput, ProviderSettings};
use crate::pipeline::runtime::Runtime;
use crate::reply::reply_context::ReplyContext;
use crate::wire::error::LedgerError;
use std::sync::Arc;

/// `Ledger::providers()`: borrows the runtime whose settings and agents it reads.
pub struct ProviderHandle<'ledger> {
    pub(crate) parts: &'ledger ReplyContext,
}

impl<'ledger> ProviderHandle<'ledger> {
    fn runtime(&self) -> &'ledger Arc<Runtime> {
        &self.parts.runtime
    }

    pub fn agents(&self) -> &'ledger AgentRegistry {
        &self.runtime().agents
    }

    /// The agents, as the operation table answers them (OpenCode's `GET /agent`).
    pub async fn agent_list(&self) -> Result<Vec<Agent>, LedgerError> {
        Ok(self.agents().list().into_iter().cloned().collect())
    }

    /// The engine that runs the models of provider `local` (which are loaded, their workers);
    /// `None` when local models are off.
    pub fn local_engine(&self) -> Option<Arc<crate::local_models::local_engine::LocalEngine>> {
        self.runtime().settings.local_engine.clone()
    }

    /// The model catalog now; a settings change replaces it (see `provider_settings`).
    pub fn models(&self) -> Arc<ModelCatalog> {
        self.runtime().settings.models()
    }

    /// The config now; a settings change replaces it (see `provider_settings`).
    pub fn config(&self) -> Arc<Config> {
        self.runtime().settings.config()
    }

    /// The folder new sessions work in when the caller names none.
    pub fn default_directory(&self) -> &'ledger std::path::Path {
        &self.runtime().default_directory
    }

    pub fn locations(&self) -> &'ledger Locations {
        self.runtime().settings.locations()
    }

    pub async fn provider_key(&self, provider_id: &str) -> Option<FoundKey> {
        self.runtime().settings.provider_key(provider_id).await
    }

    pub async fn provider_settings(&self) -> Result<ProviderSettings, LedgerError> {
        self.runtime().settings.provider_settings().await
    }

    pub async fn save_provider(
        &self,
        input: ProviderInput,
    ) -> Result<ProviderSettings, LedgerError> {
        self.runtime().settings.save_provider(input).await
    }

    pub async fn remove_provider(
        &self,
        provider_id: &str,
    ) -> Result<ProviderSettings, LedgerError> {
        self.parts
            .runtime
            .settings
            .remove_provider(provider_id)
            .await
    }

    pub async fn remove_provider_key(
        &self,
        provider_id: &str,
    ) -> Result<ProviderSettings, LedgerError> {
        self.parts
            .runtime
            .settings
            .remove_provider_key(provider_id)
            .await
    }

    pub async fn reload_config(&self) -> Result<(), LedgerError> {
        self.runtime().settings.reload_config().await
    }
}
