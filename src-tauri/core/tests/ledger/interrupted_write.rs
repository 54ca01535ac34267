//! A write that a crash cut off in the middle, left as SQLite leaves it: a hot rollback journal
//! beside a database file that already holds some of the half-written pages (a restored or
//! imported file is in rollback-journal mode until the ledger first switches it to its log).
//! Opening must finish SQLite's own undo and show the last committed state — not refuse the
//! folder as "read-only", which the read-only check at open once did.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing unwrap is the test's report

use crate::support::*;
use dossier_core::store::session_store::SessionQuery;
use dossier_core::wire::session::CreateSession;
use sqlx::{ConnectOptions, Connection};
use std::collections::BTreeSet;

async fn titles(ledger: &dossier_core::Ledger) -> BTreeSet<String> {
    let page = ledger
        .sessions(&SessionQuery {
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
    let test = open("{}").await;
    for index in 0..40 {
        test.ledger
            .create_session(CreateSession {
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
    // before the commit, as a large transaction's do.
    // A busy timeout: a pool connection that `close` let go of may still be ending (its lock
    // not yet released), and leaving WAL mode needs the file alone.
    let mut writer = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&database)
        .busy_timeout(std::time::Duration::from_secs(10))
        .connect()
        .await
        .unwrap();
    // Leaving WAL mode needs the only connection to the file, and SQLite answers "locked" at once
    // (no busy wait) while the ledger's background checkpoint connection is still ending.
    let mut attempts = 0;
    while let Err(error) = sqlx::query("PRAGMA journal_mode = DELETE")
        .execute(&mut writer)
        .await
    {
        attempts += 1;
        assert!(attempts < 100, "the ledger still holds its file: {error}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
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
        .fetch_one(reopened.pool())
        .await
        .unwrap();
    assert_eq!(check, "ok");
    reopened.close().await;
}
