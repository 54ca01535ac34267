//! The OpenAI-compatible chat-completions client (OpenAI, OpenRouter, Groq, DeepSeek, vLLM,
//! LM Studio, llama.cpp server, Ollama's `/v1`): the request body, and the streamed chunks
//! decoded into `StreamEvent`s — text, reasoning (`reasoning_content`/`reasoning`), tool calls
//! accumulated by index, usage from the final chunk, the end at `data: [DONE]`.

use super::server_sent_events::{open_stream, Decoded, EventDecoding, ServerSentEvent};
use super::{EventStream, ModelProvider, ModelRequest, ProviderFailure, StreamEvent, Usage};
use crate::models::model_messages::{
    assistant_text, openai_tool_calls, ModelMessage, ToolArguments, UserContent,
};
use crate::models::model_variant::{snake_case, snake_case_keys};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub struct ChatCompletions {
    client: reqwest::Client,
    base_url: String,
    api_key: Option<String>,
}

impl ChatCompletions {
    pub fn new(client: reqwest::Client, base_url: String, api_key: Option<String>) -> Self {
        Self {
            client,
            base_url,
            api_key,
        }
    }
}

#[async_trait]
impl ModelProvider for ChatCompletions {
    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderFailure> {
        let mut builder = self
            .client
            .post(format!("{}/chat/completions", self.base_url))
            .json(&request_body(request));
        if let Some(key) = &self.api_key {
            builder = builder.bearer_auth(key);
        }
        open_stream(
            builder,
            &self.base_url,
            self.api_key.as_deref(),
            ChunkDecoder::default(),
        )
        .await
    }
}

