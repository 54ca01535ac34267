//! What a search asks (`SearchQuery`) and returns: sessions, best first, each with excerpts cut
//! into plain and highlighted pieces. Both engines' searches return these (`tables::search` on
//! SQLite, `postgres::search`).

use crate::wire::session::Session;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How many sessions a search returns when the query gives no `limit`.
pub const DEFAULT_RESULTS: u32 = 20;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SearchQuery {
    pub text: String,
    /// How many sessions to return; within one session (`sessionID`), how many excerpts.
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// How many sessions of results to skip (pages of `limit`).
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    #[serde(default)]
    pub include_archived: bool,
    /// Only this session (find within the open session, loaded or not).
    #[serde(rename = "sessionID")]
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SearchResult {
    pub session: Session,
    pub excerpts: Vec<Excerpt>,
}

/// Where a match was found, and the text around it split into plain and highlighted pieces so
/// a UI can mark them up without ever interpreting the text as HTML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Excerpt {
    /// `title`, `text`, `reasoning` or `file`.
    pub field: String,
    #[serde(rename = "messageID")]
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(rename = "partID")]
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_id: Option<String>,
    pub pieces: Vec<ExcerptPiece>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ExcerptPiece {
    pub text: String,
    pub highlighted: bool,
}
