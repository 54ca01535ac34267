//! Provider `local` ("On this computer"): each installed GGUF file in the models folder is a
//! model, run by `local_models::local_engine` in a worker process. Its replies stream through the
//! same events as any provider's; its faults become the reply's typed error with the text kept.

use super::{EventStream, ModelProvider, ModelRequest, ProviderFailure};
use crate::local_models::local_engine::{GenerationSettings, LocalEngine};
use crate::local_models::local_engine_error::LocalEngineError;
use crate::local_models::model_files::model_files;
use crate::local_models::tool_call_format::ToolCallFormat;
use crate::local_models::worker_protocol::Conversation;
use crate::models::config::{Config, ModelConfig, ProviderConfig};
use async_trait::async_trait;
use futures::StreamExt;
use std::collections::BTreeMap;
use std::sync::Arc;

mod conversation;
mod reply_events;

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
/// for new sessions once one is installed (`ModelCatalog::first_available`). Each model says
/// whether it takes tools, from its own chat template (`tool_call`), so the loop offers tools
/// only to those.
pub fn add_installed(config: &mut Config, engine: &LocalEngine) {
    if config.provider.contains_key(PROVIDER_ID) {
        return;
    }
    let models = model_files(&engine.options().models_dir);
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
                        tool_call: Some(engine.tools_template(&model.id).is_some()),
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
    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderFailure> {
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
        let engine = Arc::clone(&self.engine);
        let model_id = request.model_id.clone();
        let template = tokio::task::spawn_blocking(move || engine.tools_template(&model_id))
            .await
            .ok()
            .flatten();
        // A template that takes tools is run here (with the tools, and with earlier calls in
        // their own shape) and the worker gets the finished prompt; any other goes to
        // llama.cpp's own template engine as role + text.
        let (conversation, format) = match template {
            Some(tools) => {
                let mut messages = conversation::template_messages(request);
                if tools.format == ToolCallFormat::LlamaJson {
                    messages = conversation::one_call_per_turn(messages);
                }
                let prompt = tools
                    .template
                    .render(&messages, &conversation::template_tools(request), true)
                    .map_err(|error| failure(&error))?;
                let offered = !request.tools.is_empty();
                (
                    Conversation::Prompt(prompt),
                    offered.then_some(tools.format),
                )
            }
            None => (
                Conversation::Messages(conversation::worker_messages(request)),
                None,
            ),
        };
        let replies = self
            .engine
            .generate(&request.model_id, conversation, settings)
            .await
            .map_err(|error| failure(&error))?;
        let mut events = reply_events::ReplyEvents::new(&request.model_id, format);
        Ok(replies
            .flat_map(move |event| futures::stream::iter(events.on(event)))
            .boxed())
    }

    /// Per model: the catalog's `tool_call` (from each model's template, `add_installed`) decides
    /// whether the loop offers tools.
    fn takes_tools(&self) -> bool {
        true
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
