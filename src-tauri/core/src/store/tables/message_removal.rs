//! The rows behind deleting a message or a part and rewriting a part (`reshaping::
//! message_editing` owns the rules and the transaction): each call runs inside the caller's
//! transaction. The statements read the same on both engines (`engine::on_either_engine`).

use crate::store::engine::{on_either_engine, Connect, Connection};
use crate::wire::error::LedgerError;

/// The stored bodies of a message's step-finish parts, whose usage leaves the session's totals.
pub async fn step_finish_bodies(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
) -> Result<Vec<String>, LedgerError> {
    Ok(on_either_engine!(connection, |connection| {
        sqlx::query_scalar(
            "SELECT data FROM part \
             WHERE message_id = $1 AND session_id = $2 AND type = 'step-finish'",
        )
        .bind(message_id)
        .bind(session_id)
        .fetch_all(connection)
        .await?
    }))
}

/// Deletes the message (its parts go with it); false when there was none.
pub async fn delete_message(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
) -> Result<bool, LedgerError> {
    let deleted: Option<String> = on_either_engine!(connection, |connection| {
        sqlx::query_scalar("DELETE FROM message WHERE id = $1 AND session_id = $2 RETURNING id")
            .bind(message_id)
            .bind(session_id)
            .fetch_optional(connection)
            .await?
    });
    Ok(deleted.is_some())
}

/// Deletes one part; its stored body, or `None` when there was none.
pub async fn delete_part(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
    part_id: &str,
) -> Result<Option<String>, LedgerError> {
    Ok(on_either_engine!(connection, |connection| {
        sqlx::query_scalar(
            "DELETE FROM part WHERE id = $1 AND message_id = $2 AND session_id = $3 \
             RETURNING data",
        )
        .bind(part_id)
        .bind(message_id)
        .bind(session_id)
        .fetch_optional(connection)
        .await?
    }))
}

/// One part's stored body, or `None` when there is none.
pub async fn part_body(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
    part_id: &str,
) -> Result<Option<String>, LedgerError> {
    Ok(on_either_engine!(connection, |connection| {
        sqlx::query_scalar(
            "SELECT data FROM part WHERE id = $1 AND message_id = $2 AND session_id = $3",
        )
        .bind(part_id)
        .bind(message_id)
        .bind(session_id)
        .fetch_optional(connection)
        .await?
    }))
}

/// Notes a part's old text for the search purge: a rewrite's words may leave the index, and the
/// delete trigger only sees deletes. Only SQLite's word index needs this; on PostgreSQL a part's
/// search vector is rewritten with the part.
pub async fn forget_part_text(
    connection: &mut impl Connect,
    body: &str,
) -> Result<(), LedgerError> {
    match connection.connection() {
        Connection::Sqlite(connection) => {
            sqlx::query("INSERT INTO search_forgotten (kind, text) VALUES ('part', ?)")
                .bind(body)
                .execute(&mut *connection)
                .await?;
        }
        #[cfg(feature = "postgres")]
        Connection::Postgres(_) => {}
    }
    Ok(())
}
