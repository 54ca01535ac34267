//! The sessions and messages handle: creating, listing, renaming, archiving and deleting
//! sessions, reading their messages, searching them, and sending a prompt (the pipeline). A
//! feature about sessions or messages edits this file, not the `Ledger` facade.
//!
//! The functions an adapter reaches through the operation table (`operations.rs`) follow its
//! one convention: `async`, ids as `&str`, the body by value, `Result<_, LedgerError>`.

use super::replies::ReplyHandle;
use crate::pipeline::runtime::Runtime;
use crate::reply::reply_context::ReplyContext;
use crate::store::rows::message_page::{MessagePage, MessageQuery};
use crate::store::rows::session_page::{SessionPage, SessionQuery};
use crate::store::search::search_query::{SearchQuery, SearchResult};
use crate::store::tables::message_listing_json::MessagePageJson;
use crate::store::Store;
use crate::wire::draft::PromptInput;
use crate::wire::error::LedgerError;
use crate::wire::message::MessageWithParts;
use crate::wire::session::{CreateSession, Session, SessionPatch};
use serde::Deserialize;
use std::sync::Arc;
use ts_rs::TS;

/// Which sessions to list, in the words of OpenCode's query string
/// (`GET /session?roots=true&limit=…`): newest first, a page at a time. Unknown keys are ignored.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(export)]
pub struct SessionListQuery {
    /// Only sessions that are no other session's sub-session.
    #[ts(optional)]
    pub roots: Option<bool>,
    #[ts(optional)]
    pub limit: Option<u32>,
    /// The previous page's `nextCursor`.
    #[ts(optional)]
    pub cursor: Option<String>,
    /// Words the title contains.
    #[ts(optional)]
    pub search: Option<String>,
    /// Only sessions updated at or after this instant (milliseconds since 1970).
    #[ts(optional, type = "number")]
    pub start: Option<i64>,
    /// Archived sessions too.
    #[ts(optional)]
    pub archived: Option<bool>,
    /// Only pinned sessions (Dossier's addition): the sidebar loads them all up front.
    #[ts(optional)]
    pub pinned: Option<bool>,
}

/// Archived or brought back (`POST /dossier/session/:id/archive`).
#[derive(Debug, Clone, Copy, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct ArchiveChange {
    pub archived: bool,
}

/// A full-text search in the words of its query string (`GET /dossier/search?q=…`). Unknown
/// keys are ignored, as OpenCode's clients add `directory` to every request.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
pub struct SearchRequest {
    /// The words to find.
    pub q: String,
    /// How many sessions to return; within one session (`sessionID`), how many excerpts.
    #[ts(optional)]
    pub limit: Option<u32>,
    /// How many sessions of results to skip (pages of `limit`).
    #[ts(optional)]
    pub offset: Option<u32>,
    /// Archived sessions too.
    #[ts(optional)]
    pub archived: Option<bool>,
    /// Only this session (find within the open session, loaded or not).
    #[serde(rename = "sessionID")]
    #[ts(optional)]
    pub session_id: Option<String>,
}

/// `Ledger::sessions()`: borrows the store, the runtime and the loop the pipeline starts.
pub struct SessionHandle<'ledger> {
    pub(crate) parts: &'ledger ReplyContext,
}

impl SessionHandle<'_> {
    fn store(&self) -> &Store {
        &self.parts.store
    }

    fn runtime(&self) -> &Arc<Runtime> {
        &self.parts.runtime
    }

    pub async fn create(&self, input: CreateSession) -> Result<Session, LedgerError> {
        self.create_by_token(input, None).await
    }

    /// A new session that records the name of the access token its creator used (a shared
    /// server's `POST /session`); `None` is `create`.
    pub async fn create_by_token(
        &self,
        input: CreateSession,
        created_by_token: Option<String>,
    ) -> Result<Session, LedgerError> {
        self.store().writable()?;
        if let Some(agent) = &input.agent {
            self.runtime().agents.require(agent)?;
        }
        self.parts
            .store
            .create_session(input, &self.runtime().default_directory, created_by_token)
            .await
    }

    pub async fn get(&self, id: &str) -> Result<Session, LedgerError> {
        self.store().session(id).await
    }

    pub async fn list(&self, query: &SessionQuery) -> Result<SessionPage, LedgerError> {
        self.store().sessions(query).await
    }

    /// `list` as the operation table calls it, in the words of the query string.
    pub async fn list_page(&self, query: SessionListQuery) -> Result<SessionPage, LedgerError> {
        self.list(&SessionQuery {
            limit: query.limit,
            cursor: query.cursor,
            search: query.search,
            roots_only: query.roots.unwrap_or(false),
            include_archived: query.archived.unwrap_or(false),
            updated_since: query.start,
            pinned_only: query.pinned.unwrap_or(false),
        })
        .await
    }

    pub async fn children(&self, id: &str) -> Result<Vec<Session>, LedgerError> {
        self.store().children(id).await
    }

    pub async fn update(&self, id: &str, patch: SessionPatch) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.store().update_session(id, patch).await
    }

    /// Archives the session now (the core's clock), or brings it back.
    pub async fn archive(&self, id: &str, archived: bool) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.store().archive_session(id, archived).await
    }

    /// `archive` as the operation table calls it.
    pub async fn set_archived(
        &self,
        id: &str,
        change: ArchiveChange,
    ) -> Result<Session, LedgerError> {
        self.archive(id, change.archived).await
    }

    pub async fn delete(&self, id: &str) -> Result<(), LedgerError> {
        self.store().writable()?;
        let removed = self.store().delete_session(id).await?;
        for session in &removed {
            // A reply still streaming into a deleted session has nowhere left to write.
            ReplyHandle { parts: self.parts }.abort(&session.id);
        }
        self.store().announce_deleted(removed).await;
        Ok(())
    }

    pub async fn messages(
        &self,
        session_id: &str,
        query: &MessageQuery,
    ) -> Result<MessagePage, LedgerError> {
        self.store().messages(session_id, query).await
    }

    pub async fn messages_json(
        &self,
        session_id: &str,
        query: &MessageQuery,
    ) -> Result<MessagePageJson, LedgerError> {
        self.store().messages_json(session_id, query).await
    }

    pub async fn message(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<MessageWithParts, LedgerError> {
        self.store().message(session_id, message_id).await
    }

    pub async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchResult>, LedgerError> {
        self.store().search(query).await
    }

    /// `search` as the operation table calls it, in the words of the query string.
    pub async fn search_text(
        &self,
        request: SearchRequest,
    ) -> Result<Vec<SearchResult>, LedgerError> {
        self.search(&SearchQuery {
            text: request.q,
            limit: request.limit,
            offset: request.offset,
            include_archived: request.archived.unwrap_or(false),
            session_id: request.session_id,
        })
        .await
    }

    pub async fn prompt(
        &self,
        session_id: &str,
        input: PromptInput,
    ) -> Result<MessageWithParts, LedgerError> {
        self.store().writable()?;
        self.parts.pipeline().prompt(session_id, input).await
    }

    /// A prompt nobody waits for (`prompt_async`): failures are published as `session.error`
    /// once; the error is returned for the caller's log.
    pub async fn prompt_in_background(
        &self,
        session_id: &str,
        input: PromptInput,
    ) -> Result<(), LedgerError> {
        self.store().writable()?;
        self.parts
            .pipeline()
            .prompt_in_background(session_id, input)
            .await
    }
}
