//! The paths the webview may have the backend read: only those that arrived through a native
//! drop, the file dialog or a paste. A compromised or buggy page cannot name `/etc/passwd` in a
//! draft and have it read on its behalf.

use crate::error::ShellError;
use dossier_core::pipeline::draft_resolution::file_url_target;
use dossier_core::wire::draft::{Draft, PromptInput};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Default)]
pub struct AllowList {
    paths: Mutex<HashSet<PathBuf>>,
}

impl AllowList {
    pub fn allow(&self, path: &Path) {
        self.lock().insert(path.to_path_buf());
    }

    pub fn allows(&self, path: &Path) -> bool {
        self.lock().contains(path)
    }

    /// Refuses the prompt when any `file:` draft names a path nobody dropped or picked. Other
    /// URLs (`data:`, `http:`, MCP resources) carry their own content and pass untouched.
    pub fn check_prompt(&self, input: &PromptInput) -> Result<(), ShellError> {
        for draft in &input.parts {
            let Draft::File(file) = draft else { continue };
            if !file.part.url.starts_with("file:") {
                continue;
            }
            let (path, _, _) =
                file_url_target(&file.part.url).map_err(|reason| ShellError::InvalidFileUrl {
                    url: file.part.url.clone(),
                    reason,
                })?;
            if !self.allows(&path) {
                return Err(ShellError::PathNotAllowed {
                    path: path.display().to_string(),
                });
            }
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<PathBuf>> {
        // The set holds plain paths; a panic elsewhere cannot leave it half-written.
        self.paths
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt_with(url: &str) -> PromptInput {
        PromptInput {
            parts: vec![
                Draft::text("look"),
                Draft::file(url, "text/plain", Some("x")),
            ],
            ..PromptInput::default()
        }
    }

    #[test]
    fn dropped_path_may_be_sent() {
        let list = AllowList::default();
        list.allow(Path::new("/home/ada/notes b.txt"));
        assert!(list
            .check_prompt(&prompt_with("file:///home/ada/notes%20b.txt"))
            .is_ok());
    }

    #[test]
    fn path_never_dropped_is_refused_with_its_name() {
        let list = AllowList::default();
        list.allow(Path::new("/home/ada/notes.txt"));
        let error = list
            .check_prompt(&prompt_with("file:///etc/passwd"))
            .expect_err("refused");
        assert!(matches!(error, ShellError::PathNotAllowed { ref path } if path == "/etc/passwd"));
    }

    #[test]
    fn line_range_of_a_dropped_file_is_allowed() {
        let list = AllowList::default();
        list.allow(Path::new("/src/main.rs"));
        assert!(list
            .check_prompt(&prompt_with("file:///src/main.rs?start=2&end=9"))
            .is_ok());
    }

    #[test]
    fn data_urls_need_no_permission() {
        let list = AllowList::default();
        assert!(list
            .check_prompt(&prompt_with("data:text/plain;base64,aGk="))
            .is_ok());
    }
}
