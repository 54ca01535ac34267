//! "Open read-only" on a database a newer Dossier wrote: the file stays byte-for-byte as it was
//! (no migration, checkpoint, staged restore or backup), every write through the facade is
//! refused with `LedgerError::ReadOnly`, and sessions, messages, search and export still read.

use crate::support::*;
use dossier_core::store::search::search_query::SearchQuery;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::part::Part;
use dossier_core::wire::session::{CreateSession, SessionPatch};
use dossier_core::{ErrorKind, LedgerError};
use sha2::{Digest, Sha256};
use std::path::Path;

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    format!("{:x}", Sha256::digest(bytes))
}

/// A ledger with one session and one message, then marked as migrated by Dossier 9.9.0
/// (migration 9999, which this build does not have), closed so its log is folded in.
async fn newer_ledger() -> (TestLedger, String, String) {
    let test = open(FAKE_CONFIG).await;
    let session = test
        .ledger
        .sessions()
        .create(CreateSession {
            title: Some("Kept from the future".into()),
            ..CreateSession::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let said = test
        .no_reply(&session, vec![Draft::text("the harbour lighthouse")])
        .await;
    for statement in [
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (9999, 'from the future', TRUE, x'00', 0)",
        "INSERT INTO migration_app_version (version, app_version) VALUES (9999, '9.9.0')",
        "PRAGMA wal_checkpoint(TRUNCATE)",
    ] {
        sqlx::query(statement)
            .execute(test.ledger.pool().sqlite().expect("a SQLite ledger"))
            .await
            .unwrap_or_else(|error| panic!("{statement}: {error}"));
    }
    test.ledger.close().await;
    (test, session.id, said.info.id().to_string())
}

fn data(test: &TestLedger) -> std::path::PathBuf {
    test.folder.path().join("data")
}

fn assert_read_only(result: Result<impl std::fmt::Debug, LedgerError>, what: &str) {
    match result {
        Err(error @ LedgerError::ReadOnly { .. }) => {
            assert_eq!(error.kind(), ErrorKind::ReadOnly, "{what}");
            let message = error.to_string();
            assert!(message.contains("Dossier 9.9.0"), "{what}: {message}");
            assert!(message.contains("Nothing was changed"), "{what}: {message}");
        }
        other => panic!("{what} was not refused as read-only: {other:?}"),
    }
}

#[tokio::test]
async fn a_newer_database_opens_read_only_unchanged_and_refuses_every_write() {
    crate::sqlite_only!("a newer database file opened read-only");
    let (test, session_id, message_id) = newer_ledger().await;
    let data = data(&test);
    let database = data.join("dossier.db");
    // The normal open refuses it (and changes nothing either).
    let refused = dossier_core::start_up::open(options(test.folder.path(), FAKE_CONFIG))
        .await
        .err();
    assert!(
        matches!(&refused, Some(LedgerError::NewerDatabase { made_by: Some(version), .. }) if version == "9.9.0"),
        "{refused:?}"
    );
    // A restore staged by the newer version must wait for it, not be put in place by us.
    let staged = data.join("dossier.db.restore-ready");
    std::fs::copy(&database, &staged).unwrap_or_else(|error| panic!("{error}"));
    let before = sha256(&database);

    let mut read_only = options(test.folder.path(), FAKE_CONFIG);
    read_only.read_only = true;
    let ledger = dossier_core::start_up::open(read_only)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let why = ledger
        .read_only()
        .cloned()
        .unwrap_or_else(|| panic!("not read-only"));
    assert_eq!(why.made_by.as_deref(), Some("9.9.0"));
    assert_eq!(why.schema_version, 9999);

    // Reads work.
    let sessions = ledger
        .sessions()
        .list(&Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let titles: Vec<&str> = sessions
        .sessions
        .iter()
        .map(|session| session.title.as_str())
        .collect();
    assert_eq!(titles, ["Kept from the future"]);
    let messages = ledger
        .sessions()
        .messages(&session_id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(messages.messages.len(), 1);
    assert_eq!(
        describe(&messages.messages[0].parts),
        ["text: the harbour lighthouse"]
    );
    let found = ledger
        .sessions()
        .search(&SearchQuery {
            text: "lighthouse".into(),
            limit: None,
            offset: None,
            include_archived: false,
            session_id: None,
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].session.id, session_id);
    let export = ledger
        .reshaping()
        .export_json(&session_id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(export.messages.len(), 1);

    // Every write is refused with the typed error.
    let part: Part = messages.messages[0].parts[0].clone();
    assert_read_only(
        ledger.sessions().create(CreateSession::default()).await,
        "create",
    );
    assert_read_only(
        ledger
            .sessions()
            .update(
                &session_id,
                SessionPatch {
                    title: Some("Renamed".into()),
                    ..SessionPatch::default()
                },
            )
            .await,
        "rename",
    );
    assert_read_only(
        ledger.sessions().archive(&session_id, true).await,
        "archive",
    );
    assert_read_only(ledger.sessions().delete(&session_id).await, "delete");
    assert_read_only(
        ledger
            .sessions()
            .prompt(&session_id, no_reply(vec![Draft::text("more")]))
            .await,
        "prompt",
    );
    assert_read_only(
        ledger
            .sessions()
            .prompt_in_background(&session_id, no_reply(vec![Draft::text("more")]))
            .await,
        "prompt in the background",
    );
    assert_read_only(
        ledger.reshaping().fork_session(&session_id, None).await,
        "fork",
    );
    assert_read_only(
        ledger
            .reshaping()
            .revert(&session_id, &message_id, None)
            .await,
        "undo",
    );
    assert_read_only(ledger.reshaping().unrevert(&session_id).await, "redo");
    assert_read_only(
        ledger
            .reshaping()
            .resend(&session_id, &message_id, Some("edited"), true)
            .await,
        "resend",
    );
    assert_read_only(
        ledger
            .reshaping()
            .regenerate(&session_id, &message_id)
            .await,
        "regenerate",
    );
    assert_read_only(
        ledger
            .reshaping()
            .delete_message(&session_id, &message_id)
            .await,
        "delete message",
    );
    assert_read_only(
        ledger
            .reshaping()
            .delete_part(&session_id, &message_id, &part.id)
            .await,
        "delete part",
    );
    assert_read_only(
        ledger
            .reshaping()
            .update_part(&session_id, &message_id, &part.id, part.clone())
            .await,
        "edit part",
    );
    assert_read_only(
        ledger
            .reshaping()
            .import_session(serde_json::to_value(&export).unwrap_or_default())
            .await,
        "import",
    );
    assert_read_only(ledger.data().purge_deleted_words().await, "search purge");
    assert_read_only(ledger.data().restore_from(&staged).await, "restore");
    let titles_after: Vec<String> = ledger
        .sessions()
        .list(&Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .sessions
        .into_iter()
        .map(|session| session.title)
        .collect();
    assert_eq!(titles_after, ["Kept from the future"]);
    ledger.close().await;

    assert_eq!(sha256(&database), before, "the database file changed");
    assert!(staged.exists(), "the staged restore was put in place");
    assert!(!data.join("backups").exists(), "a backup was written");
    let log = data.join("dossier.db-wal");
    assert!(
        std::fs::metadata(&log).map(|meta| meta.len()).unwrap_or(0) == 0,
        "something was written to the write-ahead log"
    );
}

#[tokio::test]
async fn read_only_needs_an_existing_ledger() {
    crate::sqlite_only!("a newer database file opened read-only");
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let mut read_only = options(folder.path(), FAKE_CONFIG);
    read_only.read_only = true;
    let error = dossier_core::start_up::open(read_only).await.err();
    assert!(matches!(error, Some(LedgerError::Io { .. })), "{error:?}");
    assert!(
        !folder.path().join("data").join("dossier.db").exists(),
        "a read-only open created a database"
    );
}
