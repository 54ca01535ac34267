//! The Postgres store (`store::postgres`) against a real PostgreSQL server, and against its
//! SQLite twin: each scenario runs on both engines, its results are compared (the differential
//! check of issue 16) and checked against what the contract expects. What only Postgres has —
//! writers side by side, a schema shared by several servers — is tested on Postgres alone.
#![allow(clippy::unwrap_used)] // a failing unwrap is the test's report

use crate::support::postgres_server::{fresh_database, password_of, TestDatabase};
use dossier_core::store::rows::blob_address::{blob_url, hash_of};
use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::store::rows::session_page::{SessionPage, SessionQuery, UsageChange};
use dossier_core::store::search::search_query::{SearchQuery, SearchResult};
use dossier_core::store::tables::blob_store;
use dossier_core::store::{self, postgres};
use dossier_core::wire::message::{Message, MessageWithParts};
use dossier_core::wire::part::Part;
use dossier_core::wire::session::{CacheTokens, Session, Tokens};
use dossier_core::LedgerError;
use serde_json::json;
use sqlx::{Connection, PgPool, SqlitePool};

/// One engine with a fresh, empty ledger. The calls mirror the store's own dispatch on the
/// engine, so a scenario is written once.
enum Engine {
    Sqlite(SqlitePool, SqliteLedger),
    Postgres(PgPool, TestDatabase),
}

/// A store call's outcome in comparable form: the value, or the error's message.
type Outcome<T> = Result<T, String>;

fn outcome<T>(result: Result<T, LedgerError>) -> Outcome<T> {
    result.map_err(|error| error.to_string())
}

/// SQLite's side: a whole `Store` (its search is a method of the store), whose pool the store
/// functions are called with.
struct SqliteLedger {
    store: store::Store,
    _folder: tempfile::TempDir,
}

async fn sqlite() -> Engine {
    let folder = tempfile::tempdir().unwrap();
    let (store, _) = store::Store::open(folder.path(), None, 1).await.unwrap();
    Engine::Sqlite(
        store.pool().sqlite().expect("a SQLite ledger").clone(),
        SqliteLedger {
            store,
            _folder: folder,
        },
    )
}

async fn postgres_engine() -> Engine {
    let database = fresh_database().await;
    let pool = database.open().await;
    Engine::Postgres(pool, database)
}

async fn both() -> [Engine; 2] {
    [sqlite().await, postgres_engine().await]
}

