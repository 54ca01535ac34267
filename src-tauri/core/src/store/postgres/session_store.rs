//! Rows of the `session` table on Postgres: the twin of `store::tables::session_store` (create, read,
//! newest-first pages with the same keyset cursor, partial updates, deletion with descendants).
//! The query and page types are that file's; the row mapping is here, for `PgRow`.

use super::database_error::from_postgres;
use super::search_index;
use crate::store::rows::session_page::{
    SessionPage, SessionQuery, UsageChange, DEFAULT_PAGE, MAX_PAGE,
};
use crate::wire::error::LedgerError;
use crate::wire::permission::Ruleset;
use crate::wire::session::{CacheTokens, RevertMarker, Session, SessionModel, SessionTime, Tokens};
use sqlx::postgres::PgRow;
use sqlx::{Connection, PgConnection, PgPool, Postgres, QueryBuilder, Row};

const COLUMNS: &str = "id, parent_id, slug, project_id, directory, title, version, agent, model, \
    permission, revert, summary, cost, tokens_input, tokens_output, tokens_reasoning, \
    tokens_cache_read, tokens_cache_write, pinned, time_created, time_updated, time_compacting, \
    time_archived, created_by_token";

fn json_column<T: serde::de::DeserializeOwned>(
    row: &PgRow,
    column: &str,
) -> Result<Option<T>, LedgerError> {
    let text: Option<String> = row.try_get(column).map_err(from_postgres)?;
    text.map(|text| {
        serde_json::from_str(&text)
            .map_err(|error| LedgerError::Corrupt(format!("session.{column}: {error}")))
    })
    .transpose()
}

fn count(row: &PgRow, column: &str) -> Result<u64, LedgerError> {
    let value: i64 = row.try_get(column).map_err(from_postgres)?;
    Ok(u64::try_from(value).unwrap_or(0))
}

fn column<'row, T>(row: &'row PgRow, column: &str) -> Result<T, LedgerError>
where
    T: sqlx::Decode<'row, Postgres> + sqlx::Type<Postgres>,
{
    row.try_get(column).map_err(from_postgres)
}

