//! The settings view's MCP servers: list the config file's `mcp` entries (what each runs or
//! where it connects, and only the names of its header and environment values), add or change
//! one, remove one. The core owns the write: only the entry changes, every other key of the file
//! (and unknown keys inside the entry, such as `cwd` or `oauth`) stays. A value typed into the
//! form goes to the credential store and the file keeps a `{keychain:…}` reference
//! (`secret_values`); a `{env:NAME}` reference is kept as written. After each write the running
//! servers follow the file (`McpServers::apply`) without a restart.

use crate::mcp::mcp_error::McpError;
use crate::mcp::mcp_servers::McpServers;
use crate::mcp::secret_values::{self, Section};
use crate::mcp::tool_prefix;
use crate::models::config::Config;
use crate::models::mcp_config::McpServerConfig;
use crate::models::provider_settings::config_file::ConfigFile;
use crate::models::settings::Settings;
use crate::wire::error::LedgerError;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct McpSettings {
    pub servers: Vec<McpServerSetting>,
    /// The file the servers are saved in (the same file a person may edit by hand).
    pub config_path: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum McpServerKind {
    /// A program Dossier starts, spoken to over its stdin and stdout.
    Local,
    /// A streamable HTTP endpoint.
    Remote,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct McpServerSetting {
    pub name: String,
    pub kind: McpServerKind,
    /// The program and its arguments (local servers).
    pub command: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub url: Option<String>,
    /// The environment (local) or headers (remote), by name; never a secret value.
    pub values: Vec<McpValueSetting>,
    pub enabled: bool,
    /// Milliseconds; a `number` in TypeScript (a timeout never nears 2^53).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub timeout: Option<u64>,
    /// Why the entry cannot be used as written, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct McpValueSetting {
    pub name: String,
    pub source: McpValueSource,
}

/// Where a header or environment value is kept; only a `file` value is shown, because a person
/// wrote it there in plain text and it is no secret to them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum McpValueSource {
    Keychain,
    Environment { variable: String },
    File { value: String },
}

/// A server as the settings form sends it.
#[derive(Clone, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerInput {
    pub name: String,
    pub kind: McpServerKind,
    #[serde(default)]
    #[ts(optional)]
    pub command: Option<Vec<String>>,
    #[serde(default)]
    #[ts(optional)]
    pub url: Option<String>,
    /// The environment (local) or headers (remote); a value left out keeps the stored one.
    #[serde(default)]
    #[ts(optional)]
    pub values: Option<Vec<McpValueInput>>,
    #[serde(default)]
    #[ts(optional)]
    pub enabled: Option<bool>,
    #[serde(default)]
    #[ts(optional, type = "number")]
    pub timeout: Option<u64>,
}

#[derive(Clone, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpValueInput {
    pub name: String,
    /// A new value (kept in the keychain), or a `{env:NAME}` reference; absent keeps the stored.
    #[serde(default)]
    #[ts(optional)]
    pub value: Option<String>,
}

