//! dossier-core: the session ledger and the prompt pipeline, with no knowledge of Tauri or HTTP.
//!
//! Where to find things: wire types in `session`, `message`, `part`, `draft`,
//! `assistant_error`; ids in `id`; storage in `database`, `session_store`, `message_store`,
//! `blob_store`; the pipeline in `prompt`, with agent choice in `agent`, model choice in
//! `model_choice`, draft expansion in `draft_resolution`, the Read tool in `read_tool`, hooks in
//! `chat_message_hook`, image limits in `image_normalization`, revert clean-up in
//! `revert_cleanup`; events in `event`; configuration in `config`. The agent loop: runs per
//! session in `session_runner`, the loop in `run_loop`, one streamed step in `reply_stream`,
//! providers in `provider` (OpenAI-compatible, Anthropic, the offline model), stored parts to
//! model messages in `model_messages`, back-off in `retry`, tools in `tools`, asking the person in
//! `permission_request`, subagents in `subtask`, prices in `reply_cost`, titles in `title`,
//! context overflow in `compaction`, crash recovery in `restart_sweep`; deleted sessions give disk space back in `disk_space`. Provider keys in the
//! keychain in `credentials`; the settings view's provider list and config-file edits in
//! `provider_settings`.

pub mod agent;
pub mod agent_loop;
pub mod assistant_error;
mod attachment_storage;
pub mod blob_store;
pub mod chat_message_hook;
pub mod compaction;
pub mod config;
pub mod credentials;
pub mod data_url;
pub mod database;
pub mod disk_space;
pub mod draft;
pub mod draft_resolution;
pub mod error;
pub mod event;
pub mod export;
mod fork;
pub mod id;
pub mod image_normalization;
mod import;
pub mod ledger;
pub mod mcp_resource;
pub mod message;
mod message_editing;
mod message_listing_json;
mod message_reading;
pub mod message_store;
pub mod model_catalog;
pub mod model_choice;
pub mod model_messages;
pub mod model_snapshot;
pub mod model_variant;
pub mod part;
pub mod permission;
pub mod permission_request;
mod process_lock;
mod prompt;
pub mod provider;
pub mod provider_settings;
pub mod read_tool;
pub mod reply_cost;
mod reply_record;
pub mod reply_stream;
mod resend;
pub mod restart_sweep;
pub mod retry;
mod revert;
mod revert_cleanup;
pub mod run_loop;
pub mod search;
mod search_excerpt;
pub mod search_index;
mod search_purge;
pub mod search_text;
pub mod session;
mod session_lifecycle;
pub mod session_runner;
pub mod session_store;
mod session_usage;
pub mod subtask;
#[cfg(test)]
mod test_history;
pub mod title;
pub mod tools;
mod wire_number;

/// The pure checks of private modules, for the fuzz targets in `fuzz/` only; not an API.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::prompt::check_input as check_prompt_input;
    pub use crate::search_excerpt::excerpt as search_excerpt;
}

pub use error::{ErrorBody, ErrorKind, LedgerError};
pub use ledger::{Ledger, LedgerOptions};
pub use message_listing_json::MessagePageJson;
pub use session_runner::SessionRunner;
