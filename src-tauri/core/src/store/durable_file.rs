//! Making a written file durable and putting it in place, on every system. Two Windows rules
//! shape it. `FlushFileBuffers` (what `sync_all` calls there) needs a handle open for writing:
//! on a read-only handle it fails with "Access is denied" (os error 5), where Linux and macOS
//! sync any handle. And a rename over a file that another handle holds open without
//! `FILE_SHARE_DELETE` — an antivirus scan, the search indexer or a viewer that just looked at
//! the last backup — fails with os error 5 or 32 instead of replacing it; such holds are usually
//! short, so the rename is tried again for a moment before the error is reported. Nothing is
//! lost meanwhile: the new copy stays complete under its temporary name until the rename.

use crate::wire::error::LedgerError;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a rename over a held file is retried on Windows, and the pause between tries.
const REPLACE_PATIENCE: Duration = Duration::from_secs(2);
const REPLACE_PAUSE: Duration = Duration::from_millis(50);

/// `ERROR_ACCESS_DENIED` and `ERROR_SHARING_VIOLATION`: what Windows answers a rename over (or
/// a removal of) a file another handle holds open.
const HELD_OPEN: [i32; 2] = [5, 32];

/// Writes `path`'s data and metadata to the disk.
pub fn sync(path: &Path) -> std::io::Result<()> {
    // Windows syncs only through a handle that may write; nothing is written through it.
    std::fs::OpenOptions::new()
        .read(true)
        .write(cfg!(windows))
        .open(path)?
        .sync_all()
}

/// Renames `from` over `to`, replacing it. On Windows a target held open by another program is
/// waited for up to two seconds; the last error is returned after that.
pub fn replace(from: &Path, to: &Path) -> std::io::Result<()> {
    let started = std::time::Instant::now();
    loop {
        match std::fs::rename(from, to) {
            Err(error)
                if cfg!(windows)
                    && is_held_open(&error)
                    && started.elapsed() < REPLACE_PATIENCE =>
            {
                std::thread::sleep(REPLACE_PAUSE);
            }
            outcome => return outcome,
        }
    }
}

/// Whether Windows refused because another handle holds the file.
pub fn is_held_open(error: &std::io::Error) -> bool {
    error
        .raw_os_error()
        .is_some_and(|code| HELD_OPEN.contains(&code))
}

/// `path` with `suffix` after its file name (`dossier.db` → `dossier.db-wal`).
pub(crate) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut text = path.as_os_str().to_os_string();
    text.push(suffix);
    PathBuf::from(text)
}

/// Removes a copy a killed `VACUUM INTO` left, with the rollback journal it was writing: a
/// journal left beside the next copy of the same name would be rolled back into it.
pub(crate) fn remove_partial(path: &Path) -> Result<(), LedgerError> {
    remove_if_present(&with_suffix(path, "-journal"))?;
    remove_if_present(path)
}

pub(crate) fn remove_if_present(path: &Path) -> Result<(), LedgerError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(LedgerError::io(path, error)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn a_synced_file_keeps_its_bytes() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("copy.db");
        std::fs::write(&path, b"whole").unwrap();
        sync(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
    }

    /// Windows rule: a rename replaces a file that another handle holds open when that handle
    /// allows it (Rust opens with `FILE_SHARE_DELETE`), as Linux always does.
    #[test]
    #[cfg_attr(
        wine,
        ignore = "Wine 8.0 refuses a rename over a file open in another handle (os error 5) even with FILE_SHARE_DELETE; Windows 10 1709+ replaces it (POSIX rename semantics, which std::fs::rename asks for)"
    )]
    fn a_copy_replaces_a_file_held_open_by_another_handle() {
        let folder = tempfile::tempdir().unwrap();
        let (new, old) = (
            folder.path().join("new.partial"),
            folder.path().join("backup.db"),
        );
        std::fs::write(&new, b"new").unwrap();
        std::fs::write(&old, b"old").unwrap();
        let held = std::fs::File::open(&old).unwrap();
        replace(&new, &old).unwrap();
        drop(held);
        assert_eq!(std::fs::read(&old).unwrap(), b"new");
        assert!(!new.exists());
    }

    #[test]
    fn only_access_denied_and_sharing_violations_count_as_held_open() {
        for (code, held) in [(5, true), (32, true), (2, false), (33, false)] {
            assert_eq!(
                is_held_open(&std::io::Error::from_raw_os_error(code)),
                held,
                "{code}"
            );
        }
    }
}
