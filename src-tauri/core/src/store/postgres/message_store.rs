//! Rows of the `message` and `part` tables on Postgres: the twin of `store::tables::message_store`
//! (writing a message with its parts, reading a session's messages in `seq` order, a page at a
//! time). The query and page types are that file's; the row mapping is here, for `PgRow`.

use super::database_error::from_postgres;
use super::search_index;
use crate::store::rows::message_page::{assemble, MessagePage, MessageQuery};
use crate::wire::error::LedgerError;
use crate::wire::message::{Message, MessageWithParts};
use crate::wire::part::{Part, PartBody};
use sqlx::postgres::PgRow;
use sqlx::{Connection, PgConnection, PgPool, Row};

fn corrupt(what: &str, error: serde_json::Error) -> LedgerError {
    LedgerError::Corrupt(format!("{what}: {error}"))
}

pub async fn insert_message(
    connection: &mut PgConnection,
    message: &Message,
    seq: i64,
    now: i64,
) -> Result<(), LedgerError> {
    let data = serde_json::to_string(message).map_err(|error| corrupt("message", error))?;
    let result = sqlx::query(
        "INSERT INTO message (id, session_id, seq, role, time_created, time_updated, data) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
    )
    .bind(message.id())
    .bind(message.session_id())
    .bind(seq)
    .bind(message.role())
    .bind(message.created())
    .bind(now)
    .bind(data)
    .execute(connection)
    .await
    .map_err(from_postgres)?;
    if result.rows_affected() == 0 {
        return Err(LedgerError::DuplicateId(message.id().to_string()));
    }
    Ok(())
}

/// Rewrites an existing message's data (an assistant growing, a finish or an error).
pub async fn update_message(
    connection: &mut PgConnection,
    message: &Message,
    now: i64,
) -> Result<(), LedgerError> {
    let data = serde_json::to_string(message).map_err(|error| corrupt("message", error))?;
    let result = sqlx::query(
        "UPDATE message SET data = $1, time_updated = $2 WHERE id = $3 AND session_id = $4",
    )
    .bind(data)
    .bind(now)
    .bind(message.id())
    .bind(message.session_id())
    .execute(connection)
    .await
    .map_err(from_postgres)?;
    if result.rows_affected() == 0 {
        return Err(LedgerError::MessageNotFound {
            session_id: message.session_id().to_string(),
            message_id: message.id().to_string(),
        });
    }
    Ok(())
}

