use super::*;
use crate::models::model_messages::ToolResult;
use std::sync::Arc;

#[test]
fn typed_events_are_decoded() {
    let mut decoder = EventDecoder::default();
    let stream = [
        r#"{"type":"message_start","message":{"usage":{"input_tokens":12,"cache_read_input_tokens":2,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":3,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}"#,
        r#"{"type":"content_block_stop","index":3}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"grep","input":{}}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\":"}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"x\"}"}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20}}"#,
        r#"{"type":"message_stop"}"#,
    ];
    let mut events = Vec::new();
    for data in stream {
        events.extend(
            decoder
                .event(data)
                .unwrap_or_else(|failure| panic!("{failure:?}")),
        );
    }
    assert_eq!(
        events,
        vec![
            StreamEvent::ReasoningStart,
            StreamEvent::ReasoningDelta("hm".into()),
            StreamEvent::ReasoningSignature("EqQB".into()),
            StreamEvent::ReasoningEnd,
            StreamEvent::RedactedReasoning("EmwKAhgB".into()),
            StreamEvent::TextStart,
            StreamEvent::TextDelta("Hi".into()),
            StreamEvent::TextEnd,
            StreamEvent::ToolInputStart {
                call_id: "toolu_1".into(),
                name: "grep".into()
            },
            StreamEvent::ToolCall {
                call_id: "toolu_1".into(),
                name: "grep".into(),
                input: r#"{"pattern":"x"}"#.into()
            },
            StreamEvent::Finish {
                reason: "tool-calls".into(),
                usage: Usage {
                    input: 12,
                    output: 20,
                    reasoning: 0,
                    cache_read: 2,
                    cache_write: 0
                }
            },
        ]
    );
    assert!(decoder.stopped);
}

#[test]
fn error_events_are_typed() {
    let mut decoder = EventDecoder::default();
    let overloaded = decoder
        .event(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
    assert!(
        matches!(overloaded, Err(ProviderFailure::Api { retryable: true, ref message, .. }) if message == "Overloaded")
    );
    let overflow = decoder.event(r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#);
    assert!(matches!(
        overflow,
        Err(ProviderFailure::ContextOverflow { .. })
    ));
    assert_eq!(stop_reason("end_turn"), "stop");
    assert_eq!(stop_reason("max_tokens"), "length");
}

#[test]
fn request_body_merges_roles_and_puts_results_in_user_turns() {
    let request = ModelRequest {
        model_id: "claude".into(),
        system: vec!["s".into()],
        messages: vec![
            ModelMessage::User(vec![UserContent::Text("q".into())]),
            ModelMessage::User(vec![UserContent::File {
                url: "data:image/png;base64,AAE=".into(),
                media_type: "image/png".into(),
                filename: None,
            }]),
            ModelMessage::Assistant(vec![
                AssistantContent::Reasoning {
                    text: "r".into(),
                    signature: None,
                },
                AssistantContent::ToolCall {
                    call_id: "t1".into(),
                    name: "read".into(),
                    input: json!({"filePath": "a"}),
                },
            ]),
            ModelMessage::Tool(vec![ToolResult {
                media: Vec::new(),
                call_id: "t1".into(),
                name: "read".into(),
                output: "nope".into(),
                is_error: true,
            }]),
        ],
        tools: Vec::new(),
        history: Arc::new(Vec::new()),
        max_output_tokens: None,
        temperature: None,
        top_p: None,
        options: serde_json::Map::new(),
    };
    assert_eq!(
        request_body(&request),
        json!({
            "model": "claude",
            "max_tokens": 8192,
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "q"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAE="}},
                ]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {"filePath": "a"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "nope", "is_error": true}]},
            ],
            "stream": true,
            "system": "s",
        })
    );
}

#[test]
fn tool_media_goes_inside_the_tool_result() {
    let request = ModelRequest {
        model_id: "claude".into(),
        system: Vec::new(),
        messages: vec![ModelMessage::Tool(vec![ToolResult {
            media: vec![UserContent::File {
                url: "data:image/png;base64,AAE=".into(),
                media_type: "image/png".into(),
                filename: None,
            }],
            call_id: "t1".into(),
            name: "read".into(),
            output: "Image read successfully".into(),
            is_error: false,
        }])],
        tools: Vec::new(),
        history: Arc::new(Vec::new()),
        max_output_tokens: None,
        temperature: None,
        top_p: None,
        options: serde_json::Map::new(),
    };
    assert_eq!(
        request_body(&request)["messages"][0]["content"][0]["content"],
        json!([
            {"type": "text", "text": "Image read successfully"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAE="}},
        ])
    );
}

#[test]
fn thinking_is_replayed_only_with_its_signature() {
    let reasoning = |signature: Option<&str>| AssistantContent::Reasoning {
        text: "thought".into(),
        signature: signature.map(str::to_string),
    };
    let answer = AssistantContent::Text("answer".into());
    let table: [(&str, Vec<AssistantContent>, Value); 5] = [
        (
            "redacted thinking goes back as it came",
            vec![
                AssistantContent::RedactedReasoning("EmwKAhgB".into()),
                answer.clone(),
            ],
            json!([
                {"type": "redacted_thinking", "data": "EmwKAhgB"},
                {"type": "text", "text": "answer"},
            ]),
        ),
        (
            "signed thinking becomes a thinking block before the text",
            vec![reasoning(Some("EqQB")), answer.clone()],
            json!([
                {"type": "thinking", "thinking": "thought", "signature": "EqQB"},
                {"type": "text", "text": "answer"},
            ]),
        ),
        (
            "unsigned reasoning is left out",
            vec![reasoning(None), answer.clone()],
            json!([{"type": "text", "text": "answer"}]),
        ),
        (
            "signed thinking before a tool call keeps its place",
            vec![
                reasoning(Some("sig")),
                AssistantContent::ToolCall {
                    call_id: "t1".into(),
                    name: "list".into(),
                    input: json!({}),
                },
            ],
            json!([
                {"type": "thinking", "thinking": "thought", "signature": "sig"},
                {"type": "tool_use", "id": "t1", "name": "list", "input": {}},
            ]),
        ),
        (
            "an assistant turn of unsigned reasoning only is dropped",
            vec![reasoning(None)],
            Value::Null,
        ),
    ];
    for (case, content, expected) in table {
        let request = ModelRequest {
            model_id: "claude".into(),
            system: Vec::new(),
            messages: vec![
                ModelMessage::User(vec![UserContent::Text("q".into())]),
                ModelMessage::Assistant(content),
            ],
            tools: Vec::new(),
            history: Arc::new(Vec::new()),
            max_output_tokens: None,
            temperature: None,
            top_p: None,
            options: serde_json::Map::new(),
        };
        let body = request_body(&request);
        let assistant = body["messages"]
            .as_array()
            .and_then(|messages| {
                messages
                    .iter()
                    .find(|message| message["role"] == "assistant")
            })
            .map(|message| message["content"].clone())
            .unwrap_or(Value::Null);
        assert_eq!(assistant, expected, "{case}");
    }
}