impl Engine {
    fn name(&self) -> &'static str {
        match self {
            Engine::Sqlite(..) => "sqlite",
            Engine::Postgres(..) => "postgres",
        }
    }

    async fn close(self) {
        match self {
            Engine::Sqlite(_, ledger) => ledger.store.close().await,
            Engine::Postgres(pool, database) => database.drop_database(pool).await,
        }
    }

    async fn insert_session(&self, session: &Session) -> Outcome<()> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                let mut connection = pool.acquire().await.unwrap();
                store::tables::session_store::insert(&mut connection, session).await
            }
            Engine::Postgres(pool, _) => {
                let mut connection = pool.acquire().await.unwrap();
                postgres::session_store::insert(&mut connection, session).await
            }
        })
    }

    async fn get_session(&self, id: &str) -> Outcome<Session> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::session_store::get(&mut pool.acquire().await.unwrap(), id).await
            }
            Engine::Postgres(pool, _) => {
                postgres::session_store::get(&mut pool.acquire().await.unwrap(), id).await
            }
        })
    }

    async fn find_session(&self, id: &str) -> Outcome<Option<Session>> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::session_store::find(&mut pool.acquire().await.unwrap(), id).await
            }
            Engine::Postgres(pool, _) => {
                postgres::session_store::find(&mut pool.acquire().await.unwrap(), id).await
            }
        })
    }

    async fn save_session(&self, session: &Session) -> Outcome<()> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::session_store::save(&mut pool.acquire().await.unwrap(), session)
                    .await
            }
            Engine::Postgres(pool, _) => {
                postgres::session_store::save(&mut pool.acquire().await.unwrap(), session).await
            }
        })
    }

    async fn change_usage(&self, id: &str, change: UsageChange, cost: f64, tokens: &Tokens) {
        match self {
            Engine::Sqlite(pool, _) => store::tables::session_store::change_usage(
                &mut pool.acquire().await.unwrap(),
                id,
                change,
                cost,
                tokens,
            )
            .await
            .unwrap(),
            Engine::Postgres(pool, _) => postgres::session_store::change_usage(
                &mut pool.acquire().await.unwrap(),
                id,
                change,
                cost,
                tokens,
            )
            .await
            .unwrap(),
        }
    }

    async fn reserve_sequence(&self, id: &str, count: i64) -> Outcome<i64> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::session_store::reserve_sequence(
                    &mut pool.acquire().await.unwrap(),
                    id,
                    count,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::session_store::reserve_sequence(
                    &mut pool.acquire().await.unwrap(),
                    id,
                    count,
                )
                .await
            }
        })
    }

    async fn list_sessions(&self, query: &SessionQuery) -> Outcome<SessionPage> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::session_store::list(&store::Pool::Sqlite(pool.clone()), query).await
            }
            Engine::Postgres(pool, _) => postgres::session_store::list(pool, query).await,
        })
    }

    async fn children(&self, id: &str) -> Vec<Session> {
        match self {
            Engine::Sqlite(pool, _) => {
                store::tables::session_store::children(&store::Pool::Sqlite(pool.clone()), id).await
            }
            Engine::Postgres(pool, _) => postgres::session_store::children(pool, id).await,
        }
        .unwrap()
    }

    async fn with_descendants(&self, id: &str) -> Vec<Session> {
        match self {
            Engine::Sqlite(pool, _) => {
                store::tables::session_store::with_descendants(
                    &mut pool.acquire().await.unwrap(),
                    id,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::session_store::with_descendants(&mut pool.acquire().await.unwrap(), id)
                    .await
            }
        }
        .unwrap()
    }

    async fn delete_session(&self, id: &str) {
        match self {
            Engine::Sqlite(pool, _) => {
                store::tables::session_store::delete(&mut pool.acquire().await.unwrap(), id).await
            }
            Engine::Postgres(pool, _) => {
                postgres::session_store::delete(&mut pool.acquire().await.unwrap(), id).await
            }
        }
        .unwrap()
    }

    async fn insert_message(&self, message: &Message, seq: i64) -> Outcome<()> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::insert_message(
                    &mut pool.acquire().await.unwrap(),
                    message,
                    seq,
                    NOW,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::message_store::insert_message(
                    &mut pool.acquire().await.unwrap(),
                    message,
                    seq,
                    NOW,
                )
                .await
            }
        })
    }

    async fn update_message(&self, message: &Message) -> Outcome<()> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::update_message(
                    &mut pool.acquire().await.unwrap(),
                    message,
                    NOW,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::message_store::update_message(
                    &mut pool.acquire().await.unwrap(),
                    message,
                    NOW,
                )
                .await
            }
        })
    }

    async fn insert_part(&self, part: &Part, seq: i64) -> Outcome<()> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::insert_part(
                    &mut pool.acquire().await.unwrap(),
                    part,
                    seq,
                    NOW,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::message_store::insert_part(
                    &mut pool.acquire().await.unwrap(),
                    part,
                    seq,
                    NOW,
                )
                .await
            }
        })
    }

    async fn update_part(&self, part: &Part) -> bool {
        match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::update_part(
                    &mut pool.acquire().await.unwrap(),
                    part,
                    NOW,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::message_store::update_part(&mut pool.acquire().await.unwrap(), part, NOW)
                    .await
            }
        }
        .unwrap()
    }

    async fn list_messages(&self, session_id: &str, query: &MessageQuery) -> Outcome<Listing> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::list(
                    &store::Pool::Sqlite(pool.clone()),
                    session_id,
                    query,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::message_store::list(pool, session_id, query).await
            }
        })
        .map(|page| Listing {
            messages: page.messages.iter().map(shape).collect(),
            next_cursor: page.next_cursor,
        })
    }

    async fn get_message(&self, session_id: &str, message_id: &str) -> Outcome<Shape> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::get(
                    &mut pool.acquire().await.unwrap(),
                    session_id,
                    message_id,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::message_store::get(
                    &mut pool.acquire().await.unwrap(),
                    session_id,
                    message_id,
                )
                .await
            }
        })
        .map(|message| shape(&message))
    }

    async fn seq_of(&self, session_id: &str, message_id: &str) -> Option<i64> {
        match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::seq_of(
                    &mut pool.acquire().await.unwrap(),
                    session_id,
                    message_id,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::message_store::seq_of(
                    &mut pool.acquire().await.unwrap(),
                    session_id,
                    message_id,
                )
                .await
            }
        }
        .unwrap()
    }

    async fn newest_user_message(&self, session_id: &str) -> Option<String> {
        match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::newest_user_message(
                    &mut pool.acquire().await.unwrap(),
                    session_id,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                store::tables::message_store::newest_user_message(
                    &mut pool.acquire().await.unwrap(),
                    session_id,
                )
                .await
            }
        }
        .unwrap()
        .map(|message| message.id)
    }

    async fn delete_from(&self, session_id: &str, from_seq: i64) -> Vec<String> {
        match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::delete_from(
                    &mut pool.acquire().await.unwrap(),
                    session_id,
                    from_seq,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::message_store::delete_from(
                    &mut pool.acquire().await.unwrap(),
                    session_id,
                    from_seq,
                )
                .await
            }
        }
        .unwrap()
    }

    async fn delete_parts_from(&self, message_id: &str, part_id: &str) -> Vec<String> {
        match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::delete_parts_from(
                    &mut pool.acquire().await.unwrap(),
                    message_id,
                    part_id,
                )
                .await
            }
            Engine::Postgres(pool, _) => {
                postgres::message_store::delete_parts_from(
                    &mut pool.acquire().await.unwrap(),
                    message_id,
                    part_id,
                )
                .await
            }
        }
        .unwrap()
    }

    async fn open_replies(&self) -> Vec<(String, String)> {
        let mut replies = match self {
            Engine::Sqlite(pool, _) => {
                store::tables::message_store::open_replies(&store::Pool::Sqlite(pool.clone())).await
            }
            Engine::Postgres(pool, _) => postgres::message_store::open_replies(pool).await,
        }
        .unwrap();
        replies.sort();
        replies
    }

    /// Stores bytes in a transaction of their own, as a prompt's drop does inside its own.
    async fn put_blob(&self, mime: &str, bytes: &[u8]) -> String {
        match self {
            Engine::Sqlite(pool, _) => {
                let mut transaction = pool.begin().await.unwrap();
                let hash = blob_store::put(&mut transaction, mime, bytes, NOW)
                    .await
                    .unwrap();
                transaction.commit().await.unwrap();
                hash
            }
            Engine::Postgres(pool, _) => {
                let mut transaction = pool.begin().await.unwrap();
                let hash = postgres::blob_store::put(&mut transaction, mime, bytes, NOW)
                    .await
                    .unwrap();
                transaction.commit().await.unwrap();
                hash
            }
        }
    }

    async fn blob(&self, hash: &str) -> Option<(String, Vec<u8>)> {
        match self {
            Engine::Sqlite(pool, _) => {
                blob_store::get(&store::Pool::Sqlite(pool.clone()), hash).await
            }
            Engine::Postgres(pool, _) => postgres::blob_store::get(pool, hash).await,
        }
        .unwrap()
        .map(|blob| (blob.mime, blob.bytes))
    }

    async fn inline_url(&self, url: &str) -> Outcome<String> {
        outcome(match self {
            Engine::Sqlite(pool, _) => {
                blob_store::inline_url(&store::Pool::Sqlite(pool.clone()), url).await
            }
            Engine::Postgres(pool, _) => postgres::blob_store::inline_url(pool, url).await,
        })
    }

    async fn step_finish_bodies(&self, session_id: &str, message_id: &str) -> Vec<String> {
        let mut connection = self.connection().await;
        let mut bodies = match &mut connection {
            EngineConnection::Sqlite(connection) => {
                store::tables::message_removal::step_finish_bodies(
                    connection, session_id, message_id,
                )
                .await
            }
            EngineConnection::Postgres(connection) => {
                store::tables::message_removal::step_finish_bodies(
                    connection, session_id, message_id,
                )
                .await
            }
        }
        .unwrap();
        // SQLite's promises no order (Postgres's is by seq).
        bodies.sort();
        bodies
    }

    async fn delete_message(&self, session_id: &str, message_id: &str) -> bool {
        match &mut self.connection().await {
            EngineConnection::Sqlite(connection) => {
                store::tables::message_removal::delete_message(connection, session_id, message_id)
                    .await
            }
            EngineConnection::Postgres(connection) => {
                store::tables::message_removal::delete_message(connection, session_id, message_id)
                    .await
            }
        }
        .unwrap()
    }

    async fn delete_part(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
    ) -> Option<String> {
        match &mut self.connection().await {
            EngineConnection::Sqlite(connection) => {
                store::tables::message_removal::delete_part(
                    connection, session_id, message_id, part_id,
                )
                .await
            }
            EngineConnection::Postgres(connection) => {
                store::tables::message_removal::delete_part(
                    connection, session_id, message_id, part_id,
                )
                .await
            }
        }
        .unwrap()
    }

    async fn part_body(&self, session_id: &str, message_id: &str, part_id: &str) -> Option<String> {
        match &mut self.connection().await {
            EngineConnection::Sqlite(connection) => {
                store::tables::message_removal::part_body(
                    connection, session_id, message_id, part_id,
                )
                .await
            }
            EngineConnection::Postgres(connection) => {
                store::tables::message_removal::part_body(
                    connection, session_id, message_id, part_id,
                )
                .await
            }
        }
        .unwrap()
    }

    async fn connection(&self) -> EngineConnection {
        match self {
            Engine::Sqlite(pool, _) => EngineConnection::Sqlite(pool.acquire().await.unwrap()),
            Engine::Postgres(pool, _) => EngineConnection::Postgres(pool.acquire().await.unwrap()),
        }
    }

    async fn search(&self, query: &SearchQuery) -> Outcome<Vec<SearchResult>> {
        outcome(match self {
            Engine::Sqlite(_, ledger) => ledger.store.search(query).await,
            Engine::Postgres(pool, _) => postgres::search::search(pool, query).await,
        })
    }

    /// How many rows a table holds (the engines' schemas share these table names).
    async fn count(&self, table: &str) -> i64 {
        let sql = format!("SELECT count(*) FROM {table}");
        match self {
            Engine::Sqlite(pool, _) => sqlx::query_scalar(&sql).fetch_one(pool).await,
            Engine::Postgres(pool, _) => sqlx::query_scalar(&sql).fetch_one(pool).await,
        }
        .unwrap()
    }

    /// How many indexed parts (or titles) hold `word`, asked of each engine's own index.
    async fn indexed(&self, index: Index, word: &str) -> i64 {
        match self {
            Engine::Sqlite(pool, _) => {
                let table = match index {
                    Index::Parts => "part_search",
                    Index::Titles => "title_search",
                };
                sqlx::query_scalar(&format!(
                    "SELECT count(*) FROM {table} WHERE {table} MATCH ?"
                ))
                .bind(format!("\"{word}\""))
                .fetch_one(pool)
                .await
            }
            Engine::Postgres(pool, _) => {
                let table = match index {
                    Index::Parts => "part_search",
                    Index::Titles => "title_search",
                };
                sqlx::query_scalar(&format!(
                    "SELECT count(*) FROM {table} WHERE words @@ to_tsquery('simple', $1)"
                ))
                .bind(word)
                .fetch_one(pool)
                .await
            }
        }
        .unwrap()
    }

    /// The listing version of a session's messages (none once it is deleted).
    async fn listing_version(&self, session_id: &str) -> Option<i64> {
        match self {
            Engine::Sqlite(pool, _) => {
                sqlx::query_scalar(
                    "SELECT version FROM message_listing_version WHERE session_id = ?",
                )
                .bind(session_id)
                .fetch_optional(pool)
                .await
            }
            Engine::Postgres(pool, _) => {
                sqlx::query_scalar(
                    "SELECT version FROM message_listing_version WHERE session_id = $1",
                )
                .bind(session_id)
                .fetch_optional(pool)
                .await
            }
        }
        .unwrap()
    }
}

