//! "Back up now" and the checks on a file chosen to restore from: a backup holds every session
//! and attachment; a random file, a truncated backup, another program's database and a backup
//! from a newer Dossier are each refused with their own error.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing unwrap is the test's report

use super::support::{self, open, FAKE_CONFIG};
use dossier_core::wire::draft::Draft;
use dossier_core::LedgerError;
use sqlx::ConnectOptions;

/// A ledger with a session holding text and a picture large enough for the blob table, backed
/// up to `backup.db` in its folder.
async fn backed_up() -> (support::TestLedger, std::path::PathBuf) {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let picture = test.write("harbour.png", support::png(120, 90));
    test.no_reply(
        &session,
        vec![
            Draft::text("the lighthouse plan"),
            Draft::file(
                support::file_url(&picture),
                "image/png",
                Some("harbour.png"),
            ),
        ],
    )
    .await;
    let target = test.folder.path().join("backup.db");
    test.ledger.data().back_up_to(&target).await.unwrap();
    (test, target)
}

#[tokio::test]
async fn a_backup_made_by_hand_holds_every_session_and_attachment() {
    crate::sqlite_only!("a backup is a copy of the database file");
    let (test, target) = backed_up().await;
    assert!(!test.folder.path().join("backup.db.partial").exists());
    let summary = test.ledger.data().inspect_backup(&target).await.unwrap();
    assert_eq!(summary.sessions, 1);
    let sessions = test
        .ledger
        .sessions()
        .list(&Default::default())
        .await
        .unwrap();
    let original = test
        .ledger
        .reshaping()
        .export_json(&sessions.sessions[0].id)
        .await
        .unwrap();

    // Opened as a ledger of its own, the backup holds the same session, picture bytes included.
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(folder.path().join("data")).unwrap();
    std::fs::copy(&target, folder.path().join("data/dossier.db")).unwrap();
    let restored = dossier_core::start_up::open(support::options(folder.path(), FAKE_CONFIG))
        .await
        .unwrap();
    let copy = restored
        .reshaping()
        .export_json(&original.info.id)
        .await
        .unwrap();
    assert_eq!(copy, original);
    assert!(serde_json::to_string(&copy)
        .unwrap()
        .contains("data:image/png;base64,"));
}

#[tokio::test]
async fn a_random_file_is_not_a_backup() {
    crate::sqlite_only!("a backup is a copy of the database file");
    let (test, _) = backed_up().await;
    let random = test.folder.path().join("random.db");
    std::fs::write(
        &random,
        (0..5000u32)
            .map(|i| (i * 31 % 256) as u8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let error = test
        .ledger
        .data()
        .inspect_backup(&random)
        .await
        .unwrap_err();
    assert!(
        matches!(error, LedgerError::BackupNotADatabase { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("not a database file at all"),
        "{error}"
    );
    assert!(error.to_string().contains("Nothing was changed"), "{error}");
}

#[tokio::test]
async fn a_truncated_backup_is_refused_as_incomplete() {
    crate::sqlite_only!("a backup is a copy of the database file");
    let (test, target) = backed_up().await;
    let bytes = std::fs::read(&target).unwrap();
    let truncated = test.folder.path().join("truncated.db");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let error = test
        .ledger
        .data()
        .inspect_backup(&truncated)
        .await
        .unwrap_err();
    let LedgerError::BackupIncomplete { detail, .. } = &error else {
        panic!("not incomplete: {error:?}");
    };
    assert_eq!(
        detail,
        &format!("{} of {} bytes", bytes.len() / 2, bytes.len())
    );
    assert!(error.to_string().contains("cut off"), "{error}");
}

#[tokio::test]
async fn another_programs_database_is_not_a_backup() {
    crate::sqlite_only!("a backup is a copy of the database file");
    let (test, _) = backed_up().await;
    let foreign = test.folder.path().join("notes.sqlite");
    let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&foreign)
        .create_if_missing(true)
        .connect()
        .await
        .unwrap();
    sqlx::query("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT)")
        .execute(&mut connection)
        .await
        .unwrap();
    sqlx::query("INSERT INTO note (body) VALUES ('milk')")
        .execute(&mut connection)
        .await
        .unwrap();
    sqlx::Connection::close(connection).await.unwrap();
    let error = test
        .ledger
        .data()
        .inspect_backup(&foreign)
        .await
        .unwrap_err();
    assert!(
        matches!(error, LedgerError::BackupFromAnotherApp { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("not one of Dossier's"),
        "{error}"
    );
}

#[tokio::test]
async fn a_backup_from_a_newer_dossier_is_refused_naming_its_version() {
    crate::sqlite_only!("a backup is a copy of the database file");
    let (test, target) = backed_up().await;
    let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&target)
        .connect()
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (5000, 'from the future', TRUE, x'00', 0)",
    )
    .execute(&mut connection)
    .await
    .unwrap();
    sqlx::query("INSERT INTO migration_app_version VALUES (5000, '9.0.0')")
        .execute(&mut connection)
        .await
        .unwrap();
    sqlx::Connection::close(connection).await.unwrap();
    let error = test
        .ledger
        .data()
        .inspect_backup(&target)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, LedgerError::NewerDatabase { made_by: Some(version), .. } if version == "9.0.0"),
        "{error:?}"
    );
}
