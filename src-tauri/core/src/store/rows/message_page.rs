//! What a reading of a session's messages asks and returns, and how either engine's rows become
//! messages with their parts (`tables::message_store`, `postgres::message_store`).

use crate::wire::error::LedgerError;
use crate::wire::message::{Message, MessageWithParts};
use crate::wire::part::Part;
use std::collections::HashMap;

/// `limit` newest messages older than `before` (a cursor from a previous page); `None` for
/// `limit` means every message.
#[derive(Debug, Clone, Default)]
pub struct MessageQuery {
    pub limit: Option<u32>,
    pub before: Option<String>,
}

impl MessageQuery {
    /// The sequence number `before` stands for (messages strictly older are listed), or
    /// `i64::MAX` without one. Both listings (`list` and `Ledger::messages_json`) read the
    /// cursor here, so a cursor from either is understood by both.
    pub fn before_seq(&self) -> Result<i64, LedgerError> {
        match &self.before {
            Some(cursor) => cursor.parse::<i64>().map_err(|_| {
                LedgerError::InvalidRequest(format!(
                    "\"{cursor}\" is not a message cursor from this server"
                ))
            }),
            None => Ok(i64::MAX),
        }
    }
}

/// One page of a session's messages, as both adapters send it (the desktop app as this object,
/// the HTTP server as the array with `next_cursor` in a header).
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct MessagePage {
    /// Oldest first, as OpenCode returns them.
    pub messages: Vec<MessageWithParts>,
    /// Present when older messages remain; pass it back as `before`.
    pub next_cursor: Option<String>,
}

/// Attaches parts (ordered by their sequence) to messages (ordered by theirs): the rows of
/// either engine, once read into messages and parts.
pub(crate) fn assemble(messages: Vec<Message>, parts: Vec<Part>) -> Vec<MessageWithParts> {
    let mut by_message: HashMap<String, Vec<Part>> = HashMap::new();
    for part in parts {
        by_message
            .entry(part.message_id.clone())
            .or_default()
            .push(part);
    }
    messages
        .into_iter()
        .map(|info| {
            let parts = by_message.remove(info.id()).unwrap_or_default();
            MessageWithParts { info, parts }
        })
        .collect()
}
