//! SIGKILL at random moments during "Back up now" and during a restore. Afterwards exactly one
//! complete ledger is in use (it opens, passes the integrity check and holds either the sessions
//! it held or the backup's, never a mix and never nothing), a file under the backup's name is
//! always a whole backup, and nothing acknowledged is missing.
//!
//! The child is this same test binary, re-run with an environment variable set (`crash_child`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing unwrap is the test's report

use crate::crash_child::{ready, CrashChild};
use crate::support::crash_rounds::{fill, say, KillWindow, ROUNDS, SESSIONS};
use crate::support::*;
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::wire::session::CreateSession;
use dossier_core::Ledger;
use std::collections::BTreeSet;
use std::path::Path;

const BACKUP_CHILD_ENV: &str = "DOSSIER_BACKUP_CRASH_CHILD_DIR";
const BACKUP_TEST_NAME: &str =
    "backup_crash::killed_backup_leaves_the_ledger_whole_and_no_half_backup";
const RESTORE_CHILD_ENV: &str = "DOSSIER_RESTORE_CRASH_CHILD_DIR";
const RESTORE_TEST_NAME: &str = "backup_crash::killed_restore_leaves_exactly_one_whole_ledger";

async fn titles(ledger: &Ledger) -> BTreeSet<String> {
    ledger
        .sessions()
        .list(&SessionQuery {
            limit: Some(10_000),
            ..SessionQuery::default()
        })
        .await
        .unwrap()
        .sessions
        .into_iter()
        .map(|session| session.title)
        .collect()
}

async fn integrity(ledger: &Ledger) -> String {
    sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(ledger.pool().sqlite().expect("a SQLite ledger"))
        .await
        .unwrap()
}

/// A ledger in `folder` holding `SESSIONS` sessions titled `kept <n>`.
async fn filled(folder: &Path) -> Ledger {
    let ledger = dossier_core::start_up::open(options(folder, "{}"))
        .await
        .unwrap();
    fill(&ledger, folder).await;
    ledger
}

async fn child_backup(folder: std::path::PathBuf) {
    let ledger = dossier_core::start_up::open(options(&folder, "{}"))
        .await
        .unwrap();
    say("ready");
    for round in 0.. {
        ledger
            .data()
            .back_up_to(&folder.join("backup.db"))
            .await
            .unwrap();
        say(&format!("backed up {round}"));
    }
}

