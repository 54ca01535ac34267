//! The store: the only place with SQL. The `Store` handle (pool, ids, event bus), the database
//! and its migrations, sessions, messages, parts, blobs, the search index, its purge and its
//! queries, usage totals, listings, the process lock and disk space. Every other floor reaches the
//! database through the functions and types here, so a second engine implements this surface
//! (see `docs/architecture.md`). It uses only `wire`.

pub mod blob_store;
pub mod database;
pub mod disk_space;
pub(crate) mod message_listing_json;
pub(crate) mod message_reading;
pub mod message_store;
pub(crate) mod process_lock;
pub mod search;
pub(crate) mod search_excerpt;
pub mod search_index;
pub(crate) mod search_purge;
pub mod search_text;
pub(crate) mod session_lifecycle;
pub mod session_store;
pub(crate) mod session_usage;
