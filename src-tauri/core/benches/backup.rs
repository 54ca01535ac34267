//! Backup benchmark: prints figures, asserts nothing. Run with `cargo bench -p dossier-core
//! --bench backup`; `DOSSIER_BENCH_BACKUP_SESSIONS` sets the size (default 1,000 sessions of 10
//! messages with 10 parts each, 100,000 parts; issue 14 asks for 10,000 sessions and 1,000,000
//! parts, about 1 GB — set 10000 where the disk and the time allow).
//!
//! Reports: the ledger's size, "Back up now" (`VACUUM INTO` beside the target, synced, renamed)
//! in seconds and MB/s, and how long reads of the first page of sessions take while the backup
//! runs (what the window does meanwhile: the backup is off its path, so these must stay short).

#[path = "support/history.rs"]
mod history;

use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::wire::session::CreateSession;
use std::time::{Duration, Instant};

const MESSAGES_PER_SESSION: usize = 10;
const PARTS_PER_MESSAGE: usize = 10;

fn size_of(path: &std::path::Path) -> u64 {
    ["", "-wal"]
        .iter()
        .filter_map(|suffix| {
            let mut name = path.as_os_str().to_os_string();
            name.push(suffix);
            std::fs::metadata(std::path::PathBuf::from(name)).ok()
        })
        .map(|metadata| metadata.len())
        .sum()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let sessions: usize = std::env::var("DOSSIER_BENCH_BACKUP_SESSIONS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(1_000);
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let ledger = history::open_ledger(folder.path()).await;
    let filling = Instant::now();
    for _ in 0..sessions {
        let session = ledger
            .sessions()
            .create(CreateSession::default())
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        history::fill(
            &ledger,
            &session.id,
            &history::History {
                messages: MESSAGES_PER_SESSION,
                parts_per_message: PARTS_PER_MESSAGE,
                phrase_repeats: 30,
                synthetic_parts: 0,
            },
        )
        .await;
    }
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(ledger.pool().sqlite().expect("a SQLite ledger"))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let database = folder.path().join("data").join("dossier.db");
    let bytes = size_of(&database);
    println!(
        "backup benchmark: {sessions} sessions, {} parts, ledger {:.1} MB (filled in {:.1} s)",
        sessions * MESSAGES_PER_SESSION * PARTS_PER_MESSAGE,
        bytes as f64 / 1e6,
        filling.elapsed().as_secs_f64()
    );

    let target = folder.path().join("backup.db");
    let started = Instant::now();
    let backup = {
        let ledger = ledger.clone();
        let target = target.clone();
        tokio::spawn(async move { ledger.data().back_up_to(&target).await })
    };
    // What the window does meanwhile: list the first page of sessions, over and over.
    let mut reads: Vec<Duration> = Vec::new();
    while !backup.is_finished() {
        let read = Instant::now();
        ledger
            .sessions()
            .list(&SessionQuery {
                limit: Some(100),
                ..SessionQuery::default()
            })
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        reads.push(read.elapsed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    backup
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    let seconds = started.elapsed().as_secs_f64();
    let written = size_of(&target);
    println!(
        "back up now: {seconds:.2} s for {:.1} MB ({:.1} MB/s; a 1 GB ledger at this rate: {:.0} s)",
        written as f64 / 1e6,
        written as f64 / 1e6 / seconds,
        1e9 / (written as f64 / seconds)
    );
    reads.sort();
    if let (Some(first), Some(last)) = (reads.first(), reads.last()) {
        println!(
            "reads of 100 sessions while it ran: n={} min={:.1} ms p50={:.1} ms max={:.1} ms",
            reads.len(),
            first.as_secs_f64() * 1000.0,
            reads[reads.len() / 2].as_secs_f64() * 1000.0,
            last.as_secs_f64() * 1000.0
        );
    }
    ledger.close().await;
}
