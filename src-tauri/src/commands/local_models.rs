//! Settings → Models on this computer, the part that needs the window: "Add a model file…"
//! through the native open dialog. The library's other operations are declared in the
//! operation table; this one only adds the dialog in front of `add_model_file`.

use crate::error::ShellError;
use dossier_core::local_models::installed_models::{AddModelFile, InstalledModel};
use dossier_core::Ledger;
use tauri::State;

/// Asks for a `.gguf` file and adds it (its header checked first); `None` when the person
/// closed the dialog.
#[tauri::command]
pub async fn add_model_file_with_dialog(
    ledger: State<'_, Ledger>,
) -> Result<Option<InstalledModel>, ShellError> {
    let chosen = rfd::AsyncFileDialog::new()
        .add_filter("GGUF", &["gguf"])
        .pick_file()
        .await;
    let Some(handle) = chosen else {
        return Ok(None);
    };
    let file = AddModelFile {
        path: handle.path().display().to_string(),
    };
    Ok(Some(ledger.local_models().add_model_file(file).await?))
}
