//! Backup benchmark: prints figures, asserts nothing. Run with `cargo bench -p dossier-core
//! --bench backup`; `DOSSIER_BENCH_BACKUP_SESSIONS` sets the size (default 1,000 sessions of 10
//! messages with 10 parts each, 100,000 parts; issue 14 asks for 10,000 sessions and 1,000,000
//! parts, about 1 GB — set 10000 where the disk and the time allow).
//!
//! Reports: the ledger's size, "Back up now" (`VACUUM INTO` beside the target, synced, renamed)
//! in seconds and MB/s, and how long reads of the first page of sessions take while the backup
//! runs (what the window does meanwhile: the backup is off its path, so these must stay short).

use dossier_core::models::config::{Config, Locations};
use dossier_core::store::message_store;
use dossier_core::store::session_store::{self, SessionQuery};
use dossier_core::wire::id::IdKind;
use dossier_core::wire::message::{Message, UserMessage, UserModel, UserTime};
use dossier_core::wire::part::{Part, PartBody, TextPart};
use dossier_core::wire::session::CreateSession;
use dossier_core::{Ledger, LedgerOptions};
use std::time::{Duration, Instant};

const MESSAGES_PER_SESSION: usize = 10;
const PARTS_PER_MESSAGE: usize = 10;

async fn fill_session(ledger: &Ledger, session_id: &str) {
    let now = ledger.now();
    let mut transaction = ledger
        .pool()
        .begin()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut seq = session_store::reserve_sequence(
        &mut transaction,
        session_id,
        (MESSAGES_PER_SESSION * (1 + PARTS_PER_MESSAGE)) as i64,
    )
    .await
    .unwrap_or_else(|error| panic!("{error}"));
    for index in 0..MESSAGES_PER_SESSION {
        let message_id = ledger.new_id(IdKind::Message);
        let message = Message::User(UserMessage {
            id: message_id.clone(),
            session_id: session_id.into(),
            time: UserTime { created: now },
            format: None,
            summary: None,
            agent: "build".into(),
            model: UserModel {
                provider_id: "fake".into(),
                model_id: "fake-model".into(),
                variant: None,
            },
            system: None,
            tools: None,
        });
        message_store::insert_message(&mut transaction, &message, seq, now)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        seq += 1;
        for part_index in 0..PARTS_PER_MESSAGE {
            let part = Part {
                id: ledger.new_id(IdKind::Part),
                session_id: session_id.into(),
                message_id: message_id.clone(),
                body: PartBody::Text(TextPart {
                    text: format!(
                        "message {index} part {part_index}: {}",
                        "lorem ipsum dolor sit amet ".repeat(30)
                    ),
                    ..TextPart::default()
                }),
            };
            message_store::insert_part(&mut transaction, &part, seq, now)
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            seq += 1;
        }
    }
    transaction
        .commit()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
}

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
    let mut options = LedgerOptions::at(Locations {
        data_dir: folder.path().join("data"),
        config_path: folder.path().join("none.json"),
    });
    options.config = Some(
        Config::parse(
            r#"{"model": "fake/fake-model", "provider": {"fake": {"models": {"fake-model": {}}}}}"#,
        )
        .unwrap_or_default(),
    );
    options.default_directory = Some(folder.path().to_path_buf());
    let ledger = dossier_core::start_up::open(options)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let filling = Instant::now();
    for _ in 0..sessions {
        let session = ledger
            .create_session(CreateSession::default())
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        fill_session(&ledger, &session.id).await;
    }
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(ledger.pool())
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
        tokio::spawn(async move { ledger.back_up_to(&target).await })
    };
    // What the window does meanwhile: list the first page of sessions, over and over.
    let mut reads: Vec<Duration> = Vec::new();
    while !backup.is_finished() {
        let read = Instant::now();
        ledger
            .sessions(&SessionQuery {
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
