//! Provider `local` ("On this computer"): each installed GGUF file in the models folder is a
//! model, run by `local_models::local_engine` in a worker process. Its replies stream through the
//! same events as any provider's; its faults become the reply's typed error with the text kept.

use super::{EventStream, ModelProvider, ModelRequest, ProviderFailure, StreamEvent, Usage};
use crate::local_models::local_engine::{GenerationSettings, LocalEngine, ReplyEvent};
use crate::local_models::local_engine_error::LocalEngineError;
use crate::local_models::model_files::model_files;
use crate::local_models::worker_protocol::WorkerMessage;
use crate::models::config::{Config, ModelConfig, ProviderConfig};
use crate::models::model_messages::{AssistantContent, ModelMessage, UserContent};
use async_trait::async_trait;
use futures::StreamExt;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

pub const PROVIDER_ID: &str = "local";
/// The provider's English name; the window shows its own translation for provider `local`.
pub const PROVIDER_NAME: &str = "On this computer";

/// When the agent sets none: llama.cpp's own default is 0.8; a little lower keeps small models
/// on topic without the loops greedy decoding falls into.
const DEFAULT_TEMPERATURE: f32 = 0.7;

pub struct LocalModel {
    engine: Arc<LocalEngine>,
}

impl LocalModel {
    pub fn new(engine: Arc<LocalEngine>) -> Self {
        Self { engine }
    }
}

/// Adds provider `local`, first, with one model per installed file, unless the folder holds none
/// or the config defines `local` itself. First, because a model on this computer is the default
/// for new sessions once one is installed (`ModelCatalog::first_available`).
pub fn add_installed(config: &mut Config, models_dir: &Path) {
    if config.provider.contains_key(PROVIDER_ID) {
        return;
    }
    let models = model_files(models_dir);
    if models.is_empty() {
        return;
    }
    let provider = ProviderConfig {
        name: Some(PROVIDER_NAME.into()),
        models: models
            .into_iter()
            .map(|model| {
                (
                    model.id.clone(),
                    ModelConfig {
                        name: Some(model.id),
                        ..ModelConfig::default()
                    },
                )
            })
            .collect(),
        ..ProviderConfig::default()
    };
    config
        .provider
        .shift_insert(0, PROVIDER_ID.into(), provider);
}

#[async_trait]
impl ModelProvider for LocalModel {
    async fn stream(&self, request: ModelRequest) -> Result<EventStream, ProviderFailure> {
        let settings = GenerationSettings {
            max_tokens: request.max_output_tokens,
            temperature: Some(
                request
                    .temperature
                    .map_or(DEFAULT_TEMPERATURE, |temperature| temperature as f32),
            ),
            // A fresh seed each reply, so asking again can give another answer.
            seed: Some(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |elapsed| elapsed.subsec_nanos()),
            ),
        };
        let messages = worker_messages(&request);
        let replies = self
            .engine
            .generate(&request.model_id, messages, settings)
            .await
            .map_err(|error| failure(&error))?;
        let mut started = false;
        let events = replies.flat_map(move |event| {
            let events: Vec<Result<StreamEvent, ProviderFailure>> = match event {
                Ok(ReplyEvent::Text(text)) => {
                    let mut events = Vec::new();
                    if !started {
                        started = true;
                        events.push(Ok(StreamEvent::TextStart));
                    }
                    events.push(Ok(StreamEvent::TextDelta(text)));
                    events
                }
                Ok(ReplyEvent::Finished {
                    prompt_tokens,
                    completion_tokens,
                    stop_reason,
                }) => {
                    let mut events = Vec::new();
                    if started {
                        events.push(Ok(StreamEvent::TextEnd));
                    }
                    let reason = match stop_reason.as_str() {
                        "max_tokens" | "context_full" => "length",
                        _ => "stop",
                    };
                    events.push(Ok(StreamEvent::Finish {
                        reason: reason.into(),
                        usage: Usage {
                            input: u64::from(prompt_tokens),
                            output: u64::from(completion_tokens),
                            ..Usage::default()
                        },
                    }));
                    events
                }
                Err(error) => vec![Err(failure(&error))],
            };
            futures::stream::iter(events)
        });
        Ok(events.boxed())
    }

    /// Reading a tool call out of a local model's text is not built yet, so none is offered (the
    /// worker already reports which templates mention tools).
    fn takes_tools(&self) -> bool {
        false
    }
}

/// The reply's typed error for a local model fault, in the engine's plain words.
pub fn failure(error: &LocalEngineError) -> ProviderFailure {
    let message = error.to_string();
    match error {
        LocalEngineError::WorkerDied { .. } => ProviderFailure::StreamCut { message },
        LocalEngineError::PromptTooLong { .. } => ProviderFailure::ContextOverflow {
            message,
            response_body: None,
        },
        _ => ProviderFailure::Api {
            message,
            status: None,
            retryable: false,
            retry_headers: BTreeMap::new(),
            response_body: None,
        },
    }
}

/// The conversation as role + text for the model's chat template. Tools are not offered to local
/// models yet, so earlier tool calls and results (from another model) are told as plain text.
fn worker_messages(request: &ModelRequest) -> Vec<WorkerMessage> {
    let mut messages = Vec::new();
    let system = request.system.join("\n\n");
    if !system.trim().is_empty() {
        messages.push(WorkerMessage {
            role: "system".into(),
            content: system,
        });
    }
    for message in &request.messages {
        let (role, content) = match message {
            ModelMessage::User(parts) => (
                "user",
                parts
                    .iter()
                    .map(|part| match part {
                        UserContent::Text(text) => text.clone(),
                        UserContent::File {
                            filename,
                            media_type,
                            ..
                        } => format!(
                            "[Attached file {} ({media_type}), which this model cannot read]",
                            filename.as_deref().unwrap_or("without a name")
                        ),
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            ),
            ModelMessage::Assistant(parts) => (
                "assistant",
                parts
                    .iter()
                    .filter_map(|part| match part {
                        AssistantContent::Text(text) => Some(text.clone()),
                        AssistantContent::ToolCall { name, input, .. } => {
                            Some(format!("[Called the tool {name} with {input}]"))
                        }
                        AssistantContent::Reasoning { .. }
                        | AssistantContent::RedactedReasoning(_) => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            ),
            ModelMessage::Tool(results) => (
                "user",
                results
                    .iter()
                    .map(|result| {
                        format!("[Result of the tool {}]\n{}", result.name, result.output)
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            ),
        };
        // Templates expect turns to alternate; two turns of the same role are joined.
        match messages.last_mut() {
            Some(last) if last.role == role => {
                last.content.push_str("\n\n");
                last.content.push_str(&content);
            }
            _ => messages.push(WorkerMessage {
                role: role.into(),
                content,
            }),
        }
    }
    messages
}
