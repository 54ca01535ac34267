//! The configured MCP servers and where each stands. `McpServers::start` reads the config's
//! `mcp` entries and starts every enabled server in the background (nobody waits for them);
//! each server has a supervisor task that connects within the server's timeout, watches the
//! connection, marks a dead server failed (with the last lines of its stderr) and starts it
//! again with a growing pause. Every status change goes out as an `mcp.status` event. Dropping
//! the registry (or `shutdown`) stops the supervisors, and with them the children.

use crate::mcp::failure_cause;
use crate::mcp::mcp_error::McpError;
use crate::mcp::secret_values;
use crate::mcp::server_connection::Connection;
use crate::mcp::stderr_tail::StderrTail;
use crate::mcp::tool_prefix;
use crate::mcp::tool_result::{self, ToolResult};
use crate::models::credentials::CredentialStore;
use crate::models::mcp_config::{McpServerConfig, McpTransport};
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
/// How long a failed server's stderr may take to close before its status is said without its
/// last words.
const STDERR_SETTLING: Duration = Duration::from_millis(500);
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
    /// The entry as the config file has it: an `apply` that finds it unchanged keeps the server.
    entry: Value,
    /// The entry parsed, or why it cannot be used (`BadEntry`, `PrefixTaken`).
    config: Result<McpServerConfig, McpError>,
    state: Mutex<ServerState>,
    events: EventBus,
    secrets: Arc<dyn CredentialStore>,
    supervisor: Mutex<Option<Supervisor>>,
}

struct ServerState {
    status: McpStatus,
    connection: Option<Arc<Connection>>,
}

