//! The models installed in the folder: every `<id>.gguf` (only verified downloads and checked
//! files get that name), deleting one, and adding a file the person chose — its header and
//! architecture checked first, then hard-linked into the folder when it is on the same disk
//! (no copy, no space used) or copied beside its final name and renamed, so a half-copied file
//! is never a model.

use crate::local_models::download_record::model_path;
use crate::local_models::gguf_header::read_gguf_header;
use crate::local_models::local_model_error::LocalModelError;
use serde::{Deserialize, Serialize};
use std::path::Path;
use ts_rs::TS;

/// One installed model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct InstalledModel {
    /// The file name without `.gguf`: the model's id.
    pub model_id: String,
    #[ts(type = "number")]
    pub size_bytes: u64,
    /// From the header; absent when the header cannot be read (the file is still listed, so it
    /// can be deleted).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub architecture: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub context_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub quantization: Option<String>,
}

/// A model file to add (`POST /dossier/local-models/add`).
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddModelFile {
    pub path: String,
}

/// What deleting a model gave back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct DeletedModel {
    pub model_id: String,
    #[ts(type = "number")]
    pub freed_bytes: u64,
}

/// Every `*.gguf` in the folder, by id.
pub fn installed_models(folder: &Path) -> Vec<InstalledModel> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut models: Vec<InstalledModel> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path();
            let model_id = path
                .file_name()?
                .to_str()?
                .strip_suffix(".gguf")?
                .to_string();
            let size_bytes = std::fs::metadata(&path).ok()?.len();
            let header = read_gguf_header(&path).ok();
            Some(InstalledModel {
                model_id,
                size_bytes,
                architecture: header.as_ref().map(|header| header.architecture.clone()),
                context_length: header.as_ref().and_then(|header| header.context_length),
                quantization: header.and_then(|header| header.quantization),
            })
        })
        .collect();
    models.sort_by(|left, right| left.model_id.cmp(&right.model_id));
    models
}

/// Deletes `<id>.gguf`, saying how much space it gave back.
pub fn delete_model(folder: &Path, model_id: &str) -> Result<DeletedModel, LocalModelError> {
    check_model_id(model_id)?;
    let path = model_path(folder, model_id);
    let freed_bytes = match std::fs::metadata(&path) {
        Ok(metadata) => metadata.len(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(LocalModelError::NotInstalled(model_id.to_string()))
        }
        Err(error) => return Err(LocalModelError::io(&path, &error)),
    };
    std::fs::remove_file(&path).map_err(|error| LocalModelError::io(&path, &error))?;
    Ok(DeletedModel {
        model_id: model_id.to_string(),
        freed_bytes,
    })
}

/// Adds the model file at `source` to the folder under its own name, once its header reads
/// as a GGUF model of an architecture the engine knows.
pub fn add_model_file(folder: &Path, source: &Path) -> Result<InstalledModel, LocalModelError> {
    let file_name = source
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| LocalModelError::BadFileName(source.display().to_string()))?;
    let Some(model_id) = file_name
        .strip_suffix(".gguf")
        .or_else(|| file_name.strip_suffix(".GGUF"))
    else {
        return Err(LocalModelError::BadFileName(file_name.to_string()));
    };
    check_model_id(model_id)?;
    let header = read_gguf_header(source)?;
    std::fs::create_dir_all(folder).map_err(|error| LocalModelError::io(folder, &error))?;
    let target = model_path(folder, model_id);
    if target.exists() {
        return Err(LocalModelError::AlreadyInstalled(model_id.to_string()));
    }
    if std::fs::hard_link(source, &target).is_err() {
        let copying = folder.join(format!("{model_id}.adding"));
        std::fs::copy(source, &copying).map_err(|error| {
            // Best effort: a partial copy must not stay behind.
            std::fs::remove_file(&copying).ok();
            LocalModelError::io(&copying, &error)
        })?;
        std::fs::rename(&copying, &target).map_err(|error| LocalModelError::io(&target, &error))?;
    }
    Ok(InstalledModel {
        model_id: model_id.to_string(),
        size_bytes: header.file_bytes,
        architecture: Some(header.architecture),
        context_length: header.context_length,
        quantization: header.quantization,
    })
}

/// An id names a file in the folder and nothing else: no separators, no `..`, not empty.
pub fn check_model_id(model_id: &str) -> Result<(), LocalModelError> {
    let bad = model_id.is_empty()
        || model_id.starts_with('.')
        || model_id
            .chars()
            .any(|character| matches!(character, '/' | '\\' | ':' | '\0'));
    if bad {
        return Err(LocalModelError::BadFileName(model_id.to_string()));
    }
    Ok(())
}
