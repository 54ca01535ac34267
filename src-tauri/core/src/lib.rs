//! dossier-core: the session ledger and the prompt pipeline, with no knowledge of Tauri or HTTP.
//!
//! The crate is built in floors, each a folder that opens with what it owns; a file uses only
//! its own floor and the floors below it (`tests/architecture.rs` checks it), lowest first:
//! `wire` (plain data: ids, sessions, messages, parts, drafts, events, errors), `store` (the only
//! place with SQL, behind the `Store` handle), `local_models` (models on this computer: the
//! models folder, the curated library, downloads, and the llama.cpp worker that runs them),
//! `models` (config, agents, the model catalog, providers, keys), `mcp` (the MCP servers: status,
//! tools, resources), `pipeline` (the prompt pipeline, the `Runtime` and the `AgentLoop` seam),
//! `reshaping` (fork, revert, resend, editing, export, import) and `reply` (the session runner,
//! the run loop, tools, compaction, titles, subagents, permissions). At the top, `start_up`
//! assembles a `Ledger` — the facade the adapters hold — from the store and a runtime whose loop
//! it chooses. `docs/architecture.md` has the picture.

pub mod ledger;
pub mod local_models;
pub mod mcp;
pub mod models;
pub mod operations;
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
    pub use crate::store::search::search_excerpt::excerpt as search_excerpt;
}

pub use ledger::Ledger;
pub use reply::session_runner::SessionRunner;
pub use start_up::LedgerOptions;
pub use store::tables::message_listing_json::MessagePageJson;
pub use wire::error::{ErrorBody, ErrorKind, LedgerError};
