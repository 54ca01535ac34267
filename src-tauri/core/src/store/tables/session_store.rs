//! Rows of the `session` table and the queries over them: create, read, newest-first pages with
//! a keyset cursor, partial updates, and deletion with descendants.

use crate::store::engine::{Connect, Connection, Pool};
use crate::store::rows::prompt_session_change::PromptSessionChange;
use crate::store::rows::session_page::{
    SessionPage, SessionQuery, UsageChange, DEFAULT_PAGE, MAX_PAGE,
};
use crate::store::sqlite::search_index;
use crate::wire::error::LedgerError;
use crate::wire::permission::Ruleset;
use crate::wire::session::{CacheTokens, RevertMarker, Session, SessionModel, SessionTime, Tokens};
use sqlx::sqlite::SqliteRow;
use sqlx::{QueryBuilder, Row, Sqlite, SqliteConnection};

const COLUMNS: &str = "id, parent_id, slug, project_id, directory, title, version, agent, model, \
    permission, revert, summary, cost, tokens_input, tokens_output, tokens_reasoning, \
    tokens_cache_read, tokens_cache_write, pinned, time_created, time_updated, time_compacting, \
    time_archived, created_by_token";

/// A session row's columns in `COLUMNS` order, the JSON ones still text, as SQLite hands them
/// over in one JSON array (`COLUMNS_AS_JSON`; serde reads a struct from an array by position).
#[derive(serde::Deserialize)]
struct SessionColumns {
    id: String,
    parent_id: Option<String>,
    slug: String,
    project_id: String,
    directory: String,
    title: String,
    version: String,
    agent: Option<String>,
    model: Option<String>,
    permission: Option<String>,
    revert: Option<String>,
    summary: Option<String>,
    /// Text with 17 significant digits: SQLite's JSON numbers keep 15 and its
    /// `printf` 16 unless given the `!` flag, and 0.1 + 0.2 needs 17 to come back as the same
    /// `f64` (the ledger suite's `session_usage` holds this).
    #[serde(deserialize_with = "cost_from_text")]
    cost: f64,
    tokens_input: i64,
    tokens_output: i64,
    tokens_reasoning: i64,
    tokens_cache_read: i64,
    tokens_cache_write: i64,
    pinned: i64,
    time_created: i64,
    time_updated: i64,
    time_compacting: Option<i64>,
    time_archived: Option<i64>,
    created_by_token: Option<String>,
}

/// `COLUMNS` as one JSON array per row, for `SessionColumns`.
const COLUMNS_AS_JSON: &str = "json_array(id, parent_id, slug, project_id, directory, title, \
    version, agent, model, permission, revert, summary, printf('%!.17g', cost), tokens_input, \
    tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, pinned, time_created, \
    time_updated, time_compacting, time_archived, created_by_token)";

fn cost_from_text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let text = <String as serde::Deserialize>::deserialize(deserializer)?;
    text.parse().map_err(serde::de::Error::custom)
}

impl SessionColumns {
    fn into_session(self) -> Result<Session, LedgerError> {
        let count = |value: i64| u64::try_from(value).unwrap_or(0);
        Ok(Session {
            id: self.id,
            slug: self.slug,
            project_id: self.project_id,
            directory: self.directory,
            path: String::new(),
            parent_id: self.parent_id,
            summary: json_column(self.summary, "summary")?,
            cost: self.cost,
            tokens: Tokens {
                total: None,
                input: count(self.tokens_input),
                output: count(self.tokens_output),
                reasoning: count(self.tokens_reasoning),
                cache: CacheTokens {
                    read: count(self.tokens_cache_read),
                    write: count(self.tokens_cache_write),
                },
            },
            title: self.title,
            agent: self.agent,
            model: json_column::<SessionModel>(self.model, "model")?,
            version: self.version,
            time: SessionTime {
                created: self.time_created,
                updated: self.time_updated,
                compacting: self.time_compacting,
                archived: self.time_archived,
            },
            permission: json_column::<Ruleset>(self.permission, "permission")?,
            revert: json_column::<RevertMarker>(self.revert, "revert")?,
            pinned: self.pinned != 0,
            created_by_token: self.created_by_token,
        })
    }
}

