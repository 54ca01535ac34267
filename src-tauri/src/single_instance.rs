//! One Dossier per person: a second launch hands over to the running app, which brings its
//! window to the front, and then exits. Tauri's single-instance plugin does the handing over (a
//! named pipe on Windows, a socket on macOS, D-Bus on Linux); on Linux without a session bus it
//! logs a warning and lets the app start normally rather than fail.
//!
//! On Linux the D-Bus name also carries the data folder when `DOSSIER_DATA_DIR` is set, so test
//! runs (and anyone keeping two ledgers) get their own instance instead of the person's app.

use std::hash::{Hash, Hasher};
use std::path::Path;
use tauri::{AppHandle, Manager, Runtime};

/// The plugin, set up to focus the main window of the running app.
pub fn plugin<R: Runtime>(
    identifier: &str,
    data_dir: Option<&Path>,
) -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_single_instance::Builder::new()
        .callback(|app, _arguments, _folder| focus_main_window(app))
        .dbus_id(instance_name(identifier, data_dir))
        .build()
}

/// `app.dossier.desktop`, or `app.dossier.desktop.data_<hash>` for a ledger in its own folder.
/// D-Bus name elements allow ASCII letters, digits and `_`, and may not start with a digit.
pub fn instance_name(identifier: &str, data_dir: Option<&Path>) -> String {
    match data_dir.filter(|folder| !folder.as_os_str().is_empty()) {
        None => identifier.to_string(),
        Some(folder) => {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            folder.hash(&mut hasher);
            format!("{identifier}.data_{:016x}", hasher.finish())
        }
    }
}

fn focus_main_window<R: Runtime>(app: &AppHandle<R>) {
    tracing::info!("a second launch asked for the window");
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    for (what, result) in [
        ("unminimize", window.unminimize()),
        ("show", window.show()),
        ("focus", window.set_focus()),
    ] {
        if let Err(error) = result {
            tracing::warn!(%error, what, "could not bring the window forward");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_person_s_app_uses_the_identifier_and_a_data_folder_gets_its_own_name() {
        let identifier = "app.dossier.desktop";
        assert_eq!(instance_name(identifier, None), identifier);
        assert_eq!(instance_name(identifier, Some(Path::new(""))), identifier);
        let first = instance_name(identifier, Some(&PathBuf::from("/tmp/one")));
        let second = instance_name(identifier, Some(&PathBuf::from("/tmp/two")));
        assert_ne!(first, second);
        assert_eq!(
            first,
            instance_name(identifier, Some(&PathBuf::from("/tmp/one")))
        );
        let last = first.rsplit('.').next().unwrap_or_default();
        assert!(last.starts_with("data_"), "{first}");
        assert!(
            last.chars()
                .all(|symbol| symbol.is_ascii_alphanumeric() || symbol == '_'),
            "{first}"
        );
    }
}
