//! The composer chip's outline picker: the symbols of a file the person dropped or picked, so a
//! chip can be narrowed to one (`?start=N&end=N`, docs/symbols.md). Only a path that came
//! through a drop, the dialog or a paste is read, as for a prompt's `file:` drafts.

use crate::drop::allow_list::AllowList;
use crate::error::ShellError;
use dossier_core::wire::document_symbol::DocumentSymbol;
use std::path::PathBuf;
use tauri::State;

#[tauri::command]
pub async fn file_symbols(
    allow_list: State<'_, AllowList>,
    path: PathBuf,
) -> Result<Vec<DocumentSymbol>, ShellError> {
    if !allow_list.allows(&path) {
        return Err(ShellError::PathNotAllowed {
            path: path.display().to_string(),
        });
    }
    let shown = path.display().to_string();
    let symbols = tauri::async_runtime::spawn_blocking(move || {
        dossier_core::pipeline::symbols::symbols_of_file(&path)
    })
    .await
    .map_err(|error| ShellError::File {
        path: shown,
        reason: format!("its outline was interrupted: {error}"),
    })?;
    Ok(symbols?)
}

#[cfg(test)]
mod tests {
    use crate::commands::tests::harness;
    use serde_json::json;

    #[test]
    fn a_dropped_files_symbols_are_listed_and_an_undropped_path_is_refused() {
        let harness = harness(true);
        let files = tempfile::tempdir().expect("temp dir");
        let path = files.path().join("shapes.py");
        std::fs::write(
            &path,
            "import math\n\n\nclass Shape:\n    def area(self):\n        return 0\n",
        )
        .expect("write");
        let refused = harness
            .invoke("file_symbols", json!({"path": path}))
            .expect_err("never dropped");
        assert_eq!(refused["kind"], "invalid");
        harness.ok("simulate_drop", json!({"paths": [path]}));
        let symbols = harness.ok("file_symbols", json!({"path": path}));
        assert_eq!(
            symbols,
            json!([{"name": "Shape", "kind": "class", "line": 3, "endLine": 5, "children": [
                {"name": "area", "kind": "method", "line": 4, "endLine": 5, "children": []}
            ]}])
        );
    }
}
