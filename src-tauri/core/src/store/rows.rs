//! The rows as both engines see them, without SQL: what a listing of sessions or messages asks
//! and returns (`session_page`, `message_page`), a change to a session's usage totals, what a
//! prompt writes on its session (`prompt_session_change`), and the addresses of attachment bytes
//! (`blob_address`). The SQLite side (`tables`) and its twin
//! (`postgres`) share these, so neither reaches into the other for a type. It uses only `wire`.

pub mod blob_address;
pub mod message_page;
pub mod prompt_session_change;
pub mod session_page;
