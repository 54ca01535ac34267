//! Search benchmark: prints latency (p50/p95) over a generated ledger and the index's size
//! against the text it indexes. Asserts nothing. Run with `cargo bench -p dossier-core --bench
//! search`; `SEARCH_BENCH_SESSIONS` and `SEARCH_BENCH_PARTS_PER_SESSION` change the scale
//! (default 10,000 sessions × 100 parts = 1,000,000 parts).

use dossier_core::models::config::{Config, Locations};
use dossier_core::store::message_store;
use dossier_core::store::search::SearchQuery;
use dossier_core::store::session_store;
use dossier_core::wire::id::IdKind;
use dossier_core::wire::message::{Message, UserMessage, UserModel, UserTime};
use dossier_core::wire::part::{Part, PartBody, TextPart};
use dossier_core::wire::session::CreateSession;
use dossier_core::LedgerOptions;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

const WORDS: &[&str] = &[
    "invoice",
    "garden",
    "python",
    "deadline",
    "meeting",
    "travel",
    "budget",
    "contract",
    "recipe",
    "server",
    "migration",
    "holiday",
    "report",
    "design",
    "customer",
    "refund",
    "schedule",
    "library",
    "kernel",
    "database",
    "the",
    "and",
    "with",
    "for",
    "from",
    "about",
    "please",
    "check",
    "could",
    "would",
    "should",
    "today",
    "tomorrow",
];
const CHINESE: &[&str] = &[
    "文件",
    "格式",
    "检查",
    "报告",
    "会议",
    "旅行",
    "预算",
    "合同",
    "数据库",
    "服务器",
    "明天",
    "今天",
];

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn sentence(rng: &mut rand::rngs::StdRng) -> String {
    let length = rng.gen_range(8..24);
    let mut words: Vec<String> = (0..length)
        .map(|_| WORDS[rng.gen_range(0..WORDS.len())].to_string())
        .collect();
    if rng.gen_bool(0.2) {
        let chinese: String = (0..rng.gen_range(3..8))
            .map(|_| CHINESE[rng.gen_range(0..CHINESE.len())])
            .collect();
        words.push(chinese);
    }
    if rng.gen_bool(0.001) {
        words.push("zanzibar".into());
    }
    words.join(" ")
}

