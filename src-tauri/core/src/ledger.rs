//! The `Ledger` handle: one cheap-to-clone value holding the database pool, the event bus and
//! the resolved setup (config, agents, models, hooks). Adapters manage exactly one of these.

use crate::models::agent::{load_markdown_agents, AgentRegistry};
use crate::models::config::{Config, Locations};
use crate::models::credentials::{
    CredentialStore, InMemoryCredentials, OsKeychain, RememberedCredentials,
};
use crate::models::model_catalog::ModelCatalog;
use crate::pipeline::agent_loop::AgentLoop;
use crate::pipeline::chat_message_hook::{ChatMessageHook, CommandHook};
use crate::pipeline::mcp_resource::{McpResources, NoMcpClients};
use crate::store::database;
use crate::wire::error::LedgerError;
use crate::wire::event::EventBus;
use crate::wire::id::{Clock, IdGenerator, IdKind};
use sqlx::SqlitePool;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Clone)]
pub struct Ledger {
    pub(crate) pool: SqlitePool,
    pub(crate) events: EventBus,
    pub(crate) ids: Arc<IdGenerator>,
    pub(crate) setup: Arc<Setup>,
}

pub(crate) struct Setup {
    /// The config and the model catalog made from it; replaced whole when the settings change.
    pub configured: std::sync::RwLock<Configured>,
    pub agents: AgentRegistry,
    pub hooks: Vec<Arc<dyn ChatMessageHook>>,
    pub mcp: Arc<dyn McpResources>,
    pub agent_loop: Arc<dyn AgentLoop>,
    pub permission_requests: crate::reply::permission_request::PermissionRequests,
    pub default_directory: PathBuf,
    pub locations: Locations,
    /// Held for the ledger's life: tells other processes on the folder that we are alive.
    pub process_lock: crate::store::process_lock::ProcessLock,
    pub credentials: Arc<dyn CredentialStore>,
    /// Where a local Ollama was looked for at start-up; looked for again on a reload.
    pub detect_ollama: Option<String>,
    /// One settings change at a time: each reads, edits and writes the whole config file.
    pub settings_writes: tokio::sync::Mutex<()>,
    /// Takes deleted words out of the search index after each deletion (`search_purge`).
    pub search_purge: crate::store::search_purge::SearchPurge,
    /// Listings recently built by `messages_json`, with the version they were built from.
    pub message_listings: crate::store::message_listing_json::ListingCache,
    /// Checkpoints the write-ahead log between requests (`database`); stops when dropped.
    pub _checkpoint: database::BackgroundCheckpoint,
}

/// What a settings change replaces. Readers take cheap `Arc` copies, so a reply that started
/// before a change finishes with the config it started with.
#[derive(Clone)]
pub(crate) struct Configured {
    pub config: Arc<Config>,
    pub catalog: Arc<ModelCatalog>,
}

/// How to open a ledger. `LedgerOptions::from_env()` is what the apps use; tests set fields.
pub struct LedgerOptions {
    pub locations: Locations,
    /// Replaces reading `locations.config_path` when set.
    pub config: Option<Config>,
    pub clock: Option<Clock>,
    /// In-process `chat.message` hooks, run before the configured command hooks.
    pub hooks: Vec<Arc<dyn ChatMessageHook>>,
    pub mcp: Option<Arc<dyn McpResources>>,
    /// The agent loop; `SessionRunner` (real providers and the offline model) when absent.
    pub agent_loop: Option<Arc<dyn AgentLoop>>,
    /// The folder new sessions work in when the caller names none.
    pub default_directory: Option<PathBuf>,
    /// Where to look for a local Ollama at start-up (`None`: do not look). Its models become
    /// provider `ollama` unless the config already has one.
    pub detect_ollama: Option<String>,
    /// Where provider keys are kept: the OS keychain for the apps (`from_env`), an empty
    /// in-memory store when absent, so tests never touch the person's keychain.
    pub credentials: Option<Arc<dyn CredentialStore>>,
}

impl LedgerOptions {
    /// The apps' options: data and config from the environment, and a local Ollama looked for
    /// at `DOSSIER_OLLAMA_URL` (default 127.0.0.1:11434) unless `DOSSIER_OLLAMA=off`.
    pub fn from_env() -> Self {
        let mut options = Self::at(Locations::from_env());
        options.credentials = Some(Arc::new(RememberedCredentials::new(OsKeychain)));
        if std::env::var("DOSSIER_OLLAMA").ok().as_deref() != Some("off") {
            options.detect_ollama = Some(
                std::env::var("DOSSIER_OLLAMA_URL")
                    .unwrap_or_else(|_| crate::models::provider::ollama::DEFAULT_URL.into()),
            );
        }
        options
    }

