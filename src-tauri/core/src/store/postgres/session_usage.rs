//! Taking deleted steps' usage out of a session's totals on Postgres: the twin of
//! `store::session_usage` (whose `total_of_steps`, a pure sum, serves both engines).

use super::session_store;
use crate::store::session_store::UsageChange;
use crate::wire::error::LedgerError;
use crate::wire::part::PartBody;
use sqlx::PgConnection;

/// Takes the usage of the stored step-finish parts among `data` (part `data` columns) out of
/// the session's row; returns whether there was any.
pub async fn remove_stored(
    connection: &mut PgConnection,
    session_id: &str,
    data: &[String],
) -> Result<bool, LedgerError> {
    let mut removed = false;
    for json in data {
        let body: PartBody = serde_json::from_str(json)
            .map_err(|error| LedgerError::Corrupt(format!("part: {error}")))?;
        if let PartBody::StepFinish(step) = body {
            session_store::change_usage(
                connection,
                session_id,
                UsageChange::Remove,
                step.cost,
                &step.tokens,
            )
            .await?;
            removed = true;
        }
    }
    Ok(removed)
}
