//! The rows behind deleting a message or a part and rewriting a part, on Postgres: the twin of
//! `store::message_removal`. Each call runs inside the caller's transaction.

use super::database_error::from_postgres;
use crate::wire::error::LedgerError;
use sqlx::PgConnection;

/// The stored bodies of a message's step-finish parts, whose usage leaves the session's totals.
/// In stored order (SQLite's twin promises none).
pub async fn step_finish_bodies(
    connection: &mut PgConnection,
    session_id: &str,
    message_id: &str,
) -> Result<Vec<String>, LedgerError> {
    sqlx::query_scalar(
        "SELECT data FROM part WHERE message_id = $1 AND session_id = $2 AND type = 'step-finish' \
         ORDER BY seq",
    )
    .bind(message_id)
    .bind(session_id)
    .fetch_all(connection)
    .await
    .map_err(from_postgres)
}

/// Deletes the message (its parts go with it); false when there was none.
pub async fn delete_message(
    connection: &mut PgConnection,
    session_id: &str,
    message_id: &str,
) -> Result<bool, LedgerError> {
    let deleted: Option<String> =
        sqlx::query_scalar("DELETE FROM message WHERE id = $1 AND session_id = $2 RETURNING id")
            .bind(message_id)
            .bind(session_id)
            .fetch_optional(connection)
            .await
            .map_err(from_postgres)?;
    Ok(deleted.is_some())
}

/// Deletes one part; its stored body, or `None` when there was none.
pub async fn delete_part(
    connection: &mut PgConnection,
    session_id: &str,
    message_id: &str,
    part_id: &str,
) -> Result<Option<String>, LedgerError> {
    sqlx::query_scalar(
        "DELETE FROM part WHERE id = $1 AND message_id = $2 AND session_id = $3 RETURNING data",
    )
    .bind(part_id)
    .bind(message_id)
    .bind(session_id)
    .fetch_optional(connection)
    .await
    .map_err(from_postgres)
}

/// One part's stored body, or `None` when there is none.
pub async fn part_body(
    connection: &mut PgConnection,
    session_id: &str,
    message_id: &str,
    part_id: &str,
) -> Result<Option<String>, LedgerError> {
    sqlx::query_scalar(
        "SELECT data FROM part WHERE id = $1 AND message_id = $2 AND session_id = $3",
    )
    .bind(part_id)
    .bind(message_id)
    .bind(session_id)
    .fetch_optional(connection)
    .await
    .map_err(from_postgres)
}

/// SQLite's twin notes a rewritten part's old text for its search purge. Postgres needs no
/// note: a part's index row holds only its own words and is replaced when the part is
/// rewritten, so the old words are already gone. Kept so both engines have the same surface.
pub async fn forget_part_text(
    _connection: &mut PgConnection,
    _body: &str,
) -> Result<(), LedgerError> {
    Ok(())
}
