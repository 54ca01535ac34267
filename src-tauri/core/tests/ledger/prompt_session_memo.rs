//! A prompt starts from the session as the last prompt here left it (`prompt_session_memo`),
//! and still decides from the session as it is when something changed it meanwhile: another
//! process, or a write no ledger function made. Each change below is made behind the ledger's
//! back, as another process would make it.

use crate::support::*;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::message::{Message, MessageWithParts, ModelRef};
use dossier_core::ErrorKind;

fn model_of(saved: &MessageWithParts) -> String {
    match &saved.info {
        Message::User(user) => format!("{}/{}", user.model.provider_id, user.model.model_id),
        Message::Assistant(_) => panic!("an assistant message"),
    }
}

async fn prompt_with_model(test: &TestLedger, session_id: &str, text: &str) -> MessageWithParts {
    let mut input = no_reply(vec![Draft::text(text)]);
    input.model = Some(ModelRef::new("fake", "smart"));
    test.ledger
        .sessions()
        .prompt(session_id, input)
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// Every user message's text, in the session's order: nothing lost, repeated or reordered.
async fn texts(test: &TestLedger, session_id: &str) -> Vec<String> {
    test.ledger
        .sessions()
        .messages(session_id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .messages
        .iter()
        .flat_map(|message| message.parts.iter())
        .filter_map(|part| match &part.body {
            dossier_core::wire::part::PartBody::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_prompt_takes_the_model_its_session_was_switched_to_meanwhile() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    assert_eq!(
        model_of(&prompt_with_model(&test, &session.id, "first").await),
        "fake/smart"
    );
    let second = test.no_reply(&session, vec![Draft::text("second")]).await;
    assert_eq!(
        model_of(&second),
        "fake/smart",
        "the session's model is kept"
    );

    // Switched elsewhere (another process's prompt, which leaves no message here).
    execute(
        &test.ledger,
        &format!(
            r#"UPDATE session SET model = '{{"id":"fake-model","providerID":"fake","variant":"default"}}' WHERE id = '{}'"#,
            session.id
        ),
    )
    .await;
    let third = test.no_reply(&session, vec![Draft::text("third")]).await;
    assert_eq!(model_of(&third), "fake/fake-model");
    let fourth = test.no_reply(&session, vec![Draft::text("fourth")]).await;
    assert_eq!(model_of(&fourth), "fake/fake-model");
    let stored = test
        .ledger
        .sessions()
        .get(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        stored.model.map(|model| model.id),
        Some("fake-model".into())
    );
    assert_eq!(
        texts(&test, &session.id).await,
        ["first", "second", "third", "fourth"]
    );
}

#[tokio::test]
async fn a_model_written_in_other_words_is_kept_and_prompts_go_on() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    prompt_with_model(&test, &session.id, "first").await;
    // The same model, its keys in another order (another writer's JSON).
    execute(
        &test.ledger,
        &format!(
            r#"UPDATE session SET model = '{{"variant":"default","providerID":"fake","id":"smart"}}' WHERE id = '{}'"#,
            session.id
        ),
    )
    .await;
    for text in ["second", "third"] {
        let saved = test.no_reply(&session, vec![Draft::text(text)]).await;
        assert_eq!(model_of(&saved), "fake/smart");
    }
    assert_eq!(
        texts(&test, &session.id).await,
        ["first", "second", "third"]
    );
}

#[tokio::test]
async fn a_prompt_into_a_session_deleted_meanwhile_is_refused_as_not_found() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    test.no_reply(&session, vec![Draft::text("first")]).await;
    execute(
        &test.ledger,
        &format!("DELETE FROM session WHERE id = '{}'", session.id),
    )
    .await;
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, no_reply(vec![Draft::text("second")]))
        .await
        .err()
        .unwrap_or_else(|| panic!("a prompt into a deleted session was saved"));
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
}

#[tokio::test]
async fn a_prompt_after_messages_written_meanwhile_numbers_after_them() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    // A second ledger on the same folder or database: another process, as far as this one knows.
    let mut beside = options(test.folder.path(), FAKE_CONFIG);
    if let Some(database) = &test.database {
        beside.database_url = Some(database.url.clone());
    }
    let other = dossier_core::start_up::open(beside)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    test.no_reply(&session, vec![Draft::text("here 1")]).await;
    other
        .sessions()
        .prompt(&session.id, no_reply(vec![Draft::text("there")]))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    test.no_reply(&session, vec![Draft::text("here 2")]).await;
    assert_eq!(
        texts(&test, &session.id).await,
        ["here 1", "there", "here 2"]
    );
}
