//! "Restore from a backup…": the ledger in use is backed up first, the restored copy is checked
//! before it replaces anything, it takes effect when the ledger opens again, and each file that
//! is not a restorable backup is refused with its own error, changing nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing unwrap is the test's report

use super::support::{self, open, FAKE_CONFIG};
use dossier_core::store::session_store::SessionQuery;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::session::CreateSession;
use dossier_core::{Ledger, LedgerError};
use sqlx::ConnectOptions;
use std::path::{Path, PathBuf};

async fn titles(ledger: &Ledger) -> Vec<String> {
    let mut titles: Vec<String> = ledger
        .sessions(&SessionQuery::default())
        .await
        .unwrap()
        .sessions
        .into_iter()
        .map(|session| session.title)
        .collect();
    titles.sort();
    titles
}

async fn titled(ledger: &Ledger, title: &str) -> String {
    ledger
        .create_session(CreateSession {
            title: Some(title.into()),
            ..CreateSession::default()
        })
        .await
        .unwrap()
        .id
}

fn data(folder: &Path) -> PathBuf {
    folder.join("data")
}

fn names_in(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[tokio::test]
async fn a_restore_brings_back_the_backup_and_keeps_the_ledger_it_replaced() {
    let test = open(FAKE_CONFIG).await;
    let kept = titled(&test.ledger, "kept").await;
    let picture = test.write("harbour.png", support::png(120, 90));
    test.ledger
        .prompt(
            &kept,
            support::no_reply(vec![
                Draft::text("the lighthouse plan"),
                Draft::file(
                    support::file_url(&picture),
                    "image/png",
                    Some("harbour.png"),
                ),
            ]),
        )
        .await
        .unwrap();
    let exported = test.ledger.export_json(&kept).await.unwrap();
    let backup = test.folder.path().join("chosen.db");
    test.ledger.back_up_to(&backup).await.unwrap();
    titled(&test.ledger, "written after the backup").await;

    let staged = test.ledger.restore_from(&backup).await.unwrap();
    assert_eq!(staged.restored.sessions, 1);
    // The ledger is closed: nothing more can be written to the file about to be replaced.
    assert!(test
        .ledger
        .create_session(CreateSession::default())
        .await
        .is_err());
    let support::TestLedger { ledger, folder } = test;
    drop(ledger);

    let reopened = dossier_core::start_up::open(support::options(folder.path(), FAKE_CONFIG))
        .await
        .unwrap();
    assert_eq!(titles(&reopened).await, ["kept"]);
    assert_eq!(reopened.export_json(&kept).await.unwrap(), exported);
    let leftovers: Vec<String> = names_in(&data(folder.path()))
        .into_iter()
        .filter(|name| name.contains(".restor"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // The ledger it replaced was copied first, whole, among the automatic backups.
    assert!(staged
        .previous_ledger
        .starts_with(data(folder.path()).join("backups")));
    let previous = reopened
        .inspect_backup(&staged.previous_ledger)
        .await
        .unwrap();
    assert_eq!(previous.sessions, 2);
    assert!(reopened
        .automatic_backups()
        .unwrap()
        .iter()
        .any(|entry| Path::new(&entry.path) == staged.previous_ledger && entry.bytes > 0));
}

/// A backup of the ledger in `test`, changed by `spoil` into one of the refused kinds.
async fn refused(test: &support::TestLedger, name: &str) -> PathBuf {
    let backup = test.folder.path().join("whole.db");
    test.ledger.back_up_to(&backup).await.unwrap();
    let spoiled = test.folder.path().join(name);
    match name {
        "random.db" => std::fs::write(
            &spoiled,
            (0..5000u32)
                .map(|i| (i * 31 % 256) as u8)
                .collect::<Vec<_>>(),
        )
        .unwrap(),
        "truncated.db" => {
            let bytes = std::fs::read(&backup).unwrap();
            std::fs::write(&spoiled, &bytes[..bytes.len() / 2]).unwrap();
        }
        "newer.db" => {
            std::fs::copy(&backup, &spoiled).unwrap();
            let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
                .filename(&spoiled)
                .connect()
                .await
                .unwrap();
            sqlx::query(
                "INSERT INTO _sqlx_migrations (version, description, success, checksum, \
                 execution_time) VALUES (5000, 'from the future', TRUE, x'00', 0)",
            )
            .execute(&mut connection)
            .await
            .unwrap();
            sqlx::query("INSERT INTO migration_app_version VALUES (5000, '9.0.0')")
                .execute(&mut connection)
                .await
                .unwrap();
            sqlx::Connection::close(connection).await.unwrap();
        }
        _ => {
            let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
                .filename(&spoiled)
                .create_if_missing(true)
                .connect()
                .await
                .unwrap();
            sqlx::query("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT)")
                .execute(&mut connection)
                .await
                .unwrap();
            sqlx::Connection::close(connection).await.unwrap();
        }
    }
    spoiled
}

#[tokio::test]
async fn each_file_that_is_not_a_restorable_backup_is_refused_changing_nothing() {
    let test = open(FAKE_CONFIG).await;
    titled(&test.ledger, "mine").await;
    // (the file offered, whether the error is the expected kind, words its message must say)
    type Case = (&'static str, fn(&LedgerError) -> bool, &'static str);
    let cases: [Case; 4] = [
        (
            "random.db",
            |error| matches!(error, LedgerError::BackupNotADatabase { .. }),
            "not a database file at all",
        ),
        (
            "truncated.db",
            |error| matches!(error, LedgerError::BackupIncomplete { .. }),
            "cut off",
        ),
        (
            "newer.db",
            |error| matches!(error, LedgerError::NewerDatabase { made_by: Some(version), .. } if version == "9.0.0"),
            "Install Dossier 9.0.0 or later",
        ),
        (
            "notes.sqlite",
            |error| matches!(error, LedgerError::BackupFromAnotherApp { .. }),
            "not one of Dossier's",
        ),
    ];
    for (name, is_expected, says) in cases {
        let file = refused(&test, name).await;
        let before = names_in(&data(test.folder.path()));
        let backups_before = names_in(&data(test.folder.path()).join("backups"));
        let error = test.ledger.restore_from(&file).await.unwrap_err();
        assert!(is_expected(&error), "{name}: {error:?}");
        assert!(error.to_string().contains(says), "{name}: {error}");
        // Nothing changed: no copy staged, no backup written, the ledger still open and whole.
        assert_eq!(names_in(&data(test.folder.path())), before, "{name}");
        assert_eq!(
            names_in(&data(test.folder.path()).join("backups")),
            backups_before,
            "{name}"
        );
        assert_eq!(titles(&test.ledger).await, ["mine"], "{name}");
    }
}

#[tokio::test]
async fn a_copy_left_unverified_by_a_killed_restore_is_never_used() {
    let test = open(FAKE_CONFIG).await;
    titled(&test.ledger, "mine").await;
    let other = open(FAKE_CONFIG).await;
    titled(&other.ledger, "someone else's").await;
    let unverified = data(test.folder.path()).join("dossier.db.restoring");
    other.ledger.back_up_to(&unverified).await.unwrap();
    let support::TestLedger { ledger, folder } = test;
    ledger.close().await;
    drop(ledger);
    let reopened = dossier_core::start_up::open(support::options(folder.path(), FAKE_CONFIG))
        .await
        .unwrap();
    assert_eq!(titles(&reopened).await, ["mine"]);
    assert!(!unverified.exists());
}
