//! Tool calls inside a step: the part goes pending → running → completed | error, the call is
//! checked against the permission rules (last match wins), and the tool runs off the async
//! runtime — abandoned at once if the reply is aborted.

use super::{Flow, Step, StepState};
use crate::reply::permission_request;
use crate::reply::tools;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::id::IdKind;
use crate::wire::part::{
    FilePart, Part, PartBody, ToolCompletedTime, ToolEndTime, ToolPart, ToolStartTime, ToolState,
};
use crate::wire::permission::{evaluate, Action};
use crate::wire::permission::{PermissionReply, PermissionRequest, PermissionTool};
use serde_json::{json, Value};

/// OpenCode's wording when the person refuses a tool call.
pub const REJECTED: &str = "The user rejected permission to use this specific tool call.";

/// The permission asked when the model repeats itself.
pub const DOOM_LOOP: &str = "doom_loop";
const DOOM_LOOP_THRESHOLD: usize = 3;

/// True when this call would be the third identical call in a row (same tool, same input).
pub fn is_doom_loop(recent: &[(String, Value)], name: &str, input: &Value) -> bool {
    recent.len() + 1 >= DOOM_LOOP_THRESHOLD
        && recent[recent.len() + 1 - DOOM_LOOP_THRESHOLD..]
            .iter()
            .all(|(previous, previous_input)| previous == name && previous_input == input)
}

