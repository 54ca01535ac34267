//! The one narrow interface between the prompt pipeline and the agent loop: once a prompt that
//! wants a reply is saved, the pipeline hands the session over and returns what the loop
//! returns (the last assistant message with its parts).

use crate::pipeline::runtime::Runtime;
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::event::SessionStatus;
use crate::wire::message::MessageWithParts;
use async_trait::async_trait;
use std::collections::BTreeMap;
use std::sync::Arc;

#[async_trait]
pub trait AgentLoop: Send + Sync {
    async fn run(
        &self,
        store: Store,
        runtime: Arc<Runtime>,
        session_id: String,
    ) -> Result<MessageWithParts, LedgerError>;

    /// Stops the session's run, if one is going; true when there was one.
    fn abort(&self, _session_id: &str) -> bool {
        false
    }

    /// Sessions that are not idle.
    fn status(&self) -> BTreeMap<String, SessionStatus> {
        BTreeMap::new()
    }

    /// Whether a reply is running in the session; reshaping (revert, fork…) waits for idle.
    fn is_busy(&self, _session_id: &str) -> bool {
        false
    }
}

/// Used until a loop is installed: the prompt is saved, and the caller is told plainly that
/// replies are not available rather than left waiting.
pub struct NoAgentLoop;

#[async_trait]
impl AgentLoop for NoAgentLoop {
    async fn run(
        &self,
        _store: Store,
        _runtime: Arc<Runtime>,
        _session_id: String,
    ) -> Result<MessageWithParts, LedgerError> {
        Err(LedgerError::RepliesUnavailable)
    }
}
