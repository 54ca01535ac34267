//! Where the data folder is: one folder per system, named after the app's identifier, unless
//! `DOSSIER_DATA_DIR` names another or "Move data folder…" recorded one in the pointer file.
//!
//! The default is the identifier's folder under the system's local data folder —
//! `~/.local/share/app.dossier.desktop` (Linux), `~/Library/Application Support/app.dossier.desktop`
//! (macOS), `%LOCALAPPDATA%\app.dossier.desktop` (Windows) — because that is the folder Tauri
//! already gives the window's own files (WebKit's storage and the log on Linux and Windows), and
//! the identifier never changes across releases, so neither does the folder. The local, not the
//! roaming, folder on Windows: a database that grows to gigabytes must not be copied around by a
//! roaming profile while it is open. Releases before this one kept the ledger in the system's data
//! folder + `dossier`; `data_folder_adoption` moves it from there once.
//!
//! The pointer file (`data-folder.json` in the identifier's folder under the system's local
//! config folder) is written only by a move, atomically (a temporary file, synced, renamed over),
//! and names the folder the ledger lives in now and, until the person decides, the one it was
//! moved from. The server reads the same pointer: it shares the app's default ledger, so it
//! follows the app's ledger when it moves.

use crate::wire::error::LedgerError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use ts_rs::TS;

/// The app's identifier (`tauri.conf.json`), the name of its folders on every system.
pub const APP_IDENTIFIER: &str = "app.dossier.desktop";
/// Where releases before the one-folder change kept the ledger: the system's data folder + this.
pub const FORMER_FOLDER_NAME: &str = "dossier";
pub const POINTER_FILE: &str = "data-folder.json";
/// The variable that names the data folder and wins over everything else.
pub const DATA_DIR_VARIABLE: &str = "DOSSIER_DATA_DIR";

/// What decided the data folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub enum DataFolderSource {
    /// `DOSSIER_DATA_DIR`, or a folder the caller named in code (tests, benchmarks).
    Environment,
    /// "Move data folder…" chose it (the pointer file).
    Moved,
    /// The system's default folder.
    Default,
}

/// How the data folder was settled, which the ledger keeps so that it can move it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFolderSettings {
    pub source: DataFolderSource,
    /// Where a move records the folder. `None` when the folder is named by `DOSSIER_DATA_DIR` or
    /// by the caller: that name wins at every start, so a move could not stick.
    pub pointer_file: Option<PathBuf>,
    /// A folder where an earlier release kept the ledger by default, adopted at open when the
    /// default folder has none (`data_folder_adoption`).
    pub former_default: Option<PathBuf>,
    /// The pointer file exists but could not be read: the ledger is not opened anywhere, since
    /// the sessions are wherever it pointed.
    pub pointer_problem: Option<String>,
}

impl DataFolderSettings {
    /// A folder named by the caller or the variable: nothing to adopt, nothing to move.
    pub fn named() -> Self {
        Self {
            source: DataFolderSource::Environment,
            pointer_file: None,
            former_default: None,
            pointer_problem: None,
        }
    }
}

/// The pointer file's contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pointer {
    pub data_folder: PathBuf,
    /// The folder the ledger was moved from, until the person removes that copy or keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_folder: Option<PathBuf>,
}

/// The default data folder on this system.
pub fn default_folder() -> PathBuf {
    dirs::data_local_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join(APP_IDENTIFIER)
}

/// Where releases before this one kept the ledger by default.
pub fn former_default_folder() -> PathBuf {
    dirs::data_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join(FORMER_FOLDER_NAME)
}

/// Where "Move data folder…" records the folder.
pub fn pointer_file() -> PathBuf {
    dirs::config_local_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join(APP_IDENTIFIER)
        .join(POINTER_FILE)
}

/// The data folder and how it was settled, from the environment and this system's folders.
pub fn from_env() -> (PathBuf, DataFolderSettings) {
    resolve(
        std::env::var_os(DATA_DIR_VARIABLE).map(PathBuf::from),
        &pointer_file(),
        &default_folder(),
        &former_default_folder(),
    )
}

/// The variable wins; else the folder the pointer file names; else the default, with the
/// former default to adopt from.
pub fn resolve(
    variable: Option<PathBuf>,
    pointer_file: &Path,
    default: &Path,
    former_default: &Path,
) -> (PathBuf, DataFolderSettings) {
    if let Some(folder) = variable.filter(|path| !path.as_os_str().is_empty()) {
        return (folder, DataFolderSettings::named());
    }
    let mut settings = DataFolderSettings {
        source: DataFolderSource::Default,
        pointer_file: Some(pointer_file.to_path_buf()),
        former_default: Some(former_default.to_path_buf()),
        pointer_problem: None,
    };
    match read_pointer(pointer_file) {
        Ok(Some(pointer)) => {
            settings.source = DataFolderSource::Moved;
            settings.former_default = None;
            (pointer.data_folder, settings)
        }
        Ok(None) => (default.to_path_buf(), settings),
        Err(error) => {
            settings.pointer_problem = Some(error.to_string());
            settings.former_default = None;
            (default.to_path_buf(), settings)
        }
    }
}

