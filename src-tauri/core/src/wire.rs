//! The lowest floor: plain data that crosses to clients — ids and the clock, sessions, messages,
//! typed parts, drafts, events and the event bus, permission rules and requests, assistant
//! errors, the error type shown to clients (`{kind, message}`), the wire's number and data-URL
//! formats, a file's outline of symbols, byte sizes said for people, where a model download stands, titles as plain text, and the file names Windows reserves. It uses no other floor: everything above may use it,
//! and it knows nothing of storage, models or the loop.

pub mod assistant_error;
pub mod data_url;
pub mod document_symbol;
pub mod draft;
pub mod error;
pub mod event;
pub mod human_size;
pub mod id;
pub mod mcp_status;
pub mod message;
pub mod model_download;
pub mod part;
pub mod permission;
pub mod plain_title;
pub mod reader_time;
pub mod reserved_file_name;
pub mod session;
#[cfg(test)]
pub(crate) mod test_history;
pub(crate) mod wire_number;
