//! Start-up: assembles a `Ledger` from `LedgerOptions` — opens the store, reads the config,
//! loads the agents, chains the hooks, picks the agent loop (the `SessionRunner` unless the
//! options bring one) and closes replies a crash left open. The adapters' start-up (the server's
//! `main`, the app's setup) and the tests' support call `open`; nothing below the crate root
//! builds the loop.

use crate::ledger::Ledger;
use crate::local_models::model_library::ModelLibrary;
use crate::mcp::mcp_servers::McpServers;
use crate::models::agent::{load_markdown_agents, AgentRegistry};
use crate::models::config::{Config, Locations};
use crate::models::credentials::{
    CredentialStore, InMemoryCredentials, OsKeychain, RememberedCredentials,
};
use crate::models::settings::Settings;
use crate::pipeline::agent_loop::AgentLoop;
use crate::pipeline::chat_message_hook::{ChatMessageHook, CommandHook};
use crate::pipeline::mcp_resource::McpResources;
use crate::pipeline::runtime::Runtime;
use crate::reply::permission_request::PermissionRequests;
use crate::reply::reply_context::ReplyContext;
use crate::reply::session_runner::SessionRunner;
use crate::store::data_folder::data_location::DataFolderSettings;
use crate::store::data_folder::process_lock::Occupancy;
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::id::Clock;
use std::path::PathBuf;
use std::sync::Arc;

/// How to open a ledger. `LedgerOptions::from_env()` is what the apps use; tests set fields.
pub struct LedgerOptions {
    pub locations: Locations,
    /// Replaces reading `locations.config_path` when set.
    pub config: Option<Config>,
    pub clock: Option<Clock>,
    /// In-process `chat.message` hooks, run before the configured command hooks.
    pub hooks: Vec<Arc<dyn ChatMessageHook>>,
    /// Where MCP resources in prompts are read; the configured MCP servers when absent.
    pub mcp: Option<Arc<dyn McpResources>>,
    /// The agent loop; `SessionRunner` (real providers and the offline model) when absent.
    pub agent_loop: Option<Arc<dyn AgentLoop>>,
    /// The folder new sessions work in when the caller names none.
    pub default_directory: Option<PathBuf>,
    /// Where to look for a local Ollama at start-up (`None`: do not look). Its models become
    /// provider `ollama` unless the config already has one.
    pub detect_ollama: Option<String>,
    /// Models run on this computer (provider `local`): the models folder, the worker, the idle
    /// time. `None`: no local models (the config's `local_models.models_dir` still turns them on).
    /// `from_env` uses `<data folder>/models` (`DOSSIER_MODELS_DIR` overrides it).
    pub local_models: Option<crate::local_models::local_engine::LocalEngineOptions>,
    /// Where provider keys are kept: the OS keychain for the apps (`from_env`), an empty
    /// in-memory store when absent, so tests never touch the person's keychain.
    pub credentials: Option<Arc<dyn CredentialStore>>,
    /// How `locations.data_dir` was settled: `from_env` reads the variable and the pointer file
    /// (and adopts an earlier release's folder); `at` takes the folder as given.
    pub data_folder: DataFolderSettings,
    /// Opens the ledger without writing to it (`store::sqlite::read_only_open`): the desktop app's
    /// "Open read-only" for a database a newer Dossier wrote. No restart sweep, no MCP servers
    /// (nothing can be prompted), and every write through the facade is refused.
    pub read_only: bool,
    /// A PostgreSQL database to keep the ledger in (`postgres://…`) instead of the SQLite file
    /// in `locations.data_dir` (`Store::open_postgres`).
    pub database_url: Option<String>,
    /// On PostgreSQL, how long a reply's lease lasts unrenewed: how soon another server closes
    /// the reply of a server that died (`reply::reply_lease`). `DOSSIER_REPLY_LEASE_SECONDS`
    /// in `from_env`; 30 seconds when absent.
    pub reply_lease: Option<std::time::Duration>,
    /// The folder of local models (`*.gguf`); `<data folder>/models` when absent.
    pub models_folder: Option<PathBuf>,
    /// Where library models are downloaded from: Hugging Face unless set
    /// (`DOSSIER_MODEL_LIBRARY_URL` in `from_env`; a loopback server in tests).
    pub model_library_url: Option<String>,
    /// How patient model downloads are; the defaults when absent (tests shorten them).
    pub model_download_timing: Option<crate::local_models::download_transfer::DownloadTiming>,
    /// The library's models instead of the built-in list (`DOSSIER_MODEL_LIBRARY_FILE`, a file
    /// shaped like `local-model-library.json`, in `from_env`): tests offer small fake models.
    pub model_library_entries: Option<Vec<crate::local_models::library::LibraryEntry>>,
}