fn json_column<T: serde::de::DeserializeOwned>(
    text: Option<String>,
    column: &str,
) -> Result<Option<T>, LedgerError> {
    text.map(|text| {
        serde_json::from_str(&text)
            .map_err(|error| LedgerError::Corrupt(format!("session.{column}: {error}")))
    })
    .transpose()
}

/// A session from a row whose `session` column is `COLUMNS_AS_JSON`: every read of a session goes
/// the way a listing does, so there is one account of the columns and of the cost's digits.
/// (`prompt_in_one_command` reads the session its update returns this way too.)
pub(crate) fn from_row(row: &SqliteRow) -> Result<Session, LedgerError> {
    let columns: String = row.try_get("session")?;
    serde_json::from_str::<SessionColumns>(&columns)
        .map_err(|error| LedgerError::Corrupt(format!("session row: {error}")))?
        .into_session()
}

fn to_json<T: serde::Serialize>(value: Option<&T>) -> Result<Option<String>, LedgerError> {
    value
        .map(|value| {
            serde_json::to_string(value).map_err(|error| {
                LedgerError::Corrupt(format!("cannot encode session field: {error}"))
            })
        })
        .transpose()
}

pub async fn insert(connection: &mut impl Connect, session: &Session) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::session_store::insert(connection, session).await
        }
    };
    // A savepoint (or a transaction, if the caller has none): the session and its title's
    // index row are written together.
    let mut transaction = crate::store::sqlite::database::begin_write(connection).await?;
    let rowid: i64 = sqlx::query_scalar(&format!(
        "INSERT INTO session ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING rowid"
    ))
    .bind(&session.id)
    .bind(&session.parent_id)
    .bind(&session.slug)
    .bind(&session.project_id)
    .bind(&session.directory)
    .bind(&session.title)
    .bind(&session.version)
    .bind(&session.agent)
    .bind(to_json(session.model.as_ref())?)
    .bind(to_json(session.permission.as_ref())?)
    .bind(to_json(session.revert.as_ref())?)
    .bind(to_json(session.summary.as_ref())?)
    .bind(session.cost)
    .bind(i64::try_from(session.tokens.input).unwrap_or(i64::MAX))
    .bind(i64::try_from(session.tokens.output).unwrap_or(i64::MAX))
    .bind(i64::try_from(session.tokens.reasoning).unwrap_or(i64::MAX))
    .bind(i64::try_from(session.tokens.cache.read).unwrap_or(i64::MAX))
    .bind(i64::try_from(session.tokens.cache.write).unwrap_or(i64::MAX))
    .bind(i64::from(session.pinned))
    .bind(session.time.created)
    .bind(session.time.updated)
    .bind(session.time.compacting)
    .bind(session.time.archived)
    .bind(&session.created_by_token)
    .fetch_one(&mut *transaction)
    .await?;
    search_index::index_title(&mut transaction, rowid, &session.title).await?;
    transaction.commit().await?;
    Ok(())
}

pub async fn find(connection: &mut impl Connect, id: &str) -> Result<Option<Session>, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::session_store::find(connection, id).await
        }
    };
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS_AS_JSON} AS session FROM session WHERE id = ?"
    ))
    .bind(id)
    .fetch_optional(connection)
    .await?;
    row.as_ref().map(from_row).transpose()
}

pub async fn get(connection: &mut impl Connect, id: &str) -> Result<Session, LedgerError> {
    find(connection, id)
        .await?
        .ok_or_else(|| LedgerError::SessionNotFound(id.to_string()))
}

