//! The JSON lines Dossier and the local model worker exchange: `WorkerRequest` on the worker's
//! stdin, `WorkerEvent` on its stdout. The worker's own copy is
//! `src-tauri/local-model-worker/src/protocol.rs`; the worker is a separate binary so the core
//! never links llama.cpp, and the shapes are small enough to keep in step by hand (the engine
//! tests run the real worker).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkerRequest {
    Load {
        path: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        context_length: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        memory_budget_bytes: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        threads: Option<u32>,
    },
    Generate {
        id: String,
        /// Formatted by the worker with llama.cpp's template engine; empty when `prompt` is given.
        messages: Vec<WorkerMessage>,
        /// A prompt the core already wrote out with the model's template (a conversation with
        /// tools, `local_models::chat_template`): tokenised as it is, special tokens included.
        #[serde(skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max_tokens: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        temperature: Option<f32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        seed: Option<u32>,
    },
    Cancel,
    Unload,
}

/// What a reply is made from: messages for the worker's template engine, or a finished prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conversation {
    Messages(Vec<WorkerMessage>),
    Prompt(String),
}

impl From<Vec<WorkerMessage>> for Conversation {
    fn from(messages: Vec<WorkerMessage>) -> Self {
        Self::Messages(messages)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkerMessage {
    pub role: String,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkerEvent {
    Ready {
        simd: Vec<String>,
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
        stop_reason: String,
    },
    Unloaded,
    Error {
        #[serde(default)]
        id: Option<String>,
        kind: String,
        message: String,
    },
}
