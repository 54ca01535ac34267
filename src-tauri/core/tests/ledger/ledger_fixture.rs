//! A ledger made by an earlier schema, committed under `tests/fixtures/ledger-schema-7/`, opened
//! by today's code: every session, message, part, attachment and search hit is still there, and
//! the upgrade wrote a backup first. `expected.json` beside the database is what that earlier
//! code read back from it when it made the fixture (`write_ledger_fixture`, ignored: run it by
//! hand, with `DOSSIER_FIXTURE_FOLDER` set, only to make a new fixture for a new schema, and
//! keep the old one).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing unwrap is the test's report

use super::support::{self, open, FAKE_CONFIG};
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::store::search::search_query::SearchQuery;
use dossier_core::wire::draft::Draft;
use dossier_core::Ledger;
use std::path::{Path, PathBuf};

/// Words the fixture's text holds; each is searched for, in every session.
const SEARCH_WORDS: &[&str] = &["lighthouse", "harbour", "diagram", "notes"];

fn fixture_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ledger-schema-7")
}

/// Everything a person could lose, read through the ledger's own API: each session with its
/// messages, parts and attachment bytes (the lossless JSON export inlines them), and what each
/// search word finds (sessions and excerpts).
async fn everything(ledger: &Ledger) -> serde_json::Value {
    let query = SessionQuery {
        include_archived: true,
        limit: Some(1000),
        ..Default::default()
    };
    let page = ledger.sessions().list(&query).await.unwrap();
    let mut sessions = Vec::new();
    for session in &page.sessions {
        let export = ledger.reshaping().export_json(&session.id).await.unwrap();
        sessions.push(serde_json::to_value(&export).unwrap());
    }
    sessions.sort_by_key(|session| session["info"]["id"].as_str().unwrap_or("").to_string());
    let mut searches = serde_json::Map::new();
    for word in SEARCH_WORDS {
        let results = ledger
            .sessions()
            .search(&SearchQuery {
                text: (*word).into(),
                include_archived: true,
                ..Default::default()
            })
            .await
            .unwrap();
        searches.insert(
            (*word).to_string(),
            serde_json::to_value(
                results
                    .iter()
                    .map(|result| (result.session.id.clone(), result.excerpts.clone()))
                    .collect::<Vec<_>>(),
            )
            .unwrap(),
        );
    }
    serde_json::json!({ "sessions": sessions, "searches": searches })
}

/// Opens a ledger on a copy of `database` in a fresh folder.
async fn open_copy(database: &Path) -> (Ledger, tempfile::TempDir) {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(folder.path().join("data")).unwrap();
    std::fs::create_dir_all(folder.path().join("work")).unwrap();
    std::fs::copy(database, folder.path().join("data/dossier.db")).unwrap();
    let ledger = dossier_core::start_up::open(support::options(folder.path(), FAKE_CONFIG))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    (ledger, folder)
}

#[tokio::test]
async fn a_ledger_from_schema_seven_opens_whole_after_a_backup() {
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture_folder().join("expected.json")).unwrap(),
    )
    .unwrap();
    // What the fixture must hold for this test to mean anything: a fork, attachments (one
    // large enough for the blob table, one small), and search hits.
    let sessions = expected["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3);
    assert!(sessions.iter().any(|session| session["info"]["title"]
        .as_str()
        .unwrap()
        .contains("(fork #1)")));
    let text = expected.to_string();
    assert!(text.contains("data:image/png;base64,"));
    assert!(text.contains("\"filename\":\"notes.txt\""));
    assert_eq!(
        expected["searches"]["lighthouse"].as_array().unwrap().len(),
        2
    );

    let (ledger, folder) = open_copy(&fixture_folder().join("dossier.db")).await;
    assert_eq!(everything(&ledger).await, expected);
    ledger.close().await;

    let backups =
        dossier_core::store::sqlite::upgrade_backup::list(&folder.path().join("data/backups"))
            .unwrap();
    assert_eq!(backups.len(), 1, "{backups:?}");
    let name = backups[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    assert!(name.ends_with("-schema-7.db"), "{name}");
    // The backup is the ledger as it was: opened (and so upgraded) on its own, it holds the same.
    let (from_backup, _second) = open_copy(&backups[0]).await;
    assert_eq!(everything(&from_backup).await, expected);
    from_backup.close().await;
}

#[tokio::test]
#[ignore = "writes the committed fixture; run by hand for a new schema"]
async fn write_ledger_fixture() {
    let test = open(FAKE_CONFIG).await;
    let first = test.session().await;
    test.ledger
        .sessions()
        .update(
            &first.id,
            dossier_core::wire::session::SessionPatch {
                title: Some("Lighthouse keeper's notes".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let picture = test.write("harbour.png", support::png(120, 90));
    let small = test.write("notes.txt", "the harbour light turns every four seconds\n");
    test.no_reply(
        &first,
        vec![
            Draft::text("Here is the lighthouse diagram and my notes"),
            Draft::file(
                support::file_url(&picture),
                "image/png",
                Some("harbour.png"),
            ),
            support::file_draft(&small),
        ],
    )
    .await;
    let second_message = test
        .no_reply(
            &first,
            vec![Draft::text("The harbour wall needs a second look")],
        )
        .await;
    test.no_reply(
        &first,
        vec![Draft::text("A third thought, after the fork point")],
    )
    .await;
    let fork = test
        .ledger
        .reshaping()
        .fork_session(&first.id, Some(second_message.info.id()))
        .await
        .unwrap();
    test.no_reply(
        &fork,
        vec![Draft::text("Only in the fork: lighthouse lamps")],
    )
    .await;
    let other = test.session().await;
    test.no_reply(&other, vec![Draft::text("Unrelated shopping notes")])
        .await;
    let expected = everything(&test.ledger).await;
    test.ledger.close().await;
    let data = test.folder.path().join("data");
    assert!(
        !data.join("dossier.db-wal").exists(),
        "the log must be folded in so the fixture is one file"
    );
    // Never over the committed fixture by accident: a new schema gets a new folder, named here.
    let target = PathBuf::from(
        std::env::var_os("DOSSIER_FIXTURE_FOLDER")
            .expect("set DOSSIER_FIXTURE_FOLDER to tests/fixtures/ledger-schema-<version>"),
    );
    std::fs::create_dir_all(&target).unwrap();
    std::fs::copy(data.join("dossier.db"), target.join("dossier.db")).unwrap();
    std::fs::write(
        target.join("expected.json"),
        serde_json::to_string_pretty(&expected).unwrap() + "\n",
    )
    .unwrap();
}
