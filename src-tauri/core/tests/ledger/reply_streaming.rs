//! Streaming a reply from a fake OpenAI-compatible (or Anthropic) server on 127.0.0.1 into parts:
//! the stored parts and the event sequence, reasoning, a second prompt joining the run, cost and
//! the generated title.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::part::PartBody;
use serde_json::Value;
use std::time::Duration;

#[tokio::test]
async fn plain_text_streams_into_a_text_part_with_the_reference_event_sequence() {
    let fake = FakeProvider::start(vec![openai_text(&[
        "Hello ",
        "from ",
        "the ",
        "fake ",
        "provider.",
    ])])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let reply = ask(&test, &session.id, "explain this project").await;

    let assistant = assistant_of(&reply);
    assert_eq!(assistant.finish.as_deref(), Some("stop"));
    assert_eq!(assistant.tokens.input, 42);
    assert_eq!(assistant.tokens.output, 11);
    assert_eq!(assistant.tokens.total, Some(53));
    assert_eq!(
        describe(&reply.parts),
        strings(&[
            "step-start",
            "text: Hello from the fake provider.",
            "step-finish"
        ])
    );
    let stored = test
        .ledger
        .sessions()
        .messages(&session.id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        stored.messages.last(),
        Some(&reply),
        "what was returned is what was stored"
    );

    let seen: Vec<String> = story(&drain(&test.ledger, &mut events).await)
        .into_iter()
        .skip_while(|line| line != "status busy")
        .collect();
    assert_eq!(
        seen,
        strings(&[
            "status busy",
            "assistant",
            "step-start",
            "text \"\"",
            "delta \"Hello \"",
            "delta \"from \"",
            "delta \"the \"",
            "delta \"fake \"",
            "delta \"provider.\"",
            "text \"Hello from the fake provider.\"",
            "step-finish stop",
            "assistant finish=stop",
            "assistant finish=stop completed",
            "status idle",
            "idle",
        ])
    );
    let request = &fake.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert!(request.headers.to_ascii_lowercase().contains(&format!(
        "authorization: bearer {}",
        API_KEY.to_ascii_lowercase()
    )));
    assert_eq!(request.body["model"], "fake-model");
    assert_eq!(request.body["stream"], true);
    let messages = request.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages.last().map(|message| message["content"].clone()),
        Some(Value::from("explain this project"))
    );
    assert_eq!(
        test.ledger.replies().status().len(),
        0,
        "idle sessions are not listed"
    );
}

