//! The `chat.message` hook point: after drafts are resolved and before anything is saved, every
//! hook may edit the message and its parts. Hooks are in-process (`ChatMessageHook`) or
//! external commands that read `{message, parts}` JSON on stdin and print the edited JSON.
//! A hook that fails, times out or returns something invalid is reported and skipped: the input
//! as it was before that hook is what gets saved.

use crate::models::config::CommandHookConfig;
use crate::wire::assistant_error::AssistantError;
use crate::wire::message::UserMessage;
use crate::wire::part::Part;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub message: UserMessage,
    pub parts: Vec<Part>,
}

#[async_trait]
pub trait ChatMessageHook: Send + Sync {
    /// A short name for error messages.
    fn name(&self) -> String;
    async fn chat_message(&self, input: ChatMessage) -> Result<ChatMessage, HookError>;
}

/// Why a hook's edit was skipped; shown inside "The chat.message hook … failed (…)".
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("the hook has an empty command")]
    EmptyCommand,
    #[error("could not start {program}: {source}")]
    Start {
        program: String,
        source: std::io::Error,
    },
    #[error("timed out after {} ms", .0.as_millis())]
    TimedOut(Duration),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Encode(serde_json::Error),
    #[error("exited with {status}: {stderr}")]
    Failed {
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("printed something that is not {{message, parts}} JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("it changed the message's id or session")]
    ChangedIdentity,
    #[error("part {0} does not belong to this message")]
    ForeignPart(String),
    #[error("part id {id} is invalid: {reason}")]
    InvalidPartId {
        id: String,
        reason: crate::wire::id::IdError,
    },
    #[error("part id {0} appears twice")]
    DuplicatePart(String),
    /// An in-process hook's own reason for refusing the message.
    #[error("{0}")]
    Refused(String),
}

/// An external hook: a program and its arguments, run without a shell.
pub struct CommandHook {
    command: Vec<String>,
    timeout: Duration,
}

impl CommandHook {
    pub fn new(command: Vec<String>, timeout: Duration) -> Self {
        Self { command, timeout }
    }

    pub fn from_config(config: &CommandHookConfig) -> Self {
        Self::new(
            config.command.clone(),
            config
                .timeout
                .map_or(DEFAULT_HOOK_TIMEOUT, Duration::from_millis),
        )
    }
}

#[async_trait]
impl ChatMessageHook for CommandHook {
    fn name(&self) -> String {
        self.command.join(" ")
    }

    async fn chat_message(&self, input: ChatMessage) -> Result<ChatMessage, HookError> {
        let (program, arguments) = self.command.split_first().ok_or(HookError::EmptyCommand)?;
        let payload = serde_json::to_vec(&input).map_err(HookError::Encode)?;
        let mut child = tokio::process::Command::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| HookError::Start {
                program: program.clone(),
                source,
            })?;
        let run = async {
            if let Some(mut stdin) = child.stdin.take() {
                // A hook may exit without reading its input; that is its business.
                if let Err(error) = stdin.write_all(&payload).await {
                    tracing::debug!(%error, "hook closed its input early");
                }
            }
            child.wait_with_output().await
        };
        let output = tokio::time::timeout(self.timeout, run)
            .await
            .map_err(|_| HookError::TimedOut(self.timeout))??;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let stderr: String = stderr.trim().chars().take(500).collect();
            return Err(HookError::Failed {
                status: output.status,
                stderr,
            });
        }
        serde_json::from_slice(&output.stdout).map_err(HookError::NotJson)
    }
}

/// Checks that a hook kept the identity of what it was given: the same message and session,
/// every part belonging to them, no id twice.
fn check_output(before: &ChatMessage, after: &ChatMessage) -> Result<(), HookError> {
    if after.message.id != before.message.id
        || after.message.session_id != before.message.session_id
    {
        return Err(HookError::ChangedIdentity);
    }
    let mut seen = HashSet::new();
    for part in &after.parts {
        if part.message_id != before.message.id || part.session_id != before.message.session_id {
            return Err(HookError::ForeignPart(part.id.clone()));
        }
        crate::wire::id::validate_given(crate::wire::id::IdKind::Part, &part.id).map_err(
            |reason| HookError::InvalidPartId {
                id: part.id.clone(),
                reason,
            },
        )?;
        if !seen.insert(part.id.as_str()) {
            return Err(HookError::DuplicatePart(part.id.clone()));
        }
    }
    Ok(())
}

/// Runs the hooks in order. Returns the final message and the errors to report.
pub async fn run_hooks(
    hooks: &[std::sync::Arc<dyn ChatMessageHook>],
    mut current: ChatMessage,
) -> (ChatMessage, Vec<AssistantError>) {
    let mut errors = Vec::new();
    for hook in hooks {
        let outcome = hook.chat_message(current.clone()).await.and_then(|edited| {
            check_output(&current, &edited)?;
            Ok(edited)
        });
        match outcome {
            Ok(edited) => current = edited,
            Err(message) => {
                let message = format!(
                    "The chat.message hook \"{}\" failed ({message}); your message was saved without its changes",
                    hook.name()
                );
                tracing::warn!(%message);
                errors.push(AssistantError::unknown(message));
            }
        }
    }
    (current, errors)
}
