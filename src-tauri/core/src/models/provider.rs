//! Model providers behind one streaming interface: a request of provider-neutral messages goes
//! in, a stream of `StreamEvent`s comes out. Which client serves a model is decided here from the
//! config's `provider` section; API keys are looked up here and go nowhere but the request.

use crate::models::config::{Config, ProviderConfig};
use crate::models::model_catalog::OFFLINE_PROVIDER_ID;
use crate::models::model_messages::ModelMessage;
use crate::wire::assistant_error::{ApiErrorData, AssistantError};
use crate::wire::message::{MessageWithParts, ModelRef};
use async_trait::async_trait;
use futures::Stream;
use serde_json::Value;
use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::Arc;

pub mod anthropic;
pub mod http_client;
pub mod local_model;
pub mod offline;
pub mod ollama;
pub mod openai_compatible;
pub mod server_sent_events;

/// Everything a provider needs for one step (one HTTP call).
#[derive(Debug, Clone)]
pub struct ModelRequest {
    pub model_id: String,
    pub system: Vec<String>,
    pub messages: Vec<ModelMessage>,
    pub tools: Vec<ToolDefinition>,
    /// The stored conversation the messages were made from; only the offline model reads it,
    /// to describe the attachments it received (a reply leaves it empty for any other provider).
    pub history: Arc<Vec<MessageWithParts>>,
    pub max_output_tokens: Option<u32>,
    /// The agent's sampling settings, sent only when set.
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    /// The chosen variant's provider options in the AI SDK's camelCase names (for example
    /// `reasoningEffort`, `thinking.budgetTokens`); each client puts them on its wire.
    pub options: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    /// JSON Schema of the tool's input.
    pub parameters: Value,
}

/// What a provider's stream says, in the order the model said it.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextStart,
    TextDelta(String),
    TextEnd,
    ReasoningStart,
    ReasoningDelta(String),
    ReasoningEnd,
    /// Anthropic's signature over the thinking just streamed; it must come back with the
    /// thinking when the conversation is replayed, or Anthropic refuses the block.
    ReasoningSignature(String),
    /// Thinking Anthropic's safety systems encrypted: no text, only data to send back as it is.
    RedactedReasoning(String),
    ToolInputStart {
        call_id: String,
        name: String,
    },
    /// The complete call; `input` is the raw JSON text the model produced.
    ToolCall {
        call_id: String,
        name: String,
        input: String,
    },
    Finish {
        reason: String,
        usage: Usage,
    },
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub reasoning: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

/// Why talking to a provider failed, before it becomes the assistant's typed error. Messages
/// are the provider's own words (or ours), never an API key or a stack trace.
#[derive(Debug, Clone, PartialEq)]
pub enum ProviderFailure {
    Auth {
        message: String,
    },
    ContextOverflow {
        message: String,
        response_body: Option<String>,
    },
    Api {
        message: String,
        status: Option<u16>,
        retryable: bool,
        /// Only the `retry-after` family of response headers, which decide the back-off.
        retry_headers: BTreeMap<String, String>,
        response_body: Option<String>,
    },
    /// The connection ended before the reply did.
    StreamCut {
        message: String,
    },
    /// The model cannot be called at all (no base URL, unknown provider).
    Unusable {
        message: String,
    },
}

impl ProviderFailure {
    pub fn message(&self) -> &str {
        match self {
            Self::Auth { message }
            | Self::ContextOverflow { message, .. }
            | Self::Api { message, .. }
            | Self::StreamCut { message }
            | Self::Unusable { message } => message,
        }
    }

    /// Replaces every occurrence of `secret` (an API key some providers echo back in their
    /// error bodies) so it reaches neither the ledger nor an event.
    pub fn redact(self, secret: Option<&str>) -> Self {
        let Some(secret) = secret.filter(|secret| secret.len() >= 8) else {
            return self;
        };
        let clean = |text: String| text.replace(secret, "[redacted]");
        match self {
            Self::Auth { message } => Self::Auth {
                message: clean(message),
            },
            Self::ContextOverflow {
                message,
                response_body,
            } => Self::ContextOverflow {
                message: clean(message),
                response_body: response_body.map(clean),
            },
            Self::Api {
                message,
                status,
                retryable,
                retry_headers,
                response_body,
            } => Self::Api {
                message: clean(message),
                status,
                retryable,
                retry_headers,
                response_body: response_body.map(clean),
            },
            Self::StreamCut { message } => Self::StreamCut {
                message: clean(message),
            },
            Self::Unusable { message } => Self::Unusable {
                message: clean(message),
            },
        }
    }

