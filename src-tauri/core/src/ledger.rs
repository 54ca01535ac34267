//! The `Ledger` facade: one cheap-to-clone value the adapters hold — the store handle on one
//! side, the runtime (settings, agents, hooks, MCP, the agent loop) on the other, and the
//! permission requests the loop's tool calls wait on. It is assembled by `start_up` and builds
//! nothing itself; each method hands the call to the floor that owns it, so adapters' calls stay
//! one line.

use crate::models::agent::AgentRegistry;
use crate::models::config::{Config, Locations};
use crate::models::credentials::FoundKey;
use crate::models::model_catalog::ModelCatalog;
use crate::models::provider_settings::{ProviderInput, ProviderSettings};
use crate::pipeline::runtime::Runtime;
use crate::pipeline::Pipeline;
use crate::reply::reply_context::ReplyContext;
use crate::reshaping::export::SessionExport;
use crate::reshaping::export_file::ExportFileKind;
use crate::reshaping::Reshaping;
use crate::store::blob_store::Blob;
use crate::store::disk_space::StorageUse;
use crate::store::message_listing_json::MessagePageJson;
use crate::store::message_store::{MessagePage, MessageQuery};
use crate::store::search::{SearchQuery, SearchResult};
use crate::store::session_store::{SessionPage, SessionQuery};
use crate::store::{Pool, Store};
use crate::wire::draft::PromptInput;
use crate::wire::error::LedgerError;
use crate::wire::event::EventBus;
use crate::wire::id::IdKind;
use crate::wire::message::MessageWithParts;
use crate::wire::part::Part;
use crate::wire::reader_time::ReaderTimeZone;
use crate::wire::session::{CreateSession, Session, SessionPatch};
use std::sync::Arc;

pub mod mcp;
pub mod replies;

