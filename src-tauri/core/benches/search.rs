//! Search and listing benchmark: prints latency (p50/p95) of search and of the session and
//! message listings over a generated ledger, the time it took to fill, and the index's size
//! against the text it indexes. Asserts nothing. Run with `cargo bench -p dossier-core --bench
//! search`; `SEARCH_BENCH_SESSIONS` and `SEARCH_BENCH_PARTS_PER_SESSION` change the scale
//! (default 10,000 sessions × 100 parts = 1,000,000 parts). With `DOSSIER_BENCH_DATABASE_URL`
//! naming an empty PostgreSQL database the same ledger is written to and read from PostgreSQL
//! (`support/bench_engine.rs`).

#[path = "support/bench_engine.rs"]
mod bench_engine;

use dossier_core::store::engine::Pool;
use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::store::search::search_query::SearchQuery;
use dossier_core::store::tables::message_store;
use dossier_core::store::tables::session_store;
use dossier_core::wire::id::IdKind;
use dossier_core::wire::message::{Message, UserMessage, UserModel, UserTime};
use dossier_core::wire::part::{Part, PartBody, TextPart};
use dossier_core::wire::session::CreateSession;
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

/// Sessions written per transaction: batches through the store's own write path (every insert
/// and its search row as the app writes them), so a million parts do not take a million commits.
const SESSIONS_PER_TRANSACTION: usize = 100;

