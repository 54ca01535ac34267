//! What a download in progress leaves in the models folder, so it survives quitting the app: the
//! bytes so far in `<id>.part` and, beside them, `<id>.part.json` — where they come from, what
//! they must hash to, how many there will be, and whether the person paused it. At the next
//! start every record found is taken up again (`download::Downloads::resume_unfinished`).

use crate::local_models::local_model_error::LocalModelError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadRecord {
    pub model_id: String,
    pub url: String,
    pub sha256: String,
    pub total_bytes: u64,
    #[serde(default)]
    pub paused: bool,
}

/// `<folder>/<id>.part`: the bytes received so far.
pub fn part_path(folder: &Path, model_id: &str) -> PathBuf {
    folder.join(format!("{model_id}.part"))
}

/// `<folder>/<id>.part.json`: the record beside them.
pub fn record_path(folder: &Path, model_id: &str) -> PathBuf {
    folder.join(format!("{model_id}.part.json"))
}

/// `<folder>/<id>.gguf`: the installed model, present only once verified.
pub fn model_path(folder: &Path, model_id: &str) -> PathBuf {
    folder.join(format!("{model_id}.gguf"))
}

/// Writes the record whole or not at all (a temporary file renamed over it).
pub fn write_record(folder: &Path, record: &DownloadRecord) -> Result<(), LocalModelError> {
    std::fs::create_dir_all(folder).map_err(|error| LocalModelError::io(folder, &error))?;
    let path = record_path(folder, &record.model_id);
    let temporary = path.with_extension("json.writing");
    let text = serde_json::to_vec_pretty(record).map_err(|error| LocalModelError::Io {
        path: path.display().to_string(),
        reason: error.to_string(),
    })?;
    std::fs::write(&temporary, text).map_err(|error| LocalModelError::io(&temporary, &error))?;
    std::fs::rename(&temporary, &path).map_err(|error| LocalModelError::io(&path, &error))
}

/// Every record in the folder; one that cannot be read is skipped with a warning (its `.part`
/// stays until the person cancels or the library downloads that model again).
pub fn read_records(folder: &Path) -> Vec<DownloadRecord> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut records: Vec<DownloadRecord> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.ends_with(".part.json"))
        })
        .filter_map(|path| {
            let text = std::fs::read(&path).ok()?;
            match serde_json::from_slice(&text) {
                Ok(record) => Some(record),
                Err(error) => {
                    tracing::warn!(
                        "skipping unreadable download record {}: {error}",
                        path.display()
                    );
                    None
                }
            }
        })
        .collect();
    records.sort_by(|left, right| left.model_id.cmp(&right.model_id));
    records
}

/// Removes the partial file and its record (either may already be gone).
pub fn remove_partial(folder: &Path, model_id: &str) -> Result<(), LocalModelError> {
    for path in [part_path(folder, model_id), record_path(folder, model_id)] {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(LocalModelError::io(&path, &error)),
        }
    }
    Ok(())
}
