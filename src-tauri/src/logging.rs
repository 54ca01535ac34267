//! Where the app's `tracing` output goes: a `dossier.log` file in the platform's log folder
//! (`~/.local/share/app.dossier.desktop/logs` on Linux, `~/Library/Logs/…` on macOS,
//! `%LOCALAPPDATA%\…\logs` on Windows), and stderr when that folder cannot be written.
//! `RUST_LOG` filters as usual; the default is `info` for Dossier's crates, `warn` otherwise.

use std::fs::OpenOptions;
use std::path::Path;
use std::sync::Mutex;
use tracing_subscriber::EnvFilter;

pub const LOG_FILE: &str = "dossier.log";
const DEFAULT_FILTER: &str = "warn,dossier_lib=info,dossier_core=info";

/// Installs the subscriber once; later calls (tests) leave the first one in place.
pub fn init(log_folder: Option<&Path>) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let file = log_folder.and_then(|folder| {
        std::fs::create_dir_all(folder).ok()?;
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(folder.join(LOG_FILE))
            .ok()
    });
    let installed = match file {
        Some(file) => tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(false)
            .with_writer(Mutex::new(file))
            .try_init(),
        None => tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .try_init(),
    };
    if installed.is_err() {
        tracing::debug!("a tracing subscriber was already installed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_land_in_the_log_folder() {
        let folder = tempfile::tempdir().expect("temp dir");
        let logs = folder.path().join("logs");
        init(Some(&logs));
        tracing::warn!("a line for the log file");
        let text = std::fs::read_to_string(logs.join(LOG_FILE)).expect("log file exists");
        assert!(text.contains("a line for the log file"), "{text}");
    }
}
