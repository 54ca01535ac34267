//! Revert clean-up on Postgres: the twin of `store::revert_cleanup`. A session carrying an
//! "undo" marker loses the messages from the marker on for good when the next prompt arrives
//! (inside that prompt's transaction), and the marker is cleared.

use super::database_error::from_postgres;
use super::{message_store, session_store, session_usage};
use crate::wire::error::LedgerError;
use crate::wire::session::Session;
use sqlx::PgConnection;

/// What was removed: the message ids, and the parts as (message id, part id). The fields of
/// SQLite's `revert_cleanup::Removed`, which is the crate's own type; the dispatch on the engine
/// builds one from this.
pub type RemovedIds = (Vec<String>, Vec<(String, String)>);

pub async fn apply(
    connection: &mut PgConnection,
    session: &mut Session,
) -> Result<RemovedIds, LedgerError> {
    let Some(marker) = session.revert.take() else {
        return Ok(Default::default());
    };
    let Some(seq) = message_store::seq_of(connection, &session.id, &marker.message_id).await?
    else {
        // The marked message is already gone: nothing left to remove.
        return Ok(Default::default());
    };
    // The undone steps' cost and tokens leave the session's totals with them.
    let undone_steps: Vec<String> = match &marker.part_id {
        Some(part_id) => sqlx::query_scalar(
            "SELECT data FROM part WHERE type = 'step-finish' AND ( \
               (message_id = $1 AND seq >= (SELECT seq FROM part WHERE id = $2 AND message_id = $1)) \
               OR message_id IN (SELECT id FROM message WHERE session_id = $3 AND seq > $4))",
        )
        .bind(&marker.message_id)
        .bind(part_id)
        .bind(&session.id)
        .bind(seq),
        None => sqlx::query_scalar(
            "SELECT data FROM part WHERE type = 'step-finish' AND message_id IN \
             (SELECT id FROM message WHERE session_id = $1 AND seq >= $2)",
        )
        .bind(&session.id)
        .bind(seq),
    }
    .fetch_all(&mut *connection)
    .await
    .map_err(from_postgres)?;
    if session_usage::remove_stored(connection, &session.id, &undone_steps).await? {
        // The caller announces `session`: with the totals the row now has.
        let row = session_store::get(connection, &session.id).await?;
        session.cost = row.cost;
        session.tokens = row.tokens;
    }
    match &marker.part_id {
        Some(part_id) => {
            let parts =
                message_store::delete_parts_from(connection, &marker.message_id, part_id).await?;
            let parts = parts
                .into_iter()
                .map(|part| (marker.message_id.clone(), part))
                .collect();
            let messages = message_store::delete_from(connection, &session.id, seq + 1).await?;
            Ok((messages, parts))
        }
        None => {
            let messages = message_store::delete_from(connection, &session.id, seq).await?;
            Ok((messages, Vec::new()))
        }
    }
}
