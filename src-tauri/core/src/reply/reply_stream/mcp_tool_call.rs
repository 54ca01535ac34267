//! A call of an MCP server's tool (`<server>_<tool>`) inside a step, recorded like a built-in
//! tool's (pending → running → completed | error). Permission: the rules that name the tool
//! (patterns like `"everything_*": "ask"`, last match wins) decide; a rule for every tool (`*`)
//! does not, because those are written for the built-in tools. When no rule names it, a tool the
//! server marks read-only runs, any other asks. The config file's own rules are taken as the file
//! is now (`tool_permissions::live_rules`).

use super::{Flow, Step, StepState};
use crate::mcp::mcp_servers::McpTool;
use crate::mcp::tool_permissions::live_rules;
use crate::reply::reply_stream::tool_call::REJECTED;
use crate::reply::tools::ToolOutcome;
use crate::wire::error::LedgerError;
use crate::wire::permission::{wildcard_match, Action, Rule};
use serde_json::{json, Value};

/// What the rules say about `tool`, with the read-only default when none names it.
pub fn permission(tool: &McpTool, rules: &[Rule]) -> Action {
    rules
        .iter()
        .filter(|rule| rule.permission != "*")
        .rfind(|rule| wildcard_match(&rule.permission, &tool.name))
        .map_or(
            if tool.read_only {
                Action::Allow
            } else {
                Action::Ask
            },
            |rule| rule.action,
        )
}

impl Step<'_> {
    pub(super) async fn call_mcp_tool(
        &mut self,
        state: &mut StepState,
        call_id: &str,
        tool: McpTool,
        input: Value,
        start: i64,
    ) -> Result<Flow, LedgerError> {
        // The config file is read as it is now: Settings' "Always allow" needs no restart. The
        // step's rules are the agent's, then the session's (`turn::step_rules`).
        let session_rules = self.session.permission.as_deref().unwrap_or_default();
        let (agent_rules, session_rules) = if self.rules.ends_with(session_rules) {
            self.rules.split_at(self.rules.len() - session_rules.len())
        } else {
            (self.rules.as_slice(), &[][..])
        };
        let rules = live_rules(
            agent_rules,
            session_rules,
            self.context.agents().config_rules(),
            self.context.config().permission.as_ref(),
        );
        match permission(&tool, &rules) {
            Action::Allow => {}
            Action::Deny => {
                let error = format!(
                    "The user has specified a rule which prevents you from using the {} tool",
                    tool.name
                );
                self.settle_tool(state, call_id, Err((input, error, None)), start)
                    .await?;
                return Ok(Flow::Continue);
            }
            Action::Ask => {
                if !self.ask_permission(call_id, &tool.name, "*").await {
                    if self.control.is_aborted() {
                        return Ok(Flow::Aborted);
                    }
                    self.rejected = true;
                    self.settle_tool(
                        state,
                        call_id,
                        Err((input, REJECTED.to_string(), None)),
                        start,
                    )
                    .await?;
                    return Ok(Flow::Continue);
                }
            }
        }
        let servers = self.context.runtime.mcp_servers.clone();
        let execution = servers.call_tool(&tool, input.clone());
        let control = self.control;
        let result = tokio::select! {
            biased;
            () = control.aborted() => return Ok(Flow::Aborted),
            result = execution => result,
        };
        let metadata = json!({"server": tool.server, "tool": tool.tool});
        let settled = match result {
            Ok(result) if result.is_error => Err((input, result.output, Some(metadata))),
            Ok(result) => Ok((
                input,
                ToolOutcome {
                    title: tool.name.clone(),
                    output: result.output,
                    metadata,
                    attachments: result.attachments,
                },
            )),
            Err(error) => Err((input, error.to_string(), Some(metadata))),
        };
        self.settle_tool(state, call_id, settled, start).await?;
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(read_only: bool) -> McpTool {
        McpTool {
            name: "everything_echo".into(),
            server: "everything".into(),
            tool: "echo".into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
            read_only,
        }
    }

    #[test]
    fn rules_naming_the_tool_decide_else_read_only_runs_and_the_rest_asks() {
        let everything_allowed = vec![Rule::new("*", "*", Action::Allow)];
        assert_eq!(permission(&tool(false), &everything_allowed), Action::Ask);
        assert_eq!(permission(&tool(true), &everything_allowed), Action::Allow);
        let named = vec![
            Rule::new("*", "*", Action::Allow),
            Rule::new("everything_*", "*", Action::Deny),
            Rule::new("everything_echo", "*", Action::Allow),
        ];
        assert_eq!(permission(&tool(false), &named), Action::Allow);
        let last_wins = vec![
            Rule::new("everything_echo", "*", Action::Allow),
            Rule::new("everything_*", "*", Action::Ask),
        ];
        assert_eq!(permission(&tool(true), &last_wins), Action::Ask);
    }
}
