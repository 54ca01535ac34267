//! "Always allow" per MCP tool (Settings → MCP): each connected server's tools, each with whether
//! the config file's `permission` block allows it by its full name (`"everything_echo":
//! "allow"`), and the switch that writes or removes that entry. The entry is an ordinary config
//! permission rule, so a hand-edited file and the switch say the same thing; a switch turned on
//! moves its entry to the end of the block, so it is the last match among the file's rules (an
//! earlier `"everything_*": "ask"` does not undo it).
//!
//! The agents' rules are built from the file once, at start; for MCP tools the file's block is
//! read again at every call (`live_rules`), so a switch takes effect at the next call without a
//! restart.

use crate::mcp::mcp_servers::McpServers;
use crate::models::provider_settings::config_file::ConfigFile;
use crate::models::settings::Settings;
use crate::wire::error::LedgerError;
use crate::wire::permission::{rules_from_config, Rule};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// One tool of a connected server, as Settings → MCP lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct McpToolPermission {
    /// The server, as configured.
    pub server: String,
    /// The tool as the model sees it, `<server>_<tool>`: the permission rule's key.
    pub name: String,
    /// The tool's own name on its server.
    pub tool: String,
    pub description: String,
    /// The server marks it read-only, so it runs without asking unless a rule says otherwise.
    pub read_only: bool,
    /// The config file allows it by its full name.
    pub always_allowed: bool,
}

/// Whether the config's `permission` block allows `name` by its exact key.
fn allowed_by_name(permission: Option<&Value>, name: &str) -> bool {
    permission
        .and_then(|block| block.get(name))
        .and_then(Value::as_str)
        == Some("allow")
}

/// Every connected server's tools, in the config's order, with their switches.
pub fn tool_permissions(settings: &Settings, servers: &McpServers) -> Vec<McpToolPermission> {
    let config = settings.config();
    servers
        .tools()
        .into_iter()
        .map(|tool| McpToolPermission {
            always_allowed: allowed_by_name(config.permission.as_ref(), &tool.name),
            server: tool.server,
            name: tool.name,
            tool: tool.tool,
            description: tool.description,
            read_only: tool.read_only,
        })
        .collect()
}

/// Turns "Always allow" for the tool `name` on (the entry `"<name>": "allow"` at the end of the
/// file's `permission` block) or off (that entry removed; an entry that says something else was
/// not written by the switch and stays).
pub async fn set_always_allowed(
    settings: &Settings,
    servers: &McpServers,
    name: &str,
    allowed: bool,
) -> Result<Vec<McpToolPermission>, LedgerError> {
    if servers.tool(name).is_none() {
        return Err(LedgerError::InvalidRequest(format!(
            "no connected MCP server offers the tool \"{name}\""
        )));
    }
    let guard = settings.settings_writes.lock().await;
    let path = settings.locations().config_path.clone();
    let mut file = ConfigFile::read(&path)?;
    let block = file.section("permission")?;
    if allowed {
        block.shift_remove(name);
        block.insert(name.to_string(), Value::String("allow".into()));
    } else if block.get(name).and_then(Value::as_str) == Some("allow") {
        block.shift_remove(name);
    }
    file.write()?;
    settings.reload_config().await?;
    drop(guard);
    tracing::info!(tool = name, allowed, "MCP tool always-allow switched");
    Ok(tool_permissions(settings, servers))
}

/// The rules an MCP tool call is judged by: the config file's `permission` block as it is now,
/// then the agent's rules without the copy of that block the agents were built with at start
/// (`start_config_rules`), then the session's rules, which still come last and override both
/// (a session's "Always" answer can equal a rule of the file and must stay). The built-in
/// defaults move behind the file's block, which changes nothing for MCP tools: they name
/// built-in tools or `*`, and a `*` rule does not decide an MCP tool. A file that no longer
/// reads as rules (a hand edit) leaves the rules as they were at start.
pub fn live_rules(
    agent_rules: &[Rule],
    session_rules: &[Rule],
    start_config_rules: &[Rule],
    config: Option<&Value>,
) -> Vec<Rule> {
    let current = match config.map(rules_from_config) {
        None => Vec::new(),
        Some(Ok(rules)) => rules,
        Some(Err(error)) => {
            tracing::warn!(%error, "the config's permission block cannot be read now; the rules from start apply");
            return agent_rules.iter().chain(session_rules).cloned().collect();
        }
    };
    current
        .into_iter()
        .chain(
            agent_rules
                .iter()
                .filter(|rule| !start_config_rules.contains(rule))
                .cloned(),
        )
        .chain(session_rules.iter().cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::permission::Action;
    use serde_json::json;

    #[test]
    fn the_file_as_it_is_now_replaces_its_copy_from_start_and_the_session_still_wins() {
        let start = vec![Rule::new("everything_echo", "*", Action::Allow)];
        let agent = vec![
            Rule::new("*", "*", Action::Allow),
            start[0].clone(),
            Rule::new("everything_*", "*", Action::Deny),
            Rule::new("everything_gzip", "*", Action::Allow),
        ];
        // The session's "Always" answer equals the file's rule from start and stays.
        let session = vec![Rule::new("everything_echo", "*", Action::Allow)];
        // The switch for echo was turned off since start, one for add turned on.
        let now = json!({"everything_add": "allow"});
        assert_eq!(
            live_rules(&agent, &session, &start, Some(&now)),
            vec![
                Rule::new("everything_add", "*", Action::Allow),
                Rule::new("*", "*", Action::Allow),
                Rule::new("everything_*", "*", Action::Deny),
                Rule::new("everything_gzip", "*", Action::Allow),
                Rule::new("everything_echo", "*", Action::Allow),
            ]
        );
        assert_eq!(
            live_rules(&agent, &[], &start, None),
            agent[..1]
                .iter()
                .chain(&agent[2..])
                .cloned()
                .collect::<Vec<_>>()
        );
        assert_eq!(
            live_rules(&agent, &session, &start, Some(&json!("allow"))),
            agent.iter().chain(&session).cloned().collect::<Vec<_>>()
        );
    }

    #[test]
    fn only_an_exact_allow_entry_is_a_switch_that_is_on() {
        let block =
            json!({"everything_*": "allow", "everything_echo": "ask", "everything_add": "allow"});
        assert!(allowed_by_name(Some(&block), "everything_add"));
        assert!(!allowed_by_name(Some(&block), "everything_echo"));
        assert!(!allowed_by_name(Some(&block), "everything_gzip"));
        assert!(!allowed_by_name(None, "everything_add"));
    }
}
