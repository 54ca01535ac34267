//! The worker's side of the JSON-lines conversation with Dossier: one request per line on stdin,
//! one event per line on stdout. The core's `local_models::worker_protocol` mirrors these shapes;
//! the two are kept apart on purpose so the worker does not pull in the core (and the core does
//! not link llama.cpp).

use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// Load a GGUF file. `context_length` is a ceiling (the file's own training length is used
    /// when it is lower); `memory_budget_bytes` caps the context so its cache fits in memory.
    Load {
        path: String,
        #[serde(default)]
        context_length: Option<u32>,
        #[serde(default)]
        memory_budget_bytes: Option<u64>,
        #[serde(default)]
        threads: Option<u32>,
    },
    /// Format the messages with the model's own chat template (or take `prompt` as written
    /// out by Dossier, for a conversation with tools) and generate a reply.
    Generate {
        id: String,
        #[serde(default)]
        messages: Vec<ChatMessage>,
        #[serde(default)]
        prompt: Option<String>,
        #[serde(default)]
        max_tokens: Option<u32>,
        #[serde(default)]
        temperature: Option<f32>,
        #[serde(default)]
        seed: Option<u32>,
    },
    /// End the generation in progress after the current token.
    Cancel,
    /// Free the model; the worker stays up and can load another.
    Unload,
}

#[derive(Debug, Deserialize)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Sent once at start, before any request is read.
    Ready {
        simd: Vec<&'static str>,
        physical_cores: u32,
    },
    Loaded {
        context_length: u32,
        train_context_length: u32,
        threads: u32,
        model_bytes: u64,
        parameters: u64,
        chat_template_supports_tools: bool,
    },
    Delta {
        id: String,
        text: String,
    },
    Done {
        id: String,
        prompt_tokens: u32,
        completion_tokens: u32,
        stop_reason: StopReason,
    },
    Unloaded,
    Error {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        kind: ErrorKind,
        message: String,
    },
}

#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndOfText,
    MaxTokens,
    ContextFull,
    Cancelled,
}

#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    BadRequest,
    UnsupportedProcessor,
    NoModelLoaded,
    LoadFailed,
    ContextFailed,
    ChatTemplate,
    PromptTooLong,
    DecodeFailed,
}
