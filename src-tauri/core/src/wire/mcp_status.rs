//! Where each configured MCP server stands, in the shape OpenCode's `GET /mcp` answers
//! (`{"name": {"status": "connected"}}`, `{"status": "failed", "error": "…"}`, …), with what a
//! person needs besides: the counts of what a connected server offers, and the last lines a
//! failed server wrote to its stderr.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum McpStatus {
    /// Starting. A failed server that is tried again keeps its `Failed` status until the new
    /// attempt has an outcome.
    Connecting,
    Connected {
        tools: u32,
        resources: u32,
        prompts: u32,
    },
    /// `enabled: false` in the config.
    Disabled,
    Failed {
        error: String,
        /// The last lines the server wrote to its stderr (local servers), oldest first.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        stderr: Vec<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serialises_as_opencode_statuses() {
        let failed = McpStatus::Failed {
            error: "boom".into(),
            stderr: Vec::new(),
        };
        assert_eq!(
            serde_json::to_value(&failed).ok(),
            Some(json!({"status": "failed", "error": "boom"}))
        );
        assert_eq!(
            serde_json::to_value(McpStatus::Disabled).ok(),
            Some(json!({"status": "disabled"}))
        );
        let connected = McpStatus::Connected {
            tools: 3,
            resources: 2,
            prompts: 1,
        };
        assert_eq!(
            serde_json::to_value(&connected).ok(),
            Some(json!({"status": "connected", "tools": 3, "resources": 2, "prompts": 1}))
        );
    }
}

/// Every configured server's status, in the config's order: OpenCode's `GET /mcp` answer
/// (`{"name": {"status": "connected"}, …}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(transparent)]
pub struct McpStatuses(
    #[ts(as = "std::collections::HashMap<String, McpStatus>")]
    pub  indexmap::IndexMap<String, McpStatus>,
);
