//! Which process may run the restart sweep. The desktop app and `dossier-server` can open the
//! same data folder; a process that starts while another is streaming a reply must not close
//! that live reply as "interrupted". Every process holding the ledger keeps a shared lock on
//! `ledger.lock` for its whole life; the sweep runs only when an exclusive lock succeeds, that
//! is, when no other living process holds the folder. The operating system drops the locks of
//! a process that crashed, so its open replies are swept by whoever opens the folder next.
//!
//! Written for both kinds of lock the systems have. Linux's and macOS's `flock` is advisory and
//! turns a shared lock exclusive in place. Windows' `LockFileEx` is mandatory and stacks: a
//! range locked through one handle cannot be read or written through another, and a handle that
//! holds a shared lock is refused an exclusive one over it (ERROR_LOCK_VIOLATION, os error 33)
//! even when no one else holds the file. So nothing ever reads or writes `ledger.lock` (it
//! stays empty, only its locks matter), and on Windows a lock is turned into another only by
//! letting go of the one held first.

use crate::wire::error::LedgerError;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

pub const LOCK_FILE: &str = "ledger.lock";

pub struct ProcessLock {
    file: File,
}

/// Whether this process is the only one on the folder (and so may sweep).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occupancy {
    Alone,
    Shared,
}

impl ProcessLock {
    /// Takes the folder's lock: exclusively when nobody else holds it, else shared.
    pub fn acquire(data_dir: &Path) -> Result<(Self, Occupancy), LedgerError> {
        let path = data_dir.join(LOCK_FILE);
        std::fs::create_dir_all(data_dir).map_err(|error| LedgerError::io(data_dir, error))?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|error| LedgerError::io(&path, error))?;
        match file.try_lock() {
            Ok(()) => Ok((Self { file }, Occupancy::Alone)),
            Err(TryLockError::WouldBlock) => {
                // Blocks only while another process is between its exclusive lock and its
                // own `share` — the few milliseconds of its sweep.
                file.lock_shared()
                    .map_err(|error| LedgerError::io(&path, error))?;
                Ok((Self { file }, Occupancy::Shared))
            }
            Err(TryLockError::Error(error)) => Err(LedgerError::io(&path, error)),
        }
    }

    /// After the sweep: let other processes in. Nothing of this process is open yet, so a
    /// process that slips in between the unlock and the shared lock has nothing to sweep of ours.
    /// Lets go of the folder once the ledger is closed, so a process started next (the app
    /// restarting after a restore) finds it free.
    pub fn release(&self, data_dir: &Path) -> Result<(), LedgerError> {
        unlock(&self.file).map_err(|error| LedgerError::io(data_dir.join(LOCK_FILE), error))
    }

    /// Whether no other living process holds the folder: turns this process's lock exclusive
    /// and keeps it so (a process starting on the folder then waits for it) when it can; shared
    /// again when it cannot. A move of the data folder needs the folder alone, or another
    /// process's writes after the copy would be lost.
    pub fn try_hold_alone(&self, data_dir: &Path) -> Result<bool, LedgerError> {
        let path = data_dir.join(LOCK_FILE);
        // Windows refuses an exclusive lock over this handle's own shared one, so there the
        // shared lock is let go first. A process starting in that instant could take the folder
        // as its own and sweep; `flock` converts without that gap, so Linux and macOS keep it.
        if cfg!(windows) {
            unlock(&self.file).map_err(|error| LedgerError::io(&path, error))?;
        }
        match self.file.try_lock() {
            Ok(()) => Ok(true),
            Err(TryLockError::WouldBlock) => {
                // Turning a lock into another is not atomic: the failed try may have dropped
                // the shared one (and on Windows it was let go above).
                self.file
                    .lock_shared()
                    .map_err(|error| LedgerError::io(&path, error))?;
                Ok(false)
            }
            Err(TryLockError::Error(error)) => Err(LedgerError::io(&path, error)),
        }
    }

    pub fn share(&self, data_dir: &Path) -> Result<(), LedgerError> {
        let path = data_dir.join(LOCK_FILE);
        unlock(&self.file).map_err(|error| LedgerError::io(&path, error))?;
        self.file
            .lock_shared()
            .map_err(|error| LedgerError::io(&path, error))
    }
}

/// Windows' `ERROR_LOCK_VIOLATION`.
const LOCK_VIOLATION: i32 = 33;

/// Lets go of every lock this handle holds. Rust's standard library calls `UnlockFile` twice on
/// Windows (a handle may hold a shared and an exclusive lock at once) and accepts the second
/// call's "not locked". Wine 8.0 answers that second call with ERROR_LOCK_VIOLATION instead,
/// after the first one has already let go; Windows never answers an unlock with it. Taken as
/// done, or no process could open a ledger under Wine.
fn unlock(file: &File) -> std::io::Result<()> {
    match file.unlock() {
        Err(error) if cfg!(windows) && error.raw_os_error() == Some(LOCK_VIOLATION) => Ok(()),
        outcome => outcome,
    }
}