#[tokio::test]
async fn killed_backup_leaves_the_ledger_whole_and_no_half_backup() {
    if let Some(folder) = std::env::var_os(BACKUP_CHILD_ENV) {
        child_backup(folder.into()).await;
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let ledger = filled(folder.path()).await;
    let expected = titles(&ledger).await;
    ledger.close().await;
    drop(ledger);
    let backup = folder.path().join("backup.db");
    let mut rng = rand::thread_rng();
    let mut finished_backups = 0;
    let mut kill_window = KillWindow::new(120);
    for round in 0..ROUNDS {
        let child = CrashChild::spawn(BACKUP_TEST_NAME, BACKUP_CHILD_ENV, folder.path());
        child.wait_for(&format!("became ready in round {round}"), ready);
        kill_window.wait(&mut rng);
        finished_backups += child
            .kill()
            .iter()
            .filter(|line| line.contains("backed up"))
            .count();
        kill_window.after_round(finished_backups);

        let ledger = dossier_core::start_up::open(options(folder.path(), "{}"))
            .await
            .unwrap_or_else(|error| panic!("round {round}: {error}"));
        assert_eq!(integrity(&ledger).await, "ok", "round {round}");
        assert_eq!(titles(&ledger).await, expected, "round {round}");
        // A file under the chosen name is always a whole backup; a half one only ever carries
        // the temporary name.
        if backup.exists() {
            let summary = ledger
                .data()
                .inspect_backup(&backup)
                .await
                .unwrap_or_else(|error| panic!("round {round}: {error}"));
            assert_eq!(summary.sessions, SESSIONS as i64, "round {round}");
        }
        ledger.close().await;
    }
    assert!(
        finished_backups > 0,
        "no backup ever finished before a kill"
    );
}

/// The child: opens the ledger (which finishes a restore a kill interrupted), then over and over
/// adds a session, restores the backup and opens the ledger again.
async fn child_restore(folder: std::path::PathBuf) {
    let backup = folder.join("backup.db");
    let mut ledger = dossier_core::start_up::open(options(&folder, "{}"))
        .await
        .unwrap();
    say("ready");
    for round in 0.. {
        let title = format!("extra {round}");
        ledger
            .sessions()
            .create(CreateSession {
                title: Some(title.clone()),
                ..CreateSession::default()
            })
            .await
            .unwrap();
        say(&format!("created {title}"));
        ledger.data().restore_from(&backup).await.unwrap();
        drop(ledger);
        ledger = dossier_core::start_up::open(options(&folder, "{}"))
            .await
            .unwrap();
        say("restored");
    }
}

#[tokio::test]
async fn killed_restore_leaves_exactly_one_whole_ledger() {
    if let Some(folder) = std::env::var_os(RESTORE_CHILD_ENV) {
        child_restore(folder.into()).await;
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let ledger = filled(folder.path()).await;
    let backed_up = titles(&ledger).await;
    ledger
        .data()
        .back_up_to(&folder.path().join("backup.db"))
        .await
        .unwrap();
    ledger.close().await;
    drop(ledger);
    let mut rng = rand::thread_rng();
    let mut restores = 0;
    let mut kill_window = KillWindow::new(400);
    for round in 0..ROUNDS {
        let child = CrashChild::spawn(RESTORE_TEST_NAME, RESTORE_CHILD_ENV, folder.path());
        child.wait_for(&format!("became ready in round {round}"), ready);
        kill_window.wait(&mut rng);
        let lines = child.kill();
        restores += lines
            .iter()
            .filter(|line| line.contains("restored"))
            .count();
        kill_window.after_round(restores);
        let ledger = dossier_core::start_up::open(options(folder.path(), "{}"))
            .await
            .unwrap_or_else(|error| panic!("round {round}: {error}"));
        assert_eq!(integrity(&ledger).await, "ok", "round {round}");
        let found = titles(&ledger).await;
        // Exactly one whole ledger: the backup's sessions, plus at most the one extra session
        // the child created since its last restore (when the kill came before the swap). The
        // round started from exactly the backup's sessions.
        assert!(backed_up.is_subset(&found), "round {round}: {found:?}");
        let extras: Vec<&String> = found.difference(&backed_up).collect();
        assert!(extras.len() <= 1, "round {round}: {extras:?}");
        if let Some(extra) = extras.first() {
            assert!(extra.starts_with("extra "), "round {round}: {extra}");
        }
        let leftovers: Vec<String> = std::fs::read_dir(folder.path().join("data"))
            .unwrap()
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_string_lossy().to_string())
            .filter(|name| name.contains(".restor"))
            .collect();
        assert!(leftovers.is_empty(), "round {round}: {leftovers:?}");
        // Every copy in backups/ is whole (the ledger in use before each restore).
        for entry in ledger.data().automatic_backups().unwrap() {
            ledger
                .data()
                .inspect_backup(Path::new(&entry.path))
                .await
                .unwrap_or_else(|error| panic!("round {round}: {error}"));
        }
        // Back to exactly the backup's sessions for the next round, by a restore run here.
        ledger
            .data()
            .restore_from(&folder.path().join("backup.db"))
            .await
            .unwrap_or_else(|error| panic!("round {round}: {error}"));
        drop(ledger);
        let ledger = dossier_core::start_up::open(options(folder.path(), "{}"))
            .await
            .unwrap_or_else(|error| panic!("round {round}: {error}"));
        assert_eq!(titles(&ledger).await, backed_up, "round {round}");
        ledger.close().await;
    }
    assert!(restores > 0, "no restore ever finished before a kill");
}