use mcp::McpHandle;
use replies::ReplyHandle;

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

    fn pipeline(&self) -> Pipeline<'_> {
        self.parts.pipeline()
    }

    fn reshaping(&self) -> Reshaping<'_> {
        Reshaping {
            store: &self.parts.store,
            runtime: &self.parts.runtime,
        }
    }

    /// MCP servers: their lifecycle, settings and offers (`ledger/mcp.rs`).
    pub fn mcp(&self) -> McpHandle<'_> {
        McpHandle {
            runtime: &self.parts.runtime,
        }
    }

    /// Replies: stopping them, their statuses, summaries, permission questions
    /// (`ledger/replies.rs`).
    pub fn replies(&self) -> ReplyHandle<'_> {
        ReplyHandle { parts: &self.parts }
    }

    // The store.

    /// Why the ledger is open read-only (a newer Dossier's database), when it is; every write
    /// below is then refused with `LedgerError::ReadOnly`.
    pub fn read_only(&self) -> Option<&crate::store::read_only_open::ReadOnlyLedger> {
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

    /// Attachment bytes by hash, for adapters that serve previews.
    pub async fn blob(&self, hash: &str) -> Result<Option<Blob>, LedgerError> {
        self.store().blob(hash).await
    }

    /// "Back up now": a consistent copy of the ledger, attachments included, at `target`.
    pub async fn back_up_to(&self, target: &std::path::Path) -> Result<(), LedgerError> {
        self.store().back_up_to(target).await
    }

    /// Whether `path` is a whole Dossier backup this build can open (each refusal its own error).
    pub async fn inspect_backup(
        &self,
        path: &std::path::Path,
    ) -> Result<crate::store::manual_backup::BackupSummary, LedgerError> {
        crate::store::manual_backup::inspect(path).await
    }

    /// The automatic backups in `backups/`, newest first, with size and date.
    pub fn automatic_backups(
        &self,
    ) -> Result<Vec<crate::store::upgrade_backup::BackupFile>, LedgerError> {
        crate::store::upgrade_backup::describe(self.store().data_dir())
    }

    /// "Restore from a backup…": checks `backup` (each refusal its own error, nothing changed),
    /// backs up the ledger in use, leaves a verified copy of the backup ready and closes this
    /// ledger; the restored sessions are there once the ledger is opened again (`start_up::open`).
    pub async fn restore_from(
        &self,
        backup: &std::path::Path,
    ) -> Result<crate::store::backup_restore::RestoreStaged, LedgerError> {
        self.store().writable()?;
        let keep = self
            .runtime()
            .settings
            .config()
            .backups
            .keep
            .unwrap_or(crate::store::upgrade_backup::DEFAULT_KEEP);
        let staged = self.store().stage_restore(backup, keep).await?;
        self.close().await;
        Ok(staged)
    }

    /// Whether a restore staged earlier still waits to be put in place: it is put in place only
    /// by an open that has the data folder to itself, and another process had it open.
    pub fn restore_waiting(&self) -> bool {
        crate::store::backup_restore::is_pending(
            &self.store().data_dir().join(crate::store::DATABASE_FILE),
        )
    }

    /// Where the data folder is, what decided it, and the folder it was moved from while that
    /// old copy is still there.
    pub fn data_folder(&self) -> Result<DataFolder, LedgerError> {
        let settings = &self.runtime().data_folder;
        let pointer = match &settings.pointer_file {
            Some(file) => crate::store::data_location::read_pointer(file)?,
            None => None,
        };
        let previous = pointer
            .and_then(|pointer| pointer.previous_folder)
            .filter(|folder| folder.exists());
        Ok(DataFolder {
            folder: self.store().data_dir().display().to_string(),
            source: settings.source,
            movable: settings.pointer_file.is_some(),
            previous_folder: previous.map(|folder| folder.display().to_string()),
        })
    }

    /// "Move data folder…": copies the ledger and its automatic backups to `target`, verifies
    /// the copy, records the folder for every later start, and closes this ledger (the new one is
    /// opened at the next start). Refusals (the folder in use or inside it, a folder with other
    /// files, read-only, too small, another process on the folder) change nothing.
    pub async fn move_data_folder(
        &self,
        target: &std::path::Path,
    ) -> Result<crate::store::data_folder_move::DataFolderMoved, LedgerError> {
        let pointer = self.pointer_file()?;
        let moved = self.store().move_to(target, &pointer).await?;
        self.close().await;
        Ok(moved)
    }

    /// Removes the old copy a move left, once the person confirmed: only the files Dossier made
    /// there (`data_folder_move::remove_previous`); then forgets it.
    pub fn remove_previous_data_folder(
        &self,
    ) -> Result<crate::store::data_folder_move::PreviousFolderRemoved, LedgerError> {
        let pointer_file = self.pointer_file()?;
        let mut pointer = crate::store::data_location::read_pointer(&pointer_file)?
            .ok_or(LedgerError::NoPreviousDataFolder)?;
        let previous = pointer
            .previous_folder
            .take()
            .ok_or(LedgerError::NoPreviousDataFolder)?;
        let removed =
            crate::store::data_folder_move::remove_previous(&previous, self.store().data_dir())?;
        crate::store::data_location::write_pointer(&pointer_file, &pointer)?;
        Ok(removed)
    }

    /// Keeps the old copy a move left, and stops asking about it.
    pub fn keep_previous_data_folder(&self) -> Result<(), LedgerError> {
        let pointer_file = self.pointer_file()?;
        if let Some(mut pointer) = crate::store::data_location::read_pointer(&pointer_file)? {
            if pointer.previous_folder.take().is_some() {
                crate::store::data_location::write_pointer(&pointer_file, &pointer)?;
            }
        }
        Ok(())
    }

    fn pointer_file(&self) -> Result<std::path::PathBuf, LedgerError> {
        self.runtime()
            .data_folder
            .pointer_file
            .clone()
            .ok_or_else(|| LedgerError::DataFolderSetByEnvironment {
                folder: self.store().data_dir().display().to_string(),
            })
    }

    /// Stops the MCP servers (their children end) and closes the pool, finishing in-flight
    /// writes; used on shutdown.
    pub async fn close(&self) {
        self.runtime().mcp_servers.shutdown().await;
        self.store().close().await;
    }

    pub async fn create_session(&self, input: CreateSession) -> Result<Session, LedgerError> {
        self.create_session_by_token(input, None).await
    }

    /// A new session that records the name of the access token its creator used (a shared
    /// server's `POST /session`); `None` is `create_session`.
    pub async fn create_session_by_token(
        &self,
        input: CreateSession,
        created_by_token: Option<String>,
    ) -> Result<Session, LedgerError> {
        self.store().writable()?;
        if let Some(agent) = &input.agent {
            self.runtime().agents.require(agent)?;
        }
        self.parts
            .store
            .create_session(input, &self.runtime().default_directory, created_by_token)
            .await
    }

    pub async fn session(&self, id: &str) -> Result<Session, LedgerError> {
        self.store().session(id).await
    }

    pub async fn sessions(&self, query: &SessionQuery) -> Result<SessionPage, LedgerError> {
        self.store().sessions(query).await
    }

    pub async fn children(&self, id: &str) -> Result<Vec<Session>, LedgerError> {
        self.store().children(id).await
    }

    pub async fn update_session(
        &self,
        id: &str,
        patch: SessionPatch,
    ) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.store().update_session(id, patch).await
    }

    /// Archives the session now (the core's clock), or brings it back.
    pub async fn archive_session(&self, id: &str, archived: bool) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.store().archive_session(id, archived).await
    }

    pub async fn delete_session(&self, id: &str) -> Result<(), LedgerError> {
        self.store().writable()?;
        let removed = self.store().delete_session(id).await?;
        for session in &removed {
            // A reply still streaming into a deleted session has nowhere left to write.
            self.replies().abort(&session.id);
        }
        self.store().announce_deleted(removed).await;
        Ok(())
    }

    pub async fn messages(
        &self,
        session_id: &str,
        query: &MessageQuery,
    ) -> Result<MessagePage, LedgerError> {
        self.store().messages(session_id, query).await
    }

    pub async fn messages_json(
        &self,
        session_id: &str,
        query: &MessageQuery,
    ) -> Result<MessagePageJson, LedgerError> {
        self.store().messages_json(session_id, query).await
    }

    pub async fn message(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<MessageWithParts, LedgerError> {
        self.store().message(session_id, message_id).await
    }

    pub async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchResult>, LedgerError> {
        self.store().search(query).await
    }

    pub async fn purge_deleted_words(&self) -> Result<usize, LedgerError> {
        self.store().purge_deleted_words().await
    }

    pub fn storage_use(&self) -> Result<StorageUse, LedgerError> {
        self.store().storage_use()
    }

    // The settings and the agents.

    pub fn agents(&self) -> &AgentRegistry {
        &self.runtime().agents
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
    pub fn default_directory(&self) -> &std::path::Path {
        &self.runtime().default_directory
    }

    pub fn locations(&self) -> &Locations {
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

    // The pipeline.

    pub async fn prompt(
        &self,
        session_id: &str,
        input: PromptInput,
    ) -> Result<MessageWithParts, LedgerError> {
        self.store().writable()?;
        self.pipeline().prompt(session_id, input).await
    }

    /// A prompt nobody waits for (`prompt_async`): failures are published as `session.error`
    /// once; the error is returned for the caller's log.
    pub async fn prompt_in_background(
        &self,
        session_id: &str,
        input: PromptInput,
    ) -> Result<(), LedgerError> {
        self.store().writable()?;
        self.pipeline()
            .prompt_in_background(session_id, input)
            .await
    }

    // Reshaping.

    pub async fn fork_session(
        &self,
        session_id: &str,
        message_id: Option<&str>,
    ) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping().fork_session(session_id, message_id).await
    }

    pub async fn revert(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: Option<&str>,
    ) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .revert(session_id, message_id, part_id)
            .await
    }

    pub async fn unrevert(&self, session_id: &str) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping().unrevert(session_id).await
    }

    pub async fn resend(
        &self,
        session_id: &str,
        message_id: &str,
        edited: Option<&str>,
        no_reply: bool,
    ) -> Result<MessageWithParts, LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .resend(session_id, message_id, edited, no_reply)
            .await
    }

    pub async fn regenerate(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<MessageWithParts, LedgerError> {
        self.store().writable()?;
        self.reshaping().regenerate(session_id, message_id).await
    }

    pub async fn delete_message(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<(), LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .delete_message(session_id, message_id)
            .await
    }

    pub async fn delete_part(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
    ) -> Result<(), LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .delete_part(session_id, message_id, part_id)
            .await
    }

    pub async fn update_part(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
        part: Part,
    ) -> Result<Part, LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .update_part(session_id, message_id, part_id, part)
            .await
    }

    pub async fn export_json(&self, session_id: &str) -> Result<SessionExport, LedgerError> {
        self.reshaping().export_json(session_id).await
    }

    /// The readable export, its times in the reader's `zone`.
    pub async fn export_markdown(
        &self,
        session_id: &str,
        zone: ReaderTimeZone,
    ) -> Result<String, LedgerError> {
        self.reshaping().export_markdown(session_id, zone).await
    }

    /// Writes the export whole to `path` (a path the person chose).
    pub async fn write_export(
        &self,
        session_id: &str,
        kind: ExportFileKind,
        path: &std::path::Path,
    ) -> Result<(), LedgerError> {
        self.reshaping().write_export(session_id, kind, path).await
    }

    /// Imports the export file at `path` (a path the person chose) as a new session.
    pub async fn import_file(&self, path: &std::path::Path) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping().import_file(path).await
    }

    pub async fn import_session(
        &self,
        document: serde_json::Value,
    ) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping().import_session(document).await
    }
}

/// Where the data folder is, for Settings → Data.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct DataFolder {
    pub folder: String,
    pub source: crate::store::data_location::DataFolderSource,
    /// Whether "Move data folder…" can move it (not when `DOSSIER_DATA_DIR` names it).
    pub movable: bool,
    /// The folder the ledger was moved from, while its old copy is still there and the person
    /// has not yet said whether to remove it.
    pub previous_folder: Option<String>,
}
