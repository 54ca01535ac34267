//! Reshaping history: fork, revert and unrevert, resend and regenerate, editing and deleting
//! messages and parts, export and import. It uses `wire`, `store`, `models` and `pipeline`
//! (the runtime's loop, to refuse while a reply runs), never `reply`.

pub mod export;
pub(crate) mod fork;
pub(crate) mod import;
pub(crate) mod message_editing;
pub(crate) mod resend;
pub(crate) mod revert;
