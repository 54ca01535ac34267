//! `Ledger::close` returns only once no connection to the database is open: a caller may then
//! change the file's journal mode or copy it. It holds while requests are still arriving, whose
//! connections come back to the pool as it closes, and while the background checkpoint and the
//! search purge have work (SQLite refuses to leave WAL mode at once, without a busy wait, while
//! any other connection is open).

use crate::support::open;
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::wire::session::CreateSession;
use sqlx::{ConnectOptions, Connection};
use std::time::Duration;

/// The files of the database this process still has open (Linux: `/proc/self/fd`).
#[cfg(target_os = "linux")]
fn open_database_files(data_dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap_or_else(|error| panic!("{error}"))
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .filter(|target| {
            target.starts_with(data_dir)
                && target
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("dossier.db"))
        })
        .collect()
}

#[tokio::test]
async fn close_returns_with_no_connection_open_even_with_requests_still_arriving() {
    crate::sqlite_only!("connections to the database file");
    let mut answered_in_all = 0;
    for round in 0..8u64 {
        let test = open("{}").await;
        let mut sessions = Vec::new();
        for index in 0..20 {
            let session = test
                .ledger
                .sessions()
                .create(CreateSession {
                    title: Some(format!("session {index}")),
                    ..CreateSession::default()
                })
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            sessions.push(session.id);
        }
        // Work for the search purge; the writes above give the checkpoint a log to copy.
        test.ledger
            .sessions()
            .delete(&sessions[0])
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        // Readers that keep asking until the closed pool refuses them.
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let ledger = test.ledger.clone();
                tokio::spawn(async move {
                    let mut answered = 0u32;
                    while ledger
                        .sessions()
                        .list(&SessionQuery::default())
                        .await
                        .is_ok()
                    {
                        answered += 1;
                    }
                    answered
                })
            })
            .collect();
        // Each round closes at another point of the readers' and the checkpoint's work.
        tokio::time::sleep(Duration::from_millis(20 + 37 * round)).await;
        test.ledger.close().await;

        let data_dir = test.folder.path().join("data");
        #[cfg(target_os = "linux")]
        assert_eq!(
            open_database_files(&data_dir),
            Vec::<std::path::PathBuf>::new(),
            "round {round}: files of the database still open after close"
        );
        let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(data_dir.join("dossier.db"))
            .connect()
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let mode: String = sqlx::query_scalar("PRAGMA journal_mode = DELETE")
            .fetch_one(&mut connection)
            .await
            .unwrap_or_else(|error| panic!("round {round}: {error}"));
        assert_eq!(mode, "delete", "round {round}");
        connection
            .close()
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        for reader in readers {
            answered_in_all += reader.await.unwrap_or_else(|error| panic!("{error}"));
        }
    }
    // Requests really were arriving while the ledger closed.
    assert!(answered_in_all > 0, "no reader was ever answered");
}
