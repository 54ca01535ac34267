//! The data and backups handle: attachment bytes, "Back up now", inspecting and restoring a
//! backup, the automatic backups, where the data folder is and moving it, how much room the
//! sessions take, and purging deleted words from the search index. A feature of Settings → Data
//! edits this file, not the `Ledger` facade.

use crate::pipeline::runtime::Runtime;
use crate::reply::reply_context::ReplyContext;
use crate::store::rows::blob_address::Blob;
use crate::store::sqlite::disk_space::StorageUse;
use crate::store::Store;
use crate::wire::error::LedgerError;
use std::sync::Arc;

/// `Ledger::data()`: borrows the store and the runtime's data-folder settings.
pub struct DataHandle<'ledger> {
    pub(crate) parts: &'ledger ReplyContext,
}

impl DataHandle<'_> {
    fn store(&self) -> &Store {
        &self.parts.store
    }

    fn runtime(&self) -> &Arc<Runtime> {
        &self.parts.runtime
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
    ) -> Result<crate::store::backups::manual_backup::BackupSummary, LedgerError> {
        crate::store::backups::manual_backup::inspect(path).await
    }

    /// The automatic backups in `backups/`, newest first, with size and date.
    pub fn automatic_backups(
        &self,
    ) -> Result<Vec<crate::store::sqlite::upgrade_backup::BackupFile>, LedgerError> {
        crate::store::sqlite::upgrade_backup::describe(self.store().data_dir())
    }

    /// "Restore from a backup…": checks `backup` (each refusal its own error, nothing changed),
    /// backs up the ledger in use, leaves a verified copy of the backup ready and closes this
    /// ledger; the restored sessions are there once the ledger is opened again (`start_up::open`).
    pub async fn restore_from(
        &self,
        backup: &std::path::Path,
    ) -> Result<crate::store::backups::backup_restore::RestoreStaged, LedgerError> {
        self.store().writable()?;
        let keep = self
            .runtime()
            .settings
            .config()
            .backups
            .keep
            .unwrap_or(crate::store::sqlite::upgrade_backup::DEFAULT_KEEP);
        let staged = self.store().stage_restore(backup, keep).await?;
        super::close(self.parts).await;
        Ok(staged)
    }

    /// Whether a restore staged earlier still waits to be put in place: it is put in place only
    /// by an open that has the data folder to itself, and another process had it open.
    pub fn restore_waiting(&self) -> bool {
        crate::store::backups::backup_restore::is_pending(
            &self.store().data_dir().join(crate::store::DATABASE_FILE),
        )
    }

    /// Where the data folder is, what decided it, and the folder it was moved from while that
    /// old copy is still there.
    pub fn data_folder(&self) -> Result<DataFolder, LedgerError> {
        let settings = &self.runtime().data_folder;
        let pointer = match &settings.pointer_file {
            Some(file) => crate::store::data_folder::data_location::read_pointer(file)?,
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
    ) -> Result<crate::store::data_folder::data_folder_move::DataFolderMoved, LedgerError> {
        let pointer = self.pointer_file()?;
        let moved = self.store().move_to(target, &pointer).await?;
        super::close(self.parts).await;
        Ok(moved)
    }

    /// Removes the old copy a move left, once the person confirmed: only the files Dossier made
    /// there (`data_folder_move::remove_previous`); then forgets it.
    pub fn remove_previous_data_folder(
        &self,
    ) -> Result<crate::store::data_folder::data_folder_move::PreviousFolderRemoved, LedgerError>
    {
        let pointer_file = self.pointer_file()?;
        let mut pointer = crate::store::data_folder::data_location::read_pointer(&pointer_file)?
            .ok_or(LedgerError::NoPreviousDataFolder)?;
        let previous = pointer
            .previous_folder
            .take()
            .ok_or(LedgerError::NoPreviousDataFolder)?;
        let removed = crate::store::data_folder::data_folder_move::remove_previous(
            &previous,
            self.store().data_dir(),
        )?;
        crate::store::data_folder::data_location::write_pointer(&pointer_file, &pointer)?;
        Ok(removed)
    }

    /// Keeps the old copy a move left, and stops asking about it.
    pub fn keep_previous_data_folder(&self) -> Result<(), LedgerError> {
        let pointer_file = self.pointer_file()?;
        if let Some(mut pointer) =
            crate::store::data_folder::data_location::read_pointer(&pointer_file)?
        {
            if pointer.previous_folder.take().is_some() {
                crate::store::data_folder::data_location::write_pointer(&pointer_file, &pointer)?;
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

    pub async fn purge_deleted_words(&self) -> Result<usize, LedgerError> {
        self.store().purge_deleted_words().await
    }

    pub fn storage_use(&self) -> Result<StorageUse, LedgerError> {
        self.store().storage_use()
    }
}

/// Where the data folder is, for Settings → Data.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct DataFolder {
    pub folder: String,
    pub source: crate::store::data_folder::data_location::DataFolderSource,
    /// Whether "Move data folder…" can move it (not when `DOSSIER_DATA_DIR` names it).
    pub movable: bool,
    /// The folder the ledger was moved from, while its old copy is still there and the person
    /// has not yet said whether to remove it.
    pub previous_folder: Option<String>,
}
