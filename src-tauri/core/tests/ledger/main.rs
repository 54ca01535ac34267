//! Integration tests of dossier-core against real temporary SQLite databases. One test binary
//! (faster to build); each behaviour lives in its own file under `ledger/`.

mod blob_release;
mod crash_child;
mod support;

mod access_tokens;
mod backup_crash;
mod backup_restore;
mod crash_consistency;
mod data_folder;
mod data_folder_crash;
mod disk_space;
mod fake_provider;
mod hooks;
mod interrupted_write;
mod ledger_close;
mod ledger_fixture;
mod listing_cache;
mod manual_backup;
mod mcp_servers;
mod mcp_settings;
mod mcp_tool_permissions;
mod mcp_tools;
mod message_editing;
mod offline_model;
mod ollama_detection;
mod postgres_connection;
mod postgres_store;
mod process_lock;
mod prompt_pipeline;
mod provider_settings;
mod read_only_open;
mod reply_abort;
mod reply_compaction;
mod reply_crash;
mod reply_errors;
mod reply_streaming;
mod reply_support;
mod reply_tools;
mod reply_variants;
mod reshaping;
mod search;
mod search_purge;
mod session_usage;
mod storage;
mod subagents;