#[tokio::test]
async fn reasoning_is_stored_as_its_own_part_before_the_text() {
    let fake = FakeProvider::start(vec![openai_reasoning_then_text(
        &["Let me ", "think."],
        &["Done."],
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hello").await;
    let kinds: Vec<String> = reply
        .parts
        .iter()
        .map(|part| match &part.body {
            PartBody::Reasoning(reasoning) => format!(
                "reasoning: {} (ended {})",
                reasoning.text,
                reasoning.time.end.is_some()
            ),
            _ => describe(std::slice::from_ref(part)).remove(0),
        })
        .collect();
    assert_eq!(
        kinds,
        strings(&[
            "step-start",
            "reasoning: Let me think. (ended true)",
            "text: Done.",
            "step-finish"
        ])
    );
}

#[tokio::test]
async fn a_second_prompt_joins_the_run_and_is_seen_on_the_next_step() {
    let mut slow = openai_text_events(&["First ", "answer."]);
    slow.push((
        None,
        serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            .to_string(),
    ));
    let fake = FakeProvider::start(vec![
        openai_stream(slow, Ending::Clean, Duration::from_millis(150)),
        openai_text(&["Second ", "answer."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let ledger = test.ledger.clone();
    let session_id = session.id.clone();
    let first = tokio::spawn(async move {
        ledger
            .sessions()
            .prompt(
                &session_id,
                reply_input(vec![Draft::text("first question")]),
            )
            .await
    });
    wait_for(&mut events, |event| {
        matches!(&event.payload, EventPayload::PartDelta { .. })
    })
    .await;
    let second = ask(&test, &session.id, "also this").await;
    let first = first
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        first.info.id(),
        second.info.id(),
        "both callers get the same final reply"
    );
    assert_eq!(text_of(&second), "Second answer.");
    let stored = test.history(&session.id).await;
    let roles: Vec<&str> = stored.iter().map(|message| message.info.role()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let last = requests[1].body["messages"]
        .as_array()
        .and_then(|messages| messages.last().cloned())
        .unwrap_or_default();
    let content = last["content"].as_str().unwrap_or("");
    assert!(
        content.starts_with("<system-reminder>\nThe user sent the following message:\nalso this"),
        "{content}"
    );
    let busy_runs = story(&drain(&test.ledger, &mut events).await)
        .iter()
        .filter(|line| *line == "idle")
        .count();
    assert_eq!(busy_runs, 1, "one run answered both prompts");
}

#[tokio::test]
async fn anthropic_messages_stream_thinking_text_and_tool_use() {
    let mut first = anthropic_start();
    first.extend(anthropic_thinking_block(0, "Need the file."));
    first.extend(anthropic_tool_block(
        1,
        "toolu_1",
        "read",
        r#"{"filePath": "notes.txt"}"#,
    ));
    first.extend(anthropic_end("tool_use"));
    let fake = FakeProvider::start(vec![
        anthropic_stream(first),
        anthropic_text(&["It says ", "alpha."]),
    ])
    .await;
    let test = open(&fake.anthropic_config()).await;
    test.write("notes.txt", "alpha\n");
    let session = test.session().await;
    let reply = ask(&test, &session.id, "read my notes").await;
    assert_eq!(text_of(&reply), "It says alpha.");
    let requests = fake.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert!(requests[0]
        .headers
        .to_ascii_lowercase()
        .contains(&format!("x-api-key: {}", API_KEY.to_ascii_lowercase())));
    assert!(requests[0]
        .headers
        .contains("anthropic-version: 2023-06-01"));
    let messages = requests[1].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let roles: Vec<&str> = messages
        .iter()
        .filter_map(|message| message["role"].as_str())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    // The thinking comes back signed, before the tool call it led to.
    assert_eq!(
        messages[1]["content"][0],
        serde_json::json!({"type": "thinking", "thinking": "Need the file.", "signature": "c2ln"})
    );
    assert_eq!(messages[1]["content"][1]["type"], "tool_use");
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][0]["tool_use_id"], "toolu_1");
    let stored = test.history(&session.id).await;
    let first_reply = describe(&stored[1].parts);
    assert_eq!(
        first_reply,
        strings(&["step-start", "reasoning", "tool", "step-finish"])
    );
    assert_eq!(assistant_of(&stored[1]).tokens.input, 30);
    let signature = stored[1].parts.iter().find_map(|part| match &part.body {
        PartBody::Reasoning(reasoning) => reasoning.metadata.clone(),
        _ => None,
    });
    assert_eq!(
        signature,
        Some(serde_json::json!({"anthropic": {"signature": "c2ln"}}))
    );
}

#[tokio::test]
async fn anthropic_redacted_thinking_is_kept_and_sent_back_as_it_came() {
    let mut first = anthropic_start();
    first.push((
        Some("content_block_start".into()),
        serde_json::json!({"type": "content_block_start", "index": 0, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgB"}}).to_string(),
    ));
    first.push((
        Some("content_block_stop".into()),
        serde_json::json!({"type": "content_block_stop", "index": 0}).to_string(),
    ));
    first.extend(anthropic_text_block(
        1,
        &["Hidden thoughts, ", "plain answer."],
    ));
    first.extend(anthropic_end("end_turn"));
    let fake =
        FakeProvider::start(vec![anthropic_stream(first), anthropic_text(&["Again."])]).await;
    let test = open(&fake.anthropic_config()).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "think").await;
    assert_eq!(text_of(&reply), "Hidden thoughts, plain answer.");
    let kept = reply.parts.iter().find_map(|part| match &part.body {
        PartBody::Reasoning(reasoning) => {
            Some((reasoning.text.clone(), reasoning.metadata.clone()))
        }
        _ => None,
    });
    assert_eq!(
        kept,
        Some((
            String::new(),
            Some(serde_json::json!({"anthropic": {"redactedData": "EmwKAhgB"}}))
        ))
    );
    ask(&test, &session.id, "again").await;
    let replayed = fake.requests()[1].body["messages"][1]["content"].clone();
    assert_eq!(
        replayed,
        serde_json::json!([
            {"type": "redacted_thinking", "data": "EmwKAhgB"},
            {"type": "text", "text": "Hidden thoughts, plain answer."},
        ])
    );
}

#[tokio::test]
async fn step_cost_comes_from_the_configured_price_and_adds_up_on_the_session() {
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", "list", "{}"),
        openai_text(&["Two files."]),
    ])
    .await;
    let config = format!(
        r#"{{"model": "fake/priced", "provider": {{"fake": {{"options": {{"baseURL": "{}"}}, "models": {{"priced": {{"cost": {{"input": 1.0, "output": 2.0}}}}}}}}}}}}"#,
        fake.base_url
    );
    let test = open(&config).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "what is here?").await;
    // 42 input tokens at $1/M and 11 output tokens at $2/M, per step.
    let per_step = (42.0 + 22.0) / 1e6;
    let assistant = assistant_of(&reply);
    assert!(
        (assistant.cost - per_step).abs() < 1e-12,
        "{}",
        assistant.cost
    );
    let finish = reply.parts.iter().find_map(|part| match &part.body {
        PartBody::StepFinish(finish) => Some(finish.cost),
        _ => None,
    });
    assert!(finish.is_some_and(|cost| (cost - per_step).abs() < 1e-12));
    let stored = test
        .ledger
        .sessions()
        .get(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        (stored.cost - 2.0 * per_step).abs() < 1e-12,
        "{}",
        stored.cost
    );
    assert_eq!((stored.tokens.input, stored.tokens.output), (84, 22));
}

#[tokio::test]
async fn a_known_model_without_a_configured_price_is_costed_from_the_models_dev_snapshot() {
    let fake = FakeProvider::start(vec![openai_text(&["Hello."])]).await;
    // Provider "openai" pointed at the fake server, model gpt-4o, no `cost` in the config.
    let config = format!(
        r#"{{"model": "openai/gpt-4o", "provider": {{"openai": {{"options": {{"baseURL": "{}", "apiKey": "{API_KEY}"}}, "models": {{"gpt-4o": {{}}}}}}}}}}"#,
        fake.base_url
    );
    let test = open(&config).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hi").await;
    // 42 input tokens at $2.50/M and 11 output tokens at $10/M (the snapshot's gpt-4o price).
    let expected = (42.0 * 2.5 + 11.0 * 10.0) / 1e6;
    let assistant = assistant_of(&reply);
    assert!(
        (assistant.cost - expected).abs() < 1e-12,
        "{}",
        assistant.cost
    );
}

#[tokio::test]
async fn the_first_reply_titles_the_session_through_the_model() {
    let fake = FakeProvider::start(vec![openai_text(&["Hi."])]).await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    ask(&test, &session.id, "hello there").await;
    // Titles are generated beside the reply; give a loaded machine time.
    for _ in 0..500 {
        let title = test
            .ledger
            .sessions()
            .get(&session.id)
            .await
            .map(|session| session.title)
            .unwrap_or_default();
        if title == "Fake title" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the session was not titled");
}

/// What a run returns and whether a prompt still waits are read from the session's end (its
/// newest messages), not from its whole history: the newest reply even when a newer prompt
/// waits after it, the prompt itself while nothing has answered.
#[tokio::test]
async fn the_newest_reply_and_a_waiting_prompt_are_read_from_the_sessions_end() {
    use dossier_core::store::tables::message_store::{awaits_reply, newest_reply_id};
    let fake = FakeProvider::start(vec![openai_text(&["first ", "answer"])]).await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let store = test.ledger.store();
    let look = || async {
        let mut connection = store.connection().await.expect("a connection");
        (
            newest_reply_id(&mut connection, &session.id)
                .await
                .expect("the newest reply's id"),
            awaits_reply(&mut connection, &session.id)
                .await
                .expect("whether a prompt waits"),
        )
    };
    assert_eq!(look().await, (None, false), "an empty session");

    let waiting = test
        .no_reply(&session, vec![Draft::text("unanswered")])
        .await;
    assert_eq!(
        look().await,
        (Some(waiting.info.id().to_string()), true),
        "a prompt that nothing has answered"
    );

    let reply = ask(&test, &session.id, "answer this").await;
    assert_eq!(text_of(&reply), "first answer");
    assert_eq!(
        look().await,
        (Some(reply.info.id().to_string()), false),
        "the run returned the reply it stored, and nothing waits"
    );

    test.no_reply(&session, vec![Draft::text("later")]).await;
    assert_eq!(
        look().await,
        (Some(reply.info.id().to_string()), true),
        "the newest reply stays the newest assistant message under a newer prompt"
    );
}
