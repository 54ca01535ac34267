//! "Import from Claude Desktop…": reads a `claude_desktop_config.json`
//! (`{"mcpServers": {"name": {"command": "npx", "args": [...], "env": {...}}}}`) into servers
//! for the settings to save. Entries with a `url` (Claude's remote servers) become remote servers
//! with their `headers`. The env values become typed values, so they go to the keychain like any
//! value typed into the form.

use crate::mcp::mcp_settings::{McpServerInput, McpServerKind, McpValueInput};
use serde_json::Value;

/// Why a chosen file cannot be imported, said so a person knows which file to choose instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaudeDesktopImportError {
    #[error("The file is not JSON ({0}); choose Claude Desktop's claude_desktop_config.json")]
    NotJson(String),
    #[error("The file has no \"mcpServers\" object, so it is not a Claude Desktop config")]
    NoServers,
    #[error("The file's \"mcpServers\" is empty: there is nothing to import")]
    Empty,
    #[error("The server \"{name}\" cannot be imported: {reason}")]
    BadServer { name: String, reason: String },
}

/// The servers of a Claude Desktop config, in the file's order.
pub fn parse(text: &str) -> Result<Vec<McpServerInput>, ClaudeDesktopImportError> {
    let root: Value = serde_json::from_str(text)
        .map_err(|error| ClaudeDesktopImportError::NotJson(error.to_string()))?;
    let servers = root
        .get("mcpServers")
        .and_then(Value::as_object)
        .ok_or(ClaudeDesktopImportError::NoServers)?;
    if servers.is_empty() {
        return Err(ClaudeDesktopImportError::Empty);
    }
    servers
        .iter()
        .map(|(name, entry)| server(name, entry))
        .collect()
}

fn server(name: &str, entry: &Value) -> Result<McpServerInput, ClaudeDesktopImportError> {
    let bad = |reason: &str| ClaudeDesktopImportError::BadServer {
        name: name.to_string(),
        reason: reason.to_string(),
    };
    let strings = |key: &str| -> Result<Vec<(String, String)>, ClaudeDesktopImportError> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Object(values)) => values
                .iter()
                .map(|(value_name, value)| match value {
                    Value::String(text) => Ok((value_name.clone(), text.clone())),
                    _ => Err(bad(&format!("\"{key}\" values must be text"))),
                })
                .collect(),
            Some(_) => Err(bad(&format!("\"{key}\" must be an object"))),
        }
    };
    let values = |pairs: Vec<(String, String)>| {
        Some(
            pairs
                .into_iter()
                .map(|(name, value)| McpValueInput {
                    name,
                    value: Some(value),
                })
                .collect(),
        )
    };
    let entry_object = entry
        .as_object()
        .ok_or_else(|| bad("the entry must be an object"))?;
    if let Some(url) = entry_object.get("url") {
        let url = url.as_str().ok_or_else(|| bad("\"url\" must be text"))?;
        return Ok(McpServerInput {
            name: name.to_string(),
            kind: McpServerKind::Remote,
            command: None,
            url: Some(url.to_string()),
            values: values(strings("headers")?),
            enabled: Some(true),
            timeout: None,
        });
    }
    let program = entry_object
        .get("command")
        .and_then(Value::as_str)
        .filter(|program| !program.trim().is_empty())
        .ok_or_else(|| bad("it has no \"command\""))?;
    let mut command = vec![program.to_string()];
    match entry_object.get("args") {
        None | Some(Value::Null) => {}
        Some(Value::Array(arguments)) => {
            for argument in arguments {
                command.push(
                    argument
                        .as_str()
                        .ok_or_else(|| bad("\"args\" must be a list of text"))?
                        .to_string(),
                );
            }
        }
        Some(_) => return Err(bad("\"args\" must be a list of text")),
    }
    Ok(McpServerInput {
        name: name.to_string(),
        kind: McpServerKind::Local,
        command: Some(command),
        url: None,
        values: values(strings("env")?),
        enabled: Some(true),
        timeout: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_local_and_remote_servers() {
        let servers = parse(
            r#"{"mcpServers": {
                "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"TOKEN": "abc"}},
                "remote": {"url": "https://example.test/mcp", "headers": {"Authorization": "Bearer x"}}
            }, "globalShortcut": ""}"#,
        )
        .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(servers.len(), 2);
        assert_eq!(servers[0].name, "filesystem");
        assert_eq!(servers[0].kind, McpServerKind::Local);
        assert_eq!(
            servers[0].command.as_deref(),
            Some(
                &[
                    "npx".to_string(),
                    "-y".into(),
                    "@modelcontextprotocol/server-filesystem".into(),
                    "/tmp".into()
                ][..]
            )
        );
        let values = servers[0].values.clone().unwrap_or_default();
        assert_eq!(values[0].name, "TOKEN");
        assert_eq!(values[0].value.as_deref(), Some("abc"));
        assert_eq!(servers[1].kind, McpServerKind::Remote);
        assert_eq!(servers[1].url.as_deref(), Some("https://example.test/mcp"));
    }

    #[test]
    fn bad_files_are_typed_errors() {
        let cases = [
            ("not json", "NotJson"),
            ("{\"theme\": \"dark\"}", "NoServers"),
            ("{\"mcpServers\": {}}", "Empty"),
            ("{\"mcpServers\": {\"x\": {\"args\": []}}}", "BadServer"),
            (
                "{\"mcpServers\": {\"x\": {\"command\": \"npx\", \"args\": \"-y pkg\"}}}",
                "BadServer",
            ),
            (
                "{\"mcpServers\": {\"x\": {\"command\": \"npx\", \"env\": {\"A\": 1}}}}",
                "BadServer",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text)
                .err()
                .unwrap_or_else(|| panic!("{text} was accepted"));
            assert!(
                format!("{error:?}").starts_with(expected),
                "{text}: {error:?}"
            );
            assert!(!error.to_string().is_empty());
        }
    }
}
