use super::*;

fn finished() -> Result<ReplyEvent, LocalEngineError> {
    Ok(ReplyEvent::Finished {
        prompt_tokens: 40,
        completion_tokens: 12,
        stop_reason: "end_of_text".into(),
    })
}

fn run(
    format: Option<ToolCallFormat>,
    replies: Vec<Result<ReplyEvent, LocalEngineError>>,
) -> Vec<Result<StreamEvent, ProviderFailure>> {
    let mut events = ReplyEvents::new("qwen2.5-0.5b-instruct-q4_k_m", format);
    replies
        .into_iter()
        .flat_map(|reply| events.on(reply))
        .collect()
}

fn texts(pieces: &[&str]) -> Vec<Result<ReplyEvent, LocalEngineError>> {
    pieces
        .iter()
        .map(|piece| Ok(ReplyEvent::Text((*piece).to_string())))
        .collect()
}

#[test]
fn text_then_a_call_become_text_events_and_tool_events_and_the_step_ends_for_tools() {
    let mut replies = texts(&[
        "Let me look.",
        "\n<tool",
        "_call>\n{\"name\": \"read\", \"argu",
        "ments\": {\"filePath\": \"notes.txt\"}}\n</tool_call>",
    ]);
    replies.push(finished());
    let events = run(Some(ToolCallFormat::Hermes), replies);
    let call_id = match &events[3] {
        Ok(StreamEvent::ToolInputStart { call_id, name }) if name == "read" => call_id.clone(),
        other => panic!("{other:?}"),
    };
    assert!(call_id.starts_with("call_"), "{call_id}");
    assert_eq!(
        events,
        vec![
            Ok(StreamEvent::TextStart),
            Ok(StreamEvent::TextDelta("Let me look.".into())),
            Ok(StreamEvent::TextEnd),
            Ok(StreamEvent::ToolInputStart {
                call_id: call_id.clone(),
                name: "read".into()
            }),
            Ok(StreamEvent::ToolCall {
                call_id,
                name: "read".into(),
                input: r#"{"filePath":"notes.txt"}"#.into()
            }),
            Ok(StreamEvent::Finish {
                reason: "tool-calls".into(),
                usage: Usage {
                    input: 40,
                    output: 12,
                    ..Usage::default()
                }
            }),
        ]
    );
}

#[test]
fn two_calls_get_two_different_ids() {
    let mut replies = texts(&[
        "<tool_call>{\"name\": \"read\", \"arguments\": {}}</tool_call><tool_call>{\"name\": \"glob\", \"arguments\": {}}</tool_call>",
    ]);
    replies.push(finished());
    let ids: Vec<String> = run(Some(ToolCallFormat::Hermes), replies)
        .into_iter()
        .filter_map(|event| match event {
            Ok(StreamEvent::ToolCall { call_id, .. }) => Some(call_id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn without_tools_offered_a_call_shaped_text_is_only_text() {
    let mut replies = texts(&["<tool_call>{\"name\": \"read\"}</tool_call>"]);
    replies.push(finished());
    let events = run(None, replies);
    assert_eq!(
        events[1],
        Ok(StreamEvent::TextDelta(
            "<tool_call>{\"name\": \"read\"}</tool_call>".into()
        ))
    );
    assert!(matches!(&events[3], Ok(StreamEvent::Finish { reason, .. }) if reason == "stop"));
}

#[test]
fn a_malformed_call_keeps_its_text_and_ends_the_reply_with_a_plain_error() {
    let mut replies =
        texts(&["Sure. <tool_call>{\"name\": \"read\", \"arguments\": {\"filePath\"}</tool_call>"]);
    replies.push(finished());
    let events = run(Some(ToolCallFormat::Hermes), replies);
    let shown: String = events
        .iter()
        .filter_map(|event| match event {
            Ok(StreamEvent::TextDelta(text)) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        shown,
        "Sure. <tool_call>{\"name\": \"read\", \"arguments\": {\"filePath\"}</tool_call>"
    );
    let failures: Vec<&ProviderFailure> = events
        .iter()
        .filter_map(|event| event.as_ref().err())
        .collect();
    assert_eq!(failures.len(), 1, "{events:?}");
    assert!(
        failures[0].message().starts_with(
            "The model qwen2.5-0.5b-instruct-q4_k_m tried to call a tool but wrote the call in a form Dossier cannot read (not valid JSON"
        ),
        "{}",
        failures[0].message()
    );
    assert!(!events
        .iter()
        .any(|event| matches!(event, Ok(StreamEvent::Finish { .. }))));
}

#[test]
fn a_worker_that_dies_inside_a_call_keeps_the_text_held_back() {
    let mut replies = texts(&["Looking. <tool_call>{\"name\": \"re"]);
    replies.push(Err(LocalEngineError::WorkerDied {
        detail: ": the process ended on signal 9".into(),
    }));
    let events = run(Some(ToolCallFormat::Hermes), replies);
    let shown: String = events
        .iter()
        .filter_map(|event| match event {
            Ok(StreamEvent::TextDelta(text)) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(shown, "Looking. <tool_call>{\"name\": \"re");
    assert!(matches!(
        events.last(),
        Some(Err(ProviderFailure::StreamCut { .. }))
    ));
}