enum EngineConnection {
    Sqlite(sqlx::pool::PoolConnection<sqlx::Sqlite>),
    Postgres(sqlx::pool::PoolConnection<sqlx::Postgres>),
}

#[derive(Debug, Clone, Copy)]
enum Index {
    Parts,
    Titles,
}

const NOW: i64 = 1_700_000_000_000;

/// A message with its parts as ids and part types, for comparing listings across engines.
#[derive(Debug, Clone, PartialEq)]
struct Shape {
    id: String,
    parts: Vec<(String, String)>,
}

fn shape(message: &MessageWithParts) -> Shape {
    Shape {
        id: message.info.id().to_string(),
        parts: message
            .parts
            .iter()
            .map(|part| (part.id.clone(), part.body.type_name().to_string()))
            .collect(),
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Listing {
    messages: Vec<Shape>,
    next_cursor: Option<String>,
}

fn session(id: &str, title: &str, updated: i64) -> Session {
    serde_json::from_value(json!({
        "id": id, "slug": format!("slug-{id}"), "projectID": "project", "directory": "/work",
        "path": "", "title": title, "version": "1.0.0",
        "time": {"created": updated, "updated": updated},
    }))
    .unwrap()
}

fn user_message(id: &str, session_id: &str) -> Message {
    serde_json::from_value(json!({
        "id": id, "sessionID": session_id, "role": "user", "time": {"created": NOW},
        "agent": "build", "model": {"providerID": "fake", "modelID": "fake-model"},
    }))
    .unwrap()
}

fn assistant_message(id: &str, session_id: &str, completed: Option<i64>) -> Message {
    let mut time = json!({"created": NOW});
    if let Some(completed) = completed {
        time["completed"] = json!(completed);
    }
    serde_json::from_value(json!({
        "id": id, "sessionID": session_id, "role": "assistant", "time": time,
        "parentID": "msg_user", "modelID": "fake-model", "providerID": "fake", "mode": "build",
        "agent": "build", "path": {"cwd": "/work", "root": "/work"}, "cost": 0,
        "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
    }))
    .unwrap()
}

fn part(id: &str, message_id: &str, session_id: &str, body: serde_json::Value) -> Part {
    let mut value = json!({"id": id, "messageID": message_id, "sessionID": session_id});
    for (key, field) in body.as_object().unwrap() {
        value[key] = field.clone();
    }
    serde_json::from_value(value).unwrap()
}

fn text(words: &str) -> serde_json::Value {
    json!({"type": "text", "text": words})
}

fn file(url: &str, filename: &str) -> serde_json::Value {
    json!({"type": "file", "mime": "image/png", "filename": filename, "url": url})
}

fn ids(sessions: &[Session]) -> Vec<&str> {
    sessions.iter().map(|session| session.id.as_str()).collect()
}

/// Every page of a listing, following `next_cursor`: the ids of each page, or the error.
async fn all_pages(engine: &Engine, query: &SessionQuery) -> Outcome<Vec<Vec<String>>> {
    let mut query = query.clone();
    let mut pages = Vec::new();
    loop {
        let page = engine.list_sessions(&query).await?;
        pages.push(
            page.sessions
                .iter()
                .map(|session| session.id.clone())
                .collect(),
        );
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => return Ok(pages),
        }
    }
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn session_listings_page_alike_on_both_engines() {
    let mut results = Vec::new();
    for engine in both().await {
        // Two pairs share an update time, so the id decides their order (and the cursor's).
        let mut rows = vec![
            session("ses_a", "Invoice for March", 10),
            session("ses_b", "invoices, again", 20),
            session("ses_C", "Taxes 100%", 20),
            session("ses_d", "Holiday plans", 30),
            session("ses_e", "Archived notes", 40),
            session("ses_f", "A child", 50),
            session("ses_g", "Pinned recipe", 5),
        ];
        rows[4].time.archived = Some(41);
        rows[5].parent_id = Some("ses_d".to_string());
        rows[6].pinned = true;
        for row in &rows {
            engine.insert_session(row).await.unwrap();
        }
        let queries: Vec<(&str, SessionQuery)> = vec![
            ("everything in one page", SessionQuery::default()),
            (
                "pages of two",
                SessionQuery {
                    limit: Some(2),
                    ..Default::default()
                },
            ),
            (
                "pages of one",
                SessionQuery {
                    limit: Some(1),
                    ..Default::default()
                },
            ),
            (
                "roots only",
                SessionQuery {
                    roots_only: true,
                    limit: Some(3),
                    ..Default::default()
                },
            ),
            (
                "with archived",
                SessionQuery {
                    include_archived: true,
                    ..Default::default()
                },
            ),
            (
                "pinned only",
                SessionQuery {
                    pinned_only: true,
                    ..Default::default()
                },
            ),
            (
                "updated since 20",
                SessionQuery {
                    updated_since: Some(20),
                    ..Default::default()
                },
            ),
            (
                "title search ignores case",
                SessionQuery {
                    search: Some("INVOICE".into()),
                    ..Default::default()
                },
            ),
            (
                "a percent sign is literal",
                SessionQuery {
                    search: Some("100%".into()),
                    ..Default::default()
                },
            ),
            (
                "an underscore is literal",
                SessionQuery {
                    search: Some("s_a".into()),
                    ..Default::default()
                },
            ),
            (
                "a foreign cursor",
                SessionQuery {
                    cursor: Some("yesterday".into()),
                    ..Default::default()
                },
            ),
        ];
        let mut pages = Vec::new();
        for (name, query) in &queries {
            pages.push((*name, all_pages(&engine, query).await));
        }
        results.push((engine.name(), pages));
        engine.close().await;
    }
    let (_, postgres_pages) = &results[1];
    let expected: Vec<(&str, Outcome<Vec<Vec<&str>>>)> = vec![
        (
            "everything in one page",
            Ok(vec![vec![
                "ses_f", "ses_d", "ses_b", "ses_C", "ses_a", "ses_g",
            ]]),
        ),
        (
            "pages of two",
            Ok(vec![
                vec!["ses_f", "ses_d"],
                vec!["ses_b", "ses_C"],
                vec!["ses_a", "ses_g"],
            ]),
        ),
        (
            "pages of one",
            Ok(vec![
                vec!["ses_f"],
                vec!["ses_d"],
                vec!["ses_b"],
                vec!["ses_C"],
                vec!["ses_a"],
                vec!["ses_g"],
            ]),
        ),
        (
            "roots only",
            Ok(vec![
                vec!["ses_d", "ses_b", "ses_C"],
                vec!["ses_a", "ses_g"],
            ]),
        ),
        (
            "with archived",
            Ok(vec![vec![
                "ses_f", "ses_e", "ses_d", "ses_b", "ses_C", "ses_a", "ses_g",
            ]]),
        ),
        ("pinned only", Ok(vec![vec!["ses_g"]])),
        (
            "updated since 20",
            Ok(vec![vec!["ses_f", "ses_d", "ses_b", "ses_C"]]),
        ),
        (
            "title search ignores case",
            Ok(vec![vec!["ses_b", "ses_a"]]),
        ),
        ("a percent sign is literal", Ok(vec![vec!["ses_C"]])),
        ("an underscore is literal", Ok(vec![vec![]])),
        (
            "a foreign cursor",
            Err("Invalid request: \"yesterday\" is not a session cursor from this server".into()),
        ),
    ];
    for ((name, got), (expected_name, want)) in postgres_pages.iter().zip(&expected) {
        assert_eq!(name, expected_name);
        let want = want.clone().map(|pages| {
            pages
                .iter()
                .map(|page| page.iter().map(|id| id.to_string()).collect())
                .collect::<Vec<Vec<String>>>()
        });
        assert_eq!(got, &want, "postgres, {name}");
    }
    assert_eq!(
        results[0].1, results[1].1,
        "sqlite and postgres list differently"
    );
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn sessions_read_save_count_and_delete_alike_on_both_engines() {
    let mut transcripts = Vec::new();
    for engine in both().await {
        let mut transcript: Vec<String> = Vec::new();
        let mut root = session("ses_root", "Root", 100);
        root.agent = Some("build".to_string());
        root.model = Some(serde_json::from_value(json!({"id": "m", "providerID": "p"})).unwrap());
        root.created_by_token = Some("laptop".to_string());
        engine.insert_session(&root).await.unwrap();
        let stored = engine.get_session("ses_root").await.unwrap();
        assert_eq!(
            stored,
            root,
            "{}: a session reads back as written",
            engine.name()
        );
        transcript.push(format!("{:?}", engine.insert_session(&root).await.is_err()));
        transcript.push(format!("{:?}", engine.get_session("ses_none").await));
        transcript.push(format!("{:?}", engine.find_session("ses_none").await));

        let mut renamed = stored.clone();
        renamed.title = "Root, renamed".to_string();
        renamed.pinned = true;
        renamed.time.updated = 200;
        renamed.time.archived = Some(201);
        engine.save_session(&renamed).await.unwrap();
        assert_eq!(engine.get_session("ses_root").await.unwrap(), renamed);
        transcript.push(format!(
            "{:?}",
            engine.save_session(&session("ses_none", "x", 1)).await
        ));

        let tokens = |input, cache_read| Tokens {
            input,
            output: 7,
            cache: CacheTokens {
                read: cache_read,
                write: 0,
            },
            ..Default::default()
        };
        engine
            .change_usage("ses_root", UsageChange::Add, 0.5, &tokens(100, 3))
            .await;
        engine
            .change_usage("ses_root", UsageChange::Add, 0.25, &tokens(50, 0))
            .await;
        let totals = engine.get_session("ses_root").await.unwrap();
        assert_eq!(
            (totals.cost, totals.tokens.input, totals.tokens.output),
            (0.75, 150, 14)
        );
        // A removal larger than what was added stops at zero.
        engine
            .change_usage("ses_root", UsageChange::Remove, 5.0, &tokens(1000, 1))
            .await;
        let totals = engine.get_session("ses_root").await.unwrap();
        assert_eq!(
            (
                totals.cost,
                totals.tokens.input,
                totals.tokens.output,
                totals.tokens.cache.read
            ),
            (0.0, 0, 7, 2),
            "{}",
            engine.name()
        );

        transcript.push(format!(
            "{:?}",
            engine.reserve_sequence("ses_root", 1).await
        ));
        transcript.push(format!(
            "{:?}",
            engine.reserve_sequence("ses_root", 3).await
        ));
        transcript.push(format!(
            "{:?}",
            engine.reserve_sequence("ses_root", 1).await
        ));
        transcript.push(format!(
            "{:?}",
            engine.reserve_sequence("ses_none", 1).await
        ));

        // A tree: root → (child_b, child_a) → grandchild.
        for (id, parent, created) in [
            ("ses_child_b", "ses_root", 110),
            ("ses_child_a", "ses_root", 120),
            ("ses_grandchild", "ses_child_b", 130),
        ] {
            let mut child = session(id, id, created);
            child.parent_id = Some(parent.to_string());
            engine.insert_session(&child).await.unwrap();
        }
        engine
            .insert_session(&session("ses_other", "Other", 1))
            .await
            .unwrap();
        transcript.push(format!("{:?}", ids(&engine.children("ses_root").await)));
        let tree = engine.with_descendants("ses_root").await;
        // Postgres lists the tree by depth ("deepest last", as the function says); SQLite's
        // query has no ORDER BY and gives id order (the root last here), so the engines are
        // compared on which sessions are in the tree.
        if let Engine::Postgres(..) = engine {
            assert_eq!(
                ids(&tree),
                ["ses_root", "ses_child_a", "ses_child_b", "ses_grandchild"]
            );
        }
        let mut tree_ids = ids(&tree);
        tree_ids.sort_unstable();
        transcript.push(format!("{tree_ids:?}"));

        engine.delete_session("ses_root").await;
        for id in [
            "ses_root",
            "ses_child_a",
            "ses_child_b",
            "ses_grandchild",
            "ses_other",
        ] {
            transcript.push(format!(
                "{id} {:?}",
                engine.find_session(id).await.map(|found| found.is_some())
            ));
        }
        transcripts.push(transcript);
        engine.close().await;
    }
    let expected = vec![
        "true",
        "Err(\"Session not found: ses_none\")",
        "Ok(None)",
        "Err(\"Session not found: ses_none\")",
        "Ok(1)",
        "Ok(2)",
        "Ok(5)",
        "Err(\"Session not found: ses_none\")",
        "[\"ses_child_b\", \"ses_child_a\"]",
        "[\"ses_child_a\", \"ses_child_b\", \"ses_grandchild\", \"ses_root\"]",
        "ses_root Ok(false)",
        "ses_child_a Ok(false)",
        "ses_child_b Ok(false)",
        "ses_grandchild Ok(false)",
        "ses_other Ok(true)",
    ];
    assert_eq!(transcripts[1], expected, "postgres");
    assert_eq!(transcripts[0], transcripts[1], "sqlite and postgres differ");
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn messages_and_parts_keep_seq_order_alike_on_both_engines() {
    let mut transcripts = Vec::new();
    for engine in both().await {
        let mut transcript: Vec<String> = Vec::new();
        engine
            .insert_session(&session("ses_1", "Talk", 1))
            .await
            .unwrap();
        // Inserted out of order; `seq` decides, never the ids or the order of writing.
        for (id, seq) in [("msg_z", 1), ("msg_c", 3), ("msg_a", 4), ("msg_b", 2)] {
            let message = if seq % 2 == 1 {
                user_message(id, "ses_1")
            } else {
                assistant_message(id, "ses_1", (seq == 2).then_some(NOW + 1))
            };
            engine.insert_message(&message, seq).await.unwrap();
        }
        for (id, message, seq) in [
            ("prt_3", "msg_z", 3),
            ("prt_1", "msg_z", 1),
            ("prt_2", "msg_z", 2),
            ("prt_9", "msg_a", 1),
            ("prt_8", "msg_a", 2),
        ] {
            engine
                .insert_part(
                    &part(id, message, "ses_1", text(&format!("words of {id}"))),
                    seq,
                )
                .await
                .unwrap();
        }
        transcript.push(format!(
            "{:?}",
            engine
                .list_messages("ses_1", &MessageQuery::default())
                .await
        ));
        let mut query = MessageQuery {
            limit: Some(3),
            before: None,
        };
        loop {
            let page = engine.list_messages("ses_1", &query).await.unwrap();
            transcript.push(format!("{page:?}"));
            match page.next_cursor {
                Some(cursor) => query.before = Some(cursor),
                None => break,
            }
        }
        transcript.push(format!(
            "{:?}",
            engine
                .list_messages(
                    "ses_1",
                    &MessageQuery {
                        limit: None,
                        before: Some("soon".into())
                    }
                )
                .await
        ));
        transcript.push(format!("{:?}", engine.get_message("ses_1", "msg_z").await));
        transcript.push(format!(
            "{:?}",
            engine.get_message("ses_1", "msg_none").await
        ));
        transcript.push(format!("{:?}", engine.seq_of("ses_1", "msg_c").await));
        transcript.push(format!("{:?}", engine.seq_of("ses_1", "msg_none").await));
        transcript.push(format!("{:?}", engine.newest_user_message("ses_1").await));
        transcript.push(format!("{:?}", engine.open_replies().await));

        // Duplicates and unknowns.
        transcript.push(format!(
            "{:?}",
            engine
                .insert_message(&user_message("msg_z", "ses_1"), 9)
                .await
        ));
        transcript.push(format!(
            "{:?}",
            engine
                .insert_part(&part("prt_1", "msg_z", "ses_1", text("again")), 9)
                .await
        ));
        transcript.push(format!(
            "{:?}",
            engine
                .update_message(&user_message("msg_none", "ses_1"))
                .await
        ));
        transcript.push(format!(
            "{:?}",
            engine
                .update_part(&part("prt_none", "msg_z", "ses_1", text("x")))
                .await
        ));

        // Rewrites: a finished reply leaves the open ones; a part's body changes in place.
        engine
            .update_message(&assistant_message("msg_a", "ses_1", Some(NOW + 5)))
            .await
            .unwrap();
        transcript.push(format!("{:?}", engine.open_replies().await));
        let version_before = engine.listing_version("ses_1").await;
        assert!(
            engine
                .update_part(&part(
                    "prt_2",
                    "msg_z",
                    "ses_1",
                    json!({"type": "reasoning", "text": "thinking", "time": {"start": 1}})
                ))
                .await
        );
        assert!(
            engine.listing_version("ses_1").await > version_before,
            "{}",
            engine.name()
        );
        transcript.push(format!("{:?}", engine.get_message("ses_1", "msg_z").await));

        // Revert-style deletions. Postgres returns the ids in stored order, as the functions
        // promise; SQLite's RETURNING gives them in an order of its own (prt_3 before prt_2,
        // msg_c before msg_b), so the engines are compared on which ids went.
        let mut parts_deleted = engine.delete_parts_from("msg_z", "prt_2").await;
        let mut messages_deleted = engine.delete_from("ses_1", 2).await;
        if let Engine::Postgres(..) = engine {
            assert_eq!(parts_deleted, ["prt_2", "prt_3"]);
            assert_eq!(messages_deleted, ["msg_b", "msg_c", "msg_a"]);
        }
        parts_deleted.sort_unstable();
        messages_deleted.sort_unstable();
        transcript.push(format!("{parts_deleted:?} {messages_deleted:?}"));
        transcript.push(format!(
            "{:?}",
            engine
                .list_messages("ses_1", &MessageQuery::default())
                .await
        ));
        transcript.push(format!("parts left {}", engine.count("part").await));
        transcripts.push(transcript);
        engine.close().await;
    }
    let expected_first = "Ok(Listing { messages: [\
        Shape { id: \"msg_z\", parts: [(\"prt_1\", \"text\"), (\"prt_2\", \"text\"), (\"prt_3\", \"text\")] }, \
        Shape { id: \"msg_b\", parts: [] }, Shape { id: \"msg_c\", parts: [] }, \
        Shape { id: \"msg_a\", parts: [(\"prt_9\", \"text\"), (\"prt_8\", \"text\")] }], next_cursor: None })";
    assert_eq!(transcripts[1][0], expected_first, "postgres");
    let expected_tail = [
        "Ok(Listing { messages: [Shape { id: \"msg_z\", parts: [(\"prt_1\", \"text\")] }], next_cursor: None })",
        "parts left 1",
    ];
    assert_eq!(
        transcripts[1][transcripts[1].len() - 2..],
        expected_tail,
        "postgres"
    );
    for line in [
        "Err(\"The id msg_z is already used\")",
        "Err(\"The id prt_1 is already used\")",
        "Err(\"Message not found: msg_none in session ses_1\")",
        "Some(3)",
        "Some(\"msg_c\")",
        "[(\"ses_1\", \"msg_a\")]",
        "[]",
        "[\"prt_2\", \"prt_3\"] [\"msg_a\", \"msg_b\", \"msg_c\"]",
    ] {
        assert!(
            transcripts[1].iter().any(|got| got == line),
            "postgres: no {line} in {:#?}",
            transcripts[1]
        );
    }
    assert_eq!(transcripts[0], transcripts[1], "sqlite and postgres differ");
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn deleting_a_session_cascades_alike_on_both_engines() {
    let mut counts = Vec::new();
    for engine in both().await {
        engine
            .insert_session(&session("ses_1", "Kept apart", 1))
            .await
            .unwrap();
        engine
            .insert_session(&session("ses_2", "Going away", 1))
            .await
            .unwrap();
        for session_id in ["ses_1", "ses_2"] {
            let message_id = format!("msg_{session_id}");
            engine
                .insert_message(&user_message(&message_id, session_id), 1)
                .await
                .unwrap();
            engine
                .insert_part(
                    &part(
                        &format!("prt_{session_id}"),
                        &message_id,
                        session_id,
                        text("hello there"),
                    ),
                    1,
                )
                .await
                .unwrap();
        }
        let tables = [
            "session",
            "message",
            "part",
            "title_search",
            "part_search",
            "message_listing_version",
        ];
        let mut before = Vec::new();
        for table in tables {
            before.push(engine.count(table).await);
        }
        engine.delete_session("ses_2").await;
        let mut after = Vec::new();
        for table in tables {
            after.push(engine.count(table).await);
        }
        assert_eq!(before, [2, 2, 2, 2, 2, 2], "{}", engine.name());
        assert_eq!(after, [1, 1, 1, 1, 1, 1], "{}", engine.name());
        assert_eq!(
            engine.listing_version("ses_2").await,
            None,
            "{}",
            engine.name()
        );
        assert!(
            engine.listing_version("ses_1").await.is_some(),
            "{}",
            engine.name()
        );
        counts.push((before, after));
        engine.close().await;
    }
    assert_eq!(counts[0], counts[1]);
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn blobs_are_stored_once_and_released_with_their_last_part_on_both_engines() {
    let mut transcripts = Vec::new();
    for engine in both().await {
        let mut transcript: Vec<String> = Vec::new();
        engine
            .insert_session(&session("ses_1", "Pictures", 1))
            .await
            .unwrap();
        engine
            .insert_message(&user_message("msg_1", "ses_1"), 1)
            .await
            .unwrap();
        let picture = vec![7_u8; 20_000];
        let first = engine.put_blob("image/png", &picture).await;
        let second = engine.put_blob("image/png", &picture).await;
        assert_eq!(first, second);
        assert_eq!(first, hash_of(&picture));
        transcript.push(format!("blobs {}", engine.count("blob").await));
        assert_eq!(
            engine.blob(&first).await,
            Some(("image/png".to_string(), picture.clone()))
        );
        let url = blob_url(&first);
        let inline = engine.inline_url(&url).await.unwrap();
        assert!(
            inline.starts_with("data:image/png;base64,"),
            "{}",
            engine.name()
        );
        transcript.push(format!(
            "{:?}",
            engine.inline_url("https://example.com/a.png").await
        ));
        transcript.push(format!(
            "{:?}",
            engine.inline_url(&blob_url(&"0".repeat(64))).await
        ));

        // Two parts share the bytes; a third part holds other bytes.
        let other = engine.put_blob("image/png", b"other bytes").await;
        engine
            .insert_part(&part("prt_1", "msg_1", "ses_1", file(&url, "a.png")), 1)
            .await
            .unwrap();
        engine
            .insert_part(&part("prt_2", "msg_1", "ses_1", file(&url, "b.png")), 2)
            .await
            .unwrap();
        engine
            .insert_part(
                &part("prt_3", "msg_1", "ses_1", file(&blob_url(&other), "c.png")),
                3,
            )
            .await
            .unwrap();
        transcript.push(format!("blobs {}", engine.count("blob").await));
        engine.delete_parts_from("msg_1", "prt_2").await;
        transcript.push(format!(
            "after prt_2.. {:?}",
            engine.blob(&first).await.is_some()
        ));
        transcript.push(format!(
            "other gone {:?}",
            engine.blob(&other).await.is_none()
        ));
        engine
            .insert_part(&part("prt_2", "msg_1", "ses_1", file(&url, "b.png")), 2)
            .await
            .unwrap();
        // A part rewritten to point elsewhere lets go of its bytes too, once no other holds them.
        for id in ["prt_2", "prt_1"] {
            engine
                .update_part(&part(
                    id,
                    "msg_1",
                    "ses_1",
                    file("https://example.com/b.png", "b.png"),
                ))
                .await;
            transcript.push(format!(
                "after rewriting {id} {:?}",
                engine.blob(&first).await.is_some()
            ));
        }
        // A deleted session takes its bytes along.
        let third = engine.put_blob("application/pdf", b"%PDF").await;
        engine
            .insert_part(
                &part("prt_4", "msg_1", "ses_1", file(&blob_url(&third), "d.pdf")),
                4,
            )
            .await
            .unwrap();
        transcript.push(format!("blobs {}", engine.count("blob").await));
        engine.delete_session("ses_1").await;
        transcript.push(format!("blobs {}", engine.count("blob").await));
        transcripts.push(transcript);
        engine.close().await;
    }
    assert_eq!(
        transcripts[1],
        [
            "blobs 1",
            "Ok(\"https://example.com/a.png\")",
            &format!(
                "Err(\"Stored data is unreadable: attachment {} is missing\")",
                "0".repeat(64)
            ),
            "blobs 2",
            "after prt_2.. true",
            "other gone true",
            "after rewriting prt_2 true",
            "after rewriting prt_1 false",
            "blobs 1",
            "blobs 0",
        ],
        "postgres"
    );
    assert_eq!(transcripts[0], transcripts[1], "sqlite and postgres differ");
}

/// How many indexed rows hold each word, as `Parts word=n …`.
async fn look(engine: &Engine, index: Index, words: &[&str]) -> String {
    let mut counts = Vec::new();
    for word in words {
        counts.push(format!("{word}={}", engine.indexed(index, word).await));
    }
    format!("{index:?} {}", counts.join(" "))
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn search_rows_follow_writes_and_deletions_on_both_engines() {
    let mut transcripts = Vec::new();
    for engine in both().await {
        let mut transcript: Vec<String> = Vec::new();
        engine
            .insert_session(&session("ses_1", "Quarterly Taxes", 1))
            .await
            .unwrap();
        engine
            .insert_message(&user_message("msg_1", "ses_1"), 1)
            .await
            .unwrap();
        engine
            .insert_part(
                &part("prt_1", "msg_1", "ses_1", text("The INVOICE for March")),
                1,
            )
            .await
            .unwrap();
        engine
            .insert_part(
                &part(
                    "prt_2",
                    "msg_1",
                    "ses_1",
                    json!({"type": "text", "text": "secret synthetic", "synthetic": true}),
                ),
                2,
            )
            .await
            .unwrap();
        engine
            .insert_part(
                &part(
                    "prt_3",
                    "msg_1",
                    "ses_1",
                    file("https://x/y", "receipt.pdf"),
                ),
                3,
            )
            .await
            .unwrap();
        engine
            .insert_part(&part("prt_4", "msg_1", "ses_1", text("这个文件很大")), 4)
            .await
            .unwrap();
        transcript.push(
            look(
                &engine,
                Index::Parts,
                &[
                    "invoice",
                    "march",
                    "synthetic",
                    "receipt",
                    "pdf",
                    "文件",
                    "很大",
                ],
            )
            .await,
        );
        transcript.push(look(&engine, Index::Titles, &["quarterly", "taxes"]).await);

        engine
            .update_part(&part("prt_1", "msg_1", "ses_1", text("a paid bill")))
            .await;
        // A part rewritten into a kind that is not searched leaves the index.
        engine
            .update_part(&part(
                "prt_4",
                "msg_1",
                "ses_1",
                json!({"type": "step-start"}),
            ))
            .await;
        transcript.push(look(&engine, Index::Parts, &["invoice", "paid", "文件"]).await);
        let mut renamed = engine.get_session("ses_1").await.unwrap();
        renamed.title = "Annual budget".to_string();
        engine.save_session(&renamed).await.unwrap();
        transcript.push(look(&engine, Index::Titles, &["taxes", "budget"]).await);
        // Saving without a rename keeps the title's row (one row, not two).
        engine.save_session(&renamed).await.unwrap();
        transcript.push(format!("title rows {}", engine.count("title_search").await));

        engine.delete_parts_from("msg_1", "prt_3").await;
        transcript.push(look(&engine, Index::Parts, &["receipt", "paid"]).await);
        engine.delete_session("ses_1").await;
        transcript.push(look(&engine, Index::Parts, &["paid"]).await);
        transcript.push(look(&engine, Index::Titles, &["budget"]).await);
        transcripts.push(transcript);
        engine.close().await;
    }
    assert_eq!(
        transcripts[1],
        [
            "Parts invoice=1 march=1 synthetic=0 receipt=1 pdf=1 文件=1 很大=1",
            "Titles quarterly=1 taxes=1",
            "Parts invoice=0 paid=1 文件=0",
            "Titles taxes=0 budget=1",
            "title rows 1",
            "Parts receipt=0 paid=1",
            "Parts paid=0",
            "Titles budget=0",
        ],
        "postgres"
    );
    assert_eq!(transcripts[0], transcripts[1], "sqlite and postgres differ");
}

/// Two transactions reserving numbers in one session (two requests, or two servers): the second
/// waits for the first to commit and continues after its numbers, never reusing one.
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn reserve_sequence_hands_out_disjoint_ranges_to_concurrent_transactions() {
    let database = fresh_database().await;
    let pool = database.open().await;
    let mut connection = pool.acquire().await.unwrap();
    postgres::session_store::insert(&mut connection, &session("ses_1", "Busy", 1))
        .await
        .unwrap();
    drop(connection);

    let mut first = pool.begin().await.unwrap();
    let first_start = postgres::session_store::reserve_sequence(&mut first, "ses_1", 2)
        .await
        .unwrap();
    let second = tokio::spawn({
        let pool = pool.clone();
        async move {
            let mut second = pool.begin().await.unwrap();
            let start = postgres::session_store::reserve_sequence(&mut second, "ses_1", 3)
                .await
                .unwrap();
            second.commit().await.unwrap();
            start
        }
    });
    // The second is waiting on the session row's lock (Postgres says so), not done.
    until_waiting(&database.url, 1, &second).await;
    assert!(!second.is_finished());
    first.commit().await.unwrap();
    let second_start = second.await.unwrap();
    assert_eq!((first_start, second_start), (1, 3));

    // Many at once: every number handed out exactly once.
    let mut tasks = Vec::new();
    for count in 1..=8_i64 {
        let pool = pool.clone();
        tasks.push(tokio::spawn(async move {
            let mut transaction = pool.begin().await.unwrap();
            let start = postgres::session_store::reserve_sequence(&mut transaction, "ses_1", count)
                .await
                .unwrap();
            transaction.commit().await.unwrap();
            (start..start + count).collect::<Vec<i64>>()
        }));
    }
    let mut numbers = Vec::new();
    for task in tasks {
        numbers.extend(task.await.unwrap());
    }
    numbers.sort_unstable();
    assert_eq!(numbers, (6..6 + 36).collect::<Vec<i64>>());
    database.drop_database(pool).await;
}

/// A database whose schema a newer Dossier migrated is refused with SQLite's error, naming the
/// version that made it; opening an up-to-date one again changes nothing.
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn open_migrates_once_and_refuses_a_newer_database() {
    let database = fresh_database().await;
    let pool = database.open().await;
    let recorded: Vec<(i64, String)> =
        sqlx::query_as("SELECT version, app_version FROM migration_app_version ORDER BY version")
            .fetch_all(&pool)
            .await
            .unwrap();
    let every_version: Vec<(i64, String)> = (1..=postgres::database::known_version())
        .map(|version| (version, env!("CARGO_PKG_VERSION").to_string()))
        .collect();
    assert_eq!(recorded, every_version);
    assert!(
        every_version.len() >= 2,
        "the ledger and the many-servers migrations"
    );
    pool.close().await;
    // A second open (a second server) finds nothing to do.
    let pool = database.open().await;
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (9999, 'from the future', TRUE, '\\x00', 0)",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query("INSERT INTO migration_app_version (version, app_version) VALUES (9999, '9.9.9')")
        .execute(&pool)
        .await
        .unwrap();
    let error = postgres::open(&database.url).await.unwrap_err();
    let LedgerError::NewerDatabase {
        database: named,
        schema_version,
        known_version,
        made_by,
    } = &error
    else {
        panic!("not refused as newer: {error:?}");
    };
    assert_eq!(
        (*schema_version, *known_version, made_by.as_deref()),
        (9999, postgres::database::known_version(), Some("9.9.9"))
    );
    assert!(
        !named.contains(&password_of(&database.url)),
        "the password is in {named}"
    );
    assert!(named.contains(&database.name), "{named}");
    database.drop_database(pool).await;
}

/// A URL that is not one, or a password the server refuses, is an error (without the
/// password in it), not a panic.
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn open_reports_a_bad_url_and_a_refused_password() {
    let error = postgres::open("not a url").await.unwrap_err();
    assert!(
        matches!(error, LedgerError::InvalidData { .. }),
        "{error:?}"
    );
    let mut url = url::Url::parse(crate::support::postgres_server::admin_url()).unwrap();
    url.set_password(Some("not-the-password")).unwrap();
    let error = postgres::open(url.as_str()).await.unwrap_err();
    assert!(matches!(error, LedgerError::Database(_)), "{error:?}");
    assert!(!error.to_string().contains("not-the-password"), "{error}");
}

/// Waits until `count` statements of the test's database wait on a lock (Postgres's own view),
/// failing if `task` finished instead: then it did not wait.
async fn until_waiting<T>(url: &str, count: i64, task: &tokio::task::JoinHandle<T>) {
    let mut observer = sqlx::PgConnection::connect(url).await.unwrap();
    loop {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .fetch_one(&mut observer)
        .await
        .unwrap();
        if waiting == count {
            break;
        }
        assert!(!task.is_finished(), "it did not wait");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    observer.close().await.unwrap();
}

/// Writers run side by side on Postgres (SQLite has one at a time): deleting the last part that
/// holds some bytes while another transaction adds a part that refers to them must keep the
/// bytes, whichever of the two comes first.
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn blob_release_and_a_new_reference_at_once_keep_the_bytes() {
    let database = fresh_database().await;
    let pool = database.open().await;
    let mut connection = pool.acquire().await.unwrap();
    postgres::session_store::insert(&mut connection, &session("ses_1", "Race", 1))
        .await
        .unwrap();
    postgres::message_store::insert_message(
        &mut connection,
        &user_message("msg_1", "ses_1"),
        1,
        NOW,
    )
    .await
    .unwrap();
    drop(connection);
    let bytes = b"a picture".to_vec();
    let url = blob_url(&hash_of(&bytes));
    let file_part = |id: &str| part(id, "msg_1", "ses_1", file(&url, "a.png"));

    for (round, adder_first) in [(0, true), (1, false)] {
        let old = format!("prt_old_{round}");
        let new = format!("prt_new_{round}");
        let mut setup = pool.begin().await.unwrap();
        postgres::blob_store::put(&mut setup, "image/png", &bytes, NOW)
            .await
            .unwrap();
        postgres::message_store::insert_part(&mut setup, &file_part(&old), 10 * round, NOW)
            .await
            .unwrap();
        setup.commit().await.unwrap();

        let mut adder = pool.begin().await.unwrap();
        let mut remover = pool.begin().await.unwrap();
        if adder_first {
            // The adder has stored (found) the bytes; the remover's release waits for it.
            postgres::blob_store::put(&mut adder, "image/png", &bytes, NOW)
                .await
                .unwrap();
            let removing = tokio::spawn(async move {
                postgres::message_store::delete_parts_from(&mut remover, "msg_1", &old)
                    .await
                    .unwrap();
                remover.commit().await.unwrap();
            });
            until_waiting(&database.url, 1, &removing).await;
            postgres::message_store::insert_part(&mut adder, &file_part(&new), 10 * round + 1, NOW)
                .await
                .unwrap();
            adder.commit().await.unwrap();
            removing.await.unwrap();
        } else {
            // The remover has released the bytes, not yet committed; the adder's put waits, then
            // stores them again.
            postgres::message_store::delete_parts_from(&mut remover, "msg_1", &old)
                .await
                .unwrap();
            let adding = tokio::spawn({
                let bytes = bytes.clone();
                let new_part = file_part(&new);
                async move {
                    postgres::blob_store::put(&mut adder, "image/png", &bytes, NOW)
                        .await
                        .unwrap();
                    postgres::message_store::insert_part(
                        &mut adder,
                        &new_part,
                        10 * round + 1,
                        NOW,
                    )
                    .await
                    .unwrap();
                    adder.commit().await.unwrap();
                }
            });
            until_waiting(&database.url, 1, &adding).await;
            remover.commit().await.unwrap();
            adding.await.unwrap();
        }
        let kept = postgres::blob_store::get(&pool, &hash_of(&bytes))
            .await
            .unwrap()
            .map(|blob| blob.bytes);
        assert_eq!(
            kept,
            Some(bytes.clone()),
            "round {round}: the new part's bytes are gone"
        );
        // The bytes still go with their last part.
        let mut connection = pool.acquire().await.unwrap();
        postgres::message_store::delete_parts_from(&mut connection, "msg_1", &new)
            .await
            .unwrap();
        drop(connection);
        assert!(postgres::blob_store::get(&pool, &hash_of(&bytes))
            .await
            .unwrap()
            .is_none());
    }
    database.drop_database(pool).await;
}

/// A search result in comparable form: the session and its excerpts, highlights in brackets.
fn found(results: &[SearchResult]) -> Vec<String> {
    results
        .iter()
        .map(|result| {
            let excerpts: Vec<String> = result
                .excerpts
                .iter()
                .map(|excerpt| {
                    let text: String = excerpt
                        .pieces
                        .iter()
                        .map(|piece| {
                            if piece.highlighted {
                                format!("[{}]", piece.text)
                            } else {
                                piece.text.clone()
                            }
                        })
                        .collect();
                    format!("{}:{}", excerpt.field, text)
                })
                .collect();
            format!("{} {}", result.session.id, excerpts.join(" | "))
        })
        .collect()
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn search_finds_alike_on_both_engines() {
    let mut transcripts = Vec::new();
    for engine in both().await {
        let mut archived = session("ses_old", "Old receipts", 5);
        archived.time.archived = Some(6);
        for row in [
            session("ses_tax", "Quarterly taxes", 10),
            session("ses_trip", "Trip to Lisbon", 20),
            session("ses_cn", "文件整理", 30),
            archived,
        ] {
            engine.insert_session(&row).await.unwrap();
        }
        let mut seq = 0;
        for (session_id, words) in [
            ("ses_tax", "The invoice for March is paid"),
            ("ses_tax", "Two invoices are still open"),
            ("ses_trip", "Book the hotel and send the invoice to Anna"),
            ("ses_trip", "Taxes on the hotel bill"),
            ("ses_cn", "这个文件很大"),
            ("ses_cn", "大文件和小文件"),
            ("ses_old", "an old invoice"),
        ] {
            seq += 1;
            let message_id = format!("msg_{seq}");
            engine
                .insert_message(&user_message(&message_id, session_id), seq)
                .await
                .unwrap();
            engine
                .insert_part(
                    &part(&format!("prt_{seq}"), &message_id, session_id, text(words)),
                    1,
                )
                .await
                .unwrap();
        }
        let queries: Vec<SearchQuery> = vec![
            SearchQuery {
                text: "invoice".into(),
                ..Default::default()
            },
            SearchQuery {
                text: "INVOICE march".into(),
                ..Default::default()
            },
            SearchQuery {
                text: "taxes".into(),
                ..Default::default()
            },
            SearchQuery {
                text: "hotel".into(),
                limit: Some(1),
                ..Default::default()
            },
            SearchQuery {
                text: "invoice".into(),
                limit: Some(1),
                offset: Some(1),
                ..Default::default()
            },
            SearchQuery {
                text: "invoice".into(),
                include_archived: true,
                ..Default::default()
            },
            SearchQuery {
                text: "invoice".into(),
                session_id: Some("ses_tax".into()),
                ..Default::default()
            },
            SearchQuery {
                text: "文件".into(),
                ..Default::default()
            },
            SearchQuery {
                text: "这个文件".into(),
                ..Default::default()
            },
            SearchQuery {
                text: "个大文".into(),
                ..Default::default()
            },
            SearchQuery {
                text: "nothing-here".into(),
                ..Default::default()
            },
            SearchQuery {
                text: "?!".into(),
                ..Default::default()
            },
            SearchQuery {
                text: "   ".into(),
                ..Default::default()
            },
        ];
        let mut transcript = Vec::new();
        for query in &queries {
            transcript.push(format!(
                "{}: {:?}",
                query.text,
                engine.search(query).await.map(|results| found(&results))
            ));
        }
        // Deleted words are gone from results at once.
        engine.delete_session("ses_trip").await;
        transcript.push(format!(
            "{:?}",
            engine
                .search(&queries[2])
                .await
                .map(|results| found(&results))
        ));
        transcripts.push(transcript);
        engine.close().await;
    }
    let expected = [
        "invoice: Ok([\"ses_trip text:Book the hotel and send the [invoice] to Anna\", \"ses_tax text:Two [invoice]s are still open | text:The [invoice] for March is paid\"])",
        "INVOICE march: Ok([\"ses_tax text:The [invoice] for [March] is paid\"])",
        "taxes: Ok([\"ses_tax title:Quarterly [taxes]\", \"ses_trip text:[Taxes] on the hotel bill\"])",
        "hotel: Ok([\"ses_trip text:Taxes on the [hotel] bill | text:Book the [hotel] and send the invoice to Anna\"])",
        "invoice: Ok([\"ses_tax text:Two [invoice]s are still open | text:The [invoice] for March is paid\"])",
        "invoice: Ok([\"ses_old text:an old [invoice]\", \"ses_trip text:Book the hotel and send the [invoice] to Anna\", \"ses_tax text:Two [invoice]s are still open | text:The [invoice] for March is paid\"])",
        "invoice: Ok([\"ses_tax text:Two [invoice]s are still open | text:The [invoice] for March is paid\"])",
        "文件: Ok([\"ses_cn title:[文件]整理 | text:大[文件]和小[文件] | text:这个[文件]很大\"])",
        "这个文件: Ok([\"ses_cn text:[这个文件]很大\"])",
        "个大文: Ok([])",
        "nothing-here: Ok([])",
        "?!: Ok([])",
        "   : Err(\"Invalid request: type something to search for\")",
        "Ok([\"ses_tax title:Quarterly [taxes]\"])",
    ];
    assert_eq!(transcripts[1], expected, "postgres");
    assert_eq!(transcripts[0], transcripts[1], "sqlite and postgres differ");
}

fn step_finish(cost: f64, input: u64) -> serde_json::Value {
    json!({"type": "step-finish", "reason": "stop", "cost": cost,
        "tokens": {"input": input, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}})
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn removing_messages_and_parts_is_alike_on_both_engines() {
    let mut transcripts = Vec::new();
    for engine in both().await {
        let mut transcript: Vec<String> = Vec::new();
        engine
            .insert_session(&session("ses_1", "Edits", 1))
            .await
            .unwrap();
        engine
            .insert_message(&user_message("msg_1", "ses_1"), 1)
            .await
            .unwrap();
        engine
            .insert_message(&assistant_message("msg_2", "ses_1", Some(NOW)), 2)
            .await
            .unwrap();
        for (id, body, seq) in [
            ("prt_a", json!({"type": "step-start"}), 1),
            ("prt_b", text("first answer"), 2),
            ("prt_c", step_finish(0.5, 10), 3),
            ("prt_d", step_finish(0.25, 20), 4),
        ] {
            engine
                .insert_part(&part(id, "msg_2", "ses_1", body), seq)
                .await
                .unwrap();
        }
        engine
            .insert_part(&part("prt_u", "msg_1", "ses_1", text("question")), 1)
            .await
            .unwrap();
        let bodies = engine.step_finish_bodies("ses_1", "msg_2").await;
        transcript.push(format!(
            "{} step bodies, {:?}",
            bodies.len(),
            bodies
                .iter()
                .map(|body| body.contains("\"cost\":0.5"))
                .collect::<Vec<_>>()
        ));
        transcript.push(format!(
            "{:?}",
            engine.step_finish_bodies("ses_other", "msg_2").await
        ));
        transcript.push(format!(
            "{:?}",
            engine.part_body("ses_1", "msg_2", "prt_b").await
        ));
        transcript.push(format!(
            "{:?}",
            engine.part_body("ses_1", "msg_1", "prt_b").await
        ));
        transcript.push(format!(
            "{:?}",
            engine.delete_part("ses_1", "msg_2", "prt_b").await
        ));
        transcript.push(format!(
            "{:?}",
            engine.delete_part("ses_1", "msg_2", "prt_b").await
        ));
        transcript.push(format!("{}", engine.indexed(Index::Parts, "first").await));
        transcript.push(format!("{}", engine.delete_message("ses_1", "msg_2").await));
        transcript.push(format!("{}", engine.delete_message("ses_1", "msg_2").await));
        transcript.push(format!(
            "{}",
            engine.delete_message("ses_other", "msg_1").await
        ));
        transcript.push(format!(
            "messages {} parts {}",
            engine.count("message").await,
            engine.count("part").await
        ));
        transcripts.push(transcript);
        engine.close().await;
    }
    assert_eq!(
        transcripts[1],
        [
            "2 step bodies, [false, true]",
            "[]",
            "Some(\"{\\\"type\\\":\\\"text\\\",\\\"text\\\":\\\"first answer\\\"}\")",
            "None",
            "Some(\"{\\\"type\\\":\\\"text\\\",\\\"text\\\":\\\"first answer\\\"}\")",
            "None",
            "0",
            "true",
            "false",
            "false",
            "messages 1 parts 1",
        ],
        "postgres"
    );
    assert_eq!(transcripts[0], transcripts[1], "sqlite and postgres differ");
}

/// A part with more distinct words than a `tsvector` can hold is still written, and indexed by
/// as many words as fit.
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn a_part_too_large_to_index_in_full_is_still_written() {
    let database = fresh_database().await;
    let pool = database.open().await;
    let mut connection = pool.acquire().await.unwrap();
    postgres::session_store::insert(&mut connection, &session("ses_1", "Big", 1))
        .await
        .unwrap();
    postgres::message_store::insert_message(
        &mut connection,
        &user_message("msg_1", "ses_1"),
        1,
        NOW,
    )
    .await
    .unwrap();
    // 200,000 distinct six-character words: about 2 MB as a tsvector.
    let words: Vec<String> = (0..200_000).map(|number| format!("w{number:05}")).collect();
    postgres::message_store::insert_part(
        &mut connection,
        &part("prt_1", "msg_1", "ses_1", text(&words.join(" "))),
        1,
        NOW,
    )
    .await
    .unwrap();
    let found: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM part_search WHERE words @@ to_tsquery('simple', 'w00000')",
    )
    .fetch_one(&mut *connection)
    .await
    .unwrap();
    assert_eq!(found, 1);
    drop(connection);
    database.drop_database(pool).await;
}

/// A part that refers to bytes already stored, added without `put` (a fork or an import copies
/// file parts so), holds them too: a deletion of their last other part waits for it and keeps
/// them; and once they were released, the part is refused rather than stored pointing at nothing.
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn a_copied_file_part_holds_its_bytes_or_is_refused() {
    let database = fresh_database().await;
    let pool = database.open().await;
    let mut connection = pool.acquire().await.unwrap();
    postgres::session_store::insert(&mut connection, &session("ses_1", "Copies", 1))
        .await
        .unwrap();
    postgres::message_store::insert_message(
        &mut connection,
        &user_message("msg_1", "ses_1"),
        1,
        NOW,
    )
    .await
    .unwrap();
    drop(connection);
    let bytes = b"a scanned receipt".to_vec();
    let hash = hash_of(&bytes);
    let url = blob_url(&hash);
    let file_part = |id: &str| part(id, "msg_1", "ses_1", file(&url, "receipt.png"));
    let mut setup = pool.begin().await.unwrap();
    postgres::blob_store::put(&mut setup, "image/png", &bytes, NOW)
        .await
        .unwrap();
    postgres::message_store::insert_part(&mut setup, &file_part("prt_original"), 0, NOW)
        .await
        .unwrap();
    setup.commit().await.unwrap();

    // The copy is written first: the deletion of the original waits for it, then keeps the bytes.
    let mut copier = pool.begin().await.unwrap();
    postgres::message_store::insert_part(&mut copier, &file_part("prt_copy"), 1, NOW)
        .await
        .unwrap();
    let mut remover = pool.begin().await.unwrap();
    let removing = tokio::spawn(async move {
        postgres::message_store::delete_parts_from(&mut remover, "msg_1", "prt_original")
            .await
            .unwrap();
        remover.commit().await.unwrap();
    });
    until_waiting(&database.url, 1, &removing).await;
    copier.commit().await.unwrap();
    removing.await.unwrap();
    assert!(
        postgres::blob_store::get(&pool, &hash)
            .await
            .unwrap()
            .is_some(),
        "the copy's bytes were released under it"
    );

    // The last part goes, and its bytes with it: a copy made after that is refused.
    let mut connection = pool.acquire().await.unwrap();
    postgres::message_store::delete_parts_from(&mut connection, "msg_1", "prt_copy")
        .await
        .unwrap();
    assert!(postgres::blob_store::get(&pool, &hash)
        .await
        .unwrap()
        .is_none());
    let refused =
        postgres::message_store::insert_part(&mut connection, &file_part("prt_late"), 2, NOW).await;
    let error = refused.expect_err("a part pointing at released bytes was stored");
    assert!(error.to_string().contains("no longer stored"), "{error}");
    drop(connection);
    let parts: i64 = sqlx::query_scalar("SELECT count(*) FROM part")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(parts, 0);
    database.drop_database(pool).await;
}