/// The session, read to be changed and saved in the caller's write transaction: no other
/// transaction may save it in between, or one of the two changes would be lost (a generated
/// title written over an "always allow" rule given meanwhile). SQLite's write transaction
/// already holds the only write lock; PostgreSQL locks the row.
pub async fn get_to_change(
    connection: &mut impl Connect,
    id: &str,
) -> Result<Session, LedgerError> {
    match connection.connection() {
        Connection::Sqlite(connection) => get(connection, id).await,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            crate::store::postgres::session_store::get_to_change(connection, id).await
        }
    }
}

/// Adds a step's cost and tokens to the session's totals, or takes them out.
pub async fn change_usage(
    connection: &mut impl Connect,
    session_id: &str,
    change: UsageChange,
    cost: f64,
    tokens: &Tokens,
) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::session_store::change_usage(
                connection, session_id, change, cost, tokens,
            )
            .await
        }
    };
    let sign = match change {
        UsageChange::Add => 1,
        UsageChange::Remove => -1,
    };
    let count = |value: u64| sign * i64::try_from(value).unwrap_or(i64::MAX);
    sqlx::query(
        // Never below zero, whatever a removed step claims.
        "UPDATE session SET cost = MAX(0, cost + ?), tokens_input = MAX(0, tokens_input + ?), \
         tokens_output = MAX(0, tokens_output + ?), tokens_reasoning = MAX(0, tokens_reasoning + ?), \
         tokens_cache_read = MAX(0, tokens_cache_read + ?), \
         tokens_cache_write = MAX(0, tokens_cache_write + ?) WHERE id = ?",
    )
    .bind(sign as f64 * cost)
    .bind(count(tokens.input))
    .bind(count(tokens.output))
    .bind(count(tokens.reasoning))
    .bind(count(tokens.cache.read))
    .bind(count(tokens.cache.write))
    .bind(session_id)
    .execute(connection)
    .await?;
    Ok(())
}

/// Writes every mutable column of `session` back (one row, inside the caller's transaction).
pub async fn save(connection: &mut impl Connect, session: &Session) -> Result<(), LedgerError> {
    save_with(connection, session, None).await
}

/// `save` for a caller that read the row in this same transaction, so knows the title it holds:
/// the title's index row is rewritten only when the title changes (the update trigger has
/// dropped it then), and knowing it spares a read.
pub async fn save_over(
    connection: &mut impl Connect,
    session: &Session,
    stored_title: &str,
) -> Result<(), LedgerError> {
    save_with(connection, session, Some(stored_title)).await
}

async fn save_with(
    connection: &mut impl Connect,
    session: &Session,
    stored_title: Option<&str>,
) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::session_store::save(connection, session).await
        }
    };
    // As `message_store::insert_part`: a transaction of its own only when the caller has none.
    if sqlx::Connection::is_in_transaction(&*connection) {
        return save_row(connection, session, stored_title).await;
    }
    let mut transaction = crate::store::sqlite::database::begin_write(connection).await?;
    save_row(&mut transaction, session, stored_title).await?;
    transaction.commit().await?;
    Ok(())
}

async fn save_row(
    connection: &mut SqliteConnection,
    session: &Session,
    stored_title: Option<&str>,
) -> Result<(), LedgerError> {
    let stored_title = match stored_title {
        Some(title) => title.to_string(),
        None => sqlx::query_scalar::<_, String>("SELECT title FROM session WHERE id = ?")
            .bind(&session.id)
            .fetch_optional(&mut *connection)
            .await?
            .ok_or_else(|| LedgerError::SessionNotFound(session.id.clone()))?,
    };
    let rowid: Option<i64> = sqlx::query_scalar(
        "UPDATE session SET title = ?, agent = ?, model = ?, permission = ?, revert = ?, summary = ?, \
         pinned = ?, time_updated = ?, time_compacting = ?, time_archived = ? WHERE id = ? \
         RETURNING rowid",
    )
    .bind(&session.title)
    .bind(&session.agent)
    .bind(to_json(session.model.as_ref())?)
    .bind(to_json(session.permission.as_ref())?)
    .bind(to_json(session.revert.as_ref())?)
    .bind(to_json(session.summary.as_ref())?)
    .bind(i64::from(session.pinned))
    .bind(session.time.updated)
    .bind(session.time.compacting)
    .bind(session.time.archived)
    .bind(&session.id)
    .fetch_optional(&mut *connection)
    .await?;
    let Some(rowid) = rowid else {
        return Err(LedgerError::SessionNotFound(session.id.clone()));
    };
    if stored_title != session.title {
        search_index::index_title(connection, rowid, &session.title).await?;
    }
    Ok(())
}

