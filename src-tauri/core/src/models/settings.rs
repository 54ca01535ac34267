//! The settings a reply runs with: the config and the model catalog made from it (replaced whole
//! when the settings view changes a provider), where the config file and data live, and where
//! provider keys are kept. One per app, shared by the pipeline and the loop.

use crate::models::config::{Config, Locations};
use crate::models::credentials::CredentialStore;
use crate::models::model_catalog::ModelCatalog;
use std::sync::{Arc, RwLock};

pub struct Settings {
    configured: RwLock<Configured>,
    pub(crate) credentials: Arc<dyn CredentialStore>,
    pub(crate) locations: Locations,
    /// Where a local Ollama was looked for at start-up; looked for again on a reload.
    pub(crate) detect_ollama: Option<String>,
    /// Runs the models of provider `local`; `None` when local models are off.
    pub(crate) local_engine: Option<Arc<crate::local_models::local_engine::LocalEngine>>,
    /// One settings change at a time: each reads, edits and writes the whole config file.
    pub(crate) settings_writes: tokio::sync::Mutex<()>,
}

/// What a settings change replaces. Readers take cheap `Arc` copies, so a reply that started
/// before a change finishes with the config it started with.
#[derive(Clone)]
pub(crate) struct Configured {
    pub config: Arc<Config>,
    pub catalog: Arc<ModelCatalog>,
}

impl Settings {
    pub fn new(
        config: Config,
        credentials: Arc<dyn CredentialStore>,
        locations: Locations,
        detect_ollama: Option<String>,
        local_engine: Option<Arc<crate::local_models::local_engine::LocalEngine>>,
    ) -> Self {
        let catalog = ModelCatalog::from_config(&config);
        Self {
            configured: RwLock::new(Configured {
                config: Arc::new(config),
                catalog: Arc::new(catalog),
            }),
            credentials,
            locations,
            detect_ollama,
            local_engine,
            settings_writes: tokio::sync::Mutex::new(()),
        }
    }

    /// The model catalog now; a settings change replaces it (see `provider_settings`).
    pub fn models(&self) -> Arc<ModelCatalog> {
        self.configured().catalog
    }

    /// The config now; a settings change replaces it (see `provider_settings`).
    pub fn config(&self) -> Arc<Config> {
        self.configured().config
    }

    pub fn locations(&self) -> &Locations {
        &self.locations
    }

    pub(crate) fn configured(&self) -> Configured {
        // The lock only guards swapping two `Arc`s, which cannot panic half-way.
        self.configured
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    pub(crate) fn replace(&self, configured: Configured) {
        *self
            .configured
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = configured;
    }
}
