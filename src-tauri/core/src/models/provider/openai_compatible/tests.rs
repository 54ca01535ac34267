use super::*;
use crate::models::model_messages::{AssistantContent, ToolResult, UserContent};
use crate::models::provider::ToolDefinition;
use std::sync::Arc;

fn decode(chunks: &[&str], done: bool) -> Vec<Result<StreamEvent, ProviderFailure>> {
    let mut decoder = ChunkDecoder::default();
    let mut events = Vec::new();
    for chunk in chunks {
        match decoder.chunk(chunk) {
            Ok(decoded) => events.extend(decoded.into_iter().map(Ok)),
            Err(failure) => {
                events.push(Err(failure));
                return events;
            }
        }
    }
    events.extend(decoder.end(done));
    events
}

#[test]
fn text_reasoning_and_usage_are_decoded() {
    let events = decode(
        &[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":" there"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":3},"completion_tokens_details":{"reasoning_tokens":1}}}"#,
        ],
        true,
    );
    assert_eq!(
        events,
        vec![
            Ok(StreamEvent::ReasoningStart),
            Ok(StreamEvent::ReasoningDelta("hmm".into())),
            Ok(StreamEvent::ReasoningEnd),
            Ok(StreamEvent::TextStart),
            Ok(StreamEvent::TextDelta("Hi".into())),
            Ok(StreamEvent::TextDelta(" there".into())),
            Ok(StreamEvent::TextEnd),
            Ok(StreamEvent::Finish {
                reason: "stop".into(),
                usage: Usage {
                    input: 7,
                    output: 4,
                    reasoning: 1,
                    cache_read: 3,
                    cache_write: 0
                }
            }),
        ]
    );
}

#[test]
fn tool_calls_accumulate_by_index() {
    let events = decode(
        &[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"glob","arguments":"{\"pat"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"filePath\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.md\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"tern\":\"*.md\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ],
        true,
    );
    assert_eq!(
        events,
        vec![
            Ok(StreamEvent::ToolInputStart {
                call_id: "call_a".into(),
                name: "read".into()
            }),
            Ok(StreamEvent::ToolInputStart {
                call_id: "call_b".into(),
                name: "glob".into()
            }),
            Ok(StreamEvent::ToolCall {
                call_id: "call_a".into(),
                name: "read".into(),
                input: r#"{"filePath":"a.md"}"#.into()
            }),
            Ok(StreamEvent::ToolCall {
                call_id: "call_b".into(),
                name: "glob".into(),
                input: r#"{"pattern":"*.md"}"#.into()
            }),
            Ok(StreamEvent::Finish {
                reason: "tool-calls".into(),
                usage: Usage::default()
            }),
        ]
    );
}

#[test]
fn endings_and_errors() {
    let cut = decode(
        &[r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#],
        false,
    );
    assert!(
        matches!(cut.last(), Some(Err(ProviderFailure::StreamCut { .. }))),
        "{cut:?}"
    );
    // Some servers close without [DONE] after a finish reason: that is a complete reply.
    let closed = decode(
        &[r#"{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"length"}]}"#],
        false,
    );
    assert!(
        matches!(closed.last(), Some(Ok(StreamEvent::Finish { reason, .. })) if reason == "length"),
        "{closed:?}"
    );
    let error = decode(&[r#"{"error":{"message":"Model is overloaded"}}"#], true);
    assert!(
        matches!(
            error.last(),
            Some(Err(ProviderFailure::Api {
                retryable: true,
                ..
            }))
        ),
        "{error:?}"
    );
    let garbage = decode(&["not json"], true);
    assert!(matches!(
        garbage.last(),
        Some(Err(ProviderFailure::Api {
            retryable: false,
            ..
        }))
    ));
    assert_eq!(finish_reason("content_filter"), "content-filter");
    assert_eq!(finish_reason("weird"), "other");
}

#[test]
fn request_body_has_system_messages_tools_and_results() {
    let request = ModelRequest {
        model_id: "m".into(),
        system: vec!["be brief".into(), "env".into()],
        messages: vec![
            ModelMessage::User(vec![UserContent::Text("q".into())]),
            ModelMessage::Assistant(vec![
                AssistantContent::Reasoning {
                    text: "r".into(),
                    signature: Some("sig".into()),
                },
                AssistantContent::Text("let me look".into()),
                AssistantContent::ToolCall {
                    call_id: "c1".into(),
                    name: "read".into(),
                    input: json!({"filePath": "a"}),
                },
            ]),
            ModelMessage::Tool(vec![ToolResult {
                media: Vec::new(),
                call_id: "c1".into(),
                name: "read".into(),
                output: "1: x".into(),
                is_error: false,
            }]),
            ModelMessage::User(vec![
                UserContent::Text("see".into()),
                UserContent::File {
                    url: "data:image/png;base64,AA==".into(),
                    media_type: "image/png".into(),
                    filename: None,
                },
            ]),
        ],
        tools: vec![ToolDefinition {
            name: "read".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        }],
        history: Arc::new(Vec::new()),
        max_output_tokens: None,
        temperature: None,
        top_p: None,
        options: serde_json::Map::new(),
    };
    let body = request_body(&request);
    assert_eq!(
        body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "be brief\n\nenv"},
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": "let me look", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\":\"a\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "1: x"},
                {"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {"name": "read", "description": "d", "parameters": {"type": "object"}}}],
        })
    );
}

#[test]
fn sampling_settings_are_sent_only_when_set() {
    let mut request = ModelRequest {
        model_id: "m".into(),
        system: Vec::new(),
        messages: vec![ModelMessage::User(vec![UserContent::Text("q".into())])],
        tools: Vec::new(),
        history: Arc::new(Vec::new()),
        max_output_tokens: None,
        temperature: None,
        top_p: None,
        options: serde_json::Map::new(),
    };
    let plain = request_body(&request);
    assert!(plain.get("temperature").is_none() && plain.get("top_p").is_none());
    request.temperature = Some(0.25);
    request.top_p = Some(0.9);
    let tuned = request_body(&request);
    assert_eq!(
        (tuned["temperature"].clone(), tuned["top_p"].clone()),
        (json!(0.25), json!(0.9))
    );
}