/// Reserves `count` consecutive sequence numbers for a prompt and writes `change` on the session,
/// as the first writes of the caller's transaction; returns the first number and the session as
/// it was BEFORE the change (the caller applies `change` to it, and sees whether the agent or
/// model switched). On SQLite both updates go as one command, one hand-off to the connection's
/// thread (docs/benchmarks.md); its first statement is a write, so a deferred transaction takes
/// the write lock there, where the busy timeout applies. Title, revert and totals are left
/// alone: a revert's clean-up writes the session again (`save_over`).
pub async fn reserve_sequence_for_prompt(
    connection: &mut impl Connect,
    session_id: &str,
    count: i64,
    change: &PromptSessionChange<'_>,
) -> Result<(i64, Session), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::session_store::reserve_sequence_for_prompt(
                connection, session_id, count, change,
            )
            .await
        }
    };
    let rows = sqlx::query(&format!(
        "UPDATE session SET last_seq = last_seq + ? WHERE id = ? \
         RETURNING last_seq, {COLUMNS_AS_JSON} AS session; \
         UPDATE session SET agent = ?, model = ?, permission = coalesce(?, permission), \
         time_updated = max(time_updated, ?) WHERE id = ?"
    ))
    .bind(count)
    .bind(session_id)
    .bind(change.agent)
    .bind(to_json(Some(change.model))?)
    .bind(to_json(change.permission)?)
    .bind(change.updated)
    .bind(session_id)
    .fetch_all(connection)
    .await?;
    let row = rows
        .first()
        .ok_or_else(|| LedgerError::SessionNotFound(session_id.to_string()))?;
    let last: i64 = row.try_get("last_seq")?;
    Ok((last - count + 1, from_row(row)?))
}

/// The session with its sequence counter (`last_seq`, the number of the last message or part
/// written), for a prompt that tries its write in one command while the session stays as read
/// (`prompt_in_one_command`). The counter is SQLite's only: `None` on PostgreSQL.
pub async fn get_with_sequence(
    connection: &mut impl Connect,
    id: &str,
) -> Result<(Session, Option<i64>), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return Ok((get(connection, id).await?, None));
        }
    };
    let row = sqlx::query(&format!(
        "SELECT last_seq, {COLUMNS_AS_JSON} AS session FROM session WHERE id = ?"
    ))
    .bind(id)
    .fetch_optional(connection)
    .await?
    .ok_or_else(|| LedgerError::SessionNotFound(id.to_string()))?;
    Ok((from_row(&row)?, Some(row.try_get("last_seq")?)))
}

/// `reserve_sequence_for_prompt`'s two updates as ONE statement for a caller's command, which
/// changes the session only while it is as the caller decided from: its counter still
/// `expected_last_seq` (no message written since), the same agent and model (the prompt's model
/// follows the session's), and no revert pending (whose clean-up the general path does).
/// Returns the session as changed (`RETURNING`), or no row. Bound by
/// [`bind_prompt_change_if_unchanged`].
pub(crate) fn prompt_change_if_unchanged_statement() -> String {
    format!(
        "UPDATE session SET last_seq = last_seq + ?, agent = ?, model = ?, \
         permission = coalesce(?, permission), time_updated = max(time_updated, ?) \
         WHERE id = ? AND last_seq = ? AND agent IS ? AND model IS ? AND revert IS NULL \
         RETURNING {COLUMNS_AS_JSON} AS session;"
    )
}

