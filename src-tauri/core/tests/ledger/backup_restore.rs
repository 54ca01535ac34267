//! "Restore from a backup…": the ledger in use is backed up first, the restored copy is checked
//! before it replaces anything, it takes effect when the ledger opens again, and each file that
//! is not a restorable backup is refused with its own error, changing nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing unwrap is the test's report

use super::support::{self, open, FAKE_CONFIG};
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::session::CreateSession;
use dossier_core::{Ledger, LedgerError};
use sqlx::ConnectOptions;
use std::path::{Path, PathBuf};

async fn titles(ledger: &Ledger) -> Vec<String> {
    let mut titles: Vec<String> = ledger
        .sessions()
        .list(&SessionQuery::default())
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
        .sessions()
        .create(CreateSession {
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
    crate::sqlite_only!("restoring copies the database file");
    let test = open(FAKE_CONFIG).await;
    let kept = titled(&test.ledger, "kept").await;
    let picture = test.write("harbour.png", support::png(120, 90));
    test.ledger
        .sessions()
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
    let exported = test.ledger.reshaping().export_json(&kept).await.unwrap();
    let backup = test.folder.path().join("chosen.db");
    test.ledger.data().back_up_to(&backup).await.unwrap();
    titled(&test.ledger, "written after the backup").await;

    let staged = test.ledger.data().restore_from(&backup).await.unwrap();
    assert_eq!(staged.restored.sessions, 1);
    // The ledger is closed: nothing more can be written to the file about to be replaced.
    assert!(test
        .ledger
        .sessions()
        .create(CreateSession::default())
        .await
        .is_err());
    let support::TestLedger { ledger, folder, .. } = test;
    drop(ledger);

    let reopened = dossier_core::start_up::open(support::options(folder.path(), FAKE_CONFIG))
        .await
        .unwrap();
    assert_eq!(titles(&reopened).await, ["kept"]);
    assert_eq!(
        reopened.reshaping().export_json(&kept).await.unwrap(),
        exported
    );
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
        .data()
        .inspect_backup(&staged.previous_ledger)
        .await
        .unwrap();
    assert_eq!(previous.sessions, 2);
    assert!(reopened
        .data()
        .automatic_backups()
        .unwrap()
        .iter()
        .any(|entry| Path::new(&entry.path) == staged.previous_ledger && entry.bytes > 0));
}

/// A backup of the ledger in `test`, changed by `spoil` into one of the refused kinds.
async fn refused(test: &support::TestLedger, name: &str) -> PathBuf {
    let backup = test.folder.path().join("whole.db");
    test.ledger.data().back_up_to(&backup).await.unwrap();
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
    crate::sqlite_only!("restoring copies the database file");
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
        let error = test.ledger.data().restore_from(&file).await.unwrap_err();
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
    crate::sqlite_only!("restoring copies the database file");
    let test = open(FAKE_CONFIG).await;
    titled(&test.ledger, "mine").await;
    let other = open(FAKE_CONFIG).await;
    titled(&other.ledger, "someone else's").await;
    let unverified = data(test.folder.path()).join("dossier.db.restoring");
    other.ledger.data().back_up_to(&unverified).await.unwrap();
    let support::TestLedger { ledger, folder, .. } = test;
    ledger.close().await;
    drop(ledger);
    let reopened = dossier_core::start_up::open(support::options(folder.path(), FAKE_CONFIG))
        .await
        .unwrap();
    assert_eq!(titles(&reopened).await, ["mine"]);
    assert!(!unverified.exists());
}

/// How a test damages the ledger file: noise over the whole header (SQLite cannot read it as a
/// database at all), or noise in every page but the first (the schema reads, the tables do not).
fn damage(database: &Path, whole_header: bool) {
    let mut bytes = std::fs::read(database).unwrap();
    if whole_header {
        for (offset, byte) in bytes[..4096].iter_mut().enumerate() {
            *byte = (offset * 37 % 251) as u8;
        }
    } else {
        for page in bytes.chunks_mut(4096).skip(1) {
            let middle = page.len() / 2;
            for (offset, byte) in page[middle - 64..middle + 64].iter_mut().enumerate() {
                *byte = (offset * 37 % 251) as u8;
            }
            // Not a valid b-tree page type.
            page[0] = 0x42;
        }
    }
    std::fs::write(database, bytes).unwrap();
}

/// A ledger with a backup of one session, a second session written after it, closed and then
/// damaged. Returns the folder, the backup and the damaged bytes.
async fn damaged_with_backup(whole_header: bool) -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let test = open(FAKE_CONFIG).await;
    titled(&test.ledger, "in the backup").await;
    let backup = test.folder.path().join("good.db");
    test.ledger.data().back_up_to(&backup).await.unwrap();
    titled(&test.ledger, "after the backup").await;
    // Every page in the file, none left in the log where the damage would not reach it.
    let (busy, _, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
        .fetch_one(test.ledger.pool().sqlite().expect("a SQLite ledger"))
        .await
        .unwrap();
    assert_eq!(busy, 0);
    let support::TestLedger { ledger, folder, .. } = test;
    ledger.close().await;
    drop(ledger);
    let database = data(folder.path()).join("dossier.db");
    damage(&database, whole_header);
    let error = dossier_core::start_up::open(support::options(folder.path(), FAKE_CONFIG))
        .await
        .err()
        .expect("a damaged ledger is refused");
    assert!(
        matches!(error, LedgerError::DatabaseDamaged { .. }),
        "{error:?}"
    );
    let damaged = std::fs::read(&database).unwrap();
    (folder, backup, damaged)
}

fn kept_aside(folder: &Path) -> Vec<Vec<u8>> {
    let damaged = data(folder).join("damaged");
    names_in(&damaged)
        .into_iter()
        .filter(|name| name.ends_with(".db"))
        .map(|name| std::fs::read(damaged.join(name)).unwrap())
        .collect()
}

#[tokio::test]
async fn the_start_up_restore_replaces_a_damaged_ledger_and_keeps_it_aside() {
    crate::sqlite_only!("restoring copies the database file");
    for whole_header in [true, false] {
        let (folder, backup, damaged) = damaged_with_backup(whole_header).await;

        let restored = dossier_core::start_up::restore_damaged(
            support::options(folder.path(), FAKE_CONFIG),
            &backup,
        )
        .await
        .unwrap_or_else(|error| panic!("whole header {whole_header}: {error}"));

        assert_eq!(titles(&restored).await, ["in the backup"], "{whole_header}");
        // Writable: the restored ledger is a ledger like any other.
        titled(&restored, "written after the restore").await;
        assert!(
            kept_aside(folder.path()).contains(&damaged),
            "whole header {whole_header}: the damaged bytes are not in damaged/"
        );
        let leftovers: Vec<String> = names_in(&data(folder.path()))
            .into_iter()
            .filter(|name| name.contains(".restor"))
            .collect();
        assert!(leftovers.is_empty(), "{whole_header}: {leftovers:?}");
        restored.close().await;
    }
}

#[tokio::test]
async fn the_start_up_restore_refuses_a_bad_backup_and_a_sound_ledger_changing_nothing() {
    crate::sqlite_only!("restoring copies the database file");
    let (folder, _backup, damaged) = damaged_with_backup(false).await;
    let database = data(folder.path()).join("dossier.db");
    let noise = folder.path().join("noise.db");
    std::fs::write(&noise, vec![9_u8; 8192]).unwrap();
    let before = names_in(&data(folder.path()));

    let error = dossier_core::start_up::restore_damaged(
        support::options(folder.path(), FAKE_CONFIG),
        &noise,
    )
    .await
    .err()
    .expect("refused");

    assert!(
        matches!(error, LedgerError::BackupNotADatabase { .. }),
        "{error:?}"
    );
    assert!(std::fs::read(&database).unwrap() == damaged);
    assert_eq!(names_in(&data(folder.path())), before);

    // A ledger that passes the check is not the start-up page's to replace.
    let sound = open(FAKE_CONFIG).await;
    titled(&sound.ledger, "sound").await;
    let other_backup = sound.folder.path().join("other.db");
    sound.ledger.data().back_up_to(&other_backup).await.unwrap();
    let support::TestLedger { ledger, folder, .. } = sound;
    ledger.close().await;
    drop(ledger);
    let error = dossier_core::start_up::restore_damaged(
        support::options(folder.path(), FAKE_CONFIG),
        &other_backup,
    )
    .await
    .err()
    .expect("refused");
    assert!(
        matches!(error, LedgerError::NoLongerDamaged { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("no longer damaged"), "{error}");
}

#[tokio::test]
async fn a_staged_restore_is_put_in_place_before_the_newer_database_check() {
    crate::sqlite_only!("restoring copies the database file");
    let backed_up = open(FAKE_CONFIG).await;
    titled(&backed_up.ledger, "from the backup").await;
    let test = open(FAKE_CONFIG).await;
    titled(&test.ledger, "mine").await;
    let ready = data(test.folder.path()).join("dossier.db.restore-ready");
    backed_up.ledger.data().back_up_to(&ready).await.unwrap();
    // The ledger in use was then written by a newer Dossier.
    for statement in [
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (5000, 'from the future', TRUE, x'00', 0)",
        "INSERT INTO migration_app_version VALUES (5000, '9.0.0')",
    ] {
        sqlx::query(statement)
            .execute(test.ledger.pool().sqlite().expect("a SQLite ledger"))
            .await
            .unwrap();
    }
    let support::TestLedger { ledger, folder, .. } = test;
    ledger.close().await;
    drop(ledger);

    let reopened = dossier_core::start_up::open(support::options(folder.path(), FAKE_CONFIG))
        .await
        .unwrap_or_else(|error| panic!("the staged restore was not put in place first: {error}"));

    assert_eq!(titles(&reopened).await, ["from the backup"]);
    assert!(!ready.exists());
}

#[tokio::test]
async fn a_staged_restore_waits_while_another_process_has_the_folder_and_says_so() {
    crate::sqlite_only!("restoring copies the database file");
    let backed_up = open(FAKE_CONFIG).await;
    titled(&backed_up.ledger, "from the backup").await;
    let test = open(FAKE_CONFIG).await;
    titled(&test.ledger, "mine").await;
    assert!(!test.ledger.data().restore_waiting());
    let ready = data(test.folder.path()).join("dossier.db.restore-ready");
    backed_up.ledger.data().back_up_to(&ready).await.unwrap();

    // `test.ledger` stands for dossier-server: it still has the folder open.
    let second = dossier_core::start_up::open(support::options(test.folder.path(), FAKE_CONFIG))
        .await
        .unwrap();
    assert_eq!(titles(&second).await, ["mine"]);
    assert!(second.data().restore_waiting());
    assert!(ready.exists());

    second.close().await;
    test.ledger.close().await;
    let support::TestLedger { ledger, folder, .. } = test;
    drop(ledger);
    drop(second);
    let alone = dossier_core::start_up::open(support::options(folder.path(), FAKE_CONFIG))
        .await
        .unwrap();
    assert_eq!(titles(&alone).await, ["from the backup"]);
    assert!(!alone.data().restore_waiting());
}
