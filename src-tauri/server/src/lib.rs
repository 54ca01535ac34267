//! dossier-server: the OpenCode-compatible HTTP + SSE adapter over the ledger, so OpenCode's
//! own clients (first of all `@opencode-ai/sdk`) and the web UI work against a headless ledger.
//!
//! Where to find things: start-up flags and the loopback rule in `server_options`; binding,
//! readiness and graceful shutdown in `listening`; `dossier-server token …` in `token_command`; SQLite or PostgreSQL in `database_choice`; writes that outlive their client in
//! `ledger_writes`; HTTPS in `tls_configuration` (the PEM files) and `tls_listener`; which hosts and web pages may call at all in `request_origin`; the password
//! check in `authentication`; the
//! route table in `routes` with handlers in `routes/`; `GET /event` in `event_stream`; errors
//! as JSON in `error`; body and query parsing in `request_body`; `Link` / `X-Next-Cursor` in
//! `paging_headers`; OpenCode's provider shape in `provider_listing`.

pub mod authentication;
pub mod database_choice;
pub mod declared_routes;
pub mod error;
pub mod event_stream;
pub mod ledger_writes;
pub mod listening;
pub mod paging_headers;
pub mod provider_listing;
pub mod request_body;
pub mod request_origin;
pub mod routes;
pub mod server_options;
pub mod tls_configuration;
pub mod tls_listener;
pub mod token_command;
pub mod ui_files;

pub use error::{ServerError, ServerResult};
pub use listening::{bind, serve, termination_signal};
pub use server_options::ServerOptions;
