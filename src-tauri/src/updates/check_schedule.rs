//! When Dossier looks for an update on its own: at start, at most once a day, and never if the
//! person turned automatic checks off. The choice and the time of the last check that reached
//! the server live in `updates.json` in the app's config folder, so a restart does not check again.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A day, in milliseconds.
pub const CHECK_INTERVAL_MS: i64 = 24 * 60 * 60 * 1000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CheckSchedule {
    pub automatic_checks: bool,
    /// Milliseconds since the Unix epoch of the last check that got an answer.
    pub last_checked_at: Option<i64>,
}

impl Default for CheckSchedule {
    fn default() -> Self {
        Self {
            automatic_checks: true,
            last_checked_at: None,
        }
    }
}

impl CheckSchedule {
    /// Whether a start at `now` should check. A last check in the future means the clock was
    /// set back: check rather than wait for days.
    pub fn is_due(&self, now: i64) -> bool {
        if !self.automatic_checks {
            return false;
        }
        match self.last_checked_at {
            None => true,
            Some(last) => last > now || now - last >= CHECK_INTERVAL_MS,
        }
    }
}

/// The schedule's file. A missing file is the default; an unreadable one too (logged), because
/// a broken preferences file must not stop the app, and the next save rewrites it.
#[derive(Debug, Clone)]
pub struct ScheduleFile {
    path: PathBuf,
}

impl ScheduleFile {
    pub fn new(path: PathBuf) -> Self {
        Self { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn load(&self) -> CheckSchedule {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|error| {
                tracing::warn!(%error, path = %self.path.display(), "unreadable update schedule; using the default");
                CheckSchedule::default()
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => CheckSchedule::default(),
            Err(error) => {
                tracing::warn!(%error, path = %self.path.display(), "cannot read the update schedule; using the default");
                CheckSchedule::default()
            }
        }
    }

    /// Written to a temporary file and renamed, so a crash never leaves half a file.
    pub fn save(&self, schedule: &CheckSchedule) -> std::io::Result<()> {
        if let Some(folder) = self.path.parent() {
            std::fs::create_dir_all(folder)?;
        }
        let bytes = serde_json::to_vec_pretty(schedule).map_err(std::io::Error::other)?;
        let temporary = self.path.with_extension("json.tmp");
        std::fs::write(&temporary, bytes)?;
        std::fs::rename(&temporary, &self.path)
    }
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOON: i64 = 1_800_000_000_000;

    #[test]
    fn a_check_is_due_once_a_day_and_never_when_turned_off() {
        let schedule = |automatic_checks, last_checked_at| CheckSchedule {
            automatic_checks,
            last_checked_at,
        };
        let table = [
            (schedule(true, None), true, "never checked"),
            (
                schedule(true, Some(NOON - 1000)),
                false,
                "checked a second ago",
            ),
            (
                schedule(true, Some(NOON - CHECK_INTERVAL_MS + 1)),
                false,
                "a day less a millisecond",
            ),
            (
                schedule(true, Some(NOON - CHECK_INTERVAL_MS)),
                true,
                "a day ago",
            ),
            (
                schedule(true, Some(NOON + 60_000)),
                true,
                "the clock went back",
            ),
            (schedule(false, None), false, "turned off, never checked"),
            (
                schedule(false, Some(NOON - 10 * CHECK_INTERVAL_MS)),
                false,
                "turned off",
            ),
        ];
        for (schedule, due, case) in table {
            assert_eq!(schedule.is_due(NOON), due, "{case}");
        }
    }

    #[test]
    fn the_schedule_survives_a_restart_and_a_broken_file_falls_back_to_the_default() {
        let folder = tempfile::tempdir().expect("temp dir");
        let file = ScheduleFile::new(folder.path().join("config").join("updates.json"));
        assert_eq!(file.load(), CheckSchedule::default());

        let saved = CheckSchedule {
            automatic_checks: false,
            last_checked_at: Some(NOON),
        };
        file.save(&saved).expect("saves");
        assert_eq!(ScheduleFile::new(file.path().to_path_buf()).load(), saved);
        let text = std::fs::read_to_string(file.path()).expect("readable");
        assert!(text.contains("\"automaticChecks\": false"), "{text}");

        std::fs::write(file.path(), "{ not json").expect("write");
        assert_eq!(file.load(), CheckSchedule::default());
    }
}
