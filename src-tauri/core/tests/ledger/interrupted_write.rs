//! A write that a crash cut off in the middle, left as SQLite leaves it: a hot rollback journal
//! beside a database file that already holds some of the half-written pages (a restored or
//! imported file is in rollback-journal mode until the ledger first switches it to its log).
//! Opening must finish SQLite's own undo and show the last committed state — not refuse the
//! folder as "read-only", which the read-only check at open once did.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing unwrap is the test's report

use crate::support::*;
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::wire::session::CreateSession;
use sqlx::{ConnectOptions, Connection};
use std::collections::BTreeSet;

async fn titles(ledger: &dossier_core::Ledger) -> BTreeSet<String> {
    let page = ledger
        .sessions()
        .list(&SessionQuery {
            limit: Some(1_000),
            ..SessionQuery::default()
        })
        .await
        .unwrap();
    page.sessions
        .into_iter()
        .map(|session| session.title)
        .collect()
}

#[tokio::test]
async fn a_write_cut_off_by_a_crash_is_undone_at_open_and_nothing_committed_is_lost() {
    crate::sqlite_only!("a write cut off in the file's write-ahead log");
    let test = open("{}").await;
    for index in 0..40 {
        test.ledger
            .sessions()
            .create(CreateSession {
                title: Some(format!("kept {index}")),
                ..CreateSession::default()
            })
            .await
            .unwrap();
    }
    let committed = titles(&test.ledger).await;
    test.ledger.close().await;
    let database = test.folder.path().join("data").join("dossier.db");

    // A write in rollback-journal mode with a one-page cache, so changed pages reach the file
    // before the commit, as a large transaction's do. Leaving WAL mode needs the only
    // connection to the file (SQLite answers "locked" at once otherwise): `close` has returned,
    // so the ledger holds none (`ledger_close`).
    let mut writer = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&database)
        .connect()
        .await
        .unwrap();
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode = DELETE")
        .fetch_one(&mut writer)
        .await
        .unwrap();
    assert_eq!(mode, "delete");
    sqlx::query("PRAGMA cache_size = 1")
        .execute(&mut writer)
        .await
        .unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut writer)
        .await
        .unwrap();
    sqlx::query("UPDATE session SET title = 'half written ' || id || hex(randomblob(2000))")
        .execute(&mut writer)
        .await
        .unwrap();
    // The crash: the files as they are now, mid-transaction, in another folder — with no
    // process holding their locks, the journal there is hot.
    let crashed = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(crashed.path().join("data")).unwrap();
    std::fs::create_dir_all(crashed.path().join("work")).unwrap();
    let journal = test.folder.path().join("data").join("dossier.db-journal");
    assert!(
        std::fs::metadata(&journal).unwrap().len() > 0,
        "the write left no journal"
    );
    std::fs::copy(&database, crashed.path().join("data").join("dossier.db")).unwrap();
    std::fs::copy(
        &journal,
        crashed.path().join("data").join("dossier.db-journal"),
    )
    .unwrap();
    sqlx::query("ROLLBACK").execute(&mut writer).await.unwrap();
    writer.close().await.unwrap();

    let reopened = dossier_core::start_up::open(options(crashed.path(), "{}"))
        .await
        .unwrap_or_else(|error| panic!("{error:?}: {error}"));
    assert_eq!(titles(&reopened).await, committed);
    let check: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(reopened.pool().sqlite().expect("a SQLite ledger"))
        .await
        .unwrap();
    assert_eq!(check, "ok");
    reopened.close().await;
}
