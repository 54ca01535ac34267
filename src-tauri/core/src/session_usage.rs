//! A session's cost and token totals are the sum of its steps (its step-finish parts), as in
//! OpenCode's projectors: added as each step finishes (`reply_record`), taken out with a deleted
//! message or part (`message_editing`) and with undone turns when the next prompt removes them
//! (`revert_cleanup`), and summed afresh for a fork or an import, which copy only some steps or
//! come from a file whose totals may say anything.

use crate::error::LedgerError;
use crate::part::{PartBody, StepFinishPart};
use crate::session::{Session, Tokens};
use crate::session_store::{self, UsageChange};
use sqlx::SqliteConnection;

/// Sets `session`'s totals to the sum of the steps among `parts`.
pub(crate) fn total_of_steps<'a>(
    session: &mut Session,
    parts: impl IntoIterator<Item = &'a PartBody>,
) {
    session.cost = 0.0;
    session.tokens = Tokens::default();
    for body in parts {
        if let PartBody::StepFinish(step) = body {
            change(session, step, UsageChange::Add);
        }
    }
}

/// Adds a step's usage to `session`'s totals in memory, or takes it out (never below zero);
/// the caller saves the session.
fn change(session: &mut Session, step: &StepFinishPart, direction: UsageChange) {
    let apply = |total: &mut u64, value: u64| {
        *total = match direction {
            UsageChange::Add => total.saturating_add(value),
            UsageChange::Remove => total.saturating_sub(value),
        }
    };
    session.cost = match direction {
        UsageChange::Add => session.cost + step.cost,
        UsageChange::Remove => (session.cost - step.cost).max(0.0),
    };
    let tokens = &mut session.tokens;
    apply(&mut tokens.input, step.tokens.input);
    apply(&mut tokens.output, step.tokens.output);
    apply(&mut tokens.reasoning, step.tokens.reasoning);
    apply(&mut tokens.cache.read, step.tokens.cache.read);
    apply(&mut tokens.cache.write, step.tokens.cache.write);
}

/// Takes the usage of the stored step-finish parts in `data` out of the session, both its row
/// and `session` in memory (which the caller goes on to save and announce).
pub(crate) async fn remove_stored(
    connection: &mut SqliteConnection,
    session: &mut Session,
    data: &[String],
) -> Result<(), LedgerError> {
    for step in steps_in(data)? {
        session_store::change_usage(
            connection,
            &session.id,
            UsageChange::Remove,
            step.cost,
            &step.tokens,
        )
        .await?;
        change(session, &step, UsageChange::Remove);
    }
    Ok(())
}

/// The step-finish parts among stored part `data` columns.
fn steps_in(data: &[String]) -> Result<Vec<StepFinishPart>, LedgerError> {
    let mut steps = Vec::new();
    for json in data {
        let body: PartBody = serde_json::from_str(json)
            .map_err(|error| LedgerError::Corrupt(format!("part: {error}")))?;
        if let PartBody::StepFinish(step) = body {
            steps.push(step);
        }
    }
    Ok(steps)
}

/// Applies the usage of the stored step-finish parts in `data` to the session's row; returns
/// whether there was any.
pub(crate) async fn change_stored(
    connection: &mut SqliteConnection,
    session_id: &str,
    data: &[String],
    change: UsageChange,
) -> Result<bool, LedgerError> {
    let steps = steps_in(data)?;
    for step in &steps {
        session_store::change_usage(connection, session_id, change, step.cost, &step.tokens)
            .await?;
    }
    Ok(!steps.is_empty())
}
