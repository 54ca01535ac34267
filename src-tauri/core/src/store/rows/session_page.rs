//! What a listing of sessions asks and returns, and a change to a session's usage totals: the
//! same on both engines (`tables::session_store`, `postgres::session_store`).

use crate::wire::session::Session;

/// Sessions per page when the query gives no `limit`, and the most one page may hold.
pub const DEFAULT_PAGE: u32 = 100;
pub const MAX_PAGE: u32 = 1000;

/// What to list. `cursor` is the opaque `next_cursor` of the previous page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionQuery {
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    pub search: Option<String>,
    pub roots_only: bool,
    pub include_archived: bool,
    /// Only sessions updated at or after this instant (OpenCode's `start`).
    pub updated_since: Option<i64>,
    /// Only pinned sessions (Dossier's addition): the sidebar loads them all up front, so a
    /// pinned session is on top however old it is.
    pub pinned_only: bool,
}

/// One page of a session listing, as both adapters send it (the desktop app as this object, the
/// HTTP server as the array with `next_cursor` in a header).
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct SessionPage {
    /// Newest first.
    pub sessions: Vec<Session>,
    /// Present when older sessions remain; pass it back as `cursor`.
    pub next_cursor: Option<String>,
}

/// Whether usage goes into the session's totals (a step finished) or comes out (its record was
/// deleted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageChange {
    Add,
    Remove,
}
