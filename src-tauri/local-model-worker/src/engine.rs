//! llama.cpp behind three calls: load a file, generate a reply, unload. A context is made for each
//! reply and dropped after it, so the worker holds no state between replies but the model itself
//! (the prompt is evaluated again each time; prompt caching is left for later).

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;

use crate::protocol::{ChatMessage, ErrorKind, StopReason};

/// Tokens evaluated per `decode` call while reading the prompt (llama.cpp's default batch).
const PROMPT_BATCH: usize = 512;
/// Used when the request names no limit: a long answer, well short of most contexts.
const DEFAULT_MAX_TOKENS: u32 = 2048;
/// The cache is never cut below this, so a tight memory budget still leaves room for a chat turn.
const MINIMUM_CONTEXT: u32 = 512;

pub struct Failure {
    pub kind: ErrorKind,
    pub message: String,
}

fn failure(kind: ErrorKind, message: impl Into<String>) -> Failure {
    Failure {
        kind,
        message: message.into(),
    }
}

pub struct LoadedModel {
    model: LlamaModel,
    template: Option<LlamaChatTemplate>,
    name: String,
    pub context_length: u32,
    pub train_context_length: u32,
    pub threads: u32,
    pub chat_template_supports_tools: bool,
}

pub struct LoadOptions {
    pub context_length: Option<u32>,
    pub memory_budget_bytes: Option<u64>,
    pub threads: u32,
}

