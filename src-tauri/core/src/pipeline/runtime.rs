//! What the pipeline and the floors above it run with besides the store: the settings (config,
//! catalog, credentials), the agents, the `chat.message` hooks, the MCP servers and resources, the folder new
//! sessions work in, and the agent loop. Whoever assembles the app builds one (the crate root's
//! start-up builder) and hands it in; nothing below builds the loop.

use crate::mcp::mcp_servers::McpServers;
use crate::models::agent::AgentRegistry;
use crate::models::settings::Settings;
use crate::pipeline::agent_loop::AgentLoop;
use crate::pipeline::chat_message_hook::ChatMessageHook;
use crate::pipeline::mcp_resource::McpResources;
use std::path::PathBuf;
use std::sync::Arc;

pub struct Runtime {
    pub settings: Settings,
    pub agents: AgentRegistry,
    /// In-process hooks first, then the configured command hooks.
    pub hooks: Vec<Arc<dyn ChatMessageHook>>,
    /// Where MCP resources in prompts are read: the servers below unless a test brings its own.
    pub mcp: Arc<dyn McpResources>,
    /// The configured MCP servers: their status, tools and resources.
    pub mcp_servers: Arc<McpServers>,
    pub agent_loop: Arc<dyn AgentLoop>,
    /// The folder new sessions work in when the caller names none.
    pub default_directory: PathBuf,
    /// How the data folder was settled (the variable, a move, the default), and where a move
    /// records the new one.
    pub data_folder: crate::store::data_folder::data_location::DataFolderSettings,
    /// The models folder, the curated library and the downloads under way.
    pub model_library: crate::local_models::model_library::ModelLibrary,
}
