//! Shared set-up: a ledger in a temporary folder with a given config, and small helpers.

use dossier_core::models::config::{Config, Locations};
use dossier_core::wire::draft::{Draft, PromptInput};
use dossier_core::wire::event::Event;
use dossier_core::wire::message::MessageWithParts;
use dossier_core::wire::part::PartBody;
use dossier_core::wire::session::{CreateSession, Session};
use dossier_core::{Ledger, LedgerOptions};
use std::path::{Path, PathBuf};
use tokio::sync::broadcast;

pub mod crash_rounds;
pub mod model_server;
pub mod postgres_server;

/// A provider named like the one in OpenCode's wire samples.
pub const FAKE_CONFIG: &str = r#"{
  "model": "fake/fake-model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "models": {"fake-model": {"name": "Fake"}, "smart": {"variants": {"high": {}}}}}}
}"#;

pub struct TestLedger {
    pub ledger: Ledger,
    pub folder: tempfile::TempDir,
    /// The test's own PostgreSQL database when the suite runs on that engine (`engine`).
    pub database: Option<postgres_server::TestDatabase>,
}

/// The engine the suite runs on: `DOSSIER_TEST_ENGINE=postgres` runs every ledger the tests
/// open on PostgreSQL (a database of each test's own on the test server), SQLite otherwise.
pub fn on_postgres() -> bool {
    std::env::var("DOSSIER_TEST_ENGINE").is_ok_and(|engine| engine == "postgres")
}

pub fn options(folder: &Path, config: &str) -> LedgerOptions {
    let mut options = LedgerOptions::at(Locations {
        data_dir: folder.join("data"),
        config_path: folder.join("config.json"),
    });
    options.config = Some(Config::parse(config).unwrap_or_else(|error| panic!("{error}")));
    options.default_directory = Some(folder.join("work"));
    options
}

pub async fn open(config: &str) -> TestLedger {
    open_with(config, |_| {}).await
}

pub async fn open_with(config: &str, adjust: impl FnOnce(&mut LedgerOptions)) -> TestLedger {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    std::fs::create_dir_all(folder.path().join("work")).unwrap_or_else(|error| panic!("{error}"));
    let mut options = options(folder.path(), config);
    let database = if on_postgres() {
        let database = postgres_server::fresh_database().await;
        options.database_url = Some(database.url.clone());
        Some(database)
    } else {
        None
    };
    adjust(&mut options);
    let ledger = dossier_core::start_up::open(options)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    TestLedger {
        ledger,
        folder,
        database,
    }
}

impl TestLedger {
    /// Every message of the session with its parts, oldest first, as the ledger lists them.
    pub async fn history(&self, session_id: &str) -> Vec<MessageWithParts> {
        self.ledger
            .sessions()
            .messages(session_id, &Default::default())
            .await
            .unwrap_or_else(|error| panic!("{error}"))
            .messages
    }

    pub fn work(&self) -> PathBuf {
        self.folder.path().join("work")
    }

    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.work().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|error| panic!("{error}"));
        }
        std::fs::write(&path, bytes).unwrap_or_else(|error| panic!("{error}"));
        path
    }

    pub async fn session(&self) -> Session {
        self.ledger
            .sessions()
            .create(CreateSession::default())
            .await
            .unwrap_or_else(|error| panic!("{error}"))
    }

    pub async fn no_reply(&self, session: &Session, parts: Vec<Draft>) -> MessageWithParts {
        self.ledger
            .sessions()
            .prompt(&session.id, no_reply(parts))
            .await
            .unwrap_or_else(|error| panic!("{error}"))
    }
}

pub fn no_reply(parts: Vec<Draft>) -> PromptInput {
    PromptInput {
        no_reply: Some(true),
        parts,
        ..PromptInput::default()
    }
}

pub fn file_url(path: &Path) -> String {
    url::Url::from_file_path(path)
        .unwrap_or_else(|()| panic!("{}", path.display()))
        .to_string()
}

pub fn file_draft(path: &Path) -> Draft {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().to_string());
    Draft::file(file_url(path), "text/plain", name.as_deref())
}

/// Each part as a short readable line: `text: …` (with `*` when synthetic), `file mime url`, …
pub fn describe(parts: &[dossier_core::wire::part::Part]) -> Vec<String> {
    parts
        .iter()
        .map(|part| match &part.body {
            PartBody::Text(text) => format!(
                "text{}: {}",
                if text.synthetic == Some(true) {
                    "*"
                } else {
                    ""
                },
                text.text
            ),
            PartBody::File(file) => format!("file {} {}", file.mime, file.url),
            other => other.type_name().to_string(),
        })
        .collect()
}

/// Subscribes to the ledger's events from now on: on PostgreSQL, where the ledger's own events
/// go round the database, only once those announced so far were delivered, so none of them
/// arrives on the new receiver as if it had come after.
pub async fn subscribe(ledger: &Ledger) -> broadcast::Receiver<std::sync::Arc<Event>> {
    ledger.events().delivered().await;
    ledger.events().subscribe()
}