fn percentile(sorted: &[Duration], fraction: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let sessions = env_number("SEARCH_BENCH_SESSIONS", 10_000);
    let parts_per_session = env_number("SEARCH_BENCH_PARTS_PER_SESSION", 100);
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let mut options = LedgerOptions::at(Locations {
        data_dir: folder.path().join("data"),
        config_path: folder.path().join("none.json"),
    });
    options.config = Some(Config::default());
    options.default_directory = Some(folder.path().to_path_buf());
    let ledger = dossier_core::start_up::open(options)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    println!("dossier-core search benchmark: {sessions} sessions × {parts_per_session} parts");

    let started = Instant::now();
    let template = ledger
        .create_session(CreateSession::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let now = ledger.now();
    for batch in 0..sessions.div_ceil(500) {
        let mut transaction = ledger
            .pool()
            .sqlite()
            .expect("a SQLite ledger")
            .begin()
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        for index in (batch * 500)..((batch + 1) * 500).min(sessions) {
            let mut session = template.clone();
            session.id = ledger.new_id(IdKind::Session);
            session.title = format!("{} {}", WORDS[index % 20], index);
            session_store::insert(&mut transaction, &session)
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            let messages = parts_per_session.div_ceil(2);
            let mut seq = session_store::reserve_sequence(
                &mut transaction,
                &session.id,
                (messages + parts_per_session) as i64,
            )
            .await
            .unwrap_or_else(|error| panic!("{error}"));
            let mut written = 0;
            while written < parts_per_session {
                let message_id = ledger.new_id(IdKind::Message);
                let message = Message::User(UserMessage {
                    id: message_id.clone(),
                    session_id: session.id.clone(),
                    time: UserTime { created: now },
                    format: None,
                    summary: None,
                    agent: "build".into(),
                    model: UserModel {
                        provider_id: "dossier".into(),
                        model_id: "offline".into(),
                        variant: None,
                    },
                    system: None,
                    tools: None,
                });
                message_store::insert_message(&mut transaction, &message, seq, now)
                    .await
                    .unwrap_or_else(|error| panic!("{error}"));
                seq += 1;
                for _ in 0..2.min(parts_per_session - written) {
                    let part = Part {
                        id: ledger.new_id(IdKind::Part),
                        session_id: session.id.clone(),
                        message_id: message_id.clone(),
                        body: PartBody::Text(TextPart {
                            text: sentence(&mut rng),
                            ..TextPart::default()
                        }),
                    };
                    message_store::insert_part(&mut transaction, &part, seq, now)
                        .await
                        .unwrap_or_else(|error| panic!("{error}"));
                    seq += 1;
                    written += 1;
                }
            }
        }
        transaction
            .commit()
            .await
            .unwrap_or_else(|error| panic!("{error}"));
    }
    println!(
        "(generated and indexed in {:.1} s)",
        started.elapsed().as_secs_f64()
    );

    for (label, text) in [
        ("rare word (zanzibar)", "zanzibar"),
        ("common word (invoice)", "invoice"),
        ("two words (refund deadline)", "refund deadline"),
        ("title word (holiday)", "holiday"),
        ("Chinese, 3+ chars (数据库)", "数据库"),
        ("Chinese, 2 chars (合同)", "合同"),
        ("no match (qwertyuiop)", "qwertyuiop"),
    ] {
        let mut samples = Vec::new();
        let mut found = 0;
        let rounds = 40;
        for _ in 0..rounds {
            let started = Instant::now();
            let results = ledger
                .search(&SearchQuery {
                    text: text.into(),
                    ..SearchQuery::default()
                })
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            samples.push(started.elapsed());
            found = results.len();
        }
        samples.sort();
        println!(
            "{label:<40} p50={:>9.2} ms  p95={:>9.2} ms  ({found} sessions on the first page)",
            percentile(&samples, 0.5),
            percentile(&samples, 0.95)
        );
    }

    // The text the index covers: every indexed part's text or file name, and the titles.
    let text_bytes: i64 = sqlx::query_scalar(
        "SELECT (SELECT coalesce(sum(length(CAST(CASE WHEN type = 'file' THEN json_extract(data, '$.filename') \
         ELSE json_extract(data, '$.text') END AS BLOB))), 0) FROM part WHERE type IN ('text', 'reasoning', 'file')) \
         + (SELECT coalesce(sum(length(CAST(title AS BLOB))), 0) FROM session)",
    )
    .fetch_one(ledger.pool().sqlite().expect("a SQLite ledger"))
    .await
    .unwrap_or(0);
    // The index's size is the pages its tables own (dbstat). Dropping it and vacuuming, as an
    // earlier version of this bench did, also compacts the ledger's other tables and so
    // overstates it; that figure is printed too, for comparison with older reports.
    let tables: Vec<(String, i64)> = sqlx::query_as(
        "SELECT name, sum(pgsize) FROM dbstat WHERE name LIKE 'part_search%' \
         OR name LIKE 'title_search%' OR name = 'search_word' GROUP BY name ORDER BY 2 DESC",
    )
    .fetch_all(ledger.pool().sqlite().expect("a SQLite ledger"))
    .await
    .unwrap_or_else(|error| panic!("dbstat: {error}"));
    for (name, bytes) in &tables {
        println!("  {name:<24} {:>8.1} MB", *bytes as f64 / 1_048_576.0);
    }
    let index_bytes: i64 = tables.iter().map(|(_, bytes)| bytes).sum();
    println!(
        "indexed text {:.1} MB; index (FTS5 tables and word list) {:.1} MB = {:.2}× the text",
        text_bytes as f64 / 1_048_576.0,
        index_bytes as f64 / 1_048_576.0,
        index_bytes as f64 / text_bytes.max(1) as f64
    );
    // Deleting a session whose words nothing else says: the background purge forgets them and
    // merges both indexes whole (`search_purge.rs`). Timed here as a direct run.
    let secret = ledger
        .create_session(CreateSession::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    ledger
        .prompt(
            &secret.id,
            dossier_core::wire::draft::PromptInput {
                no_reply: Some(true),
                parts: vec![dossier_core::wire::draft::Draft::text(
                    "my password is qx7hunter2zz",
                )],
                ..Default::default()
            },
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    ledger
        .purge_deleted_words()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let deleting = Instant::now();
    ledger
        .delete_session(&secret.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let deleted = deleting.elapsed();
    // Waits for the background run the deletion started, if it is first.
    ledger
        .purge_deleted_words()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    println!(
        "deleting a session with a word said nowhere else: the delete returns after {:.1} ms; \
         the purge (forget it, merge both indexes whole, give the pages back) is done after {:.2} s",
        deleted.as_secs_f64() * 1000.0,
        deleting.elapsed().as_secs_f64()
    );
    let page_size: i64 = sqlx::query_scalar("PRAGMA page_size")
        .fetch_one(ledger.pool().sqlite().expect("a SQLite ledger"))
        .await
        .unwrap_or(4096);
    let pages_before: i64 = sqlx::query_scalar("PRAGMA page_count")
        .fetch_one(ledger.pool().sqlite().expect("a SQLite ledger"))
        .await
        .unwrap_or(0);
    for statement in [
        "DROP TABLE part_search",
        "DROP TABLE title_search",
        "DROP TABLE search_word",
        "VACUUM",
    ] {
        sqlx::query(statement)
            .execute(ledger.pool().sqlite().expect("a SQLite ledger"))
            .await
            .unwrap_or_else(|error| panic!("{error}"));
    }
    let pages_after: i64 = sqlx::query_scalar("PRAGMA page_count")
        .fetch_one(ledger.pool().sqlite().expect("a SQLite ledger"))
        .await
        .unwrap_or(0);
    println!(
        "(dropping the index and vacuuming shrinks the file by {:.1} MB = {:.2}× the text)",
        ((pages_before - pages_after) * page_size) as f64 / 1_048_576.0,
        ((pages_before - pages_after) * page_size) as f64 / text_bytes.max(1) as f64
    );
}
