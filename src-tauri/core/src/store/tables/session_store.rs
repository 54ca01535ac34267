//! Rows of the `session` table and the queries over them: create, read, newest-first pages with
//! a keyset cursor, partial updates, and deletion with descendants.

use crate::store::engine::{Connect, Connection, Pool};
use crate::store::rows::session_page::{
    SessionPage, SessionQuery, UsageChange, DEFAULT_PAGE, MAX_PAGE,
};
use crate::store::sqlite::search_index;
use crate::wire::error::LedgerError;
use crate::wire::permission::Ruleset;
use crate::wire::session::{CacheTokens, RevertMarker, Session, SessionModel, SessionTime, Tokens};
use sqlx::sqlite::SqliteRow;
use sqlx::{QueryBuilder, Row, Sqlite};

const COLUMNS: &str = "id, parent_id, slug, project_id, directory, title, version, agent, model, \
    permission, revert, summary, cost, tokens_input, tokens_output, tokens_reasoning, \
    tokens_cache_read, tokens_cache_write, pinned, time_created, time_updated, time_compacting, \
    time_archived, created_by_token";

fn json_column<T: serde::de::DeserializeOwned>(
    row: &SqliteRow,
    column: &str,
) -> Result<Option<T>, LedgerError> {
    let text: Option<String> = row.try_get(column)?;
    text.map(|text| {
        serde_json::from_str(&text)
            .map_err(|error| LedgerError::Corrupt(format!("session.{column}: {error}")))
    })
    .transpose()
}

fn count(row: &SqliteRow, column: &str) -> Result<u64, LedgerError> {
    let value: i64 = row.try_get(column)?;
    Ok(u64::try_from(value).unwrap_or(0))
}

fn from_row(row: &SqliteRow) -> Result<Session, LedgerError> {
    Ok(Session {
        id: row.try_get("id")?,
        slug: row.try_get("slug")?,
        project_id: row.try_get("project_id")?,
        directory: row.try_get("directory")?,
        path: String::new(),
        parent_id: row.try_get("parent_id")?,
        summary: json_column(row, "summary")?,
        cost: row.try_get("cost")?,
        tokens: Tokens {
            total: None,
            input: count(row, "tokens_input")?,
            output: count(row, "tokens_output")?,
            reasoning: count(row, "tokens_reasoning")?,
            cache: CacheTokens {
                read: count(row, "tokens_cache_read")?,
                write: count(row, "tokens_cache_write")?,
            },
        },
        title: row.try_get("title")?,
        agent: row.try_get("agent")?,
        model: json_column::<SessionModel>(row, "model")?,
        version: row.try_get("version")?,
        time: SessionTime {
            created: row.try_get("time_created")?,
            updated: row.try_get("time_updated")?,
            compacting: row.try_get("time_compacting")?,
            archived: row.try_get("time_archived")?,
        },
        permission: json_column::<Ruleset>(row, "permission")?,
        revert: json_column::<RevertMarker>(row, "revert")?,
        pinned: row.try_get::<i64, _>("pinned")? != 0,
        created_by_token: row.try_get("created_by_token")?,
    })
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
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM session WHERE id = ?"))
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
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::session_store::save(connection, session).await
        }
    };
    let mut transaction = crate::store::sqlite::database::begin_write(connection).await?;
    // The title's index row is rewritten only when the title changes (the update trigger has
    // dropped it then); sessions are saved far more often than renamed.
    let before: Option<(i64, String)> =
        sqlx::query_as("SELECT rowid, title FROM session WHERE id = ?")
            .bind(&session.id)
            .fetch_optional(&mut *transaction)
            .await?;
    let Some((rowid, old_title)) = before else {
        return Err(LedgerError::SessionNotFound(session.id.clone()));
    };
    sqlx::query(
        "UPDATE session SET title = ?, agent = ?, model = ?, permission = ?, revert = ?, summary = ?, \
         pinned = ?, time_updated = ?, time_compacting = ?, time_archived = ? WHERE rowid = ?",
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
    .bind(rowid)
    .execute(&mut *transaction)
    .await?;
    if old_title != session.title {
        search_index::index_title(&mut transaction, rowid, &session.title).await?;
    }
    transaction.commit().await?;
    Ok(())
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
    let limit = query.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
    let mut builder: QueryBuilder<Sqlite> =
        QueryBuilder::new(format!("SELECT {COLUMNS} FROM session WHERE 1 = 1"));
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
        .push_bind(i64::from(limit) + 1);
    let rows = builder.build().fetch_all(pool).await?;
    let mut sessions = rows.iter().map(from_row).collect::<Result<Vec<_>, _>>()?;
    let next_cursor = if sessions.len() > limit as usize {
        sessions.truncate(limit as usize);
        sessions
            .last()
            .map(|last| format!("{}:{}", last.time.updated, last.id))
    } else {
        None
    };
    Ok(SessionPage {
        sessions,
        next_cursor,
    })
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
        "SELECT {COLUMNS} FROM session WHERE parent_id = ? ORDER BY time_created, id"
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
         SELECT {COLUMNS} FROM session WHERE id IN (SELECT id FROM tree)"
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
