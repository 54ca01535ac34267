//! The ledger's tables, the store's surface for the floors above: sessions, messages and parts,
//! blobs, usage totals, listings (and the session listings kept in memory), deletions and revert clean-up, access tokens, reply leases,
//! and search over all of them. Each function runs SQLite's statements here or hands the same
//! call to its twin in `postgres` (`engine` says which), so a floor above never knows the
//! engine. It uses `search`, `rows`, `postgres`, `sqlite` and the ground.

pub(crate) mod access_token_presence;
pub mod access_tokens;
pub mod blob_store;
pub(crate) mod kept_listings;
pub(crate) mod message_listing_json;
pub(crate) mod message_reading;
pub mod message_removal;
pub mod message_store;
pub(crate) mod prompt_in_one_command;
pub(crate) mod prompt_session_memo;
pub mod reply_lease;
pub(crate) mod revert_cleanup;
pub mod search;
pub(crate) mod session_lifecycle;
pub(crate) mod session_listing_cache;
pub mod session_store;
pub(crate) mod session_usage;
