//! The Anthropic Messages client: request body (system apart, alternating roles, tool results
//! as user blocks) and the typed stream events (`message_start`, `content_block_*`,
//! `message_delta`, `message_stop`, `error`) decoded into `StreamEvent`s.

use super::server_sent_events::{open_stream, Decoded, EventDecoding, ServerSentEvent};
use super::{EventStream, ModelProvider, ModelRequest, ProviderFailure, StreamEvent, Usage};
use crate::models::model_messages::{AssistantContent, ModelMessage, UserContent};
use crate::models::model_variant::{snake_case, snake_case_keys};
use crate::wire::data_url;
use async_trait::async_trait;
use base64::Engine;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const API_VERSION: &str = "2023-06-01";
const DEFAULT_MAX_TOKENS: u32 = 8192;

pub struct AnthropicMessages {
    client: reqwest::Client,
    base_url: String,
    api_key: Option<String>,
}

impl AnthropicMessages {
    pub fn new(client: reqwest::Client, base_url: String, api_key: Option<String>) -> Self {
        Self {
            client,
            base_url,
            api_key,
        }
    }
}

#[async_trait]
impl ModelProvider for AnthropicMessages {
    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderFailure> {
        let mut builder = self
            .client
            .post(format!("{}/messages", self.base_url))
            .header("anthropic-version", API_VERSION)
            .json(&request_body(request));
        if let Some(key) = &self.api_key {
            builder = builder.header("x-api-key", key);
        }
        open_stream(
            builder,
            &self.base_url,
            self.api_key.as_deref(),
            EventDecoder::default(),
        )
        .await
    }

    fn media_in_tool_results(&self) -> bool {
        true
    }
}

pub fn request_body(request: &ModelRequest) -> Value {
    let mut messages: Vec<(String, Vec<Value>)> = Vec::new();
    for message in &request.messages {
        let (role, blocks) = match message {
            ModelMessage::User(content) => ("user", content.iter().map(user_block).collect()),
            ModelMessage::Assistant(content) => (
                "assistant",
                content
                    .iter()
                    .filter_map(|item| match item {
                        AssistantContent::Text(text) => Some(json!({"type": "text", "text": text})),
                        // Thinking is replayed with the signature Anthropic issued for it;
                        // unsigned reasoning (another provider's, or cut before the signature)
                        // would be refused, so it is left out.
                        AssistantContent::Reasoning {
                            text,
                            signature: Some(signature),
                        } => Some(json!({"type": "thinking", "thinking": text, "signature": signature})),
                        AssistantContent::Reasoning { signature: None, .. } => None,
                        AssistantContent::RedactedReasoning(data) => {
                            Some(json!({"type": "redacted_thinking", "data": data}))
                        }
                        AssistantContent::ToolCall {
                            call_id,
                            name,
                            input,
                        } => Some(json!({"type": "tool_use", "id": call_id, "name": name, "input": input})),
                    })
                    .collect::<Vec<_>>(),
            ),
            ModelMessage::Tool(results) => (
                "user",
                results
                    .iter()
                    .map(|result| {
                        let content = if result.media.is_empty() {
                            json!(result.output)
                        } else {
                            let mut blocks = vec![json!({"type": "text", "text": result.output})];
                            blocks.extend(result.media.iter().map(user_block));
                            Value::Array(blocks)
                        };
                        json!({
                            "type": "tool_result",
                            "tool_use_id": result.call_id,
                            "content": content,
                            "is_error": result.is_error,
                        })
                    })
                    .collect(),
            ),
        };
        if blocks.is_empty() {
            continue;
        }
        // Anthropic wants roles to alternate: consecutive same-role messages are merged.
        match messages.last_mut() {
            Some((last_role, last_blocks)) if last_role == role => last_blocks.extend(blocks),
            _ => messages.push((role.to_string(), blocks)),
        }
    }
    let mut body = json!({
        "model": request.model_id,
        "max_tokens": request.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": messages
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect::<Vec<_>>(),
        "stream": true,
    });
    if let Some(temperature) = request.temperature {
        body["temperature"] = json!(temperature);
    }
    if let Some(top_p) = request.top_p {
        body["top_p"] = json!(top_p);
    }
    if !request.system.is_empty() {
        body["system"] = Value::String(request.system.join("\n\n"));
    }
    // The variant's options: `thinking: {type, budgetTokens}` becomes `thinking: {type,
    // budget_tokens}`. As the AI SDK does, the thinking budget is added to `max_tokens`, and
    // sampling settings are left out because Anthropic refuses them beside thinking.
    for (name, value) in &request.options {
        body[snake_case(name)] = snake_case_keys(value);
    }
    if let Some(budget) = thinking_budget(&request.options) {
        let answer = request.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        body["max_tokens"] = json!(u64::from(answer) + budget);
        if let Some(fields) = body.as_object_mut() {
            fields.remove("temperature");
            fields.remove("top_p");
        }
    }
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(
            request
                .tools
                .iter()
                .map(|tool| {
                    json!({"name": tool.name, "description": tool.description, "input_schema": tool.parameters})
                })
                .collect(),
        );
    }
    body
}

/// The thinking budget of enabled thinking in a variant's options.
pub fn thinking_budget(options: &serde_json::Map<String, Value>) -> Option<u64> {
    let thinking = options.get("thinking")?;
    if thinking.get("type").and_then(Value::as_str) != Some("enabled") {
        return None;
    }
    thinking.get("budgetTokens").and_then(Value::as_u64)
}

