//! When the ledger cannot be opened at start, the window opens anyway, on a page that says what
//! happened, which copy is safe and what to do (`ui/src/components/StartUpProblem.tsx`). This file
//! holds what that page is told (`StartUpProblem`, made from the core's refusal), the shell's
//! start-up state (the problem, and how to open the ledger again read-only), and the gate that
//! answers every command needing the ledger with a typed `{kind, message}` while there is none
//! — instead of Tauri's untyped "state not managed". The native box (`start_up_error`) is left
//! for a window that could not be made at all.

use crate::error::ShellError;
use crate::webview_names::CommandName;
use dossier_core::{Ledger, LedgerError, LedgerOptions};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use tauri::{Manager, Runtime};
use ts_rs::TS;

/// Which refusal the page explains: its buttons follow from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase")]
pub enum ProblemKind {
    /// A newer Dossier wrote the database: "Open read-only" is offered.
    NewerDatabase,
    /// Updating the database's format failed; the file is as it was.
    MigrationFailed,
    /// The quick check found damage; a copy was put aside.
    DamagedDatabase,
    /// Anything else (an unreadable config file, a folder that cannot be created, …).
    Other,
}

/// What the start-up page shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase")]
pub struct StartUpProblem {
    pub kind: ProblemKind,
    /// The core's own words: what happened, which copy is safe and what to do.
    pub message: String,
    pub data_folder: String,
    /// The Dossier version that wrote a newer database, when it recorded one.
    pub made_by: Option<String>,
    /// The copy to keep: the backup written before a failed update, or the newest good backup
    /// of a damaged database.
    pub safe_copy: Option<String>,
}

impl StartUpProblem {
    pub fn from_error(error: &LedgerError, data_folder: PathBuf) -> Self {
        let (kind, made_by, safe_copy) = match error {
            LedgerError::NewerDatabase { made_by, .. } => {
                (ProblemKind::NewerDatabase, made_by.clone(), None)
            }
            LedgerError::MigrationFailed { backup, .. } => {
                (ProblemKind::MigrationFailed, None, backup.clone())
            }
            LedgerError::DatabaseDamaged { newest_backup, .. } => {
                (ProblemKind::DamagedDatabase, None, newest_backup.clone())
            }
            _ => (ProblemKind::Other, None, None),
        };
        Self {
            kind,
            // The same text the native box would show, advice included for other failures.
            message: crate::start_up_error::description(error),
            data_folder: data_folder.display().to_string(),
            made_by,
            safe_copy,
        }
    }
}

/// How the app opens its ledger: `LedgerOptions::from_env()` in the app, a temporary folder in
/// tests. Kept so "Open read-only" opens the very folder that was refused.
pub type OptionsSource = Box<dyn Fn() -> LedgerOptions + Send + Sync>;

/// The shell's start-up state, managed once whether or not the ledger opened.
pub struct StartUp {
    problem: Mutex<Option<StartUpProblem>>,
    options: OptionsSource,
    /// Set while "Restore the newest good backup" runs: a second click must not stage a
    /// second copy under the first.
    restoring: AtomicBool,
}

impl StartUp {
    pub fn opened(options: OptionsSource) -> Self {
        Self {
            problem: Mutex::new(None),
            options,
            restoring: AtomicBool::new(false),
        }
    }

    pub fn refused(error: &LedgerError, options: OptionsSource) -> Self {
        let data_folder = options().locations.data_dir;
        Self {
            problem: Mutex::new(Some(StartUpProblem::from_error(error, data_folder))),
            options,
            restoring: AtomicBool::new(false),
        }
    }

    /// The problem the page shows, until the ledger is opened after all.
    pub fn problem(&self) -> Option<StartUpProblem> {
        self.slot().clone()
    }

    pub fn options(&self) -> LedgerOptions {
        (self.options)()
    }

    /// The ledger opened (read-only): the page has nothing left to show.
    pub fn solved(&self) {
        *self.slot() = None;
    }

    /// Claims the one restore that may run; `None` while another holds it.
    pub fn begin_restore(&self) -> Option<RestoreUnderWay<'_>> {
        self.restoring
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| RestoreUnderWay(&self.restoring))
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<StartUpProblem>> {
        // A poisoned lock only means an earlier call panicked; the value is still plain data.
        self.problem
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The claim `StartUp::begin_restore` hands out; let go when dropped, whatever the outcome.
pub struct RestoreUnderWay<'claim>(&'claim AtomicBool);