    pub fn at(locations: Locations) -> Self {
        Self {
            locations,
            config: None,
            clock: None,
            hooks: Vec::new(),
            mcp: None,
            agent_loop: None,
            default_directory: None,
            detect_ollama: None,
            credentials: None,
        }
    }
}

pub const DATABASE_FILE: &str = "dossier.db";

impl Ledger {
    pub async fn open(options: LedgerOptions) -> Result<Self, LedgerError> {
        let mut config = match options.config {
            Some(config) => config,
            None => Config::load(&options.locations.config_path)?,
        };
        if let Some(url) = &options.detect_ollama {
            crate::models::provider::ollama::add_detected(&mut config, url).await;
        }
        let markdown_folder = options
            .locations
            .config_path
            .parent()
            .map(|folder| folder.join("agent"));
        let markdown = markdown_folder
            .as_deref()
            .map(load_markdown_agents)
            .unwrap_or_default();
        let agents = AgentRegistry::from_config(&config, &markdown)?;
        let catalog = ModelCatalog::from_config(&config);
        let mut hooks = options.hooks;
        hooks.extend(
            config
                .hooks
                .chat_message
                .iter()
                .map(|hook| Arc::new(CommandHook::from_config(hook)) as Arc<dyn ChatMessageHook>),
        );
        let (process_lock, occupancy) =
            crate::store::process_lock::ProcessLock::acquire(&options.locations.data_dir)?;
        let pool = database::open(&options.locations.data_dir.join(DATABASE_FILE)).await?;
        let ids = Arc::new(match options.clock {
            Some(clock) => IdGenerator::new(clock),
            None => IdGenerator::system(),
        });
        let default_directory = match options.default_directory {
            Some(directory) => directory,
            None => dirs::home_dir()
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(std::env::temp_dir),
        };
        let search_purge = crate::store::search_purge::SearchPurge::start(pool.clone());
        let checkpoint = database::BackgroundCheckpoint::start(pool.clone());
        let ledger = Self {
            pool,
            events: EventBus::new(ids.clone()),
            ids,
            setup: Arc::new(Setup {
                configured: std::sync::RwLock::new(Configured {
                    config: Arc::new(config),
                    catalog: Arc::new(catalog),
                }),
                agents,
                hooks,
                mcp: options.mcp.unwrap_or_else(|| Arc::new(NoMcpClients)),
                agent_loop: options.agent_loop.unwrap_or_else(|| {
                    Arc::new(crate::reply::session_runner::SessionRunner::new())
                }),
                permission_requests: Default::default(),
                default_directory,
                locations: options.locations,
                process_lock,
                credentials: options
                    .credentials
                    .unwrap_or_else(|| Arc::new(InMemoryCredentials::default())),
                detect_ollama: options.detect_ollama,
                settings_writes: tokio::sync::Mutex::new(()),
                search_purge,
                message_listings: Default::default(),
                _checkpoint: checkpoint,
            }),
        };
        // Replies a crash left open are closed before anyone can prompt — unless another
        // living process uses the folder: open replies may then be its, streaming right now.
        if occupancy == crate::store::process_lock::Occupancy::Alone {
            crate::reply::restart_sweep::close_interrupted(&ledger.pool, ledger.now()).await?;
            ledger
                .setup
                .process_lock
                .share(&ledger.setup.locations.data_dir)?;
        } else {
            tracing::info!(
                "another Dossier process uses this data folder: its open replies are left alone"
            );
        }
        Ok(ledger)
    }

    pub fn events(&self) -> &EventBus {
        &self.events
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    pub fn agents(&self) -> &AgentRegistry {
        &self.setup.agents
    }

    /// The model catalog now; a settings change replaces it (see `provider_settings`).
    pub fn models(&self) -> Arc<ModelCatalog> {
        self.configured().catalog
    }

    /// The config now; a settings change replaces it (see `provider_settings`).
    pub fn config(&self) -> Arc<Config> {
        self.configured().config
    }

    pub(crate) fn configured(&self) -> Configured {
        // The lock only guards swapping two `Arc`s, which cannot panic half-way.
        self.setup
            .configured
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The folder new sessions work in when the caller names none.
    pub fn default_directory(&self) -> &std::path::Path {
        &self.setup.default_directory
    }

    pub fn locations(&self) -> &Locations {
        &self.setup.locations
    }

    pub fn new_id(&self, kind: IdKind) -> String {
        self.ids.next(kind)
    }

    pub fn now(&self) -> i64 {
        self.ids.now_millis()
    }

    /// Attachment bytes by hash, for adapters that serve previews.
    pub async fn blob(
        &self,
        hash: &str,
    ) -> Result<Option<crate::store::blob_store::Blob>, LedgerError> {
        crate::store::blob_store::get(&self.pool, hash).await
    }

    /// Closes the pool, finishing in-flight writes; used on shutdown.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}
