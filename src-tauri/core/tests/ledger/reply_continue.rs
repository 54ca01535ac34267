//! Continue after a stopped reply: a core operation (`ledger.replies().continue_after_stop`),
//! not the window sending the word. It answers on with the stopped reply's model and agent, the
//! kept text in the history; it is refused when the last message is no stopped reply.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::assistant_error::AssistantError;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::message::Message;
use dossier_core::ErrorKind;
use std::time::Duration;

#[tokio::test]
async fn continue_answers_on_from_the_stopped_reply_with_its_model() {
    let fake = FakeProvider::start(vec![
        openai_stream(
            openai_text_events(&["Still ", "thinking"]),
            Ending::Hang,
            Duration::ZERO,
        ),
        openai_text(&["and ", "done"]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let BackgroundReply {
        mut events,
        running,
    } = reply_in_background(&test, &session.id, "hello");
    wait_for(&mut events, |event| matches!(&event.payload, EventPayload::PartDelta { delta, .. } if delta == "thinking")).await;
    assert!(test.ledger.replies().abort(&session.id));
    let stopped = running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(matches!(
        assistant_of(&stopped).error,
        Some(AssistantError::MessageAbortedError { .. })
    ));

    let reply = test
        .ledger
        .replies()
        .continue_after_stop(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(text_of(&reply), "and done");
    assert_eq!(assistant_of(&reply).provider_id, "fake");
    assert_eq!(assistant_of(&reply).model_id, "fake-model");
    assert_eq!(assistant_of(&reply).agent, assistant_of(&stopped).agent);

    let history = test.history(&session.id).await;
    let roles: Vec<&str> = history
        .iter()
        .map(|message| match &message.info {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
        })
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    assert_eq!(text_of(&history[2]), "Continue");
    assert_eq!(
        text_of(&history[1]),
        "Still thinking",
        "the stopped text is kept"
    );

    let requests = fake.requests();
    let sent = requests
        .last()
        .unwrap_or_else(|| panic!("the provider was not asked"))
        .body
        .to_string();
    assert!(
        sent.contains("Still thinking"),
        "the kept text goes with it: {sent}"
    );
    assert!(sent.contains("Continue"), "{sent}");
}

#[tokio::test]
async fn continue_is_refused_when_the_last_reply_was_not_stopped() {
    let fake = FakeProvider::start(vec![openai_text(&["All ", "done"])]).await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let refused = test
        .ledger
        .replies()
        .continue_after_stop(&session.id)
        .await
        .err()
        .unwrap_or_else(|| panic!("an empty session was continued"));
    assert_eq!(refused.kind(), ErrorKind::Invalid, "{refused}");

    ask(&test, &session.id, "hello").await;
    let refused = test
        .ledger
        .replies()
        .continue_after_stop(&session.id)
        .await
        .err()
        .unwrap_or_else(|| panic!("a finished reply was continued"));
    assert_eq!(refused.kind(), ErrorKind::Invalid);
    assert!(
        refused.to_string().contains("no stopped reply to continue"),
        "{refused}"
    );
    assert_eq!(test.history(&session.id).await.len(), 2, "nothing was sent");
}
