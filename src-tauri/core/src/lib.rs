//! dossier-core: the session ledger and the prompt pipeline, with no knowledge of Tauri or HTTP.
//!
//! Where to find things: wire types in `session`, `message`, `part`, `draft`,
//! `assistant_error`; ids in `id`; storage in `database`, `session_store`, `message_store`,
//! `blob_store`; the pipeline in `prompt`, with agent choice in `agent`, model choice in
//! `model_choice`, draft expansion in `draft_resolution`, the Read tool in `read_tool`, hooks in
//! `chat_message_hook`, image limits in `image_normalization`, revert clean-up in
//! `revert_cleanup`; events in `event`; configuration in `config`.

pub mod agent;
pub mod agent_loop;
pub mod assistant_error;
mod attachment_storage;
pub mod blob_store;
pub mod chat_message_hook;
pub mod config;
pub mod data_url;
pub mod database;
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
mod message_listing_json;
mod message_reading;
pub mod message_store;
pub mod model_catalog;
pub mod model_choice;
pub mod part;
pub mod permission;
mod prompt;
pub mod read_tool;
mod resend;
mod revert;
mod revert_cleanup;
pub mod search;
pub mod session;
mod session_lifecycle;
pub mod session_store;
mod wire_number;

pub use error::{ErrorBody, ErrorKind, LedgerError};
pub use ledger::{Ledger, LedgerOptions};
pub use message_listing_json::MessagePageJson;
