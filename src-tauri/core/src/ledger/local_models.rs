//! The local models' handle: Settings → Models on this computer — the library with what is
//! installed, recommended and downloading; starting, pausing, resuming and cancelling a
//! download; deleting a model; adding a model file. Each function is one call into
//! `local_models::model_library`, reached through the operation table (`operations.rs`) with
//! its convention: `async`, ids as `&str`, the body by value, `Result<_, LedgerError>`.

use crate::local_models::installed_models::{AddModelFile, DeletedModel, InstalledModel};
use crate::local_models::model_library::{ModelLibrary, ModelLibraryView};
use crate::models::settings::Settings;
use crate::wire::error::LedgerError;
use crate::wire::model_download::ModelDownloadProgress;

/// `Ledger::local_models()`: borrows the runtime's model library, and the settings whose model
/// catalog lists the installed models (provider `local`), rebuilt when the folder changes.
pub struct LocalModelHandle<'ledger> {
    pub(crate) library: &'ledger ModelLibrary,
    pub(crate) settings: &'ledger Settings,
}

impl LocalModelHandle<'_> {
    pub async fn library(&self) -> Result<ModelLibraryView, LedgerError> {
        Ok(self.library.view())
    }

    pub async fn start_download(
        &self,
        model_id: &str,
    ) -> Result<ModelDownloadProgress, LedgerError> {
        Ok(self.library.start_download(model_id)?)
    }

    pub async fn pause_download(
        &self,
        model_id: &str,
    ) -> Result<ModelDownloadProgress, LedgerError> {
        Ok(self.library.pause_download(model_id)?)
    }

    pub async fn resume_download(
        &self,
        model_id: &str,
    ) -> Result<ModelDownloadProgress, LedgerError> {
        Ok(self.library.resume_download(model_id)?)
    }

    pub async fn cancel_download(
        &self,
        model_id: &str,
    ) -> Result<ModelDownloadProgress, LedgerError> {
        Ok(self.library.cancel_download(model_id)?)
    }

    /// Deletes a model; the model picker stops offering it at once.
    pub async fn delete_model(&self, model_id: &str) -> Result<DeletedModel, LedgerError> {
        let deleted = self.library.delete_model(model_id)?;
        self.settings.reload_config().await?;
        Ok(deleted)
    }

    /// Adds a model file the person chose (the open dialog, or a `.gguf` dropped on the window).
    pub async fn add_model_file(&self, file: AddModelFile) -> Result<InstalledModel, LedgerError> {
        let library = self.library.clone();
        // Copying a gigabyte is blocking work; keep it off the async workers.
        let added = tokio::task::spawn_blocking(move || library.add_model_file(&file))
            .await
            .map_err(|error| LedgerError::InvalidRequest(error.to_string()))?
            .map_err(LedgerError::from)?;
        // The model picker offers it at once (and, if it is the first, new sessions use it).
        self.settings.reload_config().await?;
        Ok(added)
    }

    /// The library itself, for the app's shutdown and the tests.
    pub fn model_library(&self) -> &ModelLibrary {
        self.library
    }
}