pub(crate) fn bind_prompt_change_if_unchanged<'query>(
    query: sqlx::query::Query<'query, Sqlite, sqlx::sqlite::SqliteArguments<'query>>,
    session_id: &'query str,
    count: i64,
    expected: &ExpectedSession<'query>,
    change: &PromptSessionChange<'query>,
) -> Result<sqlx::query::Query<'query, Sqlite, sqlx::sqlite::SqliteArguments<'query>>, LedgerError>
{
    Ok(query
        .bind(count)
        .bind(change.agent)
        .bind(to_json(Some(change.model))?)
        .bind(to_json(change.permission)?)
        .bind(change.updated)
        .bind(session_id)
        .bind(expected.last_seq)
        .bind(expected.agent)
        // Written by `to_json` too, so the same model is the same text.
        .bind(to_json(expected.model)?))
}

/// What a prompt decided from: the session's sequence counter, agent and model as it saw them.
pub(crate) struct ExpectedSession<'session> {
    pub last_seq: i64,
    pub agent: Option<&'session str>,
    pub model: Option<&'session SessionModel>,
}

/// Reserves `count` consecutive sequence numbers in the session and returns the first. Being
/// a write, it also takes SQLite's write lock at the start of the caller's transaction.
pub async fn reserve_sequence(
    connection: &mut impl Connect,
    session_id: &str,
    count: i64,
) -> Result<i64, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::session_store::reserve_sequence(
                connection, session_id, count,
            )
            .await
        }
    };
    let last: Option<i64> = sqlx::query_scalar(
        "UPDATE session SET last_seq = last_seq + ? WHERE id = ? RETURNING last_seq",
    )
    .bind(count)
    .bind(session_id)
    .fetch_optional(connection)
    .await?;
    let last = last.ok_or_else(|| LedgerError::SessionNotFound(session_id.to_string()))?;
    Ok(last - count + 1)
}

pub async fn list(pool: &Pool, query: &SessionQuery) -> Result<SessionPage, LedgerError> {
    let pool = match pool {
        Pool::Sqlite(pool) => pool,
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            return crate::store::postgres::session_store::list(pool, query).await
        }
    };
    let (_, page) = list_unless_unchanged(&mut *pool.acquire().await?, query, None).await?;
    page.ok_or_else(|| LedgerError::Corrupt("session listing: no page came back".into()))
}

