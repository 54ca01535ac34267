//! Subagents: a subtask part of a prompt, or the model's `task` tool, runs the named subagent in
//! a child session (`parentID` set, titled "<description> (@agent subagent)") and returns its
//! last text, in OpenCode's `<task_result>` wrapping. The child cannot start tasks of its own.

use crate::models::provider::ToolDefinition;
use crate::reply::reply_context::ReplyContext;
use crate::reply::reply_stream::StepEnd;
use crate::reply::session_runner::RunControl;
use crate::wire::assistant_error::AssistantError;
use crate::wire::draft::{Draft, PromptInput};
use crate::wire::error::LedgerError;
use crate::wire::id::IdKind;
use crate::wire::message::UserMessage;
use crate::wire::message::{MessageWithParts, ModelRef};
use crate::wire::part::PartBody;
use crate::wire::session::{CreateSession, Session};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// What to hand to a subagent.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub description: String,
    pub prompt: String,
    pub agent: String,
    pub model: Option<ModelRef>,
}

impl Task {
    /// The `task` tool's input, or the message the model sees when it is malformed.
    pub fn from_input(input: &Value) -> Result<Self, SubtaskError> {
        let text = |key: &'static str| {
            input
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or(SubtaskError::MissingParameter(key))
        };
        Ok(Self {
            description: text("description")?,
            prompt: text("prompt")?,
            agent: text("subagent_type")?,
            model: None,
        })
    }

    pub fn input(&self) -> Value {
        json!({"description": self.description, "prompt": self.prompt, "subagent_type": self.agent})
    }
}

/// A finished task: the child session and what the subagent said last.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskResult {
    pub session_id: String,
    pub output: String,
}

