//! Ledger benchmark: prints figures, asserts nothing. Run with `cargo bench -p dossier-core`.
//!
//! Workloads (the ones OpenCode 1.18.33 was measured with over HTTP on this machine:
//! noReply prompt p50 65 ms / p99 185 ms; 1,000 messages in 195 ms; 100 of 1,000 sessions in
//! 21 ms):
//! 1. noReply prompt (a text part + a 10 KB text file) into a session holding 10,000 messages;
//! 2. the first page of 100 sessions out of 10,000;
//! 3. the newest 50 and all 1,000 messages of a 1,000-message session (4 parts each), read and
//!    serialised to JSON as an adapter would, and as the ready-made JSON listing adapters send.

#[path = "support/history.rs"]
mod history;

use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::store::tables::session_store;
use dossier_core::wire::draft::{Draft, PromptInput};
use dossier_core::wire::id::IdKind;
use dossier_core::wire::session::CreateSession;
use std::time::{Duration, Instant};

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let total: Duration = samples.iter().sum();
    let milliseconds = |duration: Duration| duration.as_secs_f64() * 1000.0;
    println!(
        "{label:<58} n={:<5} p50={:>8.3} ms  p95={:>8.3} ms  p99={:>8.3} ms  mean={:>8.3} ms",
        samples.len(),
        milliseconds(percentile(&samples, 0.50)),
        milliseconds(percentile(&samples, 0.95)),
        milliseconds(percentile(&samples, 0.99)),
        milliseconds(total) / samples.len() as f64,
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let ledger = history::open_ledger(folder.path()).await;
    println!(
        "dossier-core ledger benchmark ({} cores)",
        std::thread::available_parallelism()
            .map(|count| count.get())
            .unwrap_or(1)
    );

    // 1. noReply prompts into a session that already holds 10,000 messages.
    let busy = ledger
        .sessions()
        .create(CreateSession::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let started = Instant::now();
    history::fill(
        &ledger,
        &busy.id,
        &history::History {
            messages: 10_000,
            parts_per_message: 1,
            phrase_repeats: 8,
            synthetic_parts: 2,
        },
    )
    .await;
    println!(
        "(filled 10,000 messages in {:.2} s)",
        started.elapsed().as_secs_f64()
    );
    let file = folder.path().join("ten-kb.txt");
    let text: String = (0..200)
        .map(|line| format!("{line:04} the quick brown fox jumps over the lazy dog\n"))
        .collect();
    std::fs::write(&file, &text[..text.len().min(10 * 1024)]).unwrap_or_default();
    let url = url::Url::from_file_path(&file)
        .map(|url| url.to_string())
        .unwrap_or_default();
    let mut samples = Vec::new();
    for index in 0..300 {
        let input = PromptInput {
            no_reply: Some(true),
            parts: vec![
                Draft::file(url.clone(), "text/plain", Some("ten-kb.txt")),
                Draft::text(format!("explain this project {index}")),
            ],
            ..PromptInput::default()
        };
        let started = Instant::now();
        ledger
            .sessions()
            .prompt(&busy.id, input)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        samples.push(started.elapsed());
    }
    let total: Duration = samples.iter().sum();
    report(
        "noReply prompt (text + 10 KB file), session of 10,000 msgs",
        samples,
    );
    println!(
        "{:<58} {:.0} prompts/s sequential",
        "",
        300.0 / total.as_secs_f64()
    );

    // 2. First page of sessions out of 10,000.
    let mut transaction = ledger
        .pool()
        .sqlite()
        .expect("a SQLite ledger")
        .begin()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let template = ledger
        .sessions()
        .get(&busy.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    for index in 0..10_000 {
        let mut session = template.clone();
        session.id = ledger.new_id(IdKind::Session);
        session.title = format!("Session {index}");
        session.time.updated = template.time.updated - 10_000 + index;
        session_store::insert(&mut transaction, &session)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
    }
    transaction
        .commit()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut samples = Vec::new();
    for _ in 0..300 {
        let started = Instant::now();
        let page = ledger
            .sessions()
            .list(&SessionQuery {
                limit: Some(100),
                ..SessionQuery::default()
            })
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let json = serde_json::to_vec(&page.sessions).unwrap_or_default();
        samples.push(started.elapsed());
        assert_eq!(page.sessions.len(), 100);
        assert!(!json.is_empty());
    }
    report("first 100 of 10,000 sessions (read + JSON)", samples);

    // 3. A 1,000-message session, 4 parts per message.
    let long = ledger
        .sessions()
        .create(CreateSession::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    history::fill(
        &ledger,
        &long.id,
        &history::History {
            messages: 1_000,
            parts_per_message: 4,
            phrase_repeats: 8,
            synthetic_parts: 2,
        },
    )
    .await;
    for (label, limit) in [
        ("newest 50 of 1,000 messages (read + JSON)", Some(50)),
        ("all 1,000 messages, 4,000 parts (read + JSON)", None),
    ] {
        let mut samples = Vec::new();
        let mut bytes = 0;
        for _ in 0..(if limit.is_some() { 300 } else { 60 }) {
            let started = Instant::now();
            let page = ledger
                .sessions()
                .messages(
                    &long.id,
                    &MessageQuery {
                        limit,
                        before: None,
                    },
                )
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            let json = serde_json::to_vec(&page.messages).unwrap_or_default();
            samples.push(started.elapsed());
            bytes = json.len();
        }
        report(label, samples);
        println!("{:<58} {} KB of JSON", "", bytes / 1024);
    }
    for (label, limit) in [
        ("newest 50 of 1,000 messages (JSON listing)", Some(50)),
        ("all 1,000 messages, 4,000 parts (JSON listing)", None),
    ] {
        let mut samples = Vec::new();
        for _ in 0..(if limit.is_some() { 300 } else { 100 }) {
            let started = Instant::now();
            let page = ledger
                .sessions()
                .messages_json(
                    &long.id,
                    &MessageQuery {
                        limit,
                        before: None,
                    },
                )
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            samples.push(started.elapsed());
            assert!(page.json.len() > 2);
        }
        report(label, samples);
    }
    let size = std::fs::metadata(folder.path().join("data").join("dossier.db"))
        .map(|metadata| metadata.len())
        .unwrap_or(0);
    println!("database file: {:.1} MB", size as f64 / 1_048_576.0);
}