fn from_row(row: &PgRow) -> Result<Session, LedgerError> {
    Ok(Session {
        id: column(row, "id")?,
        slug: column(row, "slug")?,
        project_id: column(row, "project_id")?,
        directory: column(row, "directory")?,
        path: String::new(),
        parent_id: column(row, "parent_id")?,
        summary: json_column(row, "summary")?,
        cost: column(row, "cost")?,
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
        title: column(row, "title")?,
        agent: column(row, "agent")?,
        model: json_column::<SessionModel>(row, "model")?,
        version: column(row, "version")?,
        time: SessionTime {
            created: column(row, "time_created")?,
            updated: column(row, "time_updated")?,
            compacting: column(row, "time_compacting")?,
            archived: column(row, "time_archived")?,
        },
        permission: json_column::<Ruleset>(row, "permission")?,
        revert: json_column::<RevertMarker>(row, "revert")?,
        pinned: column(row, "pinned")?,
        created_by_token: column(row, "created_by_token")?,
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

fn stored_count(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub async fn insert(connection: &mut PgConnection, session: &Session) -> Result<(), LedgerError> {
    // A savepoint (or a transaction, if the caller has none): the session and its title's
    // index row are written together.
    let mut transaction = connection.begin().await.map_err(from_postgres)?;
    let rowid: i64 = sqlx::query_scalar(&format!(
        "INSERT INTO session ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
         $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24) RETURNING rowid"
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
    .bind(stored_count(session.tokens.input))
    .bind(stored_count(session.tokens.output))
    .bind(stored_count(session.tokens.reasoning))
    .bind(stored_count(session.tokens.cache.read))
    .bind(stored_count(session.tokens.cache.write))
    .bind(session.pinned)
    .bind(session.time.created)
    .bind(session.time.updated)
    .bind(session.time.compacting)
    .bind(session.time.archived)
    .bind(&session.created_by_token)
    .fetch_one(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    search_index::index_title(&mut transaction, rowid, &session.title).await?;
    transaction.commit().await.map_err(from_postgres)?;
    Ok(())
}

pub async fn find(connection: &mut PgConnection, id: &str) -> Result<Option<Session>, LedgerError> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM session WHERE id = $1"))
        .bind(id)
        .fetch_optional(connection)
        .await
        .map_err(from_postgres)?;
    row.as_ref().map(from_row).transpose()
}

pub async fn get(connection: &mut PgConnection, id: &str) -> Result<Session, LedgerError> {
    find(connection, id)
        .await?
        .ok_or_else(|| LedgerError::SessionNotFound(id.to_string()))
}

/// The session with its row locked until the caller's transaction ends (`FOR UPDATE`): a
/// concurrent read-change-save of the same session waits for this one instead of writing its
/// older copy over it.
pub async fn get_to_change(
    connection: &mut PgConnection,
    id: &str,
) -> Result<Session, LedgerError> {
    sqlx::query(&format!(
        "SELECT {COLUMNS} FROM session WHERE id = $1 FOR UPDATE"
    ))
    .bind(id)
    .fetch_optional(connection)
    .await
    .map_err(from_postgres)?
    .as_ref()
    .map(from_row)
    .transpose()?
    .ok_or_else(|| LedgerError::SessionNotFound(id.to_string()))
}

/// Adds a step's cost and tokens to the session's totals, or takes them out.
pub async fn change_usage(
    connection: &mut PgConnection,
    session_id: &str,
    change: UsageChange,
    cost: f64,
    tokens: &Tokens,
) -> Result<(), LedgerError> {
    let sign = match change {
        UsageChange::Add => 1,
        UsageChange::Remove => -1,
    };
    let count = |value: u64| sign * stored_count(value);
    sqlx::query(
        // Never below zero, whatever a removed step claims.
        "UPDATE session SET cost = GREATEST(0, cost + $1), \
         tokens_input = GREATEST(0, tokens_input + $2), \
         tokens_output = GREATEST(0, tokens_output + $3), \
         tokens_reasoning = GREATEST(0, tokens_reasoning + $4), \
         tokens_cache_read = GREATEST(0, tokens_cache_read + $5), \
         tokens_cache_write = GREATEST(0, tokens_cache_write + $6) WHERE id = $7",
    )
    .bind(sign as f64 * cost)
    .bind(count(tokens.input))
    .bind(count(tokens.output))
    .bind(count(tokens.reasoning))
    .bind(count(tokens.cache.read))
    .bind(count(tokens.cache.write))
    .bind(session_id)
    .execute(connection)
    .await
    .map_err(from_postgres)?;
    Ok(())
}

/// Writes every mutable column of `session` back (one row, inside the caller's transaction).
pub async fn save(connection: &mut PgConnection, session: &Session) -> Result<(), LedgerError> {
    let mut transaction = connection.begin().await.map_err(from_postgres)?;
    // The title's index row is rewritten only when the title changes (the update trigger has
    // dropped it then). FOR UPDATE: another server may save the same session meanwhile, and the
    // old title read here must be the one this update replaces.
    let before: Option<(i64, String)> =
        sqlx::query_as("SELECT rowid, title FROM session WHERE id = $1 FOR UPDATE")
            .bind(&session.id)
            .fetch_optional(&mut *transaction)
            .await
            .map_err(from_postgres)?;
    let Some((rowid, old_title)) = before else {
        return Err(LedgerError::SessionNotFound(session.id.clone()));
    };
    sqlx::query(
        "UPDATE session SET title = $1, agent = $2, model = $3, permission = $4, revert = $5, \
         summary = $6, pinned = $7, time_updated = $8, time_compacting = $9, time_archived = $10 \
         WHERE rowid = $11",
    )
    .bind(&session.title)
    .bind(&session.agent)
    .bind(to_json(session.model.as_ref())?)
    .bind(to_json(session.permission.as_ref())?)
    .bind(to_json(session.revert.as_ref())?)
    .bind(to_json(session.summary.as_ref())?)
    .bind(session.pinned)
    .bind(session.time.updated)
    .bind(session.time.compacting)
    .bind(session.time.archived)
    .bind(rowid)
    .execute(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    if old_title != session.title {
        search_index::index_title(&mut transaction, rowid, &session.title).await?;
    }
    transaction.commit().await.map_err(from_postgres)?;
    Ok(())
}

/// `session_store::reserve_sequence_for_prompt` on Postgres: the reservation locks the row, the
/// session is read as it was, then the prompt's change is written.
pub async fn reserve_sequence_for_prompt(
    connection: &mut PgConnection,
    session_id: &str,
    count: i64,
    change: &crate::store::rows::prompt_session_change::PromptSessionChange<'_>,
) -> Result<(i64, Session), LedgerError> {
    let first = reserve_sequence(&mut *connection, session_id, count).await?;
    let before = get(&mut *connection, session_id).await?;
    sqlx::query(
        "UPDATE session SET agent = $1, model = $2, permission = coalesce($3, permission), \
         time_updated = greatest(time_updated, $4) WHERE id = $5",
    )
    .bind(change.agent)
    .bind(to_json(Some(change.model))?)
    .bind(to_json(change.permission)?)
    .bind(change.updated)
    .bind(session_id)
    .execute(connection)
    .await
    .map_err(from_postgres)?;
    Ok((first, before))
}

/// Reserves `count` consecutive sequence numbers in the session and returns the first. The
/// update locks the session's row until the caller's transaction ends, so a concurrent
/// reservation in the same session (another request, another server) waits for it and then
/// continues after the numbers taken here.
pub async fn reserve_sequence(
    connection: &mut PgConnection,
    session_id: &str,
    count: i64,
) -> Result<i64, LedgerError> {
    let last: Option<i64> = sqlx::query_scalar(
        "UPDATE session SET last_seq = last_seq + $1 WHERE id = $2 RETURNING last_seq",
    )
    .bind(count)
    .bind(session_id)
    .fetch_optional(connection)
    .await
    .map_err(from_postgres)?;
    let last = last.ok_or_else(|| LedgerError::SessionNotFound(session_id.to_string()))?;
    Ok(last - count + 1)
}

pub async fn list(pool: &PgPool, query: &SessionQuery) -> Result<SessionPage, LedgerError> {
    let limit = query.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
    let mut builder: QueryBuilder<Postgres> =
        QueryBuilder::new(format!("SELECT {COLUMNS} FROM session WHERE TRUE"));
    if !query.include_archived {
        builder.push(" AND time_archived IS NULL");
    }
    if query.roots_only {
        builder.push(" AND parent_id IS NULL");
    }
    if query.pinned_only {
        builder.push(" AND pinned");
    }
    if let Some(since) = query.updated_since {
        builder.push(" AND time_updated >= ").push_bind(since);
    }
    if let Some(search) = query
        .search
        .as_deref()
        .filter(|search| !search.trim().is_empty())
    {
        // ILIKE: SQLite's LIKE ignores case (of ASCII letters; ILIKE of every letter).
        builder
            .push(" AND title ILIKE ")
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
    let rows = builder
        .build()
        .fetch_all(pool)
        .await
        .map_err(from_postgres)?;
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

/// The cursor format is SQLite's (`<time_updated>:<id>`), so a page fetched from one engine can
/// be continued on the other.
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

pub async fn children(pool: &PgPool, parent_id: &str) -> Result<Vec<Session>, LedgerError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM session WHERE parent_id = $1 ORDER BY time_created, id"
    ))
    .bind(parent_id)
    .fetch_all(pool)
    .await
    .map_err(from_postgres)?;
    rows.iter().map(from_row).collect()
}

/// The session and all its descendants, deepest last (by depth, then id: Postgres promises no
/// order without one).
pub async fn with_descendants(
    connection: &mut PgConnection,
    id: &str,
) -> Result<Vec<Session>, LedgerError> {
    let rows = sqlx::query(&format!(
        "WITH RECURSIVE tree(id, depth) AS (SELECT id, 0 FROM session WHERE id = $1 \
         UNION ALL SELECT session.id, tree.depth + 1 FROM session \
         JOIN tree ON session.parent_id = tree.id) \
         SELECT {COLUMNS} FROM session JOIN tree USING (id) ORDER BY tree.depth, id"
    ))
    .bind(id)
    .fetch_all(connection)
    .await
    .map_err(from_postgres)?;
    rows.iter().map(from_row).collect()
}

pub async fn delete(connection: &mut PgConnection, id: &str) -> Result<(), LedgerError> {
    // Children, messages, parts, search rows and released blobs go with it (ON DELETE CASCADE
    // and the triggers of the migration).
    sqlx::query("DELETE FROM session WHERE id = $1")
        .bind(id)
        .execute(connection)
        .await
        .map_err(from_postgres)?;
    Ok(())
}