pub fn load(
    backend: &LlamaBackend,
    path: &Path,
    options: &LoadOptions,
) -> Result<LoadedModel, Failure> {
    let name = path.file_stem().map_or_else(
        || path.display().to_string(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    if !path.is_file() {
        return Err(failure(
            ErrorKind::LoadFailed,
            format!("The model file {} does not exist.", path.display()),
        ));
    }
    let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default()).map_err(|error| {
        failure(
            ErrorKind::LoadFailed,
            format!("llama.cpp could not load the model {name} ({error}): the file may be incomplete, damaged, or of an architecture this engine does not know."),
        )
    })?;
    let train_context_length = model.n_ctx_train().max(1);
    let mut context_length = options
        .context_length
        .map_or(train_context_length, |ceiling| {
            ceiling.min(train_context_length)
        });
    if let Some(budget) = options.memory_budget_bytes {
        let fitting = budget / cache_bytes_per_token(&model).max(1);
        let fitting = u32::try_from(fitting)
            .unwrap_or(u32::MAX)
            .max(MINIMUM_CONTEXT);
        context_length = context_length.min(fitting);
    }
    // A model without an embedded template is still loaded; a reply then fails with the model
    // named, which is the sentence the person needs.
    let template = model.chat_template(None).ok();
    let chat_template_supports_tools = template
        .as_ref()
        .and_then(|template| {
            template
                .to_str()
                .ok()
                .map(|text| text.contains("tools") || text.contains("tool_call"))
        })
        .unwrap_or(false);
    Ok(LoadedModel {
        model,
        template,
        name,
        context_length,
        train_context_length,
        threads: options.threads,
        chat_template_supports_tools,
    })
}

/// The key and value cache's size for one token at 16-bit precision, llama.cpp's default.
fn cache_bytes_per_token(model: &LlamaModel) -> u64 {
    let layers = u64::from(model.n_layer());
    let heads = u64::from(model.n_head()).max(1);
    let kv_heads = u64::from(model.n_head_kv()).max(1);
    let width = u64::try_from(model.n_embd()).unwrap_or(0);
    let kv_width = width / heads * kv_heads;
    2 * layers * kv_width * 2
}

impl LoadedModel {
    pub fn model_bytes(&self) -> u64 {
        self.model.size()
    }

    pub fn parameters(&self) -> u64 {
        self.model.n_params()
    }
}

pub struct GenerateOptions {
    pub max_tokens: Option<u32>,
    pub temperature: f32,
    pub seed: u32,
}

pub struct Outcome {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub stop_reason: StopReason,
}

/// What a reply is made from.
pub enum Input<'a> {
    /// Formatted here with llama.cpp's template engine.
    Messages(&'a [ChatMessage]),
    /// Already written out with the model's template by Dossier (a conversation with tools).
    Prompt(&'a str),
}

pub fn generate(
    backend: &LlamaBackend,
    loaded: &LoadedModel,
    input: Input<'_>,
    options: &GenerateOptions,
    cancelled: &AtomicBool,
    mut on_text: impl FnMut(&str),
) -> Result<Outcome, Failure> {
    let prompt = match input {
        Input::Messages(messages) => apply_template(loaded, messages)?,
        Input::Prompt(prompt) => prompt.to_string(),
    };
    let vocab = loaded.model.vocab();
    let mut tokens = vocab.tokenize(prompt.as_bytes(), true, true);
    // A template that writes `bos_token` itself, tokenised with the model's own begin token
    // added, starts with two; llama.cpp's server drops one the same way.
    let bos = vocab.bos();
    if tokens.len() >= 2 && tokens[0] == bos && tokens[1] == bos {
        tokens.remove(0);
    }
    let prompt_tokens = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
    if prompt_tokens >= loaded.context_length {
        return Err(failure(
            ErrorKind::PromptTooLong,
            format!(
                "The conversation is {prompt_tokens} tokens long, more than the {} the model {} has room for here.",
                loaded.context_length, loaded.name
            ),
        ));
    }
    let threads = i32::try_from(loaded.threads).unwrap_or(1).max(1);
    let batch_size = PROMPT_BATCH.min(loaded.context_length as usize);
    let context_params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(loaded.context_length))
        .with_n_batch(batch_size as u32)
        .with_n_ubatch(batch_size as u32)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let mut context = loaded
        .model
        .new_context(backend, context_params)
        .map_err(|error| {
            failure(
                ErrorKind::ContextFailed,
                format!(
                    "llama.cpp could not make room for a conversation with {} ({error}).",
                    loaded.name
                ),
            )
        })?;

    let decode_failed = |error: &dyn std::fmt::Display| {
        failure(
            ErrorKind::DecodeFailed,
            format!("llama.cpp stopped while running {}: {error}", loaded.name),
        )
    };
    let mut batch = LlamaBatch::new(batch_size, 1);
    let mut position: i32 = 0;
    for (chunk_index, chunk) in tokens.chunks(batch_size).enumerate() {
        if cancelled.load(Ordering::SeqCst) {
            return Ok(Outcome {
                prompt_tokens,
                completion_tokens: 0,
                stop_reason: StopReason::Cancelled,
            });
        }
        batch.clear();
        let last_chunk = (chunk_index + 1) * batch_size >= tokens.len();
        for (index, token) in chunk.iter().enumerate() {
            let wants_logits = last_chunk && index + 1 == chunk.len();
            batch
                .add(*token, position, &[0], wants_logits)
                .map_err(|error| decode_failed(&error))?;
            position += 1;
        }
        context
            .decode(&mut batch)
            .map_err(|error| decode_failed(&error))?;
    }

    let mut sampler = if options.temperature <= 0.0 {
        LlamaSampler::greedy()
    } else {
        LlamaSampler::chain_simple([
            LlamaSampler::top_k(40),
            LlamaSampler::top_p(0.95, 1),
            LlamaSampler::min_p(0.05, 1),
            LlamaSampler::temp(options.temperature),
            LlamaSampler::dist(options.seed),
        ])
    };
    let max_tokens = options.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let mut completion_tokens = 0u32;
    // A token can end in the middle of a UTF-8 character; the bytes wait here until it is whole.
    let mut pending = Vec::new();
    let stop_reason = loop {
        if cancelled.load(Ordering::SeqCst) {
            break StopReason::Cancelled;
        }
        if completion_tokens >= max_tokens {
            break StopReason::MaxTokens;
        }
        if position as u32 >= loaded.context_length {
            break StopReason::ContextFull;
        }
        let token = sampler.sample(&context, batch.n_tokens() - 1);
        if vocab.is_eog(token) {
            break StopReason::EndOfText;
        }
        completion_tokens += 1;
        pending.extend(vocab.token_to_piece(token, false, None));
        let whole = match std::str::from_utf8(&pending) {
            Ok(text) => text.len(),
            Err(error) if error.error_len().is_none() => error.valid_up_to(),
            // Bytes that can never become UTF-8: pass them on replaced rather than stall.
            Err(_) => pending.len(),
        };
        if whole > 0 {
            let text = String::from_utf8_lossy(&pending[..whole]).into_owned();
            pending.drain(..whole);
            on_text(&text);
        }
        batch.clear();
        batch
            .add(token, position, &[0], true)
            .map_err(|error| decode_failed(&error))?;
        position += 1;
        context
            .decode(&mut batch)
            .map_err(|error| decode_failed(&error))?;
    };
    if !pending.is_empty() {
        on_text(&String::from_utf8_lossy(&pending));
    }
    Ok(Outcome {
        prompt_tokens,
        completion_tokens,
        stop_reason,
    })
}

/// The messages in the model's own chat template, by llama.cpp's built-in template engine.
fn apply_template(loaded: &LoadedModel, messages: &[ChatMessage]) -> Result<String, Failure> {
    let template = loaded.template.as_ref().ok_or_else(|| {
        failure(ErrorKind::ChatTemplate, format!("The model {} has no chat template in its file, so Dossier cannot format a conversation for it.", loaded.name))
    })?;
    let chat = messages
        .iter()
        .map(|message| LlamaChatMessage::new(message.role.clone(), message.content.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| {
            failure(
                ErrorKind::BadRequest,
                format!("A message cannot be given to llama.cpp: {error}"),
            )
        })?;
    loaded.model.apply_chat_template(template, &chat, true).map_err(|error| {
        failure(
            ErrorKind::ChatTemplate,
            format!("The chat template of the model {} cannot be applied by llama.cpp's template engine ({error}).", loaded.name),
        )
    })
}
