//! The seed's prompt pipeline (contract §3): agent and model choice applied, drafts resolved
//! (files, the Read tool, data URLs, MCP resources, a line widened to its symbol from the
//! built-in grammars), hooks, image normalisation and attachment
//! storage, the one transaction that saves a prompt, and the `AgentLoop` seam the loop is given
//! through. The `Runtime` is what the pipeline and the floors above run with. It uses `wire`,
//! `store` and `models`.

pub mod agent_loop;
pub(crate) mod attachment_storage;
pub mod chat_message_hook;
pub mod draft_resolution;
pub mod image_normalization;
pub mod mcp_resource;
pub(crate) mod prompt;
pub(crate) mod read_at_once;
pub mod read_tool;
pub mod runtime;
pub mod symbol_range;
pub mod symbols;

use crate::pipeline::runtime::Runtime;
use crate::store::Store;
use std::sync::Arc;

/// What the prompt pipeline works with: the store and the runtime.
pub struct Pipeline<'a> {
    pub(crate) store: &'a Store,
    pub(crate) runtime: &'a Arc<Runtime>,
}