impl LedgerOptions {
    /// The apps' options: data and config from the environment, and a local Ollama looked for
    /// at `DOSSIER_OLLAMA_URL` (default 127.0.0.1:11434) unless `DOSSIER_OLLAMA=off`.
    pub fn from_env() -> Self {
        let (data_dir, data_folder) = crate::store::data_folder::data_location::from_env();
        let mut options = Self::at(Locations {
            data_dir,
            ..Locations::from_env()
        });
        options.data_folder = data_folder;
        let models_dir = std::env::var_os("DOSSIER_MODELS_DIR")
            .filter(|value| !value.is_empty())
            .map_or_else(|| options.locations.data_dir.join("models"), PathBuf::from);
        options.local_models = Some(crate::local_models::local_engine::LocalEngineOptions::new(
            models_dir,
        ));
        options.reply_lease = std::env::var("DOSSIER_REPLY_LEASE_SECONDS")
            .ok()
            .and_then(|seconds| seconds.trim().parse::<f64>().ok())
            .filter(|seconds| seconds.is_finite() && *seconds >= 1.0)
            .map(std::time::Duration::from_secs_f64);
        options.model_library_url = std::env::var("DOSSIER_MODEL_LIBRARY_URL")
            .ok()
            .filter(|url| !url.trim().is_empty());
        if let Some(path) = std::env::var_os("DOSSIER_MODEL_LIBRARY_FILE") {
            match std::fs::read_to_string(&path)
                .map_err(|error| error.to_string())
                .and_then(|text| {
                    crate::local_models::library::parse_library(&text)
                        .map_err(|error| error.to_string())
                }) {
                Ok(entries) => options.model_library_entries = Some(entries),
                Err(error) => tracing::warn!(
                    "DOSSIER_MODEL_LIBRARY_FILE {}: {error}; using the built-in library",
                    std::path::Path::new(&path).display()
                ),
            }
        }
        options.credentials = Some(Arc::new(RememberedCredentials::new(
            OsKeychain::PROVIDER_KEYS,
        )));
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
            local_models: None,
            credentials: None,
            data_folder: DataFolderSettings::named(),
            read_only: false,
            database_url: None,
            reply_lease: None,
            models_folder: None,
            model_library_url: None,
            model_download_timing: None,
            model_library_entries: None,
        }
    }
}

/// The start-up page's "Restore the newest good backup", for a ledger `open` refused as damaged:
/// leaves a verified copy of `backup` ready (`backup_restore::stage_over_damaged`, the damaged
/// file kept in `damaged/`), then opens the ledger, which puts the copy in place as any staged
/// restore. Every refusal comes before anything in the data folder is replaced.
pub async fn restore_damaged(
    options: LedgerOptions,
    backup: &std::path::Path,
) -> Result<Ledger, LedgerError> {
    let database = options.locations.data_dir.join(crate::store::DATABASE_FILE);
    crate::store::backups::backup_restore::stage_over_damaged(&database, backup).await?;
    open(options).await
}

/// The local engine's options: the caller's, with the config's `local_models` section on top (its
/// `models_dir` turns local models on even when the caller did not).
fn local_engine_options(
    given: Option<crate::local_models::local_engine::LocalEngineOptions>,
    config: &Config,
) -> Option<crate::local_models::local_engine::LocalEngineOptions> {
    let section = &config.local_models;
    let mut options = match (&section.models_dir, given) {
        (Some(folder), Some(mut given)) => {
            given.models_dir = folder.clone();
            given
        }
        (Some(folder), None) => {
            crate::local_models::local_engine::LocalEngineOptions::new(folder.clone())
        }
        (None, given) => given?,
    };
    if let Some(seconds) = section
        .idle_unload_seconds
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
    {
        options.idle_unload = std::time::Duration::from_secs_f64(seconds);
    }
    options.context_length = section.context_length.or(options.context_length);
    options.threads = section.threads.or(options.threads);
    Some(options)
}