pub fn request_body(request: &ModelRequest) -> Value {
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system.join("\n\n")}));
    }
    for message in &request.messages {
        match message {
            ModelMessage::User(content) => {
                messages.push(json!({"role": "user", "content": user_content(content)}));
            }
            ModelMessage::Assistant(content) => {
                let text = assistant_text(content, "");
                let calls = openai_tool_calls(content, ToolArguments::Text);
                let mut entry = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
                if !calls.is_empty() {
                    entry["tool_calls"] = Value::Array(calls);
                }
                messages.push(entry);
            }
            ModelMessage::Tool(results) => {
                for result in results {
                    messages.push(json!({
                        "role": "tool",
                        "tool_call_id": result.call_id,
                        "content": result.output,
                    }));
                }
            }
        }
    }
    let mut body = json!({
        "model": request.model_id,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(
            request
                .tools
                .iter()
                .map(|tool| {
                    json!({"type": "function", "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    }})
                })
                .collect(),
        );
    }
    if let Some(limit) = request.max_output_tokens {
        body["max_tokens"] = json!(limit);
    }
    if let Some(temperature) = request.temperature {
        body["temperature"] = json!(temperature);
    }
    if let Some(top_p) = request.top_p {
        body["top_p"] = json!(top_p);
    }
    // The variant's options, under their chat-completions names: `reasoningEffort` becomes
    // `reasoning_effort`, OpenRouter's `reasoning: {effort}` stays as it is.
    for (name, value) in &request.options {
        let wire_name = match name.as_str() {
            "textVerbosity" => "verbosity".to_string(),
            other => snake_case(other),
        };
        body[wire_name] = snake_case_keys(value);
    }
    body
}

/// A lone text is sent as a string (the most widely understood form); anything else as parts.
fn user_content(content: &[UserContent]) -> Value {
    if let [UserContent::Text(text)] = content {
        return Value::String(text.clone());
    }
    Value::Array(
        content
            .iter()
            .map(|item| match item {
                UserContent::Text(text) => json!({"type": "text", "text": text}),
                UserContent::File {
                    url, media_type, ..
                } if media_type.starts_with("image/") => {
                    json!({"type": "image_url", "image_url": {"url": url}})
                }
                UserContent::File { url, filename, .. } => json!({"type": "file", "file": {
                    "filename": filename.clone().unwrap_or_else(|| "file".into()),
                    "file_data": url,
                }}),
            })
            .collect(),
    )
}

/// The chunk-by-chunk state of one streamed reply; pure, so it is tested without a server.
#[derive(Debug, Default)]
pub struct ChunkDecoder {
    text_open: bool,
    reasoning_open: bool,
    /// Tool calls by their `index`: id, name, argument text so far.
    tools: BTreeMap<u64, (String, String, String)>,
    finish_reason: Option<String>,
    usage: Usage,
}

impl ChunkDecoder {
    pub fn chunk(&mut self, data: &str) -> Result<Vec<StreamEvent>, ProviderFailure> {
        let value: Value = serde_json::from_str(data).map_err(|error| ProviderFailure::Api {
            message: format!("The provider sent a chunk that is not JSON: {error}"),
            status: None,
            retryable: false,
            retry_headers: BTreeMap::new(),
            response_body: Some(data.chars().take(500).collect()),
        })?;
        if let Some(error) = value.get("error") {
            let body = value.to_string();
            let message = super::provider_message(&body).unwrap_or_else(|| error.to_string());
            if super::is_context_overflow(&message) {
                return Err(ProviderFailure::ContextOverflow {
                    message,
                    response_body: Some(body),
                });
            }
            let lowered = message.to_ascii_lowercase();
            return Err(ProviderFailure::Api {
                retryable: lowered.contains("overloaded") || lowered.contains("rate limit"),
                message,
                status: None,
                retry_headers: BTreeMap::new(),
                response_body: Some(body),
            });
        }
        let mut events = Vec::new();
        if let Some(usage) = value.get("usage").filter(|usage| usage.is_object()) {
            let number =
                |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
            let cached = number("/prompt_tokens_details/cached_tokens");
            self.usage = Usage {
                input: number("/prompt_tokens").saturating_sub(cached),
                output: number("/completion_tokens"),
                reasoning: number("/completion_tokens_details/reasoning_tokens"),
                cache_read: cached,
                cache_write: 0,
            };
        }
        let Some(choice) = value.pointer("/choices/0") else {
            return Ok(events);
        };
        let delta = choice.get("delta").cloned().unwrap_or(Value::Null);
        let reasoning = delta
            .get("reasoning_content")
            .or_else(|| delta.get("reasoning"))
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty());
        if let Some(reasoning) = reasoning {
            if !self.reasoning_open {
                self.reasoning_open = true;
                events.push(StreamEvent::ReasoningStart);
            }
            events.push(StreamEvent::ReasoningDelta(reasoning.to_string()));
        }
        if let Some(text) = delta
            .get("content")
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
        {
            self.close_reasoning(&mut events);
            if !self.text_open {
                self.text_open = true;
                events.push(StreamEvent::TextStart);
            }
            events.push(StreamEvent::TextDelta(text.to_string()));
        }
        for call in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.close_reasoning(&mut events);
            let index = call.get("index").and_then(Value::as_u64).unwrap_or(0);
            let id = call.get("id").and_then(Value::as_str);
            let name = call.pointer("/function/name").and_then(Value::as_str);
            let arguments = call
                .pointer("/function/arguments")
                .and_then(Value::as_str)
                .unwrap_or("");
            let entry = self
                .tools
                .entry(index)
                .or_insert_with(|| (String::new(), String::new(), String::new()));
            let was_named = !entry.0.is_empty() && !entry.1.is_empty();
            if let Some(id) = id.filter(|id| !id.is_empty()) {
                entry.0 = id.to_string();
            }
            if let Some(name) = name.filter(|name| !name.is_empty()) {
                entry.1.push_str(name);
            }
            entry.2.push_str(arguments);
            if !was_named && !entry.0.is_empty() && !entry.1.is_empty() {
                events.push(StreamEvent::ToolInputStart {
                    call_id: entry.0.clone(),
                    name: entry.1.clone(),
                });
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(finish_reason(reason).to_string());
        }
        Ok(events)
    }

    /// The end of the stream: close what is open, emit the collected tool calls and the finish.
    /// Without `[DONE]` and without a finish reason, the connection was cut mid-reply.
    pub fn end(&mut self, saw_done: bool) -> Vec<Result<StreamEvent, ProviderFailure>> {
        if !saw_done && self.finish_reason.is_none() {
            return vec![Err(super::stream_cut())];
        }
        self.close().into_iter().map(Ok).collect()
    }

    /// Closes what is open and emits the collected tool calls and the finish.
    fn close(&mut self) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        self.close_reasoning(&mut events);
        if self.text_open {
            self.text_open = false;
            events.push(StreamEvent::TextEnd);
        }
        for (index, (id, name, arguments)) in std::mem::take(&mut self.tools) {
            events.push(StreamEvent::ToolCall {
                call_id: if id.is_empty() {
                    format!("call_{index}")
                } else {
                    id
                },
                name,
                input: if arguments.trim().is_empty() {
                    "{}".into()
                } else {
                    arguments
                },
            });
        }
        events.push(StreamEvent::Finish {
            reason: self.finish_reason.clone().unwrap_or_else(|| "stop".into()),
            usage: self.usage,
        });
        events
    }

    fn close_reasoning(&mut self, events: &mut Vec<StreamEvent>) {
        if self.reasoning_open {
            self.reasoning_open = false;
            events.push(StreamEvent::ReasoningEnd);
        }
    }
}

impl EventDecoding for ChunkDecoder {
    /// `data: [DONE]` is the end; any other event is one JSON chunk.
    fn decode(&mut self, event: &ServerSentEvent) -> Result<Decoded, ProviderFailure> {
        if event.data.trim() == "[DONE]" {
            return Ok(Decoded {
                events: self.close(),
                complete: true,
            });
        }
        Ok(Decoded {
            events: self.chunk(&event.data)?,
            complete: false,
        })
    }

    /// Some servers close without `[DONE]`; a finish reason already seen still ends the reply.
    fn body_ended(&mut self) -> Vec<Result<StreamEvent, ProviderFailure>> {
        self.end(false)
    }
}

/// OpenAI's finish reasons in the AI SDK's spelling, which OpenCode stores.
pub fn finish_reason(reason: &str) -> &'static str {
    match reason {
        "stop" => "stop",
        "length" => "length",
        "tool_calls" | "function_call" => "tool-calls",
        "content_filter" => "content-filter",
        _ => "other",
    }
}

#[cfg(test)]
mod tests;