    pub fn to_assistant_error(&self, provider_id: &str) -> AssistantError {
        match self {
            Self::Auth { message } => AssistantError::ProviderAuthError {
                provider_id: provider_id.to_string(),
                message: message.clone(),
            },
            Self::ContextOverflow {
                message,
                response_body,
            } => AssistantError::ContextOverflowError {
                message: message.clone(),
                response_body: response_body.clone(),
            },
            Self::Api {
                message,
                status,
                retryable,
                retry_headers,
                response_body,
            } => AssistantError::ApiError(ApiErrorData {
                message: message.clone(),
                status_code: *status,
                is_retryable: *retryable,
                response_headers: (!retry_headers.is_empty()).then(|| {
                    Value::Object(
                        retry_headers
                            .iter()
                            .map(|(name, value)| (name.clone(), Value::String(value.clone())))
                            .collect(),
                    )
                }),
                response_body: response_body.clone(),
                metadata: None,
            }),
            Self::StreamCut { message } => AssistantError::ApiError(ApiErrorData {
                message: message.clone(),
                status_code: None,
                is_retryable: false,
                response_headers: None,
                response_body: None,
                metadata: None,
            }),
            Self::Unusable { message } => AssistantError::unknown(message.clone()),
        }
    }
}

pub type EventStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, ProviderFailure>> + Send>>;

#[async_trait]
pub trait ModelProvider: Send + Sync {
    /// Starts one streamed call. HTTP-level failures (status codes) come back here; failures
    /// after the reply began come through the stream.
    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderFailure>;

    /// True for the built-in offline model, which takes no tools and needs no network.
    fn is_offline(&self) -> bool {
        false
    }

    /// Whether tools are offered to the provider's models: not to the offline model. Per model,
    /// the catalog's `tool_call` can still say no (models on this computer whose template takes
    /// no tools).
    fn takes_tools(&self) -> bool {
        !self.is_offline()
    }

    /// Whether images a tool returned may sit inside the tool result (else they follow in a
    /// user message).
    fn media_in_tool_results(&self) -> bool {
        false
    }
}

/// The wire protocol a configured provider speaks, from its `npm` package name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    OpenAiCompatible,
    Anthropic,
}

pub fn protocol_of(provider_id: &str, provider: &ProviderConfig) -> Protocol {
    match provider.npm.as_deref() {
        Some("@ai-sdk/anthropic") => Protocol::Anthropic,
        Some(_) => Protocol::OpenAiCompatible,
        None if provider_id == "anthropic" => Protocol::Anthropic,
        None => Protocol::OpenAiCompatible,
    }
}

/// The base URL: the configured one, else the well-known one for the provider's id or package.
pub fn base_url_of(provider_id: &str, provider: &ProviderConfig) -> Option<String> {
    if let Some(url) = provider.options.base_url.as_deref() {
        return Some(url.trim_end_matches('/').to_string());
    }
    let known = match (provider_id, provider.npm.as_deref()) {
        (_, Some("@ai-sdk/anthropic")) | ("anthropic", _) => "https://api.anthropic.com/v1",
        (_, Some("@ai-sdk/openai")) | ("openai", _) => "https://api.openai.com/v1",
        ("openrouter", _) => "https://openrouter.ai/api/v1",
        ("groq", _) => "https://api.groq.com/openai/v1",
        ("deepseek", _) => "https://api.deepseek.com/v1",
        ("ollama", _) => "http://127.0.0.1:11434/v1",
        _ => return None,
    };
    Some(known.to_string())
}

/// The API key: `options.apiKey`, else the provider's `env` variables, else
/// `<PROVIDER_ID>_API_KEY`. A pure function of the environment lookup, for table tests.
pub fn api_key_of(
    provider_id: &str,
    provider: &ProviderConfig,
    environment: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    if let Some(key) = provider.options.api_key.as_deref() {
        if let Some(variable) = key
            .strip_prefix("{env:")
            .and_then(|rest| rest.strip_suffix('}'))
        {
            return environment(variable).filter(|value| !value.is_empty());
        }
        return Some(key.to_string());
    }
    let conventional = format!(
        "{}_API_KEY",
        provider_id.to_ascii_uppercase().replace(['-', '.'], "_")
    );
    provider
        .env
        .iter()
        .map(String::as_str)
        .chain(std::iter::once(conventional.as_str()))
        .find_map(|variable| environment(variable).filter(|value| !value.is_empty()))
}

/// Picks the client for `model`, with a key from the config or the environment only.
/// `Ledger::model_provider` also looks in the keychain (see `credentials`).
pub fn resolve(
    config: &Config,
    model: &ModelRef,
    client: &reqwest::Client,
) -> Result<Arc<dyn ModelProvider>, ProviderFailure> {
    let api_key = config
        .provider
        .get(&model.provider_id)
        .and_then(|provider| {
            api_key_of(&model.provider_id, provider, |name| {
                std::env::var(name).ok()
            })
        });
    resolve_with_key(config, model, client, api_key)
}

