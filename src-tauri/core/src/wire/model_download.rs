//! Where a model download stands, as the settings view shows it and the `dossier.model.download`
//! event carries it: the bytes so far, the speed and time left only while bytes arrive, and a
//! status that says plainly when nothing does ("waiting for the server"), so a stalled download
//! never shows a frozen speed. `local_models::download` makes these; this floor only names them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One download's state. `file_name` is the model's id: the installed file's name without
/// `.gguf`, which is also how the engine names the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ModelDownloadProgress {
    pub model_id: String,
    pub status: ModelDownloadStatus,
    #[ts(type = "number")]
    pub received_bytes: u64,
    #[ts(type = "number")]
    pub total_bytes: u64,
    /// Over the last few seconds; absent while nothing arrives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub bytes_per_second: Option<u64>,
    /// From the speed; absent whenever the speed is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub seconds_left: Option<u64>,
    /// Why it waits or failed, in plain words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message: Option<String>,
}

/// What a download is doing now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "snake_case")]
pub enum ModelDownloadStatus {
    /// Asking the server for the file (or for the rest of it).
    Connecting,
    /// Bytes are arriving.
    Downloading,
    /// Connected, or about to try again, but nothing has arrived for a while.
    WaitingForServer,
    Paused,
    /// Every byte is here; its SHA-256 is being checked before the model can be used.
    Verifying,
    Installed,
    /// Stopped on an error it cannot get past by itself (the message says which); the bytes
    /// so far are kept where they can be used again, so Resume goes on from them.
    Failed,
    /// Cancelled: the partial file is gone.
    Cancelled,
}

impl ModelDownloadStatus {
    /// Whether the download has ended (nothing more will happen without a new start).
    pub fn is_finished(self) -> bool {
        matches!(self, Self::Installed | Self::Cancelled)
    }
}