fn user_block(content: &UserContent) -> Value {
    match content {
        UserContent::Text(text) => json!({"type": "text", "text": text}),
        UserContent::File {
            url, media_type, ..
        } => {
            let kind = if media_type == "application/pdf" {
                "document"
            } else {
                "image"
            };
            match data_url::parse(url) {
                Ok(decoded) => json!({"type": kind, "source": {
                    "type": "base64",
                    "media_type": media_type,
                    "data": base64::engine::general_purpose::STANDARD.encode(decoded.bytes),
                }}),
                Err(_) => json!({"type": kind, "source": {"type": "url", "url": url}}),
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    Tool,
    Other,
}

/// The event-by-event state of one streamed reply; pure, tested without a server.
#[derive(Debug, Default)]
pub struct EventDecoder {
    blocks: BTreeMap<u64, (Block, String, String, String)>,
    usage: Usage,
    stop_reason: Option<String>,
    pub stopped: bool,
}

impl EventDecoder {
    pub fn event(&mut self, data: &str) -> Result<Vec<StreamEvent>, ProviderFailure> {
        let value: Value = serde_json::from_str(data).map_err(|error| ProviderFailure::Api {
            message: format!("The provider sent an event that is not JSON: {error}"),
            status: None,
            retryable: false,
            retry_headers: BTreeMap::new(),
            response_body: Some(data.chars().take(500).collect()),
        })?;
        let number = |value: &Value, pointer: &str| {
            value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
        };
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
        let mut events = Vec::new();
        match value.get("type").and_then(Value::as_str).unwrap_or("") {
            "message_start" => {
                self.usage.input = number(&value, "/message/usage/input_tokens");
                self.usage.cache_read = number(&value, "/message/usage/cache_read_input_tokens");
                self.usage.cache_write =
                    number(&value, "/message/usage/cache_creation_input_tokens");
                self.usage.output = number(&value, "/message/usage/output_tokens");
            }
            "content_block_start" => {
                let block = value.get("content_block").cloned().unwrap_or(Value::Null);
                let text = |key: &str| {
                    block
                        .get(key)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                let kind = match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        events.push(StreamEvent::TextStart);
                        if !text("text").is_empty() {
                            events.push(StreamEvent::TextDelta(text("text")));
                        }
                        Block::Text
                    }
                    Some("thinking") => {
                        events.push(StreamEvent::ReasoningStart);
                        Block::Thinking
                    }
                    Some("redacted_thinking") => {
                        events.push(StreamEvent::RedactedReasoning(text("data")));
                        Block::Other
                    }
                    Some("tool_use") => {
                        events.push(StreamEvent::ToolInputStart {
                            call_id: text("id"),
                            name: text("name"),
                        });
                        Block::Tool
                    }
                    _ => Block::Other,
                };
                self.blocks
                    .insert(index, (kind, text("id"), text("name"), String::new()));
            }
            "content_block_delta" => {
                let delta = value.get("delta").cloned().unwrap_or(Value::Null);
                let text = |key: &str| {
                    delta
                        .get(key)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => events.push(StreamEvent::TextDelta(text("text"))),
                    Some("thinking_delta") => {
                        events.push(StreamEvent::ReasoningDelta(text("thinking")));
                    }
                    Some("signature_delta") => {
                        events.push(StreamEvent::ReasoningSignature(text("signature")));
                    }
                    Some("input_json_delta") => {
                        if let Some(block) = self.blocks.get_mut(&index) {
                            block.3.push_str(&text("partial_json"));
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some((kind, id, name, input)) = self.blocks.remove(&index) {
                    match kind {
                        Block::Text => events.push(StreamEvent::TextEnd),
                        Block::Thinking => events.push(StreamEvent::ReasoningEnd),
                        Block::Tool => events.push(StreamEvent::ToolCall {
                            call_id: id,
                            name,
                            input: if input.trim().is_empty() {
                                "{}".into()
                            } else {
                                input
                            },
                        }),
                        Block::Other => {}
                    }
                }
            }
            "message_delta" => {
                if let Some(reason) = value.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(stop_reason(reason).to_string());
                }
                if let Some(output) = value
                    .pointer("/usage/output_tokens")
                    .and_then(Value::as_u64)
                {
                    self.usage.output = output;
                }
            }
            "message_stop" => {
                self.stopped = true;
                events.push(StreamEvent::Finish {
                    reason: self.stop_reason.clone().unwrap_or_else(|| "stop".into()),
                    usage: self.usage,
                });
            }
            "error" => {
                let kind = value
                    .pointer("/error/type")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let message = value
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("The provider reported an error")
                    .to_string();
                if super::is_context_overflow(&message) {
                    return Err(ProviderFailure::ContextOverflow {
                        message,
                        response_body: Some(data.to_string()),
                    });
                }
                return Err(ProviderFailure::Api {
                    retryable: matches!(
                        kind,
                        "overloaded_error" | "rate_limit_error" | "api_error"
                    ),
                    message,
                    status: None,
                    retry_headers: BTreeMap::new(),
                    response_body: Some(data.to_string()),
                });
            }
            _ => {}
        }
        Ok(events)
    }
}

impl EventDecoding for EventDecoder {
    fn decode(&mut self, event: &ServerSentEvent) -> Result<Decoded, ProviderFailure> {
        let events = self.event(&event.data)?;
        Ok(Decoded {
            events,
            complete: self.stopped,
        })
    }

    /// Anthropic ends every reply with `message_stop`; a body that ends before it was cut.
    fn body_ended(&mut self) -> Vec<Result<StreamEvent, ProviderFailure>> {
        if self.stopped {
            Vec::new()
        } else {
            vec![Err(super::stream_cut())]
        }
    }
}

pub fn stop_reason(reason: &str) -> &'static str {
    match reason {
        "end_turn" | "stop_sequence" | "pause_turn" => "stop",
        "max_tokens" => "length",
        "tool_use" => "tool-calls",
        "refusal" => "content-filter",
        _ => "other",
    }
}

#[cfg(test)]
mod tests;
