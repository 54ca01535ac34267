//! The model library's typed errors, each said in plain words with the figures a person needs,
//! and how they cross: as `LedgerError::LocalModel { kind, message }`.

use crate::wire::error::{ErrorKind, LedgerError};
use crate::wire::human_size::human_size;

#[derive(Debug, thiserror::Error)]
pub enum LocalModelError {
    #[error("{path} is empty (0 bytes), so it is not a model file.")]
    EmptyFile { path: String },
    #[error("{path} is not a GGUF model file (it does not start with \"GGUF\").")]
    NotGguf { path: String },
    #[error(
        "{path} is cut short: {detail}. The file may not have finished copying or downloading."
    )]
    Truncated { path: String, detail: String },
    #[error("{path} is a GGUF file this version of Dossier cannot read: {detail}.")]
    UnsupportedGguf { path: String, detail: String },
    #[error(
        "{path} is a model of architecture \"{architecture}\", which the local engine does not know."
    )]
    UnknownArchitecture { path: String, architecture: String },
    #[error("There is no model \"{0}\" in the library.")]
    NotInLibrary(String),
    #[error("There is no installed model \"{0}\".")]
    NotInstalled(String),
    #[error("There is no download of \"{0}\" to pause, resume or cancel.")]
    NoDownload(String),
    #[error("\"{0}\" is already installed.")]
    AlreadyInstalled(String),
    #[error("\"{model_id}\" is still downloading; cancel the download first.")]
    StillDownloading { model_id: String },
    #[error(
        "Not enough free disk space for {model_id}: it needs {} more, and the disk holding {folder} has {} free.",
        human_size(*needed), human_size(*available)
    )]
    NotEnoughDiskSpace {
        model_id: String,
        folder: String,
        needed: u64,
        available: u64,
    },
    #[error("The disk holding {folder} became full while {model_id} was downloading. The {} received so far are kept: free some space, then press Resume.", human_size(*received))]
    DiskFull {
        model_id: String,
        folder: String,
        received: u64,
    },
    #[error(
        "The downloaded file for {model_id} is not the expected one (its SHA-256 is {actual}, not {expected}). It was deleted and not installed; try the download again."
    )]
    ChecksumMismatch {
        model_id: String,
        expected: String,
        actual: String,
    },
    #[error("The server refused the download of {model_id}: {status} for {url}.")]
    ServerRefused {
        model_id: String,
        url: String,
        status: u16,
    },
    #[error("The server could not be reached for {model_id} after {attempts} tries: {reason}.")]
    ServerUnreachable {
        model_id: String,
        attempts: u32,
        reason: String,
    },
    #[error("A model file name must end in .gguf and be a plain file name: \"{0}\".")]
    BadFileName(String),
    #[error("Could not use {path}: {reason}")]
    Io { path: String, reason: String },
    #[error("The model library file in this build is not valid: {0}")]
    BadLibraryFile(String),
}

impl LocalModelError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::NotInLibrary(_) | Self::NotInstalled(_) | Self::NoDownload(_) => {
                ErrorKind::NotFound
            }
            Self::EmptyFile { .. }
            | Self::NotGguf { .. }
            | Self::Truncated { .. }
            | Self::UnsupportedGguf { .. }
            | Self::UnknownArchitecture { .. }
            | Self::BadFileName(_)
            | Self::NotEnoughDiskSpace { .. } => ErrorKind::Invalid,
            Self::AlreadyInstalled(_) | Self::StillDownloading { .. } => ErrorKind::Conflict,
            Self::ServerRefused { .. } | Self::ServerUnreachable { .. } => ErrorKind::Unavailable,
            Self::DiskFull { .. }
            | Self::ChecksumMismatch { .. }
            | Self::Io { .. }
            | Self::BadLibraryFile(_) => ErrorKind::Internal,
        }
    }

    pub(crate) fn io(path: impl AsRef<std::path::Path>, error: &std::io::Error) -> Self {
        Self::Io {
            path: path.as_ref().display().to_string(),
            reason: error.to_string(),
        }
    }
}

impl From<LocalModelError> for LedgerError {
    fn from(error: LocalModelError) -> Self {
        LedgerError::LocalModel {
            kind: error.kind(),
            message: error.to_string(),
        }
    }
}
