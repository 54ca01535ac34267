//! MCP servers: the client side of the Model Context Protocol, built on the official SDK
//! (`rmcp`). It starts each configured server in the background, keeps its status (and says it
//! on the event bus), restarts a server that dies, and answers the floors above: the tools a
//! server offers and their calls, and the resources a prompt attaches. It uses `models` (the
//! config entries) and `wire` (the status and events); the pipeline and the loop use it.

pub mod binary_content;
pub mod child_command;
pub mod claude_desktop_import;
pub mod failure_cause;
pub mod mcp_error;
pub mod mcp_servers;
pub mod mcp_settings;
pub mod secret_values;
pub mod server_connection;
pub mod server_offers;
pub mod stderr_tail;
pub mod tool_permissions;
pub mod tool_prefix;
pub mod tool_result;
pub mod windows_program;
