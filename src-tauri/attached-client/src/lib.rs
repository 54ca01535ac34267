//! The desktop app's client of an attached Dossier server, as plain Rust: no Tauri, no window,
//! so it is tested on its own against a real `dossier-server` (`tests/`). What an address may be
//! (`server_address`), "Test connection" (`connection_check`), one request of the webview
//! forwarded with the token (`request_relay`, only the routes in `relay_paths`), and an export
//! asked of the server (`server_export`, in an `export_format`). Its errors are `AttachedError`,
//! which the shell wraps. The shell (`src-tauri/src/attached_server.rs`) keeps the glue: the
//! saved connection, the keychain, the event stream into the window, copying local sessions.
//! It uses only `dossier-core`.

pub mod attached_error;
pub mod connection_check;
pub mod export_format;
pub mod relay_paths;
pub mod request_relay;
pub mod server_address;
pub mod server_export;

pub use attached_error::AttachedError;
