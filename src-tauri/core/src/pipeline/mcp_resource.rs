//! MCP resources referenced from a prompt (`file` drafts whose source is a `resource`). The
//! pipeline reads them through this trait; until Dossier has an MCP client, the stand-in says
//! plainly which server is missing, and the prompt still succeeds.

use async_trait::async_trait;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceContent {
    Text(String),
    Blob { mime: String },
}

#[async_trait]
pub trait McpResources: Send + Sync {
    /// Reads `uri` from the MCP server registered as `client_name`.
    async fn read(&self, client_name: &str, uri: &str) -> Result<Vec<ResourceContent>, String>;
}

/// The stand-in used while no MCP client exists.
pub struct NoMcpClients;

#[async_trait]
impl McpResources for NoMcpClients {
    async fn read(&self, client_name: &str, _uri: &str) -> Result<Vec<ResourceContent>, String> {
        Err(format!(
            "MCP server \"{client_name}\" is not connected (this build of Dossier has no MCP client)"
        ))
    }
}