impl Drop for RestoreUnderWay<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// What the start-up page calls, and what works without a ledger anyway (updates, the launch
/// log line).
const WITHOUT_LEDGER: &[CommandName] = &[
    CommandName::StartUpState,
    CommandName::OpenReadOnly,
    CommandName::RestoreNewestBackup,
    CommandName::OpenStartUpDataFolder,
    CommandName::QuitDossier,
    CommandName::ReportInteractive,
    CommandName::UpdateStatus,
    CommandName::SetAutomaticUpdateChecks,
    CommandName::CheckForUpdate,
    CommandName::DownloadUpdate,
    CommandName::RestartToUpdate,
];

/// Whether `command` can run without a ledger.
pub fn works_without_ledger(command: &str) -> bool {
    WITHOUT_LEDGER.iter().any(|name| {
        serde_json::to_value(name)
            .ok()
            .is_some_and(|value| value.as_str() == Some(command))
    })
}

/// The typed refusal of a command that needs the ledger while there is none; `None` lets the
/// command run.
pub fn refusal<R: Runtime, M: Manager<R>>(app: &M, command: &str) -> Option<ShellError> {
    if app.try_state::<Ledger>().is_some() || works_without_ledger(command) {
        return None;
    }
    let reason = app
        .try_state::<StartUp>()
        .and_then(|start_up| start_up.problem())
        .map(|problem| problem.message)
        .unwrap_or_else(|| "they are still being opened".to_string());
    Some(ShellError::LedgerNotOpen { reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_gets_its_own_kind_and_safe_copy() {
        let folder = PathBuf::from("/data");
        let newer = StartUpProblem::from_error(
            &LedgerError::NewerDatabase {
                database: "/data/dossier.db".into(),
                schema_version: 12,
                known_version: 9,
                made_by: Some("2.0.0".into()),
            },
            folder.clone(),
        );
        assert_eq!(newer.kind, ProblemKind::NewerDatabase);
        assert_eq!(newer.made_by.as_deref(), Some("2.0.0"));
        assert!(
            newer.message.contains("Install Dossier 2.0.0"),
            "{}",
            newer.message
        );
        assert_eq!(newer.data_folder, "/data");

        let failed = StartUpProblem::from_error(
            &LedgerError::MigrationFailed {
                database: "/data/dossier.db".into(),
                from_version: 7,
                to_version: 9,
                backup: Some("/data/backups/dossier-x-schema-7.db".into()),
                reason: "step 9 failed".into(),
            },
            folder.clone(),
        );
        assert_eq!(failed.kind, ProblemKind::MigrationFailed);
        assert_eq!(
            failed.safe_copy.as_deref(),
            Some("/data/backups/dossier-x-schema-7.db")
        );

        let damaged = StartUpProblem::from_error(
            &LedgerError::DatabaseDamaged {
                database: "/data/dossier.db".into(),
                detail: "malformed".into(),
                kept_at: Some("/data/damaged/dossier.db".into()),
                newest_backup: Some("/data/backups/good.db".into()),
            },
            folder.clone(),
        );
        assert_eq!(damaged.kind, ProblemKind::DamagedDatabase);
        assert_eq!(damaged.safe_copy.as_deref(), Some("/data/backups/good.db"));

        let other = StartUpProblem::from_error(
            &LedgerError::Config {
                path: "/config/dossier.json".into(),
                message: "expected value".into(),
            },
            folder,
        );
        assert_eq!(other.kind, ProblemKind::Other);
        assert!(
            other.message.contains("DOSSIER_DATA_DIR"),
            "{}",
            other.message
        );
    }

    #[test]
    fn only_the_start_up_page_and_updates_work_without_a_ledger() {
        for command in [
            "start_up_state",
            "open_read_only",
            "quit_dossier",
            "update_status",
        ] {
            assert!(works_without_ledger(command), "{command}");
        }
        for command in [
            "list_sessions",
            "create_session",
            "send_prompt",
            "data_overview",
        ] {
            assert!(!works_without_ledger(command), "{command}");
        }
    }
}
