//! The configured MCP servers and where each stands. `McpServers::start` reads the config's
//! `mcp` entries and starts every enabled server in the background (nobody waits for them);
//! each server has a supervisor task that connects within the server's timeout, watches the
//! connection, marks a dead server failed (with the last lines of its stderr) and starts it
//! again with a growing pause. Every status change goes out as an `mcp.status` event. Dropping
//! the registry (or `shutdown`) stops the supervisors, and with them the children.

use crate::mcp::server_connection::Connection;
use crate::mcp::stderr_tail::StderrTail;
use crate::mcp::tool_result::{self, ToolResult};
use crate::models::mcp_config::{McpConfigError, McpServerConfig, McpTransport};
use crate::wire::event::{EventBus, EventPayload};
use crate::wire::mcp_status::McpStatus;
use indexmap::IndexMap;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The first pause before a failed server is started again; it doubles up to `LONGEST_PAUSE`.
const FIRST_PAUSE: Duration = Duration::from_millis(500);
const LONGEST_PAUSE: Duration = Duration::from_secs(30);
/// How often a supervisor looks whether its connection is still alive.
const WATCH_INTERVAL: Duration = Duration::from_millis(200);

/// A tool offered to the model: `<server>_<tool>`, with the server's own schema.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    pub name: String,
    pub server: String,
    pub tool: String,
    pub description: String,
    pub parameters: Value,
    /// The server says the tool changes nothing (`readOnlyHint`).
    pub read_only: bool,
}

struct Server {
    name: String,
    state: Mutex<ServerState>,
    events: EventBus,
}

struct ServerState {
    status: McpStatus,
    connection: Option<Arc<Connection>>,
}

pub struct McpServers {
    servers: IndexMap<String, Arc<Server>>,
    stop: watch::Sender<bool>,
    supervisors: Mutex<Vec<JoinHandle<()>>>,
}

impl McpServers {
    /// Starts every enabled server of `entries` (the config's `mcp`) in the background. Must be
    /// called inside the tokio runtime the servers will live on.
    pub fn start(entries: &IndexMap<String, Value>, events: EventBus) -> Self {
        let (stop, _) = watch::channel(false);
        let mut servers = IndexMap::new();
        let mut supervisors = Vec::new();
        for (name, entry) in entries {
            let config = McpServerConfig::parse(entry);
            let status = match &config {
                Err(error) => McpStatus::Failed {
                    error: bad_entry(name, error),
                    stderr: Vec::new(),
                },
                Ok(config) if !config.enabled => McpStatus::Disabled,
                Ok(_) => McpStatus::Connecting,
            };
            let server = Arc::new(Server {
                name: name.clone(),
                state: Mutex::new(ServerState {
                    status: status.clone(),
                    connection: None,
                }),
                events: events.clone(),
            });
            events.publish(EventPayload::McpStatus {
                name: name.clone(),
                status,
            });
            if let Ok(config) = config.filter_enabled() {
                supervisors.push(tokio::spawn(supervise(
                    server.clone(),
                    config,
                    stop.subscribe(),
                )));
            }
            servers.insert(name.clone(), server);
        }
        Self {
            servers,
            stop,
            supervisors: Mutex::new(supervisors),
        }
    }

    /// Every configured server's status, in the config's order.
    pub fn statuses(&self) -> IndexMap<String, McpStatus> {
        self.servers
            .iter()
            .map(|(name, server)| (name.clone(), server.lock().status.clone()))
            .collect()
    }

