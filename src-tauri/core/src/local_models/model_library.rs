//! The `ModelLibrary` handle: the models folder, the curated list, the base URL downloads come
//! from, and the downloads under way — one cheap-to-clone value the runtime holds. Its view is
//! what Settings → Models on this computer shows: each library model with whether it is
//! installed, recommended or downloading, the other files in the folder, and the figures the
//! recommendation used.

use crate::local_models::computer_memory::computer_memory;
use crate::local_models::download::Downloads;
use crate::local_models::download_record::DownloadRecord;
use crate::local_models::download_transfer::DownloadTiming;
use crate::local_models::installed_models::{
    self, check_model_id, AddModelFile, DeletedModel, InstalledModel,
};
use crate::local_models::library::LibraryEntry;
use crate::local_models::local_model_error::LocalModelError;
use crate::local_models::recommendation::recommended_model;
use crate::wire::event::EventBus;
use crate::wire::model_download::ModelDownloadProgress;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use ts_rs::TS;

#[derive(Clone)]
pub struct ModelLibrary {
    inner: Arc<ModelLibraryInner>,
}

struct ModelLibraryInner {
    entries: Vec<LibraryEntry>,
    base_url: String,
    downloads: Downloads,
}

/// Settings → Models on this computer.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ModelLibraryView {
    pub models_folder: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub total_memory_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub free_disk_bytes: Option<u64>,
    /// The library model recommended for this computer, if any fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub recommended_model_id: Option<String>,
    pub library: Vec<LibraryModel>,
    /// Installed files that are not library models (added by the person).
    pub other_installed: Vec<InstalledModel>,
}

/// One library model as the view shows it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct LibraryModel {
    pub entry: LibraryEntry,
    pub installed: bool,
    pub recommended: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub download: Option<ModelDownloadProgress>,
}

impl ModelLibrary {
    /// The library over `folder`, downloading from `base_url` (Hugging Face unless a test or
    /// the environment says otherwise). Takes up downloads a previous run left unfinished
    /// unless `resume` is false (a read-only ledger starts nothing).
    pub fn open(
        entries: Vec<LibraryEntry>,
        folder: PathBuf,
        base_url: String,
        events: EventBus,
        client: reqwest::Client,
        timing: DownloadTiming,
        resume: bool,
    ) -> Self {
        let library = Self {
            inner: Arc::new(ModelLibraryInner {
                entries,
                base_url,
                downloads: Downloads::new(folder, events, client, timing),
            }),
        };
        if resume {
            library.inner.downloads.resume_unfinished();
        }
        library
    }

    pub fn folder(&self) -> &Path {
        self.inner.downloads.folder()
    }

    /// Changes each time a download is installed.
    pub fn installs(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.downloads.installs()
    }

    pub fn entries(&self) -> &[LibraryEntry] {
        &self.inner.entries
    }

    pub fn view(&self) -> ModelLibraryView {
        let folder = self.folder();
        let total_memory_bytes = computer_memory().map(|memory| memory.total_bytes);
        let free_disk_bytes = crate::store::data_folder::data_folder_move::available_space(folder);
        let recommended =
            recommended_model(&self.inner.entries, total_memory_bytes, free_disk_bytes)
                .map(|entry| entry.id.clone());
        let installed = installed_models::installed_models(folder);
        let library = self
            .inner
            .entries
            .iter()
            .map(|entry| LibraryModel {
                installed: installed.iter().any(|model| model.model_id == entry.id),
                recommended: recommended.as_deref() == Some(entry.id.as_str()),
                download: self.inner.downloads.progress(&entry.id),
                entry: entry.clone(),
            })
            .collect();
        let other_installed = installed
            .into_iter()
            .filter(|model| {
                !self
                    .inner
                    .entries
                    .iter()
                    .any(|entry| entry.id == model.model_id)
            })
            .collect();
        ModelLibraryView {
            models_folder: folder.display().to_string(),
            total_memory_bytes,
            free_disk_bytes,
            recommended_model_id: recommended,
            library,
            other_installed,
        }
    }

    fn entry(&self, model_id: &str) -> Result<&LibraryEntry, LocalModelError> {
        self.inner
            .entries
            .iter()
            .find(|entry| entry.id == model_id)
            .ok_or_else(|| LocalModelError::NotInLibrary(model_id.to_string()))
    }

    pub fn start_download(&self, model_id: &str) -> Result<ModelDownloadProgress, LocalModelError> {
        let entry = self.entry(model_id)?;
        self.inner.downloads.start(DownloadRecord {
            model_id: entry.id.clone(),
            url: entry.url(&self.inner.base_url),
            sha256: entry.sha256.clone(),
            total_bytes: entry.size_bytes,
            paused: false,
        })
    }

    pub fn pause_download(&self, model_id: &str) -> Result<ModelDownloadProgress, LocalModelError> {
        self.inner.downloads.pause(model_id)
    }

    pub fn resume_download(
        &self,
        model_id: &str,
    ) -> Result<ModelDownloadProgress, LocalModelError> {
        self.inner.downloads.resume(model_id)
    }

    pub fn cancel_download(
        &self,
        model_id: &str,
    ) -> Result<ModelDownloadProgress, LocalModelError> {
        self.inner.downloads.cancel(model_id)
    }

    pub fn delete_model(&self, model_id: &str) -> Result<DeletedModel, LocalModelError> {
        check_model_id(model_id)?;
        if self.inner.downloads.is_active(model_id) {
            return Err(LocalModelError::StillDownloading {
                model_id: model_id.to_string(),
            });
        }
        installed_models::delete_model(self.folder(), model_id)
    }

    pub fn add_model_file(&self, file: &AddModelFile) -> Result<InstalledModel, LocalModelError> {
        installed_models::add_model_file(self.folder(), Path::new(&file.path))
    }

    /// Stops every download task, leaving their files for the next start (quitting, tests).
    pub fn stop_downloads(&self) {
        self.inner.downloads.stop_all();
    }
}
