//! A session's cost and token totals are the sum of its steps (its step-finish parts), as in
//! OpenCode's projectors: added as each step finishes (`reply_record`), taken out with a deleted
//! message or part (`message_editing`) and with undone turns when the next prompt removes them
//! (`revert_cleanup`), and summed afresh for a fork or an import, which copy only some steps or
//! come from a file whose totals may say anything.

use crate::store::engine::Connect;
use crate::store::rows::session_page::UsageChange;
use crate::store::tables::session_store;
use crate::wire::error::LedgerError;
use crate::wire::part::PartBody;
use crate::wire::session::{Session, Tokens};

/// Sets `session`'s totals to the sum of the steps among `parts`.
pub(crate) fn total_of_steps<'a>(
    session: &mut Session,
    parts: impl IntoIterator<Item = &'a PartBody>,
) {
    session.cost = 0.0;
    session.tokens = Tokens::default();
    for body in parts {
        if let PartBody::StepFinish(step) = body {
            let tokens = &mut session.tokens;
            session.cost += step.cost;
            tokens.input = tokens.input.saturating_add(step.tokens.input);
            tokens.output = tokens.output.saturating_add(step.tokens.output);
            tokens.reasoning = tokens.reasoning.saturating_add(step.tokens.reasoning);
            tokens.cache.read = tokens.cache.read.saturating_add(step.tokens.cache.read);
            tokens.cache.write = tokens.cache.write.saturating_add(step.tokens.cache.write);
        }
    }
}

/// Takes the usage of the stored step-finish parts among `data` (part `data` columns) out of
/// the session's row; returns whether there was any.
pub(crate) async fn remove_stored(
    connection: &mut impl Connect,
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
