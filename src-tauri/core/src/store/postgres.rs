//! The ledger on PostgreSQL: the second engine behind the store, for a team's shared server.
//! Each file here is the twin of the SQLite file of the same name one floor up — same function
//! names, same arguments (a `PgConnection` or `PgPool` in place of SQLite's), same results and
//! the same `LedgerError`s — so the store's dispatch on the engine calls one or the other.
//! The schema is `postgres/migrations/`, equivalent to SQLite's final one; what differs and why
//! is said there. Pure helpers that know no engine (blob hashes and URLs, the search text
//! preparation, what a part contributes to search) are used from the SQLite side as they are.
//! It uses only `wire` and those helpers. See `docs/postgres.md` for what is done and what is
//! not.

pub mod blob_store;
pub mod database;
pub(crate) mod database_connection;
pub(crate) mod database_error;
pub(crate) mod event_relay;
pub mod message_store;
pub mod reply_lease;
pub mod search;
pub mod search_index;
pub mod session_store;

pub use database::open;
