//! The rows behind deleting a message or a part and rewriting a part (`reshaping::
//! message_editing` owns the rules and the transaction): each call runs inside the caller's
//! transaction.

use crate::store::engine::{not_on_postgres, Connect, Connection};
use crate::wire::error::LedgerError;
use sqlx::Row;

/// The stored bodies of a message's step-finish parts, whose usage leaves the session's totals.
pub async fn step_finish_bodies(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
) -> Result<Vec<String>, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        Connection::Postgres(_) => {
            return Err(not_on_postgres("message_removal::step_finish_bodies"))
        }
    };
    Ok(sqlx::query_scalar(
        "SELECT data FROM part WHERE message_id = ? AND session_id = ? AND type = 'step-finish'",
    )
    .bind(message_id)
    .bind(session_id)
    .fetch_all(&mut *connection)
    .await?)
}

/// Deletes the message (its parts go with it); false when there was none.
pub async fn delete_message(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
) -> Result<bool, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        Connection::Postgres(_) => return Err(not_on_postgres("message_removal::delete_message")),
    };
    let deleted: Option<String> =
        sqlx::query_scalar("DELETE FROM message WHERE id = ? AND session_id = ? RETURNING id")
            .bind(message_id)
            .bind(session_id)
            .fetch_optional(&mut *connection)
            .await?;
    Ok(deleted.is_some())
}

/// Deletes one part; its stored body, or `None` when there was none.
pub async fn delete_part(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
    part_id: &str,
) -> Result<Option<String>, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        Connection::Postgres(_) => return Err(not_on_postgres("message_removal::delete_part")),
    };
    let deleted = sqlx::query(
        "DELETE FROM part WHERE id = ? AND message_id = ? AND session_id = ? RETURNING data",
    )
    .bind(part_id)
    .bind(message_id)
    .bind(session_id)
    .fetch_optional(&mut *connection)
    .await?;
    Ok(match deleted {
        Some(row) => Some(row.try_get("data")?),
        None => None,
    })
}

/// One part's stored body, or `None` when there is none.
pub async fn part_body(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
    part_id: &str,
) -> Result<Option<String>, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        Connection::Postgres(_) => return Err(not_on_postgres("message_removal::part_body")),
    };
    Ok(sqlx::query_scalar(
        "SELECT data FROM part WHERE id = ? AND message_id = ? AND session_id = ?",
    )
    .bind(part_id)
    .bind(message_id)
    .bind(session_id)
    .fetch_optional(&mut *connection)
    .await?)
}

/// Notes a part's old text for the search purge: a rewrite's words may leave the index, and the
/// delete trigger only sees deletes.
pub async fn forget_part_text(
    connection: &mut impl Connect,
    body: &str,
) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        Connection::Postgres(_) => {
            return Err(not_on_postgres("message_removal::forget_part_text"))
        }
    };
    sqlx::query("INSERT INTO search_forgotten (kind, text) VALUES ('part', ?)")
        .bind(body)
        .execute(&mut *connection)
        .await?;
    Ok(())
}