impl Step<'_> {
    pub(super) async fn pending_tool(
        &mut self,
        state: &mut StepState,
        call_id: &str,
        name: &str,
    ) -> Result<(), LedgerError> {
        if state.tools.contains_key(call_id) {
            return Ok(());
        }
        let part = self.new_part(PartBody::Tool(ToolPart {
            call_id: call_id.to_string(),
            tool: name.to_string(),
            state: ToolState::Pending {
                input: json!({}),
                raw: String::new(),
            },
            metadata: None,
        }));
        self.context.insert_reply_part(&part).await?;
        state.tools.insert(call_id.to_string(), part);
        Ok(())
    }

    pub(super) async fn call_tool(
        &mut self,
        state: &mut StepState,
        call_id: String,
        name: String,
        raw: String,
    ) -> Result<Flow, LedgerError> {
        self.finish_text(state, true).await?;
        self.finish_text(state, false).await?;
        self.pending_tool(state, &call_id, &name).await?;
        let start = self.context.now();
        let input: Value = match serde_json::from_str(&raw) {
            Ok(input @ Value::Object(_)) => input,
            _ => {
                let error = format!(
                    "The arguments for the {name} tool are not a JSON object. Received: {}",
                    raw.chars().take(500).collect::<String>()
                );
                self.settle_tool(state, &call_id, Err((json!({}), error, None)), start)
                    .await?;
                return Ok(Flow::Continue);
            }
        };
        self.set_tool_state(
            state,
            &call_id,
            ToolState::Running {
                input: input.clone(),
                title: None,
                metadata: None,
                time: ToolStartTime { start },
            },
        )
        .await?;
        if name == "task" {
            return self.run_task(state, &call_id, input, start).await;
        }
        if let Some(tool) = self.context.runtime.mcp_servers.tool(&name) {
            return self
                .call_mcp_tool(state, &call_id, tool, input, start)
                .await;
        }
        if !tools::is_known(&name) {
            let error = format!(
                "Model tried to call unavailable tool '{name}'. Available tools: read, list, glob, grep."
            );
            self.settle_tool(state, &call_id, Err((input, error, None)), start)
                .await?;
            return Ok(Flow::Continue);
        }
        if is_doom_loop(self.recent_calls, &name, &input) {
            let allowed = match evaluate(DOOM_LOOP, &name, &[self.rules.as_slice()]) {
                Action::Allow => true,
                Action::Deny => false,
                Action::Ask => self.ask_permission(&call_id, DOOM_LOOP, &name).await,
            };
            if !allowed {
                if self.control.is_aborted() {
                    return Ok(Flow::Aborted);
                }
                self.rejected = true;
                let error = REJECTED.to_string();
                self.settle_tool(state, &call_id, Err((input, error, None)), start)
                    .await?;
                return Ok(Flow::Continue);
            }
        }
        self.recent_calls.push((name.clone(), input.clone()));
        let pattern = tools::permission_pattern(&name, &input, &self.directory);
        match evaluate(&name, &pattern, &[self.rules.as_slice()]) {
            Action::Allow => {}
            Action::Deny => {
                let error = format!(
                    "The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules {}",
                    serde_json::to_string(&self.rules.iter().filter(|rule| crate::wire::permission::wildcard_match(&rule.permission, &name)).collect::<Vec<_>>()).unwrap_or_default()
                );
                self.settle_tool(state, &call_id, Err((input, error, None)), start)
                    .await?;
                return Ok(Flow::Continue);
            }
            Action::Ask => {
                if !self.ask_permission(&call_id, &name, &pattern).await {
                    if self.control.is_aborted() {
                        return Ok(Flow::Aborted);
                    }
                    self.rejected = true;
                    let error = REJECTED.to_string();
                    self.settle_tool(state, &call_id, Err((input, error, None)), start)
                        .await?;
                    return Ok(Flow::Continue);
                }
            }
        }
        let execution = tools::execute(&name, input.clone(), self.directory.clone());
        let control = self.control;
        let result = tokio::select! {
            biased;
            () = control.aborted() => return Ok(Flow::Aborted),
            result = execution => result,
        };
        let result = result.map_err(|error| (input.clone(), error.to_string(), None));
        self.settle_tool(
            state,
            &call_id,
            result.map(|outcome| (input, outcome)),
            start,
        )
        .await?;
        Ok(Flow::Continue)
    }

    /// The `task` tool: a subagent in a child session; its last text is the output.
    async fn run_task(
        &mut self,
        state: &mut StepState,
        call_id: &str,
        input: Value,
        start: i64,
    ) -> Result<Flow, LedgerError> {
        let task = match crate::reply::subtask::Task::from_input(&input) {
            Ok(task) => task,
            Err(error) => {
                self.settle_tool(state, call_id, Err((input, error.to_string(), None)), start)
                    .await?;
                return Ok(Flow::Continue);
            }
        };
        match evaluate("task", &task.agent, &[self.rules.as_slice()]) {
            Action::Allow => {}
            Action::Deny | Action::Ask => {
                let error = format!("Starting the {} subagent is not allowed here", task.agent);
                self.settle_tool(state, call_id, Err((input, error, None)), start)
                    .await?;
                return Ok(Flow::Continue);
            }
        }
        let session = self.session.clone();
        let result = crate::reply::subtask::run(self.context, &session, &task, self.control).await;
        if self.control.is_aborted() {
            return Ok(Flow::Aborted);
        }
        let outcome = result
            .map(|result| {
                (
                    input.clone(),
                    tools::ToolOutcome {
                        title: task.description.clone(),
                        output: result.output,
                        metadata: json!({"sessionId": result.session_id}),
                        attachments: Vec::new(),
                    },
                )
            })
            .map_err(|error| (input.clone(), error.to_string(), None));
        self.settle_tool(state, call_id, outcome, start).await?;
        Ok(Flow::Continue)
    }

    /// Publishes a permission request and waits for the answer (or an abort); true to go on.
    pub(super) async fn ask_permission(
        &mut self,
        call_id: &str,
        name: &str,
        pattern: &str,
    ) -> bool {
        let requests = &self.context.permission_requests;
        let request = PermissionRequest {
            id: self.context.new_id(IdKind::Permission),
            session_id: self.assistant.session_id.clone(),
            permission: name.to_string(),
            patterns: vec![pattern.to_string()],
            metadata: json!({}),
            always: vec![pattern.to_string()],
            tool: Some(PermissionTool {
                message_id: self.assistant.id.clone(),
                call_id: call_id.to_string(),
            }),
        };
        let answer = requests.open(request.clone());
        let store = &self.context.store;
        // Listed on every server before any client hears of it.
        permission_request::share(store, requests, &request.session_id).await;
        store
            .events
            .publish(EventPayload::PermissionAsked(request.clone()));
        let control = self.control;
        tokio::select! {
            biased;
            () = control.aborted() => {
                requests.withdraw(&request.id);
                permission_request::share(store, requests, &request.session_id).await;
                false
            }
            reply = answer => matches!(reply, Ok(PermissionReply::Once | PermissionReply::Always)),
        }
    }

    pub(super) async fn settle_tool(
        &mut self,
        state: &mut StepState,
        call_id: &str,
        result: Result<(Value, tools::ToolOutcome), (Value, String, Option<Value>)>,
        start: i64,
    ) -> Result<(), LedgerError> {
        let end = self.context.now();
        let next = match result {
            Ok((input, outcome)) => {
                let attachments: Vec<Part> = outcome
                    .attachments
                    .iter()
                    .map(|(mime, bytes)| {
                        self.new_part(PartBody::File(FilePart {
                            mime: mime.clone(),
                            filename: None,
                            url: crate::wire::data_url::build(mime, bytes),
                            source: None,
                        }))
                    })
                    .collect();
                ToolState::Completed {
                    input,
                    output: outcome.output,
                    title: outcome.title,
                    metadata: outcome.metadata,
                    time: ToolCompletedTime {
                        start,
                        end,
                        compacted: None,
                    },
                    attachments: (!attachments.is_empty()).then_some(attachments),
                }
            }
            Err((input, error, metadata)) => ToolState::Error {
                input,
                error,
                metadata,
                time: ToolEndTime { start, end },
            },
        };
        self.set_tool_state(state, call_id, next).await
    }

    async fn set_tool_state(
        &mut self,
        state: &mut StepState,
        call_id: &str,
        next: ToolState,
    ) -> Result<(), LedgerError> {
        let Some(part) = state.tools.get_mut(call_id) else {
            return Ok(());
        };
        if let PartBody::Tool(tool) = &mut part.body {
            tool.state = next;
        }
        let part = part.clone();
        self.context.store_reply_part(&part, true).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Case = (
        &'static str,
        Vec<(String, Value)>,
        (&'static str, Value),
        bool,
    );

    #[test]
    fn doom_loop_table() {
        let call = |name: &str, path: &str| (name.to_string(), json!({"path": path}));
        let same = vec![call("list", "a"), call("list", "a")];
        let table: [Case; 5] = [
            (
                "third identical call",
                same.clone(),
                ("list", json!({"path": "a"})),
                true,
            ),
            (
                "different input",
                same.clone(),
                ("list", json!({"path": "b"})),
                false,
            ),
            (
                "different tool",
                same,
                ("glob", json!({"path": "a"})),
                false,
            ),
            (
                "only two so far",
                vec![call("list", "a")],
                ("list", json!({"path": "a"})),
                false,
            ),
            (
                "broken run of repeats",
                vec![call("list", "a"), call("read", "x"), call("list", "a")],
                ("list", json!({"path": "a"})),
                false,
            ),
        ];
        for (case, recent, (name, input), expected) in table {
            assert_eq!(is_doom_loop(&recent, name, &input), expected, "{case}");
        }
    }
}