/// Picks the client for `model`, sending `api_key` (already looked up) with each request.
pub fn resolve_with_key(
    config: &Config,
    model: &ModelRef,
    client: &reqwest::Client,
    api_key: Option<String>,
) -> Result<Arc<dyn ModelProvider>, ProviderFailure> {
    if model.provider_id == OFFLINE_PROVIDER_ID {
        return Ok(Arc::new(offline::OfflineModel));
    }
    let Some(provider) = config.provider.get(&model.provider_id) else {
        return Err(ProviderFailure::Unusable {
            message: format!(
                "Provider \"{}\" is not configured; add it to the provider section of the config",
                model.provider_id
            ),
        });
    };
    let Some(base_url) = base_url_of(&model.provider_id, provider) else {
        return Err(ProviderFailure::Unusable {
            message: format!(
                "Provider \"{}\" has no options.baseURL, so Dossier does not know where to send requests",
                model.provider_id
            ),
        });
    };
    Ok(match protocol_of(&model.provider_id, provider) {
        Protocol::Anthropic => Arc::new(anthropic::AnthropicMessages::new(
            client.clone(),
            base_url,
            api_key,
        )),
        Protocol::OpenAiCompatible => Arc::new(openai_compatible::ChatCompletions::new(
            client.clone(),
            base_url,
            api_key,
        )),
    })
}

/// How much of an error response body is kept on the reply.
pub const MAX_KEPT_BODY: usize = 8 * 1024;

/// Turns a non-success HTTP answer into a failure, with the provider's own message.
pub(crate) fn failure_from_response(
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: String,
) -> ProviderFailure {
    // A proxy's HTML error page can be large; the start says what happened.
    let body: String = body.chars().take(MAX_KEPT_BODY).collect();
    let message = provider_message(&body).unwrap_or_else(|| {
        reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|code| code.canonical_reason())
            .map_or_else(|| format!("HTTP {status}"), str::to_string)
    });
    if status == 401 || status == 403 {
        return ProviderFailure::Auth { message };
    }
    if is_context_overflow(&message) || is_context_overflow(&body) {
        return ProviderFailure::ContextOverflow {
            message,
            response_body: Some(body),
        };
    }
    let retry_headers: BTreeMap<String, String> = ["retry-after", "retry-after-ms"]
        .iter()
        .filter_map(|name| {
            headers
                .get(*name)
                .and_then(|value| value.to_str().ok())
                .map(|value| (name.to_string(), value.to_string()))
        })
        .collect();
    let lowered = body.to_ascii_lowercase();
    let retryable = status == 429
        || status >= 500
        || lowered.contains("overloaded")
        || lowered.contains("rate limit");
    ProviderFailure::Api {
        message,
        status: Some(status),
        retryable,
        retry_headers,
        response_body: Some(body),
    }
}

/// `{"error": {"message": …}}`, `{"error": "…"}` or `{"message": …}` — the shapes providers use.
pub(crate) fn provider_message(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let error = value.get("error").unwrap_or(&value);
    error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .map(str::to_string)
        .filter(|message| !message.is_empty())
}

/// A request that never got an answer. The URL is ours (keys travel in headers), but the
/// error's own text is dropped in favour of a plain sentence.
pub(crate) fn connection_failure(base_url: &str, error: reqwest::Error) -> ProviderFailure {
    let reason = if error.is_connect() {
        "the connection was refused or could not be made"
    } else if error.is_timeout() {
        "the request timed out"
    } else {
        "the request failed"
    };
    tracing::warn!(error = %error.without_url(), base_url, "provider request failed");
    ProviderFailure::Api {
        message: format!("Cannot reach the provider at {base_url}: {reason}"),
        status: None,
        retryable: false,
        retry_headers: BTreeMap::new(),
        response_body: None,
    }
}

pub(crate) fn stream_cut() -> ProviderFailure {
    ProviderFailure::StreamCut {
        message: "The connection to the provider closed before the reply finished".into(),
    }
}

/// The phrases providers use when the prompt does not fit the model's context window.
pub fn is_context_overflow(text: &str) -> bool {
    const PHRASES: [&str; 7] = [
        "context_length_exceeded",
        "maximum context length",
        "prompt is too long",
        "exceeds the context window",
        "context window",
        "input is too long",
        "reduce the length of the messages",
    ];
    let lowered = text.to_ascii_lowercase();
    PHRASES.iter().any(|phrase| lowered.contains(phrase))
}

#[cfg(test)]
mod tests;
