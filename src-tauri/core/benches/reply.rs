//! Reply benchmark with the offline model: prints figures, asserts nothing. Run with
//! `cargo bench -p dossier-core --bench reply`.
//!
//! 1. Time from calling `prompt` to the first `message.part.delta` event, and to the returned
//!    reply (OpenCode here: ~300 ms to the first text event).
//! 2. Sustained delta rate through the event channel: a question of 20,000 words, which the
//!    offline model quotes back word by word, counted by a live subscriber.

use dossier_core::models::config::{Config, Locations};
use dossier_core::wire::draft::{Draft, PromptInput};
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::session::CreateSession;
use dossier_core::LedgerOptions;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::RecvError;

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let milliseconds = |duration: Duration| duration.as_secs_f64() * 1000.0;
    println!(
        "{label:<44} n={:<4} p50={:>8.3} ms  p95={:>8.3} ms  p99={:>8.3} ms",
        samples.len(),
        milliseconds(percentile(&samples, 0.50)),
        milliseconds(percentile(&samples, 0.95)),
        milliseconds(percentile(&samples, 0.99)),
    );
}

fn input(text: &str) -> PromptInput {
    PromptInput {
        parts: vec![Draft::text(text)],
        ..PromptInput::default()
    }
}

#[tokio::main]
async fn main() {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let mut options = LedgerOptions::at(Locations {
        data_dir: folder.path().join("data"),
        config_path: folder.path().join("config.json"),
    });
    options.config = Some(Config::default());
    options.default_directory = Some(folder.path().to_path_buf());
    let ledger = dossier_core::start_up::open(options)
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let mut first_delta = Vec::new();
    let mut whole_reply = Vec::new();
    for round in 0..60 {
        let session = ledger
            .sessions()
            .create(CreateSession::default())
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let mut events = ledger.events().subscribe();
        let started = Instant::now();
        let running = {
            let ledger = ledger.clone();
            let session_id = session.id.clone();
            tokio::spawn(async move {
                ledger
                    .sessions()
                    .prompt(&session_id, input("What is in this folder?"))
                    .await
            })
        };
        loop {
            match events.recv().await {
                Ok(event) if matches!(event.payload, EventPayload::PartDelta { .. }) => break,
                Ok(_) => {}
                Err(error) => panic!("{error}"),
            }
        }
        let to_delta = started.elapsed();
        running
            .await
            .unwrap_or_else(|error| panic!("{error}"))
            .unwrap_or_else(|error| panic!("{error}"));
        // The first rounds warm the caches and the pool; they are not counted.
        if round >= 10 {
            first_delta.push(to_delta);
            whole_reply.push(started.elapsed());
        }
    }
    report("prompt → first message.part.delta", first_delta);
    report("prompt → reply returned (offline model)", whole_reply);

    let words: String = (0..20_000).map(|index| format!("w{index} ")).collect();
    let session = ledger
        .sessions()
        .create(CreateSession::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut events = ledger.events().subscribe();
    let started = Instant::now();
    let running = {
        let ledger = ledger.clone();
        let session_id = session.id.clone();
        tokio::spawn(async move { ledger.sessions().prompt(&session_id, input(&words)).await })
    };
    let (mut deltas, mut lagged) = (0u64, 0u64);
    let mut first: Option<Instant> = None;
    let mut last = Instant::now();
    loop {
        match events.recv().await {
            Ok(event) => match event.payload {
                EventPayload::PartDelta { .. } => {
                    deltas += 1;
                    first.get_or_insert_with(Instant::now);
                    last = Instant::now();
                }
                EventPayload::SessionIdle { .. } => break,
                _ => {}
            },
            Err(RecvError::Lagged(count)) => lagged += count,
            Err(RecvError::Closed) => break,
        }
    }
    running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    let streaming = last
        .duration_since(first.unwrap_or(started))
        .max(Duration::from_micros(1));
    println!(
        "sustained deltas through the event channel: {deltas} received ({lagged} lagged) in {:.1} ms = {:.0} deltas/s; whole reply {:.1} ms",
        streaming.as_secs_f64() * 1000.0,
        deltas as f64 / streaming.as_secs_f64(),
        started.elapsed().as_secs_f64() * 1000.0,
    );
}
