//! The verbatim tail a compaction keeps (reference §5.7 `select`, §5.2 `filterCompacted`): the
//! last two user turns stay as they are beside the summary when they fit a small budget
//! (a quarter of the usable context, between 2k and 8k estimated tokens), only what comes before
//! them is summarised, and the compaction part records where the tail starts
//! (`tail_start_id`). The model then sees `[marker, summary, …tail…, newer…]`. Pure.

use crate::wire::message::{Message, MessageWithParts};
use crate::wire::part::{PartBody, ToolState};

use super::prune::estimate_tokens;

/// How many of the newest user turns the tail keeps at most.
pub const TAIL_TURNS: usize = 2;
const MIN_TAIL_TOKENS: u64 = 2_000;
const MAX_TAIL_TOKENS: u64 = 8_000;

/// The tail's budget: a quarter of the usable context (context minus room for the reply),
/// clamped to 2k–8k; 8k when the context size is unknown.
pub fn tail_budget(limit: Option<&serde_json::Value>) -> u64 {
    match super::usable_context(limit) {
        Some(usable) => (usable / 4).clamp(MIN_TAIL_TOKENS, MAX_TAIL_TOKENS),
        None => MAX_TAIL_TOKENS,
    }
}

/// Estimated tokens of what a message sends: text, reasoning, tool input and output, file
/// contents (a data URL counts in full, so a big attachment never fits a tail).
pub fn estimate_message(message: &MessageWithParts) -> u64 {
    message
        .parts
        .iter()
        .map(|part| match &part.body {
            PartBody::Text(text) => estimate_tokens(&text.text),
            PartBody::Reasoning(reasoning) => estimate_tokens(&reasoning.text),
            PartBody::File(file) => estimate_tokens(&file.url),
            PartBody::Subtask(subtask) => estimate_tokens(&subtask.prompt),
            PartBody::Tool(tool) => match &tool.state {
                ToolState::Completed { input, output, .. } => {
                    estimate_tokens(&input.to_string()) + estimate_tokens(output)
                }
                ToolState::Error { input, error, .. } => {
                    estimate_tokens(&input.to_string()) + estimate_tokens(error)
                }
                ToolState::Pending { input, .. } | ToolState::Running { input, .. } => {
                    estimate_tokens(&input.to_string())
                }
            },
            _ => 0,
        })
        .sum()
}

fn is_summary(message: &MessageWithParts) -> bool {
    matches!(&message.info, Message::Assistant(assistant) if assistant.summary == Some(true))
}

fn is_compaction_marker(message: &MessageWithParts) -> bool {
    message
        .parts
        .iter()
        .any(|part| matches!(part.body, PartBody::Compaction(_)))
}

/// Where the kept tail of `history` starts (an index), or `None` when nothing is kept: the
/// start of the oldest of the last `TAIL_TURNS` user turns whose messages all fit `budget`.
/// The tail never reaches back past an earlier summary, and leaves something to summarise.
pub fn tail_start(history: &[MessageWithParts], budget: u64) -> Option<usize> {
    let floor = history
        .iter()
        .rposition(is_summary)
        .map_or(0, |summary| summary + 1);
    let mut tokens = 0;
    let mut turns = 0;
    let mut start = None;
    for index in (floor..history.len()).rev() {
        let message = &history[index];
        tokens += estimate_message(message);
        if tokens > budget {
            break;
        }
        if matches!(message.info, Message::User(_)) && !is_compaction_marker(message) {
            if index == floor {
                // Keeping this turn would leave nothing new to summarise.
                break;
            }
            turns += 1;
            start = Some(index);
            if turns == TAIL_TURNS {
                break;
            }
        }
    }
    start
}

/// The visible history in the order the model reads it: when it begins with a kept tail (the
/// messages before the newest compaction marker), the marker and its summary move in front.
pub fn model_order(mut visible: Vec<MessageWithParts>) -> Vec<MessageWithParts> {
    let Some(summary) = visible.iter().rposition(|message| {
        matches!(&message.info, Message::Assistant(assistant)
            if assistant.summary == Some(true) && assistant.finish.is_some() && assistant.error.is_none())
    }) else {
        return visible;
    };
    let Message::Assistant(assistant) = &visible[summary].info else {
        return visible;
    };
    let parent = assistant.parent_id.clone();
    let Some(marker) = visible[..summary]
        .iter()
        .rposition(|message| message.info.id() == parent)
    else {
        return visible;
    };
    if marker == 0 {
        return visible;
    }
    // [tail…, marker, …, summary, newer…] → [marker, …, summary, tail…, newer…]
    let newer = visible.split_off(summary + 1);
    let compaction = visible.split_off(marker);
    let mut ordered = compaction;
    ordered.extend(visible);
    ordered.extend(newer);
    ordered
}

#[cfg(test)]
mod tests;