/// Why a task did not finish; the model sees the message as the `task` tool's error.
#[derive(Debug, thiserror::Error)]
pub enum SubtaskError {
    #[error("The \"{0}\" parameter is required and must be a string")]
    MissingParameter(&'static str),
    #[error("Unknown agent type: {0} is not a valid agent type")]
    UnknownAgent(String),
    #[error("Cancelled")]
    Cancelled,
    #[error("Tool execution failed: {0}")]
    Failed(String),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

/// OpenCode's wrapping of a subagent's answer.
pub fn task_output(session_id: &str, text: &str) -> String {
    format!(
        "task_id: {session_id} (for resuming to continue this task if needed)\n\n<task_result>\n{text}\n</task_result>"
    )
}

fn last_text(reply: &MessageWithParts) -> String {
    reply
        .parts
        .iter()
        .rev()
        .find_map(|part| match &part.body {
            PartBody::Text(text) if text.synthetic != Some(true) => Some(text.text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// Runs `task` in a new child of `parent`; an abort of the parent run aborts the child.
pub(crate) async fn run(
    context: &ReplyContext,
    parent: &Session,
    task: &Task,
    control: &RunControl,
) -> Result<TaskResult, SubtaskError> {
    match context.agents().get(&task.agent) {
        Some(agent) if agent.mode != crate::models::agent::AgentMode::Primary => {}
        _ => return Err(SubtaskError::UnknownAgent(task.agent.clone())),
    }
    let child = context
        .create_session(CreateSession {
            parent_id: Some(parent.id.clone()),
            title: Some(format!("{} (@{} subagent)", task.description, task.agent)),
            ..CreateSession::default()
        })
        .await?;
    let input = PromptInput {
        agent: Some(task.agent.clone()),
        model: task.model.clone(),
        parts: vec![Draft::text(task.prompt.clone())],
        // The deprecated `tools` input becomes session rules: no tasks inside tasks.
        tools: Some(BTreeMap::from([("task".to_string(), false)])),
        ..PromptInput::default()
    };
    let reply = tokio::select! {
        biased;
        () = control.aborted() => {
            context.abort(&child.id);
            return Err(SubtaskError::Cancelled);
        }
        reply = context.prompt(&child.id, input) => reply?,
    };
    let text = last_text(&reply);
    if let crate::wire::message::Message::Assistant(assistant) = &reply.info {
        if let (Some(error), true) = (&assistant.error, text.is_empty()) {
            let message = serde_json::to_value(error)
                .ok()
                .and_then(|value| value.pointer("/data/message").cloned())
                .and_then(|message| message.as_str().map(str::to_string))
                .unwrap_or_else(|| "the subagent failed".into());
            return Err(SubtaskError::Failed(message));
        }
    }
    Ok(TaskResult {
        output: task_output(&child.id, &text),
        session_id: child.id,
    })
}

/// A subtask part of the prompt: an assistant message holding one `task` tool part, run in a
/// child session; the reply then continues with the model (reference §5.3).
pub(crate) async fn run_part(
    context: &ReplyContext,
    control: &RunControl,
    session: &Session,
    user: &UserMessage,
    subtask: crate::wire::part::SubtaskPart,
) -> Result<StepEnd, LedgerError> {
    let agent = match context.agents().get(&subtask.agent) {
        Some(agent) => agent.clone(),
        None => context.agents().default_agent()?.clone(),
    };
    let mut assistant = crate::reply::assistant_step::new_assistant(context, session, user, &agent);
    if let Some(model) = &subtask.model {
        assistant.provider_id.clone_from(&model.provider_id);
        assistant.model_id.clone_from(&model.model_id);
    }
    context.insert_reply_message(&assistant).await?;
    let task = crate::reply::subtask::Task {
        description: subtask.description.clone(),
        prompt: subtask.prompt.clone(),
        agent: subtask.agent.clone(),
        model: subtask.model.clone(),
    };
    let start = context.now();
    let mut part = crate::wire::part::Part {
        id: context.new_id(IdKind::Part),
        session_id: session.id.clone(),
        message_id: assistant.id.clone(),
        body: PartBody::Tool(crate::wire::part::ToolPart {
            call_id: context.new_id(IdKind::Part),
            tool: "task".into(),
            state: crate::wire::part::ToolState::Running {
                input: task.input(),
                title: Some(task.description.clone()),
                metadata: None,
                time: crate::wire::part::ToolStartTime { start },
            },
            metadata: None,
        }),
    };
    context.insert_reply_part(&part).await?;
    let result = crate::reply::subtask::run(context, session, &task, control).await;
    let end = context.now();
    let state = match result {
        Ok(result) => crate::wire::part::ToolState::Completed {
            input: task.input(),
            output: result.output,
            title: task.description.clone(),
            metadata: serde_json::json!({"sessionId": result.session_id}),
            time: crate::wire::part::ToolCompletedTime {
                start,
                end,
                compacted: None,
            },
            attachments: None,
        },
        Err(error) => crate::wire::part::ToolState::Error {
            input: task.input(),
            error: error.to_string(),
            metadata: None,
            time: crate::wire::part::ToolEndTime { start, end },
        },
    };
    if let PartBody::Tool(tool) = &mut part.body {
        tool.state = state;
    }
    context.store_reply_part(&part, true).await?;
    if control.is_aborted() {
        let error = AssistantError::MessageAbortedError {
            message: crate::reply::run_loop::ABORTED_MESSAGE.into(),
        };
        crate::reply::assistant_step::close(context, &mut assistant, Some(error)).await?;
        return Ok(StepEnd::Aborted);
    }
    assistant.finish = Some("tool-calls".into());
    crate::reply::assistant_step::close(context, &mut assistant, None).await?;
    Ok(StepEnd::Finished)
}

/// The `task` tool, listing the subagents it can start.
pub fn definition(context: &ReplyContext) -> Option<ToolDefinition> {
    let subagents: Vec<String> = context
        .agents()
        .list()
        .into_iter()
        .filter(|agent| agent.mode != crate::models::agent::AgentMode::Primary && !agent.hidden)
        .map(|agent| {
            format!(
                "- {}: {}",
                agent.name,
                agent.description.as_deref().unwrap_or("(no description)")
            )
        })
        .collect();
    (!subagents.is_empty()).then(|| ToolDefinition {
        name: "task".into(),
        description: format!(
            "Starts a subagent on a self-contained piece of work and returns its final answer. Available agent types:\n{}",
            subagents.join("\n")
        ),
        parameters: json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short (3-5 words) description of the task"},
                "prompt": {"type": "string", "description": "The task for the agent to perform"},
                "subagent_type": {"type": "string", "description": "The type of specialized agent to use for this task"}
            },
            "required": ["description", "prompt", "subagent_type"]
        }),
    })
}

/// The newest subtask part not yet handled: on a user message after the last finished reply.
pub fn pending(history: &[MessageWithParts]) -> Option<(String, crate::wire::part::SubtaskPart)> {
    let start = history
        .iter()
        .rposition(|message| match &message.info {
            crate::wire::message::Message::Assistant(assistant) => assistant.finish.is_some(),
            crate::wire::message::Message::User(_) => false,
        })
        .map_or(0, |index| index + 1);
    history[start..].iter().rev().find_map(|message| {
        let crate::wire::message::Message::User(user) = &message.info else {
            return None;
        };
        message
            .parts
            .iter()
            .rev()
            .find_map(|part| match &part.body {
                PartBody::Subtask(subtask) => Some((user.id.clone(), subtask.clone())),
                _ => None,
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_input_and_output_shapes() {
        let task = Task::from_input(
            &json!({"description": "Find notes", "prompt": "look", "subagent_type": "explore"}),
        );
        assert_eq!(
            task.ok(),
            Some(Task {
                description: "Find notes".into(),
                prompt: "look".into(),
                agent: "explore".into(),
                model: None
            })
        );
        assert_eq!(
            Task::from_input(&json!({"description": "x"})).map_err(|error| error.to_string()),
            Err("The \"prompt\" parameter is required and must be a string".into())
        );
        assert_eq!(
            task_output("ses_1", "found it"),
            "task_id: ses_1 (for resuming to continue this task if needed)\n\n<task_result>\nfound it\n</task_result>"
        );
    }
}
