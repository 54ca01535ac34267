//! The `Ledger` facade: one cheap-to-clone value the adapters hold — the store handle on one
//! side, the runtime (settings, agents, hooks, MCP, the agent loop) on the other, and the
//! permission requests the loop's tool calls wait on. It is assembled by `start_up` and builds
//! nothing itself. Its operations live on per-floor handles in `ledger/`, so a feature edits its
//! own floor's handle: `ledger.sessions()` (sessions, messages, prompts), `ledger.reshaping()`,
//! `ledger.replies()`, `ledger.mcp()`, `ledger.providers()` (models and providers) and
//! `ledger.data()` (data and backups). What stays here is the assembly and what every floor shares.

use crate::pipeline::runtime::Runtime;
use crate::reply::reply_context::ReplyContext;
use crate::store::{Pool, Store};
use crate::wire::event::EventBus;
use crate::wire::id::IdKind;
use std::sync::Arc;

pub mod data;
pub mod local_models;
pub mod mcp;
pub mod providers;
pub mod replies;
pub mod reshaping;
pub mod sessions;

pub use data::DataFolder;
use data::DataHandle;
use local_models::LocalModelHandle;
use mcp::McpHandle;
use providers::ProviderHandle;
use replies::ReplyHandle;
use reshaping::ReshapingHandle;
use sessions::SessionHandle;

/// Holds what the top floor runs with — the store, the runtime and the permission requests —
/// and nothing else.
#[derive(Clone)]
pub struct Ledger {
    parts: ReplyContext,
}

impl Ledger {
    /// A ledger over parts assembled elsewhere (see `start_up`); the loop in their runtime is
    /// whatever the assembler chose.
    pub fn new(parts: ReplyContext) -> Self {
        Self { parts }
    }

    pub fn store(&self) -> &Store {
        &self.parts.store
    }

    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.parts.runtime
    }

    /// Sessions and messages: create, list, rename, archive, delete, read, search, and prompt
    /// (`ledger/sessions.rs`).
    pub fn sessions(&self) -> SessionHandle<'_> {
        SessionHandle { parts: &self.parts }
    }

    /// Reshaping: fork, revert, resend, regenerate, edit and delete, export and import
    /// (`ledger/reshaping.rs`).
    pub fn reshaping(&self) -> ReshapingHandle<'_> {
        ReshapingHandle { parts: &self.parts }
    }

    /// Replies: stopping and continuing them, their statuses, summaries, permission questions
    /// (`ledger/replies.rs`).
    pub fn replies(&self) -> ReplyHandle<'_> {
        ReplyHandle { parts: &self.parts }
    }

    /// MCP servers: their lifecycle, settings and offers (`ledger/mcp.rs`).
    pub fn mcp(&self) -> McpHandle<'_> {
        McpHandle {
            runtime: &self.parts.runtime,
        }
    }

    /// Models and providers: agents, the catalog, the config, provider keys and settings
    /// (`ledger/providers.rs`).
    pub fn providers(&self) -> ProviderHandle<'_> {
        ProviderHandle { parts: &self.parts }
    }

    /// Models on this computer: the library, downloads, installed model files
    /// (`ledger/local_models.rs`).
    pub fn local_models(&self) -> LocalModelHandle<'_> {
        LocalModelHandle {
            library: &self.parts.runtime.model_library,
            settings: &self.parts.runtime.settings,
        }
    }

    /// Data and backups: back up, restore, the data folder, storage use (`ledger/data.rs`).
    pub fn data(&self) -> DataHandle<'_> {
        DataHandle { parts: &self.parts }
    }

    /// Why the ledger is open read-only (a newer Dossier's database), when it is; every write
    /// is then refused with `LedgerError::ReadOnly`.
    pub fn read_only(&self) -> Option<&crate::store::sqlite::read_only_open::ReadOnlyLedger> {
        self.store().read_only()
    }

    pub fn events(&self) -> &EventBus {
        self.store().events()
    }

    pub fn pool(&self) -> &Pool {
        self.store().pool()
    }

    pub fn new_id(&self, kind: IdKind) -> String {
        self.store().new_id(kind)
    }

    pub fn now(&self) -> i64 {
        self.store().now()
    }

    /// Stops the MCP servers (their children end) and closes the pool, finishing in-flight
    /// writes; used on shutdown.
    pub async fn close(&self) {
        close(&self.parts).await;
    }
}

/// `Ledger::close`, for the handles that close the ledger after their work (a restore, a move).
async fn close(parts: &ReplyContext) {
    parts.runtime.mcp_servers.shutdown().await;
    parts.store.close().await;
}
