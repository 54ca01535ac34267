//! Wire compatibility: OpenCode's own samples parse into our types and serialise back to the
//! same JSON.

use crate::wire::event::Event;
use crate::wire::message::MessageWithParts;
use crate::wire::session::Session;
use serde_json::Value;

fn sample(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/reference/opencode-wire")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(value: &Value) -> Value {
    let typed: T =
        serde_json::from_value(value.clone()).unwrap_or_else(|error| panic!("{error}: {value}"));
    serde_json::to_value(&typed).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn messages_listing_sample_is_byte_identical_after_round_trip() {
    let text = sample("09-messages-after-reply.json");
    let typed: Vec<MessageWithParts> =
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{error}"));
    let written = serde_json::to_string_pretty(&typed).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(written, text.trim_end());
}

#[test]
fn session_list_sample_is_byte_identical_after_round_trip() {
    let text = sample("11-session-list.json");
    let typed: Vec<Session> = serde_json::from_str(&text).unwrap_or_else(|error| panic!("{error}"));
    let written = serde_json::to_string_pretty(&typed).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(written, text.trim_end());
}

#[test]
fn prompt_response_and_session_samples_round_trip() {
    for (name, kind) in [
        ("03-prompt-noreply-response.json", "message"),
        ("07-prompt-reply-response.json", "message"),
        ("13-prompt-first-reply-response.json", "message"),
        ("01-session-create.json", "session"),
        ("10-session-after.json", "session"),
        ("15-session-after-first-reply.json", "session"),
    ] {
        let value: Value =
            serde_json::from_str(&sample(name)).unwrap_or_else(|error| panic!("{name}: {error}"));
        let back = match kind {
            "message" => round_trip::<MessageWithParts>(&value),
            _ => round_trip::<Session>(&value),
        };
        assert_eq!(back, value, "{name}");
    }
}

#[test]
fn every_event_in_the_samples_round_trips() {
    for name in [
        "04-events-noreply-prompt.json",
        "08-events-reply-prompt.json",
        "14-events-first-reply-new-session.json",
    ] {
        let events: Vec<Value> =
            serde_json::from_str(&sample(name)).unwrap_or_else(|error| panic!("{name}: {error}"));
        assert!(!events.is_empty());
        for mut event in events {
            // The capture tool added arrival times; they are not part of the wire format.
            if let Some(fields) = event.as_object_mut() {
                fields.remove("t_ms");
            }
            let kind = event["type"].as_str().unwrap_or_default().to_string();
            // Only the ledger's events; OpenCode also streams plugin, catalog and git-diff events
            // that Dossier does not produce.
            if !(kind.starts_with("session.") || kind.starts_with("message."))
                || kind == "session.diff"
            {
                continue;
            }
            let back = round_trip::<Event>(&event);
            assert_eq!(back, event, "{name} {kind}");
        }
    }
}

#[test]
fn sample_prompt_request_parses_as_drafts() {
    let value: Value =
        serde_json::from_str(&sample("02-prompt-noreply-request.json")).unwrap_or_default();
    let input =
        crate::wire::draft::PromptInput::from_json(value).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(input.no_reply, Some(true));
    assert_eq!(input.parts.len(), 2);
    assert!(
        matches!(&input.parts[0], crate::wire::draft::Draft::File(file) if file.part.filename.as_deref() == Some("package.json"))
    );
}

#[test]
fn forged_part_types_are_refused_with_the_reason() {
    for kind in [
        "tool",
        "reasoning",
        "step-start",
        "step-finish",
        "snapshot",
        "patch",
        "retry",
        "compaction",
    ] {
        let value = serde_json::json!({"parts": [{"type": "text", "text": "hi"}, {"type": kind}]});
        let error = crate::wire::draft::PromptInput::from_json(value)
            .err()
            .map(|error| (error.kind(), error.to_string()));
        let (kind_of_error, message) = error.unwrap_or_else(|| panic!("{kind} accepted"));
        assert_eq!(kind_of_error, crate::ErrorKind::Invalid);
        assert!(
            message.contains(&format!("part 1 has type \"{kind}\"")),
            "{message}"
        );
    }
}

#[test]
fn unknown_fields_in_drafts_and_prompt_are_refused() {
    let unknown_in_draft =
        serde_json::json!({"parts": [{"type": "text", "text": "hi", "colour": "red"}]});
    let message = crate::wire::draft::PromptInput::from_json(unknown_in_draft)
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert!(message.contains("colour"), "{message}");
    let unknown_in_prompt = serde_json::json!({"parts": [], "temperature": 2});
    let message = crate::wire::draft::PromptInput::from_json(unknown_in_prompt)
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert!(message.contains("temperature"), "{message}");
    let ids_in_draft =
        serde_json::json!({"parts": [{"type": "text", "text": "hi", "messageID": "msg_1"}]});
    let message = crate::wire::draft::PromptInput::from_json(ids_in_draft)
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert!(message.contains("messageID"), "{message}");
}

#[test]
fn all_twelve_part_types_round_trip() {
    let parts = serde_json::json!([
        {"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "text", "text": "hello", "synthetic": true, "ignored": false, "time": {"start": 1, "end": 2}, "metadata": {"k": 1}},
        {"id": "prt_2", "sessionID": "ses_1", "messageID": "msg_1", "type": "subtask", "prompt": "p", "description": "d", "agent": "general", "model": {"providerID": "a", "modelID": "b"}, "command": "c"},
        {"id": "prt_3", "sessionID": "ses_1", "messageID": "msg_1", "type": "reasoning", "text": "think", "metadata": {"signature": "x"}, "time": {"start": 1}},
        {"id": "prt_4", "sessionID": "ses_1", "messageID": "msg_1", "type": "file", "mime": "text/plain", "filename": "a.txt", "url": "file:///a.txt", "source": {"type": "file", "text": {"value": "@a.txt", "start": 0, "end": 6}, "path": "/a.txt"}},
        {"id": "prt_5", "sessionID": "ses_1", "messageID": "msg_1", "type": "tool", "callID": "call_1", "tool": "read", "state": {"status": "completed", "input": {"filePath": "/a"}, "output": "x", "title": "a", "metadata": {}, "time": {"start": 1, "end": 2}}},
        {"id": "prt_6", "sessionID": "ses_1", "messageID": "msg_1", "type": "step-start", "snapshot": "abc"},
        {"id": "prt_7", "sessionID": "ses_1", "messageID": "msg_1", "type": "step-finish", "reason": "stop", "cost": 0.0125, "tokens": {"input": 1, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}}},
        {"id": "prt_8", "sessionID": "ses_1", "messageID": "msg_1", "type": "snapshot", "snapshot": "abc"},
        {"id": "prt_9", "sessionID": "ses_1", "messageID": "msg_1", "type": "patch", "hash": "abc", "files": ["a.txt"]},
        {"id": "prt_10", "sessionID": "ses_1", "messageID": "msg_1", "type": "agent", "name": "explore", "source": {"value": "@explore", "start": 0, "end": 8}},
        {"id": "prt_11", "sessionID": "ses_1", "messageID": "msg_1", "type": "retry", "attempt": 2, "error": {"name": "APIError", "data": {"message": "overloaded", "statusCode": 529, "isRetryable": true}}, "time": {"created": 5}},
        {"id": "prt_12", "sessionID": "ses_1", "messageID": "msg_1", "type": "compaction", "auto": true, "overflow": true, "tail_start_id": "msg_0"}
    ]);
    let typed: Vec<crate::wire::part::Part> =
        serde_json::from_value(parts.clone()).unwrap_or_else(|error| panic!("{error}"));
    let names: Vec<&str> = typed.iter().map(|part| part.body.type_name()).collect();
    assert_eq!(
        names,
        [
            "text",
            "subtask",
            "reasoning",
            "file",
            "tool",
            "step-start",
            "step-finish",
            "snapshot",
            "patch",
            "agent",
            "retry",
            "compaction"
        ]
    );
    assert_eq!(serde_json::to_value(&typed).unwrap_or_default(), parts);
}

#[test]
fn tool_states_and_error_union_use_opencode_shapes() {
    use crate::wire::assistant_error::{ApiErrorData, AssistantError};
    let aborted = serde_json::to_value(AssistantError::MessageAbortedError {
        message: "Aborted".into(),
    })
    .unwrap_or_default();
    assert_eq!(
        aborted,
        serde_json::json!({"name": "MessageAbortedError", "data": {"message": "Aborted"}})
    );
    let length =
        serde_json::to_value(AssistantError::MessageOutputLengthError {}).unwrap_or_default();
    assert_eq!(
        length,
        serde_json::json!({"name": "MessageOutputLengthError", "data": {}})
    );
    let api = AssistantError::ApiError(ApiErrorData {
        message: "m".into(),
        status_code: Some(500),
        is_retryable: true,
        response_headers: None,
        response_body: None,
        metadata: None,
    });
    assert_eq!(
        serde_json::to_value(api).unwrap_or_default(),
        serde_json::json!({"name": "APIError", "data": {"message": "m", "statusCode": 500, "isRetryable": true}})
    );
    let auth = serde_json::json!({"name": "ProviderAuthError", "data": {"providerID": "openai", "message": "bad key"}});
    assert_eq!(
        serde_json::to_value(
            serde_json::from_value::<AssistantError>(auth.clone())
                .unwrap_or(AssistantError::unknown(""))
        )
        .unwrap_or_default(),
        auth
    );
    for state in [
        serde_json::json!({"status": "pending", "input": {}, "raw": ""}),
        serde_json::json!({"status": "running", "input": {"a": 1}, "title": "t", "time": {"start": 1}}),
        serde_json::json!({"status": "error", "input": {}, "error": "Tool execution aborted", "metadata": {"interrupted": true}, "time": {"start": 1, "end": 2}}),
    ] {
        let typed: crate::wire::part::ToolState =
            serde_json::from_value(state.clone()).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(serde_json::to_value(typed).unwrap_or_default(), state);
    }
}