/// Opens the store and assembles the runtime around it.
pub async fn open(mut options: LedgerOptions) -> Result<Ledger, LedgerError> {
    let mut config = match options.config {
        Some(config) => config,
        None => Config::load(&options.locations.config_path)?,
    };
    if let Some(url) = &options.detect_ollama {
        crate::models::provider::ollama::add_detected(&mut config, url).await;
    }
    let local_engine = local_engine_options(options.local_models.take(), &config)
        .map(crate::local_models::local_engine::LocalEngine::new);
    if let Some(engine) = &local_engine {
        crate::models::provider::local_model::add_installed(&mut config, engine);
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
    let mut hooks = options.hooks;
    hooks.extend(
        config
            .hooks
            .chat_message
            .iter()
            .map(|hook| Arc::new(CommandHook::from_config(hook)) as Arc<dyn ChatMessageHook>),
    );
    let keep_backups = config
        .backups
        .keep
        .unwrap_or(crate::store::sqlite::upgrade_backup::DEFAULT_KEEP);
    let (store, occupancy) = if let Some(url) = &options.database_url {
        Store::open_postgres(
            url,
            &options.locations.data_dir,
            options.clock,
            options.reply_lease,
        )
        .await?
    } else if options.read_only {
        // Nothing is adopted or created: the refused open before this one already settled the
        // folder, and a read-only open writes nothing.
        let store = Store::open_read_only(&options.locations.data_dir, options.clock).await?;
        // Shared: `open_read_only` never sweeps, and has already let others in.
        (store, Occupancy::Shared)
    } else {
        // Before the store creates anything: the folder must be the one the sessions are in.
        crate::store::data_folder::data_folder_adoption::settle(
            &options.locations.data_dir,
            &options.data_folder,
            keep_backups,
        )
        .await?;
        Store::open(&options.locations.data_dir, options.clock, keep_backups).await?
    };
    let default_directory = match options.default_directory {
        Some(directory) => directory,
        None => dirs::home_dir()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(std::env::temp_dir),
    };
    let (agent_loop, permission_requests) = match options.agent_loop {
        Some(agent_loop) => (agent_loop, Arc::new(PermissionRequests::default())),
        None => {
            let runner = SessionRunner::new();
            let requests = runner.permission_requests();
            (Arc::new(runner) as Arc<dyn AgentLoop>, requests)
        }
    };
    let credentials = options
        .credentials
        .unwrap_or_else(|| Arc::new(InMemoryCredentials::default()));
    // The servers start in the background: opening the ledger never waits for them.
    let no_servers = indexmap::IndexMap::new();
    let mcp_servers = Arc::new(McpServers::start(
        if options.read_only {
            &no_servers
        } else {
            &config.mcp
        },
        store.events.clone(),
        credentials.clone(),
    ));
    let library_entries = match options.model_library_entries {
        Some(entries) => entries,
        None => crate::local_models::library::curated_library()?,
    };
    let model_library = ModelLibrary::open(
        library_entries,
        // One models folder: the library downloads into the folder the engine runs from.
        options
            .models_folder
            .or_else(|| {
                local_engine
                    .as_ref()
                    .map(|engine| engine.options().models_dir.clone())
            })
            .unwrap_or_else(|| options.locations.data_dir.join("models")),
        options
            .model_library_url
            .unwrap_or_else(|| crate::local_models::library::DEFAULT_BASE_URL.to_string()),
        store.events.clone(),
        crate::models::provider::http_client::http_client(),
        options.model_download_timing.unwrap_or_default(),
        !options.read_only,
    );
    let runtime = Runtime {
        model_library,
        settings: Settings::new(
            config,
            credentials,
            options.locations,
            options.detect_ollama,
            local_engine,
        ),
        agents,
        hooks,
        mcp: options
            .mcp
            .unwrap_or_else(|| mcp_servers.clone() as Arc<dyn McpResources>),
        mcp_servers,
        agent_loop,
        default_directory,
        data_folder: options.data_folder,
    };
    // Replies a crash left open are closed before anyone can prompt — unless another living
    // process uses the folder: open replies may then be its, streaming right now.
    if options.read_only {
        tracing::info!("the ledger is open read-only: nothing in it will be changed");
    } else if occupancy == Occupancy::Alone {
        crate::reply::restart_sweep::close_interrupted(&store, store.now()).await?;
        store.share_folder()?;
    } else if store.shared().is_some() {
        // Several servers may share the database: replies are leased, and this server closes
        // those whose server stopped renewing them (from now on, every third of a lease).
        let agent_loop = runtime.agent_loop.clone();
        crate::reply::reply_lease::keep_leases(store.clone(), move |session_id| {
            agent_loop.is_busy(session_id)
        });
        // Stop asked on another server for a reply this one runs.
        crate::reply::reply_lease::stop_when_other_servers_ask(&store, runtime.agent_loop.clone());
        // An answer given on another server to a question one of this server's replies asked.
        if let Some(answers) = store.permission_answers() {
            tokio::spawn(
                crate::reply::permission_request::take_answers_from_other_servers(
                    store.clone(),
                    permission_requests.clone(),
                    answers,
                ),
            );
        }
    } else {
        tracing::info!(
            "another Dossier process uses this data folder: its open replies are left alone"
        );
    }
    let runtime = Arc::new(runtime);
    offer_downloaded_models(&runtime);
    Ok(Ledger::new(ReplyContext::new(
        store,
        runtime,
        permission_requests,
    )))
}

/// A model whose download finished (in the background, after the request that started it) is
/// offered in the model picker at once: the catalog is rebuilt from the models folder. Woken by
/// installs only: a listener on the ledger's events would wake for every one of them, six for
/// each prompt.
fn offer_downloaded_models(runtime: &Arc<Runtime>) {
    let mut installs = runtime.model_library.installs();
    let runtime = Arc::downgrade(runtime);
    tokio::spawn(async move {
        // Ends with the library, whose downloads hold the sending side.
        while installs.changed().await.is_ok() {
            let Some(runtime) = runtime.upgrade() else {
                return;
            };
            if let Err(error) = runtime.settings.reload_config().await {
                tracing::warn!("the model list was not refreshed after a download: {error}");
            }
        }
    });
}