fn report(label: &str, mut samples: Vec<Duration>, note: &str) {
    samples.sort();
    println!(
        "{label:<44} p50={:>9.2} ms  p95={:>9.2} ms  {note}",
        percentile(&samples, 0.5),
        percentile(&samples, 0.95)
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let sessions = env_number("SEARCH_BENCH_SESSIONS", 10_000);
    let parts_per_session = env_number("SEARCH_BENCH_PARTS_PER_SESSION", 100);
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let (ledger, engine) = bench_engine::open_ledger(folder.path()).await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    println!(
        "dossier-core search benchmark on {}: {sessions} sessions × {parts_per_session} parts",
        engine.name()
    );

    let started = Instant::now();
    let template = ledger
        .sessions()
        .create(CreateSession::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let now = ledger.now();
    let batches = sessions.div_ceil(SESSIONS_PER_TRANSACTION);
    let mut listed_session = None;
    for batch in 0..batches {
        let mut transaction = ledger
            .store()
            .begin_write()
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let first = batch * SESSIONS_PER_TRANSACTION;
        for index in first..(first + SESSIONS_PER_TRANSACTION).min(sessions) {
            let mut session = template.clone();
            session.id = ledger.new_id(IdKind::Session);
            session.title = format!("{} {}", WORDS[index % 20], index);
            // One instant each, so the listing's keyset pages through distinct times.
            session.time.updated = template.time.updated - sessions as i64 + index as i64;
            if index == sessions / 2 {
                listed_session = Some(session.id.clone());
            }
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
        // A long fill says how far it is, so a run cut short still tells its rate.
        if (batch + 1) % (batches / 10).max(1) == 0 {
            println!(
                "  {} of {sessions} sessions written after {:.1} s",
                ((batch + 1) * SESSIONS_PER_TRANSACTION).min(sessions),
                started.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "(generated and indexed {} parts in {:.1} s, {} sessions per transaction)",
        sessions * parts_per_session,
        started.elapsed().as_secs_f64(),
        SESSIONS_PER_TRANSACTION
    );
    if let Pool::Postgres(pool) = ledger.pool() {
        // Autovacuum would do this on its own a little after a bulk write; run now, the queries
        // below meet a settled database (planner statistics, the GIN indexes' pending entries
        // merged) instead of racing the daemon.
        let vacuuming = Instant::now();
        sqlx::query("VACUUM (ANALYZE)")
            .execute(pool)
            .await
            .unwrap_or_else(|error| panic!("VACUUM (ANALYZE): {error}"));
        println!(
            "(VACUUM (ANALYZE) after the fill: {:.1} s)",
            vacuuming.elapsed().as_secs_f64()
        );
    }

    for (label, text) in [
        ("rare word (zanzibar)", "zanzibar"),
        ("common word (invoice)", "invoice"),
        ("two words (refund deadline)", "refund deadline"),
        ("title word (holiday)", "holiday"),
        ("prefix (invo)", "invo"),
        ("short prefix (de)", "de"),
        (
            "phrase (please check the budget)",
            "please check the budget",
        ),
        ("Chinese, 3+ chars (数据库)", "数据库"),
        ("Chinese, 2 chars (合同)", "合同"),
        ("no match (qwertyuiop)", "qwertyuiop"),
    ] {
        let mut samples = Vec::new();
        let mut found = 0;
        // 40 rounds, or fewer (never under 10) once a slow query has taken half a minute.
        let querying = Instant::now();
        for round in 0..40 {
            if round >= 10 && querying.elapsed() > Duration::from_secs(30) {
                break;
            }
            let started = Instant::now();
            let results = ledger
                .sessions()
                .search(&SearchQuery {
                    text: text.into(),
                    ..SearchQuery::default()
                })
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            samples.push(started.elapsed());
            found = results.len();
        }
        let rounds = samples.len();
        report(
            label,
            samples,
            &format!("({found} sessions on the first page; {rounds} rounds)"),
        );
    }

    // The listings a window or client reads: the sidebar's first page, a page far down (the
    // keyset cursor of the page before it, as a client scrolling there would hold), and one
    // session's messages, each read and serialised to JSON as an adapter sends it.
    let page_size = 100;
    let rounds = 100;
    let first_page = SessionQuery {
        limit: Some(page_size),
        ..SessionQuery::default()
    };
    let mut samples = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        let page = ledger
            .sessions()
            .list(&first_page)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let json = serde_json::to_vec(&page.sessions).unwrap_or_default();
        samples.push(started.elapsed());
        assert!(!json.is_empty());
    }
    report(
        "sessions: first page of 100 (read + JSON)",
        samples,
        &format!("(of {} sessions)", sessions + 1),
    );
    let deep_page_number = (sessions / page_size as usize) * 9 / 10;
    let mut cursor = None;
    for _ in 0..deep_page_number {
        let page = ledger
            .sessions()
            .list(&SessionQuery {
                limit: Some(page_size),
                cursor: cursor.clone(),
                ..SessionQuery::default()
            })
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        if page.next_cursor.is_none() {
            break;
        }
        cursor = page.next_cursor;
    }
    let deep_page = SessionQuery {
        limit: Some(page_size),
        cursor,
        ..SessionQuery::default()
    };
    let mut samples = Vec::new();
    let mut returned = 0;
    for _ in 0..rounds {
        let started = Instant::now();
        let page = ledger
            .sessions()
            .list(&deep_page)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let json = serde_json::to_vec(&page.sessions).unwrap_or_default();
        samples.push(started.elapsed());
        returned = page.sessions.len();
        assert!(!json.is_empty());
    }
    report(
        &format!(
            "sessions: page {} of {} (read + JSON)",
            deep_page_number + 1,
            (sessions + 1).div_ceil(page_size as usize)
        ),
        samples,
        &format!("({returned} returned, by the keyset cursor)"),
    );
    let listed_session = listed_session.unwrap_or_else(|| template.id.clone());
    let mut samples = Vec::new();
    let mut listed = (0, 0);
    for _ in 0..rounds {
        let started = Instant::now();
        let page = ledger
            .sessions()
            .messages(&listed_session, &MessageQuery::default())
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let json = serde_json::to_vec(&page.messages).unwrap_or_default();
        samples.push(started.elapsed());
        listed = (page.messages.len(), json.len());
    }
    report(
        "a session's messages (read + JSON)",
        samples,
        &format!(
            "({} messages, {parts_per_session} parts, {} KB of JSON)",
            listed.0,
            listed.1 / 1024
        ),
    );

    match ledger.pool().clone() {
        Pool::Sqlite(_) => sqlite_sizes_and_purge(&ledger).await,
        Pool::Postgres(pool) => postgres_sizes_and_delete(&ledger, &pool).await,
    }
}

/// The index's size against its text on PostgreSQL (the search tables with their GIN indexes,
/// as the server reports them), the database's, and the time to delete a session: on
/// PostgreSQL deleted words leave with their rows, so there is no purge to wait for.
async fn postgres_sizes_and_delete(ledger: &dossier_core::Ledger, pool: &sqlx::PgPool) {
    let text_bytes: i64 = sqlx::query_scalar(
        "SELECT (SELECT coalesce(sum(octet_length(CASE WHEN type = 'file' \
         THEN data::jsonb ->> 'filename' ELSE data::jsonb ->> 'text' END)), 0) FROM part \
         WHERE type IN ('text', 'reasoning', 'file'))::bigint \
         + (SELECT coalesce(sum(octet_length(title)), 0) FROM session)::bigint",
    )
    .fetch_one(pool)
    .await
    .unwrap_or_else(|error| panic!("the indexed text's size: {error}"));
    let tables: Vec<(String, i64)> = sqlx::query_as(
        "SELECT relname::text, pg_total_relation_size(oid) FROM pg_class \
         WHERE relname IN ('part_search', 'title_search') ORDER BY 2 DESC",
    )
    .fetch_all(pool)
    .await
    .unwrap_or_else(|error| panic!("the search tables' sizes: {error}"));
    for (name, bytes) in &tables {
        println!(
            "  {name:<24} {:>8.1} MB (table and indexes)",
            *bytes as f64 / 1_048_576.0
        );
    }
    let index_bytes: i64 = tables.iter().map(|(_, bytes)| bytes).sum();
    let database_bytes: i64 = sqlx::query_scalar("SELECT pg_database_size(current_database())")
        .fetch_one(pool)
        .await
        .unwrap_or_else(|error| panic!("the database's size: {error}"));
    println!(
        "indexed text {:.1} MB; index (tsvector tables and GIN indexes) {:.1} MB = {:.2}× the text; \
         the whole database {:.1} MB",
        text_bytes as f64 / 1_048_576.0,
        index_bytes as f64 / 1_048_576.0,
        index_bytes as f64 / text_bytes.max(1) as f64,
        database_bytes as f64 / 1_048_576.0
    );
    let secret = ledger
        .sessions()
        .create(CreateSession::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    ledger
        .sessions()
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
    let deleting = Instant::now();
    ledger
        .sessions()
        .delete(&secret.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    println!(
        "deleting a session with a word said nowhere else: {:.1} ms (its search rows go with it)",
        deleting.elapsed().as_secs_f64() * 1000.0
    );
}

/// The index's size against its text on SQLite, page by page, and the deleted-word purge.
async fn sqlite_sizes_and_purge(ledger: &dossier_core::Ledger) {
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
        .sessions()
        .create(CreateSession::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    ledger
        .sessions()
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
        .data()
        .purge_deleted_words()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let deleting = Instant::now();
    ledger
        .sessions()
        .delete(&secret.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let deleted = deleting.elapsed();
    // Waits for the background run the deletion started, if it is first.
    ledger
        .data()
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
