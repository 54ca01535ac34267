//! One live connection to one MCP server: started (a child over stdio, or streamable HTTP),
//! initialised, and asked once what it offers. Calls on it are bounded by the server's timeout.

use crate::mcp::child_command;
use crate::mcp::mcp_error::McpError;
use crate::mcp::stderr_tail::StderrTail;
use crate::models::mcp_config::{McpServerConfig, McpTransport};
use crate::models::provider::http_client::install_tls_crypto_provider;
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams, Tool};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;

pub struct Connection {
    service: RunningService<RoleClient, ()>,
    pub tools: Vec<Tool>,
    pub resources: u32,
    pub prompts: u32,
    timeout: Duration,
    call_timeout: Duration,
}

impl Connection {
    /// Starts the server and lists what it offers; the caller bounds the whole with a timeout.
    pub async fn open(config: &McpServerConfig, stderr: &StderrTail) -> Result<Self, McpError> {
        let service = match &config.transport {
            McpTransport::Local {
                command,
                environment,
                cwd,
            } => {
                if let Some(folder) = cwd.as_deref().filter(|folder| !folder.is_dir()) {
                    // Checked first: a missing folder fails the start as "not found" too, and
                    // would be taken for a missing command.
                    return Err(McpError::Start {
                        command: command.join(" "),
                        reason: format!("the folder {} does not exist", folder.display()),
                    });
                }
                let line = child_command::build(command, environment, cwd.as_deref());
                let (process, stderr_stream) = TokioChildProcess::builder(line)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|error| start_failure(command, &error))?;
                if let Some(stream) = stderr_stream {
                    stderr.follow(stream);
                }
                ().serve(process)
                    .await
                    .map_err(|error| McpError::Protocol(error.to_string()))?
            }
            McpTransport::Remote { url, headers } => {
                let mut transport_config =
                    StreamableHttpClientTransportConfig::with_uri(url.as_str());
                for (name, value) in headers {
                    let header_name = reqwest::header::HeaderName::try_from(name.as_str())
                        .map_err(|_| McpError::BadHeaderName(name.clone()))?;
                    let header_value = reqwest::header::HeaderValue::try_from(value.as_str())
                        .map_err(|_| McpError::BadHeaderValue(name.clone()))?;
                    transport_config
                        .custom_headers
                        .insert(header_name, header_value);
                }
                // rmcp builds its reqwest client inside `from_config`, without a provider of its own.
                install_tls_crypto_provider();
                ().serve(StreamableHttpClientTransport::from_config(transport_config))
                    .await
                    .map_err(|error| McpError::Protocol(error.to_string()))?
            }
        };
        let capabilities = service
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        let tools = if capabilities.tools.is_some() {
            service
                .list_all_tools()
                .await
                .map_err(|error| listing("tools", error))?
        } else {
            Vec::new()
        };
        let resources = if capabilities.resources.is_some() {
            service
                .list_all_resources()
                .await
                .map_err(|error| listing("resources", error))?
                .len()
        } else {
            0
        };
        let prompts = if capabilities.prompts.is_some() {
            service
                .list_all_prompts()
                .await
                .map_err(|error| listing("prompts", error))?
                .len()
        } else {
            0
        };
        Ok(Self {
            service,
            tools,
            resources: u32::try_from(resources).unwrap_or(u32::MAX),
            prompts: u32::try_from(prompts).unwrap_or(u32::MAX),
            timeout: config.timeout,
            call_timeout: config.call_timeout,
        })
    }

    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.is_transport_closed()
    }

    /// `resources/read`, as JSON (`{"contents": [...]}`).
    pub async fn read_resource(&self, uri: &str) -> Result<Value, McpError> {
        let read = self
            .service
            .read_resource(ReadResourceRequestParams::new(uri.to_string()));
        let result = bounded(self.timeout, read).await?;
        serde_json::to_value(result).map_err(|error| McpError::Protocol(error.to_string()))
    }

    /// `tools/call`, as JSON (`{"content": [...], "isError": …}`).
    pub async fn call_tool(&self, tool: &str, arguments: Value) -> Result<Value, McpError> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = match arguments {
            Value::Object(map) => Some(map),
            _ => None,
        };
        let result = bounded(self.call_timeout, self.service.call_tool(params)).await?;
        serde_json::to_value(result).map_err(|error| McpError::Protocol(error.to_string()))
    }

    /// Every resource the server lists, as JSON (`[{"uri", "name", "mimeType", …}]`).
    pub async fn list_resources(&self) -> Result<Value, McpError> {
        let listed = bounded(self.timeout, self.service.list_all_resources()).await?;
        serde_json::to_value(listed).map_err(|error| McpError::Protocol(error.to_string()))
    }

    /// Every prompt the server lists, as JSON (`[{"name", "description", "arguments"}]`).
    pub async fn list_prompts(&self) -> Result<Value, McpError> {
        let listed = bounded(self.timeout, self.service.list_all_prompts()).await?;
        serde_json::to_value(listed).map_err(|error| McpError::Protocol(error.to_string()))
    }

    /// `prompts/get`, as JSON (`{"messages": [...]}`).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value, McpError> {
        let mut params = GetPromptRequestParams::new(name.to_string());
        if !arguments.is_empty() {
            params.arguments = Some(arguments);
        }
        let result = bounded(self.call_timeout, self.service.get_prompt(params)).await?;
        serde_json::to_value(result).map_err(|error| McpError::Protocol(error.to_string()))
    }

    /// Closes the session and ends the child (its whole process group).
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(3), self.service.close()).await;
    }
}

async fn bounded<T>(
    limit: Duration,
    call: impl std::future::Future<Output = Result<T, rmcp::ServiceError>>,
) -> Result<T, McpError> {
    match tokio::time::timeout(limit, call).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(error.into()),
        Err(_) => Err(McpError::Timeout {
            milliseconds: limit.as_millis(),
        }),
    }
}

/// Why the program could not be started, a missing program said in plain words.
fn start_failure(command: &[String], error: &std::io::Error) -> McpError {
    match (error.kind(), command.first()) {
        (std::io::ErrorKind::NotFound, Some(program)) => McpError::CommandNotFound {
            program: program.clone(),
        },
        _ => McpError::Start {
            command: command.join(" "),
            reason: error.to_string(),
        },
    }
}

fn listing(what: &'static str, error: rmcp::ServiceError) -> McpError {
    McpError::Listing {
        what,
        reason: error.to_string(),
    }
}
