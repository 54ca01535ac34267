//! Whether any access token exists, without asking the database on every request. Every
//! request the server takes asks it (`has_access_tokens`: credentials are needed once a token
//! exists), and on SQLite each question is a trip to the connection's thread and back, the
//! largest part of an empty request's cost. The answer changes only when a token is made or
//! revoked, usually by `dossier-server token` in another process while the server runs, and the
//! next request must see it. So whoever changes the table also touches a marker file beside the
//! database (before the change and after it), and the remembered answer holds only while:
//!
//! - the marker looks as it did (its time and length) when the table was read;
//! - the marker had settled when the table was read (not touched in the last `SETTLING`): a
//!   change whose two touches fall within one tick of a coarse file clock, or a process that
//!   stopped between its change and its second touch, is then still read from the table;
//! - it is younger than `TRUSTED_FOR`, a last bound for whatever the marker missed.
//!
//! SQLite only: several servers on one PostgreSQL database share no folder, and their question
//! is a network round trip that no thread hand-off adds to.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// The marker's name in the data folder.
pub const MARKER_FILE: &str = "access-tokens.changed";
/// How long a remembered answer is trusted at most, even with the marker unchanged.
const TRUSTED_FOR: Duration = Duration::from_secs(10);
/// A marker touched more recently than this may be mid-change: nothing read then is remembered.
const SETTLING: Duration = Duration::from_secs(2);

pub(crate) struct AccessTokenPresence {
    marker: PathBuf,
    remembered: Mutex<Option<Remembered>>,
}

#[derive(Clone, Copy)]
struct Remembered {
    marker: MarkerState,
    read_at: Instant,
    exist: bool,
}

/// What the marker looked like; `Absent` until the first token is made.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum MarkerState {
    Absent,
    Present { modified: SystemTime, length: u64 },
}

/// Taken just before the table is read, handed back with what it said (`remember`).
pub(crate) struct BeforeReading {
    marker: MarkerState,
    read_at: Instant,
}

impl AccessTokenPresence {
    pub(crate) fn new(data_dir: &Path) -> Self {
        Self {
            marker: data_dir.join(MARKER_FILE),
            remembered: Mutex::new(None),
        }
    }

    pub(crate) fn marker(&self) -> &Path {
        &self.marker
    }

    /// The remembered answer, while it still holds.
    pub(crate) fn remembered(&self) -> Option<bool> {
        let remembered = (*self.lock())?;
        let marker = marker_state(&self.marker)?;
        (remembered.marker == marker && remembered.read_at.elapsed() < TRUSTED_FOR)
            .then_some(remembered.exist)
    }

    /// Before the table is read: what the marker says now, if an answer read now may be
    /// remembered (a settled marker, readable).
    pub(crate) fn before_reading(&self) -> Option<BeforeReading> {
        let marker = marker_state(&self.marker)?;
        if let MarkerState::Present { modified, .. } = marker {
            // A time in the future (another machine's clock on a shared folder) is never settled.
            let settled = SystemTime::now()
                .duration_since(modified)
                .is_ok_and(|age| age >= SETTLING);
            if !settled {
                return None;
            }
        }
        Some(BeforeReading {
            marker,
            read_at: Instant::now(),
        })
    }

    pub(crate) fn remember(&self, before: BeforeReading, exist: bool) {
        *self.lock() = Some(Remembered {
            marker: before.marker,
            read_at: before.read_at,
            exist,
        });
    }

    /// The table is about to change, or just did: every process on the folder reads it again.
    pub(crate) fn changed(&self) -> Result<(), std::io::Error> {
        *self.lock() = None;
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        std::fs::write(&self.marker, format!("{nanos} {}\n", std::process::id()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Remembered>> {
        self.remembered
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `None` when the marker cannot be looked at: nothing is remembered then.
fn marker_state(marker: &Path) -> Option<MarkerState> {
    match std::fs::metadata(marker) {
        Ok(metadata) => Some(MarkerState::Present {
            modified: metadata.modified().ok()?,
            length: metadata.len(),
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Some(MarkerState::Absent),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_remembered_until_the_marker_changes() {
        let folder = tempfile::tempdir().expect("temp dir");
        let presence = AccessTokenPresence::new(folder.path());
        assert_eq!(presence.remembered(), None, "nothing read yet");
        let before = presence.before_reading().expect("no marker yet: settled");
        presence.remember(before, false);
        assert_eq!(presence.remembered(), Some(false));

        // Another process on the folder makes a token: its marker touch ends the answer here.
        let elsewhere = AccessTokenPresence::new(folder.path());
        elsewhere.changed().expect("marker written");
        assert_eq!(presence.remembered(), None);
        // Just touched, the marker has not settled: what is read now is not remembered.
        assert!(presence.before_reading().is_none());
    }

    #[test]
    fn a_settled_marker_lets_an_answer_be_remembered_again() {
        let folder = tempfile::tempdir().expect("temp dir");
        let presence = AccessTokenPresence::new(folder.path());
        presence.changed().expect("marker written");
        let marker = folder.path().join(MARKER_FILE);
        let long_ago = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&marker)
            .and_then(|file| file.set_modified(long_ago))
            .expect("marker dated back");
        let before = presence.before_reading().expect("settled");
        presence.remember(before, true);
        assert_eq!(presence.remembered(), Some(true));
        presence.changed().expect("marker written");
        assert_eq!(presence.remembered(), None, "a change here forgets at once");
    }

    // On Windows a path through a file is "not found", which is an absent marker there.
    #[cfg(unix)]
    #[test]
    fn a_marker_that_cannot_be_read_remembers_nothing() {
        let folder = tempfile::tempdir().expect("temp dir");
        // A data folder that is a file: looking inside it fails, and not as "not found".
        let file = folder.path().join("not-a-folder");
        std::fs::write(&file, "x").expect("file");
        let presence = AccessTokenPresence::new(&file);
        assert!(presence.before_reading().is_none());
        assert_eq!(presence.remembered(), None);
    }
}