    /// The tools of every connected server.
    pub fn tools(&self) -> Vec<McpTool> {
        self.servers
            .values()
            .filter_map(|server| server.lock().connection.clone().map(|c| (server, c)))
            .flat_map(|(server, connection)| {
                connection
                    .tools
                    .iter()
                    .filter_map(|tool| describe_tool(&server.name, tool))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    pub fn tool(&self, name: &str) -> Option<McpTool> {
        self.tools().into_iter().find(|tool| tool.name == name)
    }

    /// Calls `tool` on its server; the error is the text the model sees.
    pub async fn call_tool(&self, tool: &McpTool, input: Value) -> Result<ToolResult, String> {
        let connection = self.connection(&tool.server)?;
        let result = connection.call_tool(&tool.tool, input).await?;
        Ok(tool_result::map(&result))
    }

    /// `resources/read` on `server`, as JSON (`{"contents": [...]}`).
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<Value, String> {
        self.connection(server)?.read_resource(uri).await
    }

    fn connection(&self, name: &str) -> Result<Arc<Connection>, String> {
        let server = self
            .servers
            .get(name)
            .ok_or_else(|| format!("MCP server \"{name}\" is not configured"))?;
        let state = server.lock();
        match (&state.connection, &state.status) {
            (Some(connection), _) => Ok(connection.clone()),
            (None, McpStatus::Failed { error, .. }) => {
                Err(format!("MCP server \"{name}\" is not connected: {error}"))
            }
            (None, McpStatus::Disabled) => Err(format!("MCP server \"{name}\" is disabled")),
            (None, _) => Err(format!("MCP server \"{name}\" is still connecting")),
        }
    }

    /// Stops every server and waits until their children are gone.
    pub async fn shutdown(&self) {
        let _ = self.stop.send(true);
        let supervisors: Vec<JoinHandle<()>> = std::mem::take(
            &mut *self
                .supervisors
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        for supervisor in supervisors {
            let _ = supervisor.await;
        }
    }
}

impl Drop for McpServers {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

trait FilterEnabled {
    fn filter_enabled(self) -> Result<McpServerConfig, ()>;
}

impl FilterEnabled for Result<McpServerConfig, McpConfigError> {
    fn filter_enabled(self) -> Result<McpServerConfig, ()> {
        self.ok().filter(|config| config.enabled).ok_or(())
    }
}

impl Server {
    fn lock(&self) -> std::sync::MutexGuard<'_, ServerState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn set(&self, status: McpStatus, connection: Option<Arc<Connection>>) {
        {
            let mut state = self.lock();
            if state.status == status && state.connection.is_none() && connection.is_none() {
                return;
            }
            state.status = status.clone();
            state.connection = connection;
        }
        self.events.publish(EventPayload::McpStatus {
            name: self.name.clone(),
            status,
        });
    }

    fn take_connection(&self) -> Option<Arc<Connection>> {
        self.lock().connection.take()
    }
}

fn bad_entry(name: &str, error: &McpConfigError) -> String {
    format!("The config entry for MCP server \"{name}\" cannot be used: {error}")
}

/// Connects, watches and restarts one server until told to stop.
async fn supervise(server: Arc<Server>, config: McpServerConfig, mut stop: watch::Receiver<bool>) {
    let mut pause = FIRST_PAUSE;
    loop {
        server.set(McpStatus::Connecting, None);
        let stderr = StderrTail::default();
        let attempt = tokio::time::timeout(config.timeout, Connection::open(&config, &stderr));
        let outcome = tokio::select! {
            _ = stop.changed() => return,
            outcome = attempt => outcome,
        };
        let failure = match outcome {
            Ok(Ok(connection)) => {
                let connection = Arc::new(connection);
                server.set(
                    McpStatus::Connected {
                        tools: u32::try_from(connection.tools.len()).unwrap_or(u32::MAX),
                        resources: connection.resources,
                        prompts: connection.prompts,
                    },
                    Some(connection.clone()),
                );
                pause = FIRST_PAUSE;
                loop {
                    tokio::select! {
                        _ = stop.changed() => {
                            drop(server.take_connection());
                            if let Ok(connection) = Arc::try_unwrap(connection) {
                                connection.close().await;
                            }
                            return;
                        }
                        () = tokio::time::sleep(WATCH_INTERVAL) => {
                            if connection.is_closed() {
                                break;
                            }
                        }
                    }
                }
                drop(server.take_connection());
                "The MCP server stopped".to_string()
            }
            Ok(Err(error)) => error,
            Err(_) => format!(
                "The MCP server did not finish starting within {} ms",
                config.timeout.as_millis()
            ),
        };
        // Give a dying child a moment to finish writing why.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let stderr = match &config.transport {
            McpTransport::Local { .. } => stderr.lines(),
            McpTransport::Remote { .. } => Vec::new(),
        };
        tracing::warn!(server = %server.name, error = %failure, "MCP server failed");
        server.set(
            McpStatus::Failed {
                error: failure,
                stderr,
            },
            None,
        );
        tokio::select! {
            _ = stop.changed() => return,
            () = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// The tool as the model is offered it, or `None` (logged) when its schema is not an object
/// schema that a provider would accept.
fn describe_tool(server: &str, tool: &rmcp::model::Tool) -> Option<McpTool> {
    let value = serde_json::to_value(tool).ok()?;
    let original = value.get("name").and_then(Value::as_str)?.to_string();
    let mut parameters = value
        .get("inputSchema")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let Some(schema) = parameters.as_object_mut() else {
        tracing::warn!(server, tool = %original, "MCP tool schema is not an object; not offered");
        return None;
    };
    match schema.get("type") {
        None => {
            schema.insert("type".into(), json!("object"));
        }
        Some(kind) if kind == "object" => {}
        Some(_) => {
            tracing::warn!(server, tool = %original, "MCP tool schema is not an object schema; not offered");
            return None;
        }
    }
    Some(McpTool {
        name: format!("{}_{}", sanitize(server), sanitize(&original)),
        server: server.to_string(),
        description: value
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        read_only: value
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        tool: original,
        parameters,
    })
}

/// OpenCode's tool-name rule: anything but letters, digits, `_` and `-` becomes `_`.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|symbol| {
            if symbol.is_ascii_alphanumeric() || symbol == '_' || symbol == '-' {
                symbol
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bad_and_disabled_entries_have_their_status_at_once() {
        let entries: IndexMap<String, Value> = serde_json::from_value(json!({
            "broken": {"type": "local", "command": []},
            "off": {"type": "local", "command": ["true"], "enabled": false}
        }))
        .unwrap_or_else(|error| panic!("{error}"));
        let servers = McpServers::start(
            &entries,
            EventBus::new(Arc::new(crate::wire::id::IdGenerator::system())),
        );
        let statuses = servers.statuses();
        assert_eq!(statuses["off"], McpStatus::Disabled);
        assert!(
            matches!(&statuses["broken"], McpStatus::Failed { error, .. }
            if error.contains("\"command\" is empty")),
            "{statuses:?}"
        );
        assert_eq!(
            servers
                .read_resource("nowhere", "x://y")
                .await
                .err()
                .as_deref(),
            Some("MCP server \"nowhere\" is not configured")
        );
        assert_eq!(
            servers.read_resource("off", "x://y").await.err().as_deref(),
            Some("MCP server \"off\" is disabled")
        );
        servers.shutdown().await;
    }

    #[test]
    fn tool_names_are_sanitised_like_opencode() {
        assert_eq!(sanitize("my server.v2"), "my_server_v2");
        assert_eq!(sanitize("get-sum_1"), "get-sum_1");
    }
}
