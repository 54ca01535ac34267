//! The conversation as a local model's template takes it. Two shapes: role + text for
//! llama.cpp's built-in template engine (models whose template takes no tools), and Hugging
//! Face's chat shape — assistant `tool_calls`, `tool` results, tools in OpenAI's function shape —
//! for templates run as Jinja with tools (`local_models::chat_template`).

use crate::local_models::worker_protocol::WorkerMessage;
use crate::models::model_messages::{
    assistant_text, openai_tool_calls, AssistantContent, ModelMessage, ToolArguments, UserContent,
};
use crate::models::provider::ModelRequest;
use serde_json::{json, Value};

/// The conversation as role + text for the model's chat template. The model takes no tools, so
/// earlier tool calls and results (from another model) are told as plain text.
pub fn worker_messages(request: &ModelRequest) -> Vec<WorkerMessage> {
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
            ModelMessage::User(parts) => ("user", user_text(parts)),
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

fn user_text(parts: &[UserContent]) -> String {
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
        .join("\n\n")
}

/// The conversation in Hugging Face's chat shape. Tool calls keep their arguments as an object,
/// as templates write them with `tojson`; an assistant turn without calls has no `tool_calls`
/// key at all (Llama 3's template tests `'tool_calls' in message`).
pub fn template_messages(request: &ModelRequest) -> Vec<Value> {
    let mut messages: Vec<Value> = Vec::new();
    let system = request.system.join("\n\n");
    if !system.trim().is_empty() {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        match message {
            ModelMessage::User(parts) => {
                let text = user_text(parts);
                // Templates expect turns to alternate; two user turns in a row are joined.
                match messages.last_mut() {
                    Some(last) if last["role"] == "user" => {
                        let joined =
                            format!("{}\n\n{text}", last["content"].as_str().unwrap_or(""));
                        last["content"] = Value::String(joined);
                    }
                    _ => messages.push(json!({"role": "user", "content": text})),
                }
            }
            ModelMessage::Assistant(parts) => {
                let text = assistant_text(parts, "\n\n");
                let calls = openai_tool_calls(parts, ToolArguments::Object);
                let mut entry = json!({"role": "assistant", "content": text});
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
                        "name": result.name,
                        "content": result.output,
                    }));
                }
            }
        }
    }
    messages
}

/// The conversation with each assistant turn making at most one call, followed by its result:
/// for templates that refuse several calls in one turn (Llama 3.x's "only supports single
/// tool-calls at once"), while its model may still write several, separated by `;`.
pub fn one_call_per_turn(messages: Vec<Value>) -> Vec<Value> {
    let mut reordered = Vec::with_capacity(messages.len());
    let mut pending = messages.into_iter().peekable();
    while let Some(message) = pending.next() {
        let calls = message["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if message["role"] != "assistant" || calls.len() < 2 {
            reordered.push(message);
            continue;
        }
        let mut results = Vec::new();
        while let Some(result) = pending.next_if(|next| next["role"] == "tool") {
            results.push(result);
        }
        for (index, call) in calls.into_iter().enumerate() {
            let content = if index == 0 {
                message["content"].clone()
            } else {
                Value::String(String::new())
            };
            reordered.push(json!({"role": "assistant", "content": content, "tool_calls": [call]}));
            let position = results
                .iter()
                .position(|result| result["tool_call_id"] == call["id"]);
            if let Some(position) = position {
                reordered.push(results.remove(position));
            }
        }
        reordered.extend(results);
    }
    reordered
}

/// The offered tools in OpenAI's function shape, which Hugging Face templates expect.
pub fn template_tools(request: &ModelRequest) -> Vec<Value> {
    request
        .tools
        .iter()
        .map(|tool| {
            json!({
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