/// The listing clock now (`migrations/0010_session_listing_clock.sql`) and, unless it still
/// reads `known`, the page: ONE statement, so the clock and the page are of one snapshot and a
/// listing kept in memory costs one hand-off to the connection's thread to confirm (the page's
/// subquery is not run when the clock matches).
pub async fn list_unless_unchanged(
    connection: &mut sqlx::SqliteConnection,
    query: &SessionQuery,
    known: Option<i64>,
) -> Result<(i64, Option<SessionPage>), LedgerError> {
    let limit = query.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
    // The page comes back as ONE value holding a JSON array: handing a hundred rows across
    // sqlx's worker thread one by one cost more than the query (a thread wake-up each).
    let mut builder: QueryBuilder<Sqlite> = QueryBuilder::new(
        "SELECT (SELECT tick FROM session_listing_clock) AS tick, \
         CASE WHEN (SELECT tick FROM session_listing_clock) IS ",
    );
    builder.push_bind(known).push(format!(
        " THEN NULL ELSE (SELECT json_group_array({COLUMNS_AS_JSON} ORDER BY time_updated DESC, id DESC) \
         FROM (SELECT {COLUMNS} FROM session WHERE 1 = 1"
    ));
    if !query.include_archived {
        builder.push(" AND time_archived IS NULL");
    }
    if query.roots_only {
        builder.push(" AND parent_id IS NULL");
    }
    if query.pinned_only {
        builder.push(" AND pinned = 1");
    }
    if let Some(since) = query.updated_since {
        builder.push(" AND time_updated >= ").push_bind(since);
    }
    if let Some(search) = query
        .search
        .as_deref()
        .filter(|search| !search.trim().is_empty())
    {
        builder
            .push(" AND title LIKE ")
            .push_bind(format!("%{}%", escape_like(search.trim())))
            .push(" ESCAPE '\\'");
    }
    if let Some(cursor) = &query.cursor {
        let (updated, id) = parse_cursor(cursor)?;
        builder
            .push(" AND (time_updated < ")
            .push_bind(updated)
            .push(" OR (time_updated = ")
            .push_bind(updated)
            .push(" AND id < ")
            .push_bind(id)
            .push("))");
    }
    builder
        .push(" ORDER BY time_updated DESC, id DESC LIMIT ")
        .push_bind(i64::from(limit) + 1)
        .push(")) END AS page");
    let row = builder.build().fetch_one(connection).await?;
    let tick: i64 = row.try_get("tick")?;
    let Some(page) = row.try_get::<Option<String>, _>("page")? else {
        return Ok((tick, None));
    };
    let mut sessions = serde_json::from_str::<Vec<SessionColumns>>(&page)
        .map_err(|error| LedgerError::Corrupt(format!("session listing: {error}")))?
        .into_iter()
        .map(SessionColumns::into_session)
        .collect::<Result<Vec<_>, _>>()?;
    let next_cursor = if sessions.len() > limit as usize {
        sessions.truncate(limit as usize);
        sessions
            .last()
            .map(|last| format!("{}:{}", last.time.updated, last.id))
    } else {
        None
    };
    Ok((
        tick,
        Some(SessionPage {
            sessions,
            next_cursor,
        }),
    ))
}

fn parse_cursor(cursor: &str) -> Result<(i64, String), LedgerError> {
    cursor
        .split_once(':')
        .and_then(|(updated, id)| Some((updated.parse().ok()?, id.to_string())))
        .ok_or_else(|| {
            LedgerError::InvalidRequest(format!(
                "\"{cursor}\" is not a session cursor from this server"
            ))
        })
}

fn escape_like(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

pub async fn children(pool: &Pool, parent_id: &str) -> Result<Vec<Session>, LedgerError> {
    let pool = match pool {
        Pool::Sqlite(pool) => pool,
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            return crate::store::postgres::session_store::children(pool, parent_id).await
        }
    };
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS_AS_JSON} AS session FROM session WHERE parent_id = ? \
         ORDER BY time_created, id"
    ))
    .bind(parent_id)
    .fetch_all(pool)
    .await?;
    rows.iter().map(from_row).collect()
}

/// The session and all its descendants, deepest last.
pub async fn with_descendants(
    connection: &mut impl Connect,
    id: &str,
) -> Result<Vec<Session>, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::session_store::with_descendants(connection, id).await
        }
    };
    let rows = sqlx::query(&format!(
        "WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE id = ? \
         UNION ALL SELECT session.id FROM session JOIN tree ON session.parent_id = tree.id) \
         SELECT {COLUMNS_AS_JSON} AS session FROM session WHERE id IN (SELECT id FROM tree)"
    ))
    .bind(id)
    .fetch_all(connection)
    .await?;
    rows.iter().map(from_row).collect()
}

pub async fn delete(connection: &mut impl Connect, id: &str) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::session_store::delete(connection, id).await
        }
    };
    // Children, messages and parts go with it through ON DELETE CASCADE.
    sqlx::query("DELETE FROM session WHERE id = ?")
        .bind(id)
        .execute(connection)
        .await?;
    Ok(())
}
