//! Pruning old tool outputs (reference §5.7, OpenCode's `compaction.prune`): walking back from
//! the newest message, the outputs of completed tools in the last two user turns are always
//! kept, and so are the newest ~40k estimated tokens of older outputs; anything older is marked
//! `time.compacted`, and the conversion then sends "[Old tool result content cleared]" in its
//! place. Nothing is pruned unless it frees more than ~20k tokens, the walk stops at a summary
//! or at an output already pruned, and `skill` outputs are never pruned. The stored output is
//! kept: the person reading the session still sees it.

use crate::reply::reply_context::ReplyContext;
use crate::wire::error::LedgerError;
use crate::wire::message::{Message, MessageWithParts};
use crate::wire::part::{Part, PartBody, ToolState};

/// Estimated tokens of the newest older outputs that stay in the model's view.
pub const PROTECT_TOKENS: u64 = 40_000;
/// Below this many estimated tokens freed, pruning is not worth losing the outputs.
pub const MINIMUM_TOKENS: u64 = 20_000;
const PROTECTED_TOOLS: [&str; 1] = ["skill"];
/// The newest user turns whose tool outputs are never pruned.
const KEPT_TURNS: usize = 2;

/// OpenCode's token estimate: four characters a token.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64 + 2) / 4
}

/// The tool parts to mark compacted. Pure; `history` is in ledger order.
pub fn outputs_to_prune(history: &[MessageWithParts]) -> Vec<&Part> {
    let mut turns = 0;
    let mut total = 0;
    let mut freed = 0;
    let mut chosen = Vec::new();
    'walk: for message in history.iter().rev() {
        match &message.info {
            Message::User(_) => turns += 1,
            Message::Assistant(assistant) => {
                if turns >= KEPT_TURNS && assistant.summary == Some(true) {
                    break 'walk;
                }
            }
        }
        if turns < KEPT_TURNS {
            continue;
        }
        for part in message.parts.iter().rev() {
            let PartBody::Tool(tool) = &part.body else {
                continue;
            };
            let ToolState::Completed { output, time, .. } = &tool.state else {
                continue;
            };
            if PROTECTED_TOOLS.contains(&tool.tool.as_str()) {
                continue;
            }
            if time.compacted.is_some() {
                break 'walk;
            }
            let estimate = estimate_tokens(output);
            total += estimate;
            if total > PROTECT_TOKENS {
                freed += estimate;
                chosen.push(part);
            }
        }
    }
    if freed > MINIMUM_TOKENS {
        chosen
    } else {
        Vec::new()
    }
}

/// Marks the session's prunable tool outputs compacted; how many were marked. Runs after a
/// reply when the config's `compaction.prune` is on.
pub(crate) async fn prune(
    context: &ReplyContext,
    history: &[MessageWithParts],
) -> Result<usize, LedgerError> {
    let chosen: Vec<Part> = outputs_to_prune(history).into_iter().cloned().collect();
    let now = context.now();
    for mut part in chosen.iter().cloned() {
        if let PartBody::Tool(tool) = &mut part.body {
            if let ToolState::Completed { time, .. } = &mut tool.state {
                time.compacted = Some(now);
            }
        }
        context.store_reply_part(&part, true).await?;
    }
    Ok(chosen.len())
}

#[cfg(test)]
mod tests;
