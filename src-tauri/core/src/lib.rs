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

pub mod ledger;
pub mod models;
pub mod pipeline;
pub mod reply;
pub mod reshaping;
pub mod start_up;
pub mod store;
pub mod wire;

/// The pure checks of private modules, for the fuzz targets in `fuzz/` only; not an API.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::pipeline::prompt::check_input as check_prompt_input;
    pub use crate::store::search_excerpt::excerpt as search_excerpt;
}

pub use ledger::Ledger;
pub use reply::session_runner::SessionRunner;
pub use start_up::LedgerOptions;
pub use store::message_listing_json::MessagePageJson;
pub use wire::error::{ErrorBody, ErrorKind, LedgerError};