/// The pointer, or `None` when there is no pointer file (the folder was never moved).
pub fn read_pointer(pointer_file: &Path) -> Result<Option<Pointer>, LedgerError> {
    let text = match std::fs::read_to_string(pointer_file) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(LedgerError::io(pointer_file, error)),
    };
    let pointer: Pointer = serde_json::from_str(&text)
        .map_err(|error| LedgerError::file(pointer_file, error.to_string()))?;
    if !pointer.data_folder.is_absolute() {
        return Err(LedgerError::file(
            pointer_file,
            format!("{} is not an absolute path", pointer.data_folder.display()),
        ));
    }
    Ok(Some(pointer))
}

/// Writes the pointer atomically: a temporary file beside it, synced, renamed over it, so a
/// crash leaves the old pointer or the new one, never half of one.
pub fn write_pointer(pointer_file: &Path, pointer: &Pointer) -> Result<(), LedgerError> {
    let folder = pointer_file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(|error| LedgerError::io(folder, error))?;
    let partial = crate::store::durable_file::with_suffix(pointer_file, ".partial");
    let text = serde_json::to_string_pretty(pointer)
        .map_err(|error| LedgerError::file(pointer_file, error.to_string()))?;
    {
        use std::io::Write;
        let mut file =
            std::fs::File::create(&partial).map_err(|error| LedgerError::io(&partial, error))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|error| LedgerError::io(&partial, error))?;
    }
    std::fs::rename(&partial, pointer_file)
        .map_err(|error| LedgerError::io(pointer_file, error))?;
    sync_folder(folder);
    Ok(())
}

/// Makes a rename durable. Best effort: not every system can open a folder to sync it.
pub(crate) fn sync_folder(folder: &Path) {
    if let Err(error) = std::fs::File::open(folder).and_then(|handle| handle.sync_all()) {
        tracing::debug!(%error, "could not sync a folder");
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn the_variable_wins_over_a_pointer_and_the_default() {
        let folder = tempfile::tempdir().unwrap();
        let pointer = folder.path().join("config").join(POINTER_FILE);
        write_pointer(
            &pointer,
            &Pointer {
                data_folder: folder.path().join("moved"),
                previous_folder: None,
            },
        )
        .unwrap();
        let named = folder.path().join("named");
        let (chosen, settings) = resolve(
            Some(named.clone()),
            &pointer,
            &folder.path().join("default"),
            &folder.path().join("former"),
        );
        assert_eq!(chosen, named);
        assert_eq!(settings, DataFolderSettings::named());
    }

    #[test]
    fn a_pointer_wins_over_the_default_and_nothing_is_adopted() {
        let folder = tempfile::tempdir().unwrap();
        let pointer = folder.path().join(POINTER_FILE);
        let moved = folder.path().join("moved");
        write_pointer(
            &pointer,
            &Pointer {
                data_folder: moved.clone(),
                previous_folder: Some(folder.path().join("default")),
            },
        )
        .unwrap();
        let (chosen, settings) = resolve(
            Some(PathBuf::new()),
            &pointer,
            &folder.path().join("default"),
            &folder.path().join("former"),
        );
        assert_eq!(chosen, moved);
        assert_eq!(settings.source, DataFolderSource::Moved);
        assert_eq!(settings.pointer_file.as_deref(), Some(pointer.as_path()));
        assert_eq!(settings.former_default, None);
        assert_eq!(
            read_pointer(&pointer).unwrap().unwrap().previous_folder,
            Some(folder.path().join("default"))
        );
    }

    #[test]
    fn without_a_pointer_the_default_is_used_and_the_former_one_adopted() {
        let folder = tempfile::tempdir().unwrap();
        let (chosen, settings) = resolve(
            None,
            &folder.path().join(POINTER_FILE),
            &folder.path().join("default"),
            &folder.path().join("former"),
        );
        assert_eq!(chosen, folder.path().join("default"));
        assert_eq!(settings.source, DataFolderSource::Default);
        assert_eq!(settings.former_default, Some(folder.path().join("former")));
        assert_eq!(settings.pointer_problem, None);
    }

    #[test]
    fn an_unreadable_pointer_is_a_problem_not_a_silent_default() {
        let folder = tempfile::tempdir().unwrap();
        let pointer = folder.path().join(POINTER_FILE);
        std::fs::write(&pointer, "{ \"dataFolder\": ").unwrap();
        let (_, settings) = resolve(
            None,
            &pointer,
            &folder.path().join("default"),
            &folder.path().join("former"),
        );
        assert!(settings
            .pointer_problem
            .is_some_and(|problem| problem.contains(POINTER_FILE)));
        assert_eq!(settings.former_default, None);
        std::fs::write(&pointer, "{ \"dataFolder\": \"relative/path\" }").unwrap();
        assert!(read_pointer(&pointer).is_err());
    }

    #[test]
    fn the_default_folder_is_named_after_the_identifier() {
        assert!(default_folder().ends_with(APP_IDENTIFIER));
        assert!(pointer_file().ends_with(Path::new(APP_IDENTIFIER).join(POINTER_FILE)));
        assert!(former_default_folder().ends_with(FORMER_FOLDER_NAME));
    }
}
