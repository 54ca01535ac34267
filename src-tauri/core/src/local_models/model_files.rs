//! The installed models: the `*.gguf` files in the models folder. The library (downloads, "Add a
//! model file…") only ever renames finished, verified files into the folder, so a file that is
//! there is meant to be a model; `.part` files and hidden files are work in progress.

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFile {
    /// The file name without `.gguf`: the model's id under provider `local`.
    pub id: String,
    pub path: PathBuf,
    pub bytes: u64,
}

/// The installed models, sorted by id. A missing folder is an empty list.
pub fn model_files(folder: &Path) -> Vec<ModelFile> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut models: Vec<ModelFile> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let id = model_id_of(&name)?;
            // `fs::metadata` follows a link: a model linked into the folder is installed too.
            let metadata = std::fs::metadata(entry.path())
                .ok()
                .filter(std::fs::Metadata::is_file)?;
            Some(ModelFile {
                id: id.to_string(),
                path: entry.path(),
                bytes: metadata.len(),
            })
        })
        .collect();
    models.sort_by(|left, right| left.id.cmp(&right.id));
    models
}

/// `name.gguf` → `name`; `None` for anything else, hidden files and partial downloads.
pub fn model_id_of(file_name: &str) -> Option<&str> {
    if file_name.starts_with('.') {
        return None;
    }
    let id = file_name
        .strip_suffix(".gguf")
        .or_else(|| file_name.strip_suffix(".GGUF"))?;
    (!id.is_empty()).then_some(id)
}

/// The installed model with this id, if its file is there.
pub fn find_model_file(folder: &Path, id: &str) -> Option<ModelFile> {
    model_files(folder).into_iter().find(|model| model.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_finished_gguf_files_are_models() {
        let folder = tempfile::tempdir().expect("temporary folder");
        for name in [
            "b-model.gguf",
            "a-model.gguf",
            "c.gguf.part",
            ".hidden.gguf",
            "notes.txt",
        ] {
            std::fs::write(folder.path().join(name), b"GGUF").expect("write");
        }
        std::fs::create_dir(folder.path().join("folder.gguf")).expect("folder");
        let ids: Vec<String> = model_files(folder.path())
            .into_iter()
            .map(|model| model.id)
            .collect();
        assert_eq!(ids, ["a-model", "b-model"]);
        assert!(model_files(&folder.path().join("missing")).is_empty());
        assert_eq!(model_id_of(".gguf"), None);
    }
}
