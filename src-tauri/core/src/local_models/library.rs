//! The curated library: a short list of models pinned to exact files, kept as a data file in
//! the repository (`local-model-library.json`, built into the binary) so updating it is an edit
//! of that file alone. Each entry names the Hugging Face repository, the revision, the file, its
//! size and SHA-256, its licence and the memory it needs; the download URL is built from a base
//! that tests point at a loopback server.

use crate::local_models::local_model_error::LocalModelError;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

const LIBRARY_FILE: &str = include_str!("../../local-model-library.json");

/// Where library files are downloaded from unless the caller says otherwise.
pub const DEFAULT_BASE_URL: &str = "https://huggingface.co";

/// One model of the library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LibraryEntry {
    /// The installed file's name without `.gguf`: the model's id in the engine and the picker.
    pub id: String,
    pub display_name: String,
    pub repository: String,
    pub revision: String,
    pub file_name: String,
    pub quantization: String,
    #[ts(type = "number")]
    pub size_bytes: u64,
    pub sha256: String,
    pub licence: String,
    /// Memory the model needs to answer: the file plus its context and the engine.
    #[ts(type = "number")]
    pub memory_bytes: u64,
    /// How the pin was checked, for maintainers.
    #[serde(default, skip_serializing)]
    #[ts(skip)]
    pub checked: String,
}

impl LibraryEntry {
    /// The file's address under `base_url`, Hugging Face's `resolve` form pinned to the revision.
    pub fn url(&self, base_url: &str) -> String {
        format!(
            "{}/{}/resolve/{}/{}",
            base_url.trim_end_matches('/'),
            self.repository,
            self.revision,
            self.file_name
        )
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LibraryFile {
    #[serde(rename = "about")]
    _about: Vec<String>,
    models: Vec<LibraryEntry>,
}

/// The built-in library, best first.
pub fn curated_library() -> Result<Vec<LibraryEntry>, LocalModelError> {
    parse_library(LIBRARY_FILE)
}

/// Parses and checks a library file: ids unique and equal to the file name without `.gguf`, SHA-256
/// as 64 lower-case hex digits, sizes above zero.
pub fn parse_library(text: &str) -> Result<Vec<LibraryEntry>, LocalModelError> {
    let file: LibraryFile = serde_json::from_str(text)
        .map_err(|error| LocalModelError::BadLibraryFile(error.to_string()))?;
    let mut seen = std::collections::BTreeSet::new();
    for entry in &file.models {
        let bad = |why: &str| LocalModelError::BadLibraryFile(format!("{}: {why}", entry.id));
        if entry.file_name.strip_suffix(".gguf") != Some(entry.id.as_str()) {
            return Err(bad("the id must be the file name without .gguf"));
        }
        if entry.sha256.len() != 64
            || !entry
                .sha256
                .bytes()
                .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
        {
            return Err(bad("sha256 must be 64 lower-case hex digits"));
        }
        if entry.size_bytes == 0 || entry.memory_bytes < entry.size_bytes {
            return Err(bad(
                "sizeBytes must be above 0 and memoryBytes at least the size",
            ));
        }
        if entry.revision.len() != 40 {
            return Err(bad("revision must be a full commit id"));
        }
        if !seen.insert(entry.id.clone()) {
            return Err(bad("listed twice"));
        }
    }
    Ok(file.models)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_library_parses_with_the_four_pinned_models() {
        let library = curated_library().unwrap_or_else(|error| panic!("{error}"));
        let ids: Vec<&str> = library.iter().map(|entry| entry.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "qwen2.5-1.5b-instruct-q4_k_m",
                "SmolLM2-1.7B-Instruct-Q4_K_M",
                "Llama-3.2-1B-Instruct-Q4_K_M",
                "qwen2.5-0.5b-instruct-q4_k_m"
            ]
        );
        assert!(library.iter().all(|entry| !entry.checked.is_empty()));
    }

    #[test]
    fn the_url_is_pinned_to_the_revision_under_the_base() {
        let library = curated_library().unwrap_or_else(|error| panic!("{error}"));
        let smallest = &library[3];
        assert_eq!(
            smallest.url("http://127.0.0.1:9/"),
            "http://127.0.0.1:9/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/\
             9217f5db79a29953eb74d5343926648285ec7e67/qwen2.5-0.5b-instruct-q4_k_m.gguf"
        );
    }

    #[test]
    fn a_library_with_a_bad_checksum_or_id_is_refused() {
        let good = LIBRARY_FILE.to_string();
        let bad_sum = good.replace(
            "74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db",
            "not-a-checksum",
        );
        assert!(parse_library(&bad_sum).is_err());
        let bad_id = good.replace(
            "\"id\": \"qwen2.5-0.5b-instruct-q4_k_m\"",
            "\"id\": \"qwen-small\"",
        );
        assert!(parse_library(&bad_id).is_err());
    }
}