pub async fn insert_part(
    connection: &mut PgConnection,
    part: &Part,
    seq: i64,
    now: i64,
) -> Result<(), LedgerError> {
    let data = serde_json::to_string(&part.body).map_err(|error| corrupt("part", error))?;
    // A savepoint (or a transaction, if the caller has none) so the part and its index row
    // are written together.
    let mut transaction = connection.begin().await.map_err(from_postgres)?;
    let rowid: Option<i64> = sqlx::query_scalar(
        "INSERT INTO part (id, message_id, session_id, seq, type, time_created, time_updated, data) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING RETURNING rowid",
    )
    .bind(&part.id)
    .bind(&part.message_id)
    .bind(&part.session_id)
    .bind(seq)
    .bind(part.body.type_name())
    .bind(now)
    .bind(now)
    .bind(data)
    .fetch_optional(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    let Some(rowid) = rowid else {
        return Err(LedgerError::DuplicateId(part.id.clone()));
    };
    search_index::index_part(&mut transaction, rowid, &part.body).await?;
    transaction.commit().await.map_err(from_postgres)?;
    Ok(())
}

/// Rewrites an existing part's body; returns false when no such part exists.
pub async fn update_part(
    connection: &mut PgConnection,
    part: &Part,
    now: i64,
) -> Result<bool, LedgerError> {
    let data = serde_json::to_string(&part.body).map_err(|error| corrupt("part", error))?;
    // The update trigger drops the old index row; the new one is written in the same savepoint.
    let mut transaction = connection.begin().await.map_err(from_postgres)?;
    let rowid: Option<i64> = sqlx::query_scalar(
        "UPDATE part SET data = $1, type = $2, time_updated = $3 \
         WHERE id = $4 AND message_id = $5 RETURNING rowid",
    )
    .bind(data)
    .bind(part.body.type_name())
    .bind(now)
    .bind(&part.id)
    .bind(&part.message_id)
    .fetch_optional(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    let Some(rowid) = rowid else {
        return Ok(false);
    };
    search_index::index_part(&mut transaction, rowid, &part.body).await?;
    transaction.commit().await.map_err(from_postgres)?;
    Ok(true)
}

fn message_from_row(row: &PgRow) -> Result<Message, LedgerError> {
    let data: String = row.try_get("data").map_err(from_postgres)?;
    serde_json::from_str(&data).map_err(|error| corrupt("message", error))
}

fn part_from_row(row: &PgRow) -> Result<Part, LedgerError> {
    let data: String = row.try_get("data").map_err(from_postgres)?;
    let body: PartBody = serde_json::from_str(&data).map_err(|error| corrupt("part", error))?;
    Ok(Part {
        id: row.try_get("id").map_err(from_postgres)?,
        session_id: row.try_get("session_id").map_err(from_postgres)?,
        message_id: row.try_get("message_id").map_err(from_postgres)?,
        body,
    })
}

/// The rows read into messages and parts, put together as on SQLite (`crate::store::rows::message_page::assemble`).
fn assemble_rows(
    message_rows: &[PgRow],
    part_rows: &[PgRow],
) -> Result<Vec<MessageWithParts>, LedgerError> {
    let messages = message_rows
        .iter()
        .map(message_from_row)
        .collect::<Result<Vec<_>, _>>()?;
    let parts = part_rows
        .iter()
        .map(part_from_row)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(assemble(messages, parts))
}

pub async fn list(
    pool: &PgPool,
    session_id: &str,
    query: &MessageQuery,
) -> Result<MessagePage, LedgerError> {
    let before = query.before_seq()?;
    let limit = query.limit.filter(|limit| *limit > 0).map(i64::from);
    // One snapshot for both reads (SQLite's pool reads may see two; here another server may
    // commit between them): the parts listed belong to the messages listed.
    let mut transaction = pool
        .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        .await
        .map_err(from_postgres)?;
    // Newest `limit` first, then flipped to oldest-first. LIMIT NULL is no limit.
    let mut message_rows = sqlx::query(
        "SELECT id, seq, data FROM message WHERE session_id = $1 AND seq < $2 \
         ORDER BY seq DESC LIMIT $3",
    )
    .bind(session_id)
    .bind(before)
    .bind(limit.map(|limit| limit + 1))
    .fetch_all(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    let has_more = limit.is_some_and(|limit| message_rows.len() as i64 > limit);
    if let Some(limit) = limit {
        message_rows.truncate(limit as usize);
    }
    message_rows.reverse();
    let (Some(first), Some(last)) = (message_rows.first(), message_rows.last()) else {
        return Ok(MessagePage {
            messages: Vec::new(),
            next_cursor: None,
        });
    };
    let oldest_seq: i64 = first.try_get("seq").map_err(from_postgres)?;
    let newest_seq: i64 = last.try_get("seq").map_err(from_postgres)?;
    let part_rows = sqlx::query(
        "SELECT part.id, part.session_id, part.message_id, part.data FROM part \
         JOIN message ON part.message_id = message.id \
         WHERE message.session_id = $1 AND message.seq BETWEEN $2 AND $3 ORDER BY part.seq",
    )
    .bind(session_id)
    .bind(oldest_seq)
    .bind(newest_seq)
    .fetch_all(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    transaction.commit().await.map_err(from_postgres)?;
    Ok(MessagePage {
        messages: assemble_rows(&message_rows, &part_rows)?,
        next_cursor: has_more.then(|| oldest_seq.to_string()),
    })
}

pub async fn get(
    connection: &mut PgConnection,
    session_id: &str,
    message_id: &str,
) -> Result<MessageWithParts, LedgerError> {
    let message_rows =
        sqlx::query("SELECT id, seq, data FROM message WHERE session_id = $1 AND id = $2")
            .bind(session_id)
            .bind(message_id)
            .fetch_all(&mut *connection)
            .await
            .map_err(from_postgres)?;
    if message_rows.is_empty() {
        return Err(LedgerError::MessageNotFound {
            session_id: session_id.to_string(),
            message_id: message_id.to_string(),
        });
    }
    let part_rows = sqlx::query(
        "SELECT id, session_id, message_id, data FROM part WHERE message_id = $1 ORDER BY seq",
    )
    .bind(message_id)
    .fetch_all(&mut *connection)
    .await
    .map_err(from_postgres)?;
    let mut assembled = assemble_rows(&message_rows, &part_rows)?;
    assembled.pop().ok_or_else(|| LedgerError::MessageNotFound {
        session_id: session_id.to_string(),
        message_id: message_id.to_string(),
    })
}

pub async fn seq_of(
    connection: &mut PgConnection,
    session_id: &str,
    message_id: &str,
) -> Result<Option<i64>, LedgerError> {
    sqlx::query_scalar("SELECT seq FROM message WHERE session_id = $1 AND id = $2")
        .bind(session_id)
        .bind(message_id)
        .fetch_optional(connection)
        .await
        .map_err(from_postgres)
}

/// Deletes the session's messages from sequence `from_seq` on; returns their ids in order.
/// (Postgres returns deleted rows in no promised order, hence the sort.)
pub async fn delete_from(
    connection: &mut PgConnection,
    session_id: &str,
    from_seq: i64,
) -> Result<Vec<String>, LedgerError> {
    sqlx::query_scalar(
        "WITH deleted AS (DELETE FROM message WHERE session_id = $1 AND seq >= $2 \
         RETURNING id, seq) SELECT id FROM deleted ORDER BY seq",
    )
    .bind(session_id)
    .bind(from_seq)
    .fetch_all(connection)
    .await
    .map_err(from_postgres)
}

/// Deletes the parts of one message from part `part_id` on (in stored order); returns their ids.
pub async fn delete_parts_from(
    connection: &mut PgConnection,
    message_id: &str,
    part_id: &str,
) -> Result<Vec<String>, LedgerError> {
    sqlx::query_scalar(
        "WITH deleted AS (DELETE FROM part WHERE message_id = $1 \
         AND seq >= (SELECT seq FROM part WHERE id = $2 AND message_id = $1) \
         RETURNING id, seq) SELECT id FROM deleted ORDER BY seq",
    )
    .bind(message_id)
    .bind(part_id)
    .fetch_all(connection)
    .await
    .map_err(from_postgres)
}

/// The replies left open — no `time.completed`, no error — as (session id, message id).
pub async fn open_replies(pool: &PgPool) -> Result<Vec<(String, String)>, LedgerError> {
    sqlx::query_as(
        "SELECT session_id, id FROM message WHERE role = 'assistant' \
         AND (data::jsonb -> 'time' ->> 'completed') IS NULL \
         AND (data::jsonb ->> 'error') IS NULL",
    )
    .fetch_all(pool)
    .await
    .map_err(from_postgres)
}