/// The task that connects, watches and restarts one server, and the switch that stops it.
struct Supervisor {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

pub struct McpServers {
    servers: Mutex<IndexMap<String, Arc<Server>>>,
    events: EventBus,
    secrets: Arc<dyn CredentialStore>,
}

impl McpServers {
    /// Starts every enabled server of `entries` (the config's `mcp`) in the background. Must be
    /// called inside the tokio runtime the servers will live on. `secrets` answers the
    /// `{keychain:…}` references that stand in the file for secret header and environment values.
    pub fn start(
        entries: &IndexMap<String, Value>,
        events: EventBus,
        secrets: Arc<dyn CredentialStore>,
    ) -> Self {
        let servers = Self {
            servers: Mutex::new(IndexMap::new()),
            events,
            secrets,
        };
        let started: IndexMap<String, Arc<Server>> = entries
            .iter()
            .enumerate()
            .map(|(index, (name, entry))| {
                let config = usable(entries, index, name, entry);
                (name.clone(), servers.start_server(name, entry, config))
            })
            .collect();
        *servers.lock() = started;
        servers
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, IndexMap<String, Arc<Server>>> {
        // Every change is one whole replace, insert or remove.
        self.servers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn server(&self, name: &str) -> Result<Arc<Server>, McpError> {
        self.lock()
            .get(name)
            .cloned()
            .ok_or_else(|| McpError::UnknownServer(name.to_string()))
    }

    /// A server for `entry` with its first status said, and its supervisor started when enabled.
    fn start_server(
        &self,
        name: &str,
        entry: &Value,
        config: Result<McpServerConfig, McpError>,
    ) -> Arc<Server> {
        let status = match &config {
            Err(error) => McpStatus::Failed {
                error: error.to_string(),
                stderr: Vec::new(),
            },
            Ok(config) if !config.enabled => McpStatus::Disabled,
            Ok(_) => McpStatus::Connecting,
        };
        let enabled = matches!(&config, Ok(config) if config.enabled);
        let server = Arc::new(Server {
            name: name.to_string(),
            entry: entry.clone(),
            config,
            state: Mutex::new(ServerState {
                status: status.clone(),
                connection: None,
            }),
            events: self.events.clone(),
            secrets: self.secrets.clone(),
            supervisor: Mutex::new(None),
        });
        self.events.publish(EventPayload::McpStatus {
            name: name.to_string(),
            status,
        });
        if enabled {
            server.start_supervisor();
        }
        server
    }

    /// Every configured server's status, in the config's order.
    pub fn statuses(&self) -> IndexMap<String, McpStatus> {
        self.lock()
            .iter()
            .map(|(name, server)| (name.clone(), server.lock().status.clone()))
            .collect()
    }

    /// Connects `name` (a disabled one too, until the next restart of Dossier: the file is not
    /// changed). Connecting a server that is connected or connecting does nothing.
    pub async fn connect(&self, name: &str) -> Result<McpStatus, McpError> {
        let server = self.server(name)?;
        if let Err(error) = &server.config {
            return Err(error.clone());
        }
        let running = server.has_supervisor();
        let status = server.lock().status.clone();
        if running && matches!(status, McpStatus::Connected { .. } | McpStatus::Connecting) {
            return Ok(status);
        }
        server.stop_supervisor().await;
        server.start_supervisor();
        let status = server.lock().status.clone();
        Ok(status)
    }

    /// Stops `name` and ends its child; its status becomes `disabled` as OpenCode's does.
    pub async fn disconnect(&self, name: &str) -> Result<McpStatus, McpError> {
        let server = self.server(name)?;
        server.stop_supervisor().await;
        server.set(McpStatus::Disabled, None);
        Ok(McpStatus::Disabled)
    }

    /// Stops `name` if it runs and starts it again at once, without the backoff pause.
    pub async fn restart(&self, name: &str) -> Result<McpStatus, McpError> {
        let server = self.server(name)?;
        if let Err(error) = &server.config {
            return Err(error.clone());
        }
        server.stop_supervisor().await;
        server.start_supervisor();
        let status = server.lock().status.clone();
        Ok(status)
    }

    /// Takes the config's `mcp` as it is now: servers whose entry did not change keep running
    /// (or stay disconnected), changed ones start again with their new entry, new ones start,
    /// and removed ones stop. The order becomes the file's.
    pub async fn apply(&self, entries: &IndexMap<String, Value>) {
        let previous = self.lock().clone();
        let mut next = IndexMap::new();
        for (index, (name, entry)) in entries.iter().enumerate() {
            let config = usable(entries, index, name, entry);
            match previous.get(name) {
                // Unchanged, and still clashing (or not) with the same earlier server.
                Some(server)
                    if server.entry == *entry
                        && server.config.as_ref().err() == config.as_ref().err() =>
                {
                    next.insert(name.clone(), server.clone());
                }
                Some(server) => {
                    server.stop_supervisor().await;
                    next.insert(name.clone(), self.start_server(name, entry, config));
                }
                None => {
                    next.insert(name.clone(), self.start_server(name, entry, config));
                }
            }
        }
        for (name, server) in &previous {
            if !entries.contains_key(name) {
                server.stop_supervisor().await;
            }
        }
        *self.lock() = next;
    }

    /// The tools of every connected server.
    pub fn tools(&self) -> Vec<McpTool> {
        let servers: Vec<Arc<Server>> = self.lock().values().cloned().collect();
        servers
            .iter()
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

    /// Calls `tool` on its server; the error's text is what the model sees.
    pub async fn call_tool(&self, tool: &McpTool, input: Value) -> Result<ToolResult, McpError> {
        let connection = self.connection(&tool.server)?;
        let result = connection.call_tool(&tool.tool, input).await?;
        Ok(tool_result::map(&result))
    }

    /// `resources/read` on `server`, as JSON (`{"contents": [...]}`).
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<Value, McpError> {
        self.connection(server)?.read_resource(uri).await
    }

    pub(crate) fn connection(&self, name: &str) -> Result<Arc<Connection>, McpError> {
        let server = self.server(name)?;
        let state = server.lock();
        match (&state.connection, &state.status) {
            (Some(connection), _) => Ok(connection.clone()),
            (None, McpStatus::Failed { error, .. }) => Err(McpError::NotConnected {
                name: name.to_string(),
                reason: error.clone(),
            }),
            (None, McpStatus::Disabled) => Err(McpError::Disabled(name.to_string())),
            (None, _) => Err(McpError::Connecting(name.to_string())),
        }
    }

    /// The names of the connected servers, in the config's order.
    pub(crate) fn connected(&self) -> Vec<(String, Arc<Connection>)> {
        self.lock()
            .iter()
            .filter_map(|(name, server)| {
                server
                    .lock()
                    .connection
                    .clone()
                    .map(|connection| (name.clone(), connection))
            })
            .collect()
    }

    /// Stops every server and waits until their children are gone.
    pub async fn shutdown(&self) {
        let servers: Vec<Arc<Server>> = self.lock().values().cloned().collect();
        // All are told first, so their children end together rather than one after another.
        for server in &servers {
            server.signal_stop();
        }
        for server in servers {
            server.stop_supervisor().await;
        }
    }
}

impl Drop for McpServers {
    fn drop(&mut self) {
        for server in self.lock().values() {
            server.signal_stop();
        }
    }
}

impl Server {
    fn lock(&self) -> std::sync::MutexGuard<'_, ServerState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn supervisor(&self) -> std::sync::MutexGuard<'_, Option<Supervisor>> {
        self.supervisor
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn has_supervisor(&self) -> bool {
        self.supervisor()
            .as_ref()
            .is_some_and(|supervisor| !supervisor.task.is_finished())
    }

    /// Starts the supervisor; only for an entry that parsed (callers check).
    fn start_supervisor(self: &Arc<Self>) {
        let Ok(config) = self.config.clone() else {
            return;
        };
        let (stop, receiver) = watch::channel(false);
        self.set(McpStatus::Connecting, None);
        let task = tokio::spawn(supervise(self.clone(), config, receiver));
        *self.supervisor() = Some(Supervisor { stop, task });
    }

    fn signal_stop(&self) {
        if let Some(supervisor) = self.supervisor().as_ref() {
            // A supervisor that already ended has dropped its receiver; nothing to tell.
            supervisor.stop.send_replace(true);
        }
    }

    /// Stops the supervisor and waits until it closed the connection (and ended the child).
    async fn stop_supervisor(&self) {
        let supervisor = self.supervisor().take();
        if let Some(supervisor) = supervisor {
            supervisor.stop.send_replace(true);
            if let Err(error) = supervisor.task.await {
                tracing::warn!(server = %self.name, %error, "MCP supervisor ended abnormally");
            }
        }
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

/// The entry at `index` of `entries` parsed, or why it cannot be used: a bad entry, or a name
/// whose tools would have the same names as an earlier server's (a hand-edited file can hold
/// both "My files" and "My_files"; the first one keeps its tools).
fn usable(
    entries: &IndexMap<String, Value>,
    index: usize,
    name: &str,
    entry: &Value,
) -> Result<McpServerConfig, McpError> {
    let earlier = entries.keys().take(index).map(String::as_str);
    tool_prefix::check_unique(name, earlier)?;
    McpServerConfig::parse(entry).map_err(|error| McpError::BadEntry {
        name: name.to_string(),
        reason: error.to_string(),
    })
}

/// Connects, watches and restarts one server until told to stop.
async fn supervise(server: Arc<Server>, config: McpServerConfig, mut stop: watch::Receiver<bool>) {
    let mut pause = FIRST_PAUSE;
    let mut first = true;
    loop {
        // A retry keeps the failed status (and its cause) in view until it has an outcome; a
        // status blinking to "connecting" and back every few seconds would hide why it failed.
        if std::mem::take(&mut first) {
            server.set(McpStatus::Connecting, None);
        }
        let stderr = StderrTail::default();
        let secrets = server.secrets.clone();
        let attempt = tokio::time::timeout(config.timeout, async {
            let resolved = secret_values::resolve(&config, secrets).await?;
            Connection::open(&resolved, &stderr).await
        });
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
                McpError::Stopped
            }
            Ok(Err(error)) => error,
            Err(_) => McpError::StartTimeout {
                milliseconds: config.timeout.as_millis(),
            },
        };
        // A dying child may still be writing why; its stderr closes when it is gone.
        stderr.settled(STDERR_SETTLING).await;
        let stderr = match &config.transport {
            McpTransport::Local { .. } => stderr.lines(),
            McpTransport::Remote { .. } => Vec::new(),
        };
        let message = failure_cause::failure_message(&failure, &stderr);
        tracing::warn!(server = %server.name, error = %message, "MCP server failed");
        server.set(
            McpStatus::Failed {
                error: message,
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
        name: tool_prefix::tool_name(server, &original),
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
            Arc::new(crate::models::credentials::InMemoryCredentials::default()),
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
                .map(|error| error.to_string())
                .as_deref(),
            Some("MCP server \"nowhere\" is not configured")
        );
        assert_eq!(
            servers
                .read_resource("off", "x://y")
                .await
                .err()
                .map(|error| error.to_string())
                .as_deref(),
            Some("MCP server \"off\" is disabled")
        );
        servers.shutdown().await;
    }

    fn started(entries: Value) -> McpServers {
        let entries: IndexMap<String, Value> =
            serde_json::from_value(entries).unwrap_or_else(|error| panic!("{error}"));
        McpServers::start(
            &entries,
            EventBus::new(Arc::new(crate::wire::id::IdGenerator::system())),
            Arc::new(crate::models::credentials::InMemoryCredentials::default()),
        )
    }

    /// The error of `name`'s first failed status (at most 30 s away).
    async fn failure_of(servers: &McpServers, name: &str) -> String {
        for _ in 0..600 {
            if let Some(McpStatus::Failed { error, .. }) = servers.statuses().get(name) {
                return error.clone();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{name} never failed: {:?}", servers.statuses());
    }

    #[tokio::test]
    #[cfg_attr(
        wine,
        ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
    )]
    async fn a_node_server_with_a_missing_script_says_so_in_its_status() {
        let servers = started(json!({
            "missing script": {"type": "local", "command": ["node", "/nonexistent/server.js"], "timeout": 20000}
        }));
        assert_eq!(
            failure_of(&servers, "missing script").await,
            "The MCP server could not start: Error: Cannot find module '/nonexistent/server.js'"
        );
        servers.shutdown().await;
    }

    // Unix only: on Windows every local server starts through `cmd /c`, which exists; cmd's own
    // "is not recognized" line on stderr is the cause there.
    #[cfg(unix)]
    #[tokio::test]
    async fn a_command_that_does_not_exist_is_named_in_the_status() {
        let servers = started(json!({
            "typo": {"type": "local", "command": ["dossier-no-such-command", "--stdio"]}
        }));
        assert_eq!(
            failure_of(&servers, "typo").await,
            "Could not start dossier-no-such-command: the command was not found"
        );
        servers.shutdown().await;
    }

    #[tokio::test]
    async fn a_second_name_with_the_same_tool_prefix_is_refused_at_start() {
        let servers = started(json!({
            "My files": {"type": "local", "command": ["true"], "enabled": false},
            "My_files": {"type": "local", "command": ["true"], "enabled": false}
        }));
        let statuses = servers.statuses();
        assert_eq!(statuses["My files"], McpStatus::Disabled);
        assert_eq!(
            statuses["My_files"],
            McpStatus::Failed {
                error: "The server name \"My_files\" gives its tools the same names as the server \"My files\" (My_files_…); choose a name that differs in more than spaces and punctuation".into(),
                stderr: Vec::new(),
            }
        );
        servers.shutdown().await;
    }
}
