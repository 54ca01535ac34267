//! One MCP server's entry in the config file, in OpenCode's shape:
//! `{"type": "local", "command": ["npx", "-y", "pkg"], "environment": {…}, "enabled": true,
//! "timeout": 5000}` or `{"type": "remote", "url": "…", "headers": {…}}`. Each entry is read on
//! its own so one bad entry marks that server failed, with the reason, instead of refusing the
//! whole config file.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

/// OpenCode's default for `timeout`: how long a server may take to connect and to answer a call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5000);
/// How long a tool call may run when the entry names no `timeout`: the MCP SDKs' default
/// request timeout. Tools do real work; five seconds would cut most of them short.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Clone, PartialEq)]
pub struct McpServerConfig {
    pub transport: McpTransport,
    pub enabled: bool,
    /// Connecting, listing and reading resources.
    pub timeout: Duration,
    /// A tool call: the entry's `timeout` when given, else `DEFAULT_CALL_TIMEOUT`.
    pub call_timeout: Duration,
}

#[derive(Clone, PartialEq)]
pub enum McpTransport {
    Local {
        /// The program and its arguments; never empty.
        command: Vec<String>,
        environment: IndexMap<String, String>,
        /// The folder the server starts in; Dossier's own when absent.
        cwd: Option<std::path::PathBuf>,
    },
    Remote {
        url: url::Url,
        headers: IndexMap<String, String>,
    },
}

/// Why an entry of `mcp` cannot be used, said so a person can fix the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpConfigError {
    #[error("the entry is not valid: {0}")]
    Shape(String),
    #[error("\"command\" is empty; it must name the program to run")]
    EmptyCommand,
    #[error("\"url\" is not a valid http(s) URL: {0}")]
    BadUrl(String),
}

// Secrets live in `environment` and `headers`: only their names reach a log line.
impl std::fmt::Debug for McpServerConfig {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut debug = formatter.debug_struct("McpServerConfig");
        match &self.transport {
            McpTransport::Local {
                command,
                environment,
                ..
            } => debug
                .field("command", command)
                .field("environment", &environment.keys().collect::<Vec<_>>()),
            McpTransport::Remote { url, headers } => debug
                .field("url", &url.as_str())
                .field("headers", &headers.keys().collect::<Vec<_>>()),
        };
        debug
            .field("enabled", &self.enabled)
            .field("timeout", &self.timeout)
            .field("call_timeout", &self.call_timeout)
            .finish()
    }
}

/// The entry as written; validated into `McpServerConfig`. Keys Dossier does not use yet (a
/// remote server's `oauth`) are ignored, as the config file ignores unknown keys.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Entry {
    Local {
        command: Vec<String>,
        #[serde(default)]
        environment: IndexMap<String, String>,
        #[serde(default)]
        enabled: Option<bool>,
        #[serde(default)]
        timeout: Option<u64>,
        /// OpenCode accepts a working folder; the child starts there.
        #[serde(default)]
        cwd: Option<String>,
    },
    Remote {
        url: String,
        #[serde(default)]
        headers: IndexMap<String, String>,
        #[serde(default)]
        enabled: Option<bool>,
        #[serde(default)]
        timeout: Option<u64>,
    },
}

impl McpServerConfig {
    /// Reads one entry of the config's `mcp` object.
    pub fn parse(entry: &Value) -> Result<Self, McpConfigError> {
        let entry: Entry = serde_json::from_value(entry.clone())
            .map_err(|error| McpConfigError::Shape(error.to_string()))?;
        let timeout = |milliseconds: Option<u64>| {
            milliseconds
                .map(Duration::from_millis)
                .unwrap_or(DEFAULT_TIMEOUT)
        };
        let call_timeout = |milliseconds: Option<u64>| {
            milliseconds
                .map(Duration::from_millis)
                .unwrap_or(DEFAULT_CALL_TIMEOUT)
        };
        match entry {
            Entry::Local {
                command,
                environment,
                enabled,
                timeout: milliseconds,
                cwd,
            } => {
                if command
                    .first()
                    .is_none_or(|program| program.trim().is_empty())
                {
                    return Err(McpConfigError::EmptyCommand);
                }
                Ok(Self {
                    transport: McpTransport::Local {
                        command,
                        environment,
                        cwd: cwd.map(std::path::PathBuf::from),
                    },
                    enabled: enabled.unwrap_or(true),
                    timeout: timeout(milliseconds),
                    call_timeout: call_timeout(milliseconds),
                })
            }
            Entry::Remote {
                url,
                headers,
                enabled,
                timeout: milliseconds,
            } => {
                let parsed = url::Url::parse(&url)
                    .map_err(|error| McpConfigError::BadUrl(format!("{url} ({error})")))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(McpConfigError::BadUrl(url));
                }
                Ok(Self {
                    transport: McpTransport::Remote {
                        url: parsed,
                        headers,
                    },
                    enabled: enabled.unwrap_or(true),
                    timeout: timeout(milliseconds),
                    call_timeout: call_timeout(milliseconds),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn local_and_remote_entries_in_opencode_shape() {
        let local = McpServerConfig::parse(&json!({
            "type": "local",
            "command": ["npx", "-y", "@modelcontextprotocol/server-everything"],
            "environment": {"TOKEN": "secret-value"},
            "enabled": false,
            "timeout": 1234
        }))
        .unwrap_or_else(|error| panic!("{error}"));
        assert!(!local.enabled);
        assert_eq!(local.timeout, Duration::from_millis(1234));
        assert!(
            matches!(&local.transport, McpTransport::Local { command, environment, .. }
            if command[0] == "npx" && environment["TOKEN"] == "secret-value")
        );
        let debug = format!("{local:?}");
        assert!(!debug.contains("secret-value"), "{debug}");

        let remote = McpServerConfig::parse(&json!({
            "type": "remote",
            "url": "http://127.0.0.1:3001/mcp",
            "headers": {"Authorization": "Bearer abc"}
        }))
        .unwrap_or_else(|error| panic!("{error}"));
        assert!(remote.enabled);
        assert_eq!(remote.timeout, DEFAULT_TIMEOUT);
        assert_eq!(remote.call_timeout, DEFAULT_CALL_TIMEOUT);
        assert_eq!(local.call_timeout, Duration::from_millis(1234));
        assert!(
            matches!(&remote.transport, McpTransport::Remote { url, headers }
            if url.as_str() == "http://127.0.0.1:3001/mcp" && headers["Authorization"] == "Bearer abc")
        );
        assert!(!format!("{remote:?}").contains("Bearer abc"));
    }

    #[test]
    fn bad_entries_are_typed_errors() {
        let cases = [
            (json!({"type": "local", "command": []}), "EmptyCommand"),
            (json!({"type": "local", "command": ["  "]}), "EmptyCommand"),
            (json!({"type": "remote", "url": "not a url"}), "BadUrl"),
            (
                json!({"type": "remote", "url": "file:///etc/passwd"}),
                "BadUrl",
            ),
            (json!({"type": "telepathy"}), "Shape"),
            (json!({"command": ["x"]}), "Shape"),
            (json!({"type": "local", "command": "npx pkg"}), "Shape"),
            (
                json!({"type": "local", "command": ["x"], "timeout": -1}),
                "Shape",
            ),
        ];
        for (entry, expected) in cases {
            let error = McpServerConfig::parse(&entry)
                .err()
                .unwrap_or_else(|| panic!("{entry} was accepted"));
            let variant = format!("{error:?}");
            assert!(variant.starts_with(expected), "{entry}: {variant}");
            assert!(!error.to_string().is_empty());
        }
    }
}