/// Every event the ledger announced so far that `receiver` has not taken yet. On PostgreSQL the
/// ledger's own events go round the database before they are delivered: waits for them first.
pub async fn drain(
    ledger: &Ledger,
    receiver: &mut broadcast::Receiver<std::sync::Arc<Event>>,
) -> Vec<Event> {
    ledger.events().delivered().await;
    let mut events = Vec::new();
    while let Ok(event) = receiver.try_recv() {
        events.push(Event::clone(&event));
    }
    events
}

pub fn types(events: &[Event]) -> Vec<&'static str> {
    events
        .iter()
        .map(|event| event.payload.type_name())
        .collect()
}

/// A PNG of `width`×`height` with enough detail that it does not compress to nothing.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let buffer = image::ImageBuffer::from_fn(width, height, |x, y| {
        image::Rgb([
            (x * 7 % 256) as u8,
            (y * 13 % 256) as u8,
            ((x ^ y) % 256) as u8,
        ])
    });
    let mut bytes = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(buffer)
        .write_to(&mut bytes, image::ImageFormat::Png)
        .unwrap_or_else(|error| panic!("{error}"));
    bytes.into_inner()
}

/// What a search for `text` over every session finds.
pub async fn search(
    test: &TestLedger,
    text: &str,
) -> Vec<dossier_core::store::search::search_query::SearchResult> {
    test.ledger
        .sessions()
        .search(&dossier_core::store::search::search_query::SearchQuery {
            text: text.into(),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

pub fn session_ids(
    results: &[dossier_core::store::search::search_query::SearchResult],
) -> Vec<String> {
    results
        .iter()
        .map(|result| result.session.id.clone())
        .collect()
}

/// The message's first text part.
pub fn text_part_of(message: &MessageWithParts) -> &dossier_core::wire::part::Part {
    message
        .parts
        .iter()
        .find(|part| matches!(part.body, PartBody::Text(_)))
        .unwrap_or_else(|| panic!("no text in {:?}", message.parts))
}

/// One whole-number answer of `sql` (for example a count) on the test ledger, whichever engine
/// it runs on.
pub async fn scalar(ledger: &Ledger, sql: &str) -> i64 {
    use dossier_core::store::Pool;
    let value = match ledger.pool() {
        Pool::Sqlite(pool) => sqlx::query_scalar(sql).fetch_one(pool).await,
        Pool::Postgres(pool) => sqlx::query_scalar(sql).fetch_one(pool).await,
    };
    value.unwrap_or_else(|error| panic!("{sql}: {error}"))
}

/// Runs `sql` on the test ledger, whichever engine it runs on (for a test that breaks the
/// database on purpose).
pub async fn execute(ledger: &Ledger, sql: &str) {
    use dossier_core::store::Pool;
    let outcome = match ledger.pool() {
        Pool::Sqlite(pool) => sqlx::query(sql).execute(pool).await.map(|_| ()),
        Pool::Postgres(pool) => sqlx::query(sql).execute(pool).await.map(|_| ()),
    };
    outcome.unwrap_or_else(|error| panic!("{sql}: {error}"));
}

/// Ends a test early, saying why, when the suite runs on PostgreSQL and what it checks exists
/// only for SQLite's file (its locks, its write-ahead log, copies of the file).
#[macro_export]
macro_rules! sqlite_only {
    ($why:expr) => {
        if $crate::support::on_postgres() {
            eprintln!("SQLite only ({}): not run on PostgreSQL", $why);
            return;
        }
    };
}

/// Everything the ledger's database holds, as bytes to search for a secret that must not be
/// there: on SQLite the files of the data folder (the database and its log; call after
/// `Ledger::close`, or the log may not be written yet), on PostgreSQL every row of every table
/// of the test's database as text.
pub async fn stored_bytes(test: &TestLedger) -> Vec<(String, Vec<u8>)> {
    use dossier_core::store::Pool;
    match (test.ledger.pool(), &test.database) {
        (Pool::Postgres(_), Some(database)) => {
            let pool = database.open().await;
            let tables: Vec<String> = sqlx::query_scalar(
                "SELECT table_name::text FROM information_schema.tables \
                 WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
            )
            .fetch_all(&pool)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
            let mut stored = Vec::new();
            for table in tables {
                let text: String = sqlx::query_scalar(&format!(
                    "SELECT coalesce(string_agg(row_text, ' '), '') FROM \
                     (SELECT row.*::text AS row_text FROM \"{table}\" AS row) AS rows"
                ))
                .fetch_one(&pool)
                .await
                .unwrap_or_else(|error| panic!("{table}: {error}"));
                stored.push((table, text.into_bytes()));
            }
            pool.close().await;
            stored
        }
        _ => std::fs::read_dir(test.folder.path().join("data"))
            .unwrap_or_else(|error| panic!("{error}"))
            .flatten()
            .filter(|entry| entry.path().is_file())
            .map(|entry| {
                let bytes = std::fs::read(entry.path()).unwrap_or_else(|error| panic!("{error}"));
                (entry.path().display().to_string(), bytes)
            })
            .collect(),
    }
}