// Hand-written so a typed secret never reaches a log line through `{:?}`.
impl std::fmt::Debug for McpServerInput {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("McpServerInput")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("command", &self.command)
            .field("url", &self.url)
            .field(
                "values",
                &self
                    .values
                    .iter()
                    .flatten()
                    .map(|value| value.name.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("enabled", &self.enabled)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Validates a server from the form; each refusal says what to fix.
pub fn check_input(input: &McpServerInput) -> Result<(), LedgerError> {
    let invalid = |reason: String| Err(LedgerError::InvalidRequest(reason));
    if let Some(problem) = tool_prefix::name_problem(&input.name) {
        return invalid(problem);
    }
    match input.kind {
        McpServerKind::Local => {
            if input
                .command
                .as_ref()
                .and_then(|command| command.first())
                .is_none_or(|program| program.trim().is_empty())
            {
                return invalid("a local server needs the command that starts it".into());
            }
        }
        McpServerKind::Remote => {
            let url = input.url.as_deref().unwrap_or_default().trim();
            match url::Url::parse(url) {
                Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {}
                _ => {
                    return invalid(format!(
                        "the URL \"{url}\" is not an http:// or https:// address"
                    ))
                }
            }
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for value in input.values.iter().flatten() {
        let value_name = value.name.trim();
        if value_name.is_empty() || value_name.chars().any(char::is_whitespace) {
            return invalid(format!(
                "\"{value_name}\" cannot be a variable or header name"
            ));
        }
        if seen.contains(&value_name) {
            return invalid(format!("\"{value_name}\" is given twice"));
        }
        seen.push(value_name);
    }
    Ok(())
}

/// The servers of the config file as the settings view shows them.
pub fn mcp_settings(settings: &Settings) -> Result<McpSettings, LedgerError> {
    let path = settings.locations().config_path.clone();
    let in_file = Config::load(&path)?;
    Ok(McpSettings {
        servers: in_file
            .mcp
            .iter()
            .map(|(name, entry)| describe(name, entry))
            .collect(),
        config_path: path.display().to_string(),
    })
}

fn describe(name: &str, entry: &Value) -> McpServerSetting {
    let kind = if entry.get("type").and_then(Value::as_str) == Some("remote") {
        McpServerKind::Remote
    } else {
        McpServerKind::Local
    };
    let section = match kind {
        McpServerKind::Local => "environment",
        McpServerKind::Remote => "headers",
    };
    let values = entry
        .get(section)
        .and_then(Value::as_object)
        .map(|values| {
            values
                .iter()
                .map(|(value_name, value)| {
                    let text = value.as_str().unwrap_or_default();
                    let source = if secret_values::keychain_id(text).is_some() {
                        McpValueSource::Keychain
                    } else if let Some(variable) = secret_values::environment_variable(text) {
                        McpValueSource::Environment {
                            variable: variable.to_string(),
                        }
                    } else {
                        McpValueSource::File {
                            value: text.to_string(),
                        }
                    };
                    McpValueSetting {
                        name: value_name.clone(),
                        source,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    McpServerSetting {
        name: name.to_string(),
        kind,
        command: entry
            .get("command")
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(|part| part.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        url: entry.get("url").and_then(Value::as_str).map(str::to_string),
        values,
        enabled: entry
            .get("enabled")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        timeout: entry.get("timeout").and_then(Value::as_u64),
        problem: McpServerConfig::parse(entry)
            .err()
            .map(|error| error.to_string()),
    }
}

/// Adds or changes servers (one from the form, several from an import) in one write. Typed
/// values go to the credential store first; if one cannot be stored nothing is written.
pub async fn save_servers(
    settings: &Settings,
    servers: &McpServers,
    inputs: Vec<McpServerInput>,
) -> Result<McpSettings, LedgerError> {
    for input in &inputs {
        check_input(input)?;
    }
    let guard = settings.settings_writes.lock().await;
    let path = settings.locations().config_path.clone();
    let mut file = ConfigFile::read(&path)?;
    let mut forgotten: Vec<String> = Vec::new();
    for input in &inputs {
        let name = input.name.trim().to_string();
        // Checked against the file as it is now, with the servers saved before this one.
        tool_prefix::check_unique(&name, file.section("mcp")?.keys().map(String::as_str))?;
        let previous = match file.section("mcp")?.get(&name) {
            Some(Value::Object(previous)) => previous.clone(),
            _ => Map::new(),
        };
        let section = match input.kind {
            McpServerKind::Local => Section::Environment,
            McpServerKind::Remote => Section::Headers,
        };
        let section_key = match section {
            Section::Environment => "environment",
            Section::Headers => "headers",
        };
        let previous_values = previous
            .get(section_key)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut values = Map::new();
        for value in input.values.iter().flatten() {
            let value_name = value.name.trim().to_string();
            let written = match value.value.as_deref() {
                Some(typed) if secret_values::is_reference(typed.trim()) => {
                    typed.trim().to_string()
                }
                Some(typed) if !typed.is_empty() => {
                    let id = secret_values::secret_id(&name, section, &value_name);
                    let secret = typed.to_string();
                    let store = settings.credentials();
                    let stored_id = id.clone();
                    tokio::task::spawn_blocking(move || store.store(&stored_id, &secret))
                        .await
                        .map_err(|error| {
                            McpError::Keychain(format!("the keychain call did not finish: {error}"))
                        })?
                        .map_err(McpError::from)?;
                    secret_values::keychain_reference(&id)
                }
                _ => match previous_values.get(&value_name).and_then(Value::as_str) {
                    Some(kept) => kept.to_string(),
                    None => {
                        return Err(LedgerError::InvalidRequest(format!(
                            "type a value for {value_name}"
                        )))
                    }
                },
            };
            values.insert(value_name, Value::String(written));
        }
        // Values that were in the keychain and are no longer referred to are removed from it.
        let now_used = keychain_ids(&Value::Object(Map::from_iter([(
            section_key.to_string(),
            Value::Object(values.clone()),
        )])));
        forgotten.extend(
            keychain_ids(&Value::Object(previous.clone()))
                .into_iter()
                .filter(|id| !now_used.contains(id)),
        );
        let mut entry = previous;
        for key in ["command", "environment", "url", "headers"] {
            entry.shift_remove(key);
        }
        match input.kind {
            McpServerKind::Local => {
                entry.insert("type".into(), json!("local"));
                entry.insert(
                    "command".into(),
                    json!(input.command.clone().unwrap_or_default()),
                );
                if !values.is_empty() {
                    entry.insert("environment".into(), Value::Object(values));
                }
            }
            McpServerKind::Remote => {
                entry.insert("type".into(), json!("remote"));
                entry.insert(
                    "url".into(),
                    json!(input.url.as_deref().unwrap_or_default().trim()),
                );
                if !values.is_empty() {
                    entry.insert("headers".into(), Value::Object(values));
                }
            }
        }
        entry.insert("enabled".into(), json!(input.enabled.unwrap_or(true)));
        match input.timeout {
            Some(timeout) => entry.insert("timeout".into(), json!(timeout)),
            None => entry.shift_remove("timeout"),
        };
        file.section("mcp")?
            .insert(name.clone(), Value::Object(entry));
        tracing::info!(server = %name, "MCP server saved");
    }
    file.write()?;
    drop(guard);
    forget(settings, forgotten).await;
    follow_the_file(settings, servers).await?;
    mcp_settings(settings)
}

/// Removes a server from the config file, and its values from the keychain.
pub async fn remove_server(
    settings: &Settings,
    servers: &McpServers,
    name: &str,
) -> Result<McpSettings, LedgerError> {
    let guard = settings.settings_writes.lock().await;
    let path = settings.locations().config_path.clone();
    let mut file = ConfigFile::read(&path)?;
    let Some(entry) = file.section("mcp")?.shift_remove(name) else {
        return Err(McpError::UnknownServer(name.to_string()).into());
    };
    file.write()?;
    drop(guard);
    let forgotten = keychain_ids(&entry);
    forget(settings, forgotten).await;
    tracing::info!(server = name, "MCP server removed");
    follow_the_file(settings, servers).await?;
    mcp_settings(settings)
}

/// The ids of the credential store that an entry's values refer to.
fn keychain_ids(entry: &Value) -> Vec<String> {
    ["environment", "headers"]
        .iter()
        .filter_map(|key| entry.get(*key).and_then(Value::as_object))
        .flat_map(|values| values.values())
        .filter_map(|value| value.as_str().and_then(secret_values::keychain_id))
        .map(str::to_string)
        .collect()
}

/// The config is read again and the servers follow it.
async fn follow_the_file(settings: &Settings, servers: &McpServers) -> Result<(), LedgerError> {
    settings.reload_config().await?;
    servers.apply(&settings.config().mcp).await;
    Ok(())
}

/// Removes keychain values nothing refers to any more. The file no longer names them either
/// way; one left in a locked keychain is only unreachable, so a failure is logged, not returned.
async fn forget(settings: &Settings, ids: Vec<String>) {
    if ids.is_empty() {
        return;
    }
    let store = settings.credentials();
    let outcome = tokio::task::spawn_blocking(move || {
        ids.iter()
            .map(|id| store.remove(id).map(|_| ()))
            .collect::<Result<Vec<()>, _>>()
    })
    .await;
    match outcome {
        Ok(Ok(_)) => {}
        Ok(Err(error)) => tracing::warn!(%error, "MCP secret not removed from the keychain"),
        Err(error) => tracing::warn!(%error, "MCP secret removal did not finish"),
    }
}
