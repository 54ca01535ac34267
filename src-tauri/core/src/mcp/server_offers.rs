//! What connected servers offer a person in the composer: their resources (for the attach menu,
//! each becoming a `file` draft whose source is the resource) and their prompts (for the `/`
//! menu, each expanded into the message's text). A server that fails to list is left out of the
//! lists (and logged) so one broken server does not empty the menu.

use crate::mcp::mcp_error::McpError;
use crate::mcp::mcp_servers::McpServers;
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Map, Value};
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct McpResourceItem {
    /// The server, as a resource draft's `source.clientName` names it.
    pub client_name: String,
    pub uri: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct McpPromptItem {
    pub client_name: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    pub arguments: Vec<McpPromptArgument>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct McpPromptArgument {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    pub required: bool,
}

/// A prompt fetched from its server, as the text that goes into the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct McpPromptText {
    pub text: String,
}

fn text(item: &Value, key: &str) -> Option<String> {
    item.get(key).and_then(Value::as_str).map(str::to_string)
}

impl McpServers {
    /// The resources of every connected server, in the config's order.
    pub async fn resources(&self) -> Vec<McpResourceItem> {
        let mut items = Vec::new();
        for (client_name, connection) in self.connected() {
            if connection.resources == 0 {
                continue;
            }
            match connection.list_resources().await {
                Ok(Value::Array(listed)) => items.extend(listed.iter().filter_map(|item| {
                    let uri = text(item, "uri")?;
                    Some(McpResourceItem {
                        client_name: client_name.clone(),
                        name: text(item, "title")
                            .or_else(|| text(item, "name"))
                            .unwrap_or_else(|| uri.clone()),
                        mime_type: text(item, "mimeType"),
                        description: text(item, "description"),
                        uri,
                    })
                })),
                Ok(_) => {}
                Err(error) => {
                    tracing::warn!(server = %client_name, %error, "MCP resources not listed")
                }
            }
        }
        items
    }

    /// The prompts of every connected server, in the config's order.
    pub async fn prompts(&self) -> Vec<McpPromptItem> {
        let mut items = Vec::new();
        for (client_name, connection) in self.connected() {
            if connection.prompts == 0 {
                continue;
            }
            match connection.list_prompts().await {
                Ok(Value::Array(listed)) => items.extend(listed.iter().filter_map(|item| {
                    Some(McpPromptItem {
                        client_name: client_name.clone(),
                        name: text(item, "name")?,
                        description: text(item, "description"),
                        arguments: item
                            .get("arguments")
                            .and_then(Value::as_array)
                            .map(|arguments| {
                                arguments
                                    .iter()
                                    .filter_map(|argument| {
                                        Some(McpPromptArgument {
                                            name: text(argument, "name")?,
                                            description: text(argument, "description"),
                                            required: argument
                                                .get("required")
                                                .and_then(Value::as_bool)
                                                .unwrap_or(false),
                                        })
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                    })
                })),
                Ok(_) => {}
                Err(error) => {
                    tracing::warn!(server = %client_name, %error, "MCP prompts not listed")
                }
            }
        }
        items
    }

    /// `prompts/get` on `client_name`, its messages' text joined by line breaks as OpenCode
    /// joins an MCP prompt's template (content that is not text, such as an image, is left out).
    pub async fn prompt_text(
        &self,
        client_name: &str,
        name: &str,
        arguments: IndexMap<String, String>,
    ) -> Result<McpPromptText, McpError> {
        let arguments: Map<String, Value> = arguments
            .into_iter()
            .map(|(key, value)| (key, Value::String(value)))
            .collect();
        let result = self
            .connection(client_name)?
            .get_prompt(name, arguments)
            .await?;
        Ok(McpPromptText {
            text: prompt_messages_text(&result),
        })
    }
}

/// The text of a `prompts/get` result: each message's text content (or an embedded resource's
/// text), joined by line breaks.
pub fn prompt_messages_text(result: &Value) -> String {
    result
        .get("messages")
        .and_then(Value::as_array)
        .map(|messages| {
            messages
                .iter()
                .filter_map(|message| {
                    let content = message.get("content")?;
                    match content.get("type").and_then(Value::as_str) {
                        Some("text") => text(content, "text"),
                        Some("resource") => content.get("resource").and_then(|r| text(r, "text")),
                        _ => None,
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompt_text_joins_text_messages() {
        let result = json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "first"}},
            {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
            {"role": "assistant", "content": {"type": "resource", "resource": {"uri": "x://y", "text": "second"}}}
        ]});
        assert_eq!(prompt_messages_text(&result), "first\nsecond");
        assert_eq!(prompt_messages_text(&json!({})), "");
    }
}
