//! Provider failures become the typed error union on the reply: auth, retried rate limits and
//! server errors, a stream cut mid-reply, a provider with no address. A reply that stops because
//! the ledger itself failed says so with a `session.error`.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::assistant_error::AssistantError;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::event::{Event, EventPayload, SessionStatus};
use dossier_core::wire::message::Message;
use dossier_core::wire::part::PartBody;
use std::time::Duration;

#[tokio::test]
async fn unauthorized_becomes_provider_auth_error_and_the_key_goes_nowhere() {
    let fake = FakeProvider::start(vec![status(
        401,
        &[],
        serde_json::json!({"error": {"message": format!("Incorrect API key provided: {API_KEY}"), "type": "invalid_request_error"}}),
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let reply = ask(&test, &session.id, "hello").await;
    let assistant = assistant_of(&reply);
    assert_eq!(
        assistant.error,
        Some(AssistantError::ProviderAuthError {
            provider_id: "fake".into(),
            message: "Incorrect API key provided: [redacted]".into()
        })
    );
    assert!(assistant.time.completed.is_some());
    let seen = drain(&test.ledger, &mut events).await;
    assert!(story(&seen).contains(&"error \"ProviderAuthError\"".to_string()));
    let all_events =
        serde_json::to_string(&seen.iter().map(|event| &event.payload).collect::<Vec<_>>())
            .unwrap_or_default();
    assert!(!all_events.contains(API_KEY), "the key leaked into events");
    let database =
        std::fs::read(test.folder.path().join("data").join("dossier.db")).unwrap_or_default();
    assert!(
        !String::from_utf8_lossy(&database).contains(API_KEY),
        "the key leaked into the database"
    );
}

#[tokio::test]
async fn rate_limit_is_retried_after_retry_after_ms_with_a_retry_status() {
    let fake = FakeProvider::start(vec![
        status(
            429,
            &[("retry-after-ms", "120")],
            serde_json::json!({"error": {"message": "Rate limit reached"}}),
        ),
        openai_text(&["Finally."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let started = std::time::Instant::now();
    let reply = ask(&test, &session.id, "hello").await;
    assert!(started.elapsed() >= Duration::from_millis(120));
    assert_eq!(text_of(&reply), "Finally.");
    assert!(assistant_of(&reply).error.is_none());
    let seen = drain(&test.ledger, &mut events).await;
    let retry = seen.iter().find_map(|event| match &event.payload {
        EventPayload::SessionStatus {
            status:
                SessionStatus::Retry {
                    attempt,
                    message,
                    next,
                },
            ..
        } => Some((*attempt, message.clone(), *next)),
        _ => None,
    });
    let (attempt, message, _) =
        retry.unwrap_or_else(|| panic!("no retry status in {:?}", story(&seen)));
    assert_eq!((attempt, message.as_str()), (1, "Rate limit reached"));
    let statuses: Vec<String> = story(&seen)
        .into_iter()
        .filter(|line| line.starts_with("status"))
        .collect();
    assert_eq!(
        statuses,
        strings(&[
            "status busy",
            "status retry 1",
            "status busy",
            "status idle"
        ])
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "a timing bound (the retry after two seconds) overshot under Wine on the shared 2-core machine (2,359 ms measured)"
)]
async fn server_error_is_retried_after_two_seconds_then_succeeds() {
    let fake = FakeProvider::start(vec![
        status(
            500,
            &[],
            serde_json::json!({"error": {"message": "upstream exploded"}}),
        ),
        openai_text(&["Recovered."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let reply = ask(&test, &session.id, "hello").await;
    assert_eq!(text_of(&reply), "Recovered.");
    let seen = drain(&test.ledger, &mut events).await;
    let wait = seen.iter().find_map(|event| match &event.payload {
        EventPayload::SessionStatus {
            status: SessionStatus::Retry { next, .. },
            ..
        } => Some(*next - event_time(&seen, event)),
        _ => None,
    });
    let wait = wait.unwrap_or_else(|| panic!("no retry status"));
    assert!((1900..=2100).contains(&wait), "waited {wait} ms");
    assert_eq!(
        reply
            .parts
            .iter()
            .filter(|part| part.body.type_name() == "step-start")
            .count(),
        1,
        "a failed attempt leaves no parts"
    );
}

/// The creation time of the assistant message published before `event`.
fn event_time(events: &[Event], _event: &Event) -> i64 {
    events
        .iter()
        .find_map(|event| match &event.payload {
            EventPayload::MessageUpdated {
                info: Message::Assistant(assistant),
                ..
            } => Some(assistant.time.created),
            _ => None,
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn stream_cut_mid_reply_keeps_the_text_and_records_an_api_error() {
    let fake = FakeProvider::start(vec![openai_stream(
        openai_text_events(&["Half ", "a ", "sentence"]),
        Ending::Cut,
        Duration::ZERO,
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hello").await;
    let assistant = assistant_of(&reply);
    match &assistant.error {
        Some(AssistantError::ApiError(data)) => {
            assert_eq!(
                data.message,
                "The connection to the provider closed before the reply finished"
            );
            assert!(!data.is_retryable);
        }
        other => panic!("expected an APIError, got {other:?}"),
    }
    assert_eq!(text_of(&reply), "Half a sentence");
    let ended = reply.parts.iter().any(|part| matches!(&part.body, PartBody::Text(text) if text.time.as_ref().is_some_and(|time| time.end.is_some())));
    assert!(ended, "the kept text is closed");
    assert_eq!(
        fake.requests().len(),
        1,
        "a cut after output is not retried"
    );
}

#[tokio::test]
async fn missing_provider_settings_become_a_readable_error_not_a_hang() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hello").await;
    match &assistant_of(&reply).error {
        Some(AssistantError::UnknownError { message }) => {
            assert!(message.contains("has no options.baseURL"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn anthropic_overloaded_event_before_any_output_is_retried() {
    let mut overloaded = anthropic_start();
    overloaded.push((
        Some("error".into()),
        serde_json::json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}).to_string(),
    ));
    let fake = FakeProvider::start(vec![
        anthropic_stream(overloaded),
        anthropic_text(&["Fine ", "now."]),
    ])
    .await;
    let test = open(&fake.anthropic_config()).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let reply = ask(&test, &session.id, "hello").await;
    assert_eq!(text_of(&reply), "Fine now.");
    assert!(assistant_of(&reply).error.is_none());
    let statuses: Vec<String> = story(&drain(&test.ledger, &mut events).await)
        .into_iter()
        .filter(|line| line.starts_with("status"))
        .collect();
    assert_eq!(
        statuses,
        strings(&[
            "status busy",
            "status retry 1",
            "status busy",
            "status idle"
        ])
    );
    assert_eq!(
        reply
            .parts
            .iter()
            .filter(|part| part.body.type_name() == "step-start")
            .count(),
        1
    );
}

fn overflow() -> Reply {
    status(
        400,
        &[],
        serde_json::json!({"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", "code": "context_length_exceeded"}}),
    )
}

/// What a request sent to the model says, one line per message (`role: text`), without the
/// system prompt.
fn conversation(body: &serde_json::Value) -> Vec<String> {
    sent_messages(body)
        .into_iter()
        .filter(|(role, _)| role != "system")
        .map(|(role, text)| format!("{role}: {text}"))
        .collect()
}

#[tokio::test]
async fn context_overflow_summarises_the_history_and_asks_the_question_again() {
    let fake = FakeProvider::start(vec![
        openai_text(&["First answer."]),
        overflow(),
        openai_text(&["Summary ", "of work."]),
        openai_text(&["Answered."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    ask(&test, &session.id, "first question").await;
    let reply = ask(&test, &session.id, "a very long question").await;
    assert_eq!(text_of(&reply), "Answered.");
    assert!(assistant_of(&reply).error.is_none());
    let stored = test.history(&session.id).await;
    let shape: Vec<String> = stored
        .iter()
        .map(|message| format!("{} {:?}", message.info.role(), describe(&message.parts)))
        .collect();
    assert_eq!(
        shape[2..],
        [
            "user [\"text: a very long question\"]".to_string(),
            "assistant []".to_string(),
            "user [\"compaction\"]".to_string(),
            "assistant [\"step-start\", \"text: Summary of work.\", \"step-finish\"]".to_string(),
            "user [\"text: a very long question\"]".to_string(),
            "assistant [\"step-start\", \"text: Answered.\", \"step-finish\"]".to_string(),
        ]
    );
    assert_eq!(assistant_of(&stored[5]).summary, Some(true));
    // The summary covers the answered turn, not the question that did not fit.
    let summarised = conversation(&fake.requests()[2].body).join("\n");
    assert!(summarised.contains("first question") && summarised.contains("First answer."));
    assert!(!summarised.contains("a very long question"), "{summarised}");
    // Then the model reads the summary and the question itself, once (wrapped as a message
    // that arrived while it worked, since the summary was a finished step, as in OpenCode).
    let after = conversation(&fake.requests()[3].body);
    assert_eq!(
        after[..2],
        [
            "user: What did we do so far?",
            "assistant: Summary of work."
        ]
    );
    assert_eq!(after.len(), 3, "{after:?}");
    assert!(after[2].starts_with("user: ") && after[2].contains("a very long question"));
    assert_eq!(after.join("\n").matches("a very long question").count(), 1);
}

#[tokio::test]
async fn an_image_that_overflowed_is_replayed_as_a_line_naming_it() {
    let fake = FakeProvider::start(vec![
        overflow(),
        openai_text(&["Nothing yet."]),
        openai_text(&["I cannot see the image, but..."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let path = test.write("chart.png", png(64, 64));
    let session = test.session().await;
    let reply = test
        .ledger
        .sessions()
        .prompt(
            &session.id,
            reply_input(vec![
                Draft::text("what does the chart show?"),
                Draft::file(file_url(&path), "image/png", Some("chart.png")),
            ]),
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(text_of(&reply), "I cannot see the image, but...");
    let first = conversation(&fake.requests()[0].body).join("\n");
    assert!(
        first.contains("<media>"),
        "the image went to the model first: {first}"
    );
    let last = conversation(&fake.requests()[2].body);
    let question = last.last().cloned().unwrap_or_default();
    assert!(question.contains("what does the chart show?"), "{question}");
    assert!(
        question.contains("[Attached image/png: chart.png]"),
        "{question}"
    );
    assert!(!question.contains("<media>"), "{question}");
}

#[tokio::test]
async fn overflow_after_compaction_is_a_context_overflow_error() {
    let fake = FakeProvider::start(vec![overflow(), openai_text(&["Summary."]), overflow()]).await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "a very long question").await;
    match &assistant_of(&reply).error {
        Some(AssistantError::ContextOverflowError {
            message,
            response_body,
        }) => {
            assert!(
                message.starts_with("This model's maximum context length is 8192 tokens."),
                "{message}"
            );
            assert!(response_body
                .as_deref()
                .is_some_and(|body| body.contains("context_length_exceeded")));
        }
        other => panic!("expected ContextOverflowError, got {other:?}"),
    }
    assert_eq!(fake.requests().len(), 3, "compacted once, then gave up");
}

#[tokio::test]
async fn a_reply_that_filled_the_configured_context_is_compacted_before_the_next() {
    let fake = FakeProvider::start(vec![
        openai_text(&["One."]),
        openai_text(&["Summary."]),
        openai_text(&["Two."]),
    ])
    .await;
    // The fake reports 42 + 11 tokens per reply; 50 - 10 leaves room for 40.
    let config = format!(
        r#"{{"model": "fake/small", "provider": {{"fake": {{"options": {{"baseURL": "{}"}}, "models": {{"small": {{"limit": {{"context": 50, "output": 10}}}}}}}}}}}}"#,
        fake.base_url
    );
    let test = open(&config).await;
    let session = test.session().await;
    assert_eq!(text_of(&ask(&test, &session.id, "first").await), "One.");
    assert_eq!(text_of(&ask(&test, &session.id, "second").await), "Two.");
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    let last = requests[2].body["messages"].clone();
    assert_eq!(last[1]["content"], "What did we do so far?");
    assert_eq!(last[2]["content"], "Summary.");
    // The question not answered yet is kept verbatim after the summary (the compaction's tail).
    assert_eq!(last[3]["content"], "second");
    assert!(!last.to_string().contains("One."), "{last}");
}

#[tokio::test]
async fn a_reply_the_ledger_could_not_record_tells_the_person_why_it_stopped() {
    let words: Vec<String> = (1..=20).map(|number| format!("word{number} ")).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let fake = FakeProvider::start(vec![openai_stream(
        openai_text_events(&words),
        Ending::Clean,
        Duration::from_millis(100),
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut reply = reply_in_background(&test, &session.id, "hello");
    wait_for(&mut reply.events, |event| {
        matches!(&event.payload, EventPayload::PartUpdated { part, .. } if matches!(part.body, PartBody::Text(_)))
    })
    .await;

    // The ledger stops accepting the reply's parts mid-stream (as a failing disk would).
    execute(&test.ledger, "ALTER TABLE part RENAME TO part_elsewhere").await;

    let seen = wait_for(&mut reply.events, |event| {
        matches!(
            &event.payload,
            EventPayload::SessionStatus {
                status: SessionStatus::Idle,
                ..
            }
        )
    })
    .await;
    let told = seen.iter().find_map(|event| match &event.payload {
        EventPayload::SessionError {
            error: Some(AssistantError::UnknownError { message }),
            ..
        } => Some(message.clone()),
        _ => None,
    });
    let told = told.unwrap_or_else(|| panic!("no session.error in {:?}", story(&seen)));
    // The database's own words for the missing table (SQLite's, or PostgreSQL's).
    assert!(
        told.contains("no such table") || told.contains("relation \"part\" does not exist"),
        "{told}"
    );
    let outcome = reply
        .running
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(outcome.is_err(), "the caller learns of it too: {outcome:?}");
}
