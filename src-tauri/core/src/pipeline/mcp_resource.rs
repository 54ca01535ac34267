//! MCP resources referenced from a prompt (`file` drafts whose source is a `resource`). The
//! pipeline reads them through this trait: the configured MCP servers answer (`McpServers`),
//! and tests may bring their own. A failed read is said in the prompt; the prompt succeeds.

use crate::mcp::mcp_error::McpError;
use crate::mcp::mcp_servers::McpServers;
use async_trait::async_trait;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceContent {
    Text(String),
    /// Base64 data as the server sent it, with the item's own URI and MIME type when given.
    Blob {
        uri: Option<String>,
        mime: Option<String>,
        base64: String,
    },
}

#[async_trait]
pub trait McpResources: Send + Sync {
    /// Reads `uri` from the MCP server registered as `client_name`.
    async fn read(&self, client_name: &str, uri: &str) -> Result<Vec<ResourceContent>, McpError>;
}

#[async_trait]
impl McpResources for McpServers {
    async fn read(&self, client_name: &str, uri: &str) -> Result<Vec<ResourceContent>, McpError> {
        let result = self.read_resource(client_name, uri).await?;
        Ok(contents(&result))
    }
}

/// The items of a `resources/read` result; items with neither text nor blob are skipped, as
/// OpenCode skips them.
fn contents(result: &Value) -> Vec<ResourceContent> {
    let text_of = |item: &Value, key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    let items = match result.get("contents") {
        Some(Value::Array(items)) => items.clone(),
        Some(item @ Value::Object(_)) => vec![item.clone()],
        _ => Vec::new(),
    };
    items
        .iter()
        .filter_map(|item| {
            if let Some(text) = text_of(item, "text") {
                return Some(ResourceContent::Text(text));
            }
            text_of(item, "blob").map(|base64| ResourceContent::Blob {
                uri: text_of(item, "uri"),
                mime: text_of(item, "mimeType"),
                base64,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_text_and_blob_items() {
        let read = contents(&json!({"contents": [
            {"uri": "test://1", "text": "hello"},
            {"uri": "test://2", "mimeType": "image/png", "blob": "YWJj"},
            {"uri": "test://3", "text": ""},
            {"uri": "test://4"}
        ]}));
        assert_eq!(
            read,
            vec![
                ResourceContent::Text("hello".into()),
                ResourceContent::Blob {
                    uri: Some("test://2".into()),
                    mime: Some("image/png".into()),
                    base64: "YWJj".into()
                }
            ]
        );
    }
}
