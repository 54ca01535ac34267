//! Revert clean-up: a session carrying an "undo" marker loses the messages from the marker on
//! for good when the next prompt arrives (inside that prompt's transaction), and the marker is
//! cleared.

use crate::store::engine::{on_either_engine, Connect};
use crate::store::tables::message_store;
use crate::store::tables::session_store;
use crate::store::tables::session_usage;
use crate::wire::error::LedgerError;
use crate::wire::session::{RevertMarker, Session};

#[derive(Debug, Default)]
pub(crate) struct Removed {
    pub messages: Vec<String>,
    /// (message id, part id)
    pub parts: Vec<(String, String)>,
}

pub(crate) async fn apply(
    connection: &mut impl Connect,
    session: &mut Session,
) -> Result<Removed, LedgerError> {
    let Some(marker) = session.revert.take() else {
        return Ok(Removed::default());
    };
    let mut removed = Removed::default();
    let Some(seq) = message_store::seq_of(connection, &session.id, &marker.message_id).await?
    else {
        // The marked message is already gone: nothing left to remove.
        return Ok(removed);
    };
    // The undone steps' cost and tokens leave the session's totals with them.
    let undone_steps = undone_steps(connection, &session.id, &marker, seq).await?;
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
            removed.parts = parts
                .into_iter()
                .map(|part| (marker.message_id.clone(), part))
                .collect();
            removed.messages = message_store::delete_from(connection, &session.id, seq + 1).await?;
        }
        None => {
            removed.messages = message_store::delete_from(connection, &session.id, seq).await?;
        }
    }
    Ok(removed)
}

/// The `step-finish` parts the revert removes (their usage comes out of the session's totals).
async fn undone_steps(
    connection: &mut impl Connect,
    session_id: &str,
    marker: &RevertMarker,
    seq: i64,
) -> Result<Vec<String>, LedgerError> {
    Ok(on_either_engine!(connection, |connection| {
        match &marker.part_id {
        Some(part_id) => sqlx::query_scalar(
            "SELECT data FROM part WHERE type = 'step-finish' AND ( \
               (message_id = $1 AND seq >= (SELECT seq FROM part WHERE id = $2 AND message_id = $1)) \
               OR message_id IN (SELECT id FROM message WHERE session_id = $3 AND seq > $4))",
        )
        .bind(&marker.message_id)
        .bind(part_id)
        .bind(session_id)
        .bind(seq)
        .fetch_all(connection)
        .await?,
        None => sqlx::query_scalar(
            "SELECT data FROM part WHERE type = 'step-finish' AND message_id IN \
             (SELECT id FROM message WHERE session_id = $1 AND seq >= $2)",
        )
        .bind(session_id)
        .bind(seq)
        .fetch_all(connection)
        .await?,
    }
    }))
}
