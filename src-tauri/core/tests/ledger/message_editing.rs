//! Deleting a message, deleting a part, rewriting a part (OpenCode's deleteMessage, deletePart,
//! updatePart): gone for good with their usage, announced after the commit, followed by search,
//! and refused with a typed error for a wrong id, mismatched ids or a session that is replying.

use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::part::{PartBody, TextPart};
use dossier_core::ErrorKind;

/// A session with a question and the offline model's answer (which records its tokens).
async fn answered(
    test: &TestLedger,
) -> (String, Vec<dossier_core::wire::message::MessageWithParts>) {
    let session = test.session().await;
    ask(test, &session.id, "What is a periwinkle?").await;
    let history = test.history(&session.id).await;
    assert_eq!(history.len(), 2);
    (session.id, history)
}

async fn session_tokens(test: &TestLedger, session_id: &str) -> u64 {
    let session = test
        .ledger
        .sessions()
        .get(session_id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    session.tokens.input + session.tokens.output
}

#[tokio::test]
async fn deleting_a_reply_removes_it_with_its_parts_and_its_usage() {
    let test = open("{}").await;
    let (session_id, history) = answered(&test).await;
    assert!(session_tokens(&test, &session_id).await > 0);
    let reply = history[1].info.id().to_string();
    let mut events = subscribe(&test.ledger).await;

    test.ledger
        .reshaping()
        .delete_message(&session_id, &reply)
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let left = test.history(&session_id).await;
    assert_eq!(left.len(), 1);
    assert_eq!(describe(&left[0].parts), ["text: What is a periwinkle?"]);
    assert_eq!(session_tokens(&test, &session_id).await, 0);
    let said: Vec<String> = drain(&test.ledger, &mut events)
        .await
        .iter()
        .map(|event| match &event.payload {
            EventPayload::MessageRemoved { message_id, .. } => format!("removed {message_id}"),
            other => other.type_name().to_string(),
        })
        .collect();
    // The removal, then the session with its new totals (a title may arrive at any time).
    let removed = said
        .iter()
        .position(|line| *line == format!("removed {reply}"))
        .unwrap_or_else(|| panic!("no message.removed in {said:?}"));
    assert!(
        said[removed + 1..].contains(&"session.updated".to_string()),
        "{said:?}"
    );
    assert!(session_ids(&search(&test, "offline").await).is_empty());

    let again = test
        .ledger
        .reshaping()
        .delete_message(&session_id, &reply)
        .await;
    assert_eq!(
        again.map_err(|error| error.kind()),
        Err(ErrorKind::NotFound)
    );
}

#[tokio::test]
async fn deleting_a_part_removes_only_that_part() {
    let test = open("{}").await;
    let (session_id, history) = answered(&test).await;
    let reply = &history[1];
    let text = text_part_of(reply);
    let before = describe(&reply.parts).len();

    test.ledger
        .reshaping()
        .delete_part(&session_id, reply.info.id(), &text.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let after = &test.history(&session_id).await[1];
    assert_eq!(after.parts.len(), before - 1);
    assert!(after.parts.iter().all(|part| part.id != text.id));
    // The step's usage is a step-finish part's, which stays.
    assert!(session_tokens(&test, &session_id).await > 0);
    let wrong_message = test
        .ledger
        .reshaping()
        .delete_part(&session_id, history[0].info.id(), &text.id)
        .await;
    assert_eq!(
        wrong_message.map_err(|error| error.kind()),
        Err(ErrorKind::NotFound)
    );
}

#[tokio::test]
async fn a_rewritten_part_is_stored_announced_and_found_by_search() {
    let test = open("{}").await;
    let (session_id, history) = answered(&test).await;
    let reply = &history[1];
    let mut part = text_part_of(reply).clone();
    part.body = PartBody::Text(TextPart {
        text: "A marigold is a flower.".into(),
        ..TextPart::default()
    });
    assert_eq!(
        session_ids(&search(&test, "offline").await),
        std::slice::from_ref(&session_id)
    );
    let mut events = subscribe(&test.ledger).await;

    let stored = test
        .ledger
        .reshaping()
        .update_part(&session_id, reply.info.id(), &part.id, part.clone())
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    assert_eq!(stored, part);
    let texts: Vec<String> = describe(&test.history(&session_id).await[1].parts)
        .into_iter()
        .filter(|line| line.starts_with("text"))
        .collect();
    assert_eq!(texts, ["text: A marigold is a flower."]);
    let announced = drain(&test.ledger, &mut events).await.into_iter().any(|event| {
        matches!(&event.payload, EventPayload::PartUpdated { part: updated, .. } if *updated == part)
    });
    assert!(announced);
    assert_eq!(
        session_ids(&search(&test, "marigold").await),
        std::slice::from_ref(&session_id)
    );
    // The offline model's words are gone from the index with the text they were in.
    assert!(session_ids(&search(&test, "offline").await).is_empty());

    let mut moved = part.clone();
    moved.message_id = history[0].info.id().to_string();
    let refused = test
        .ledger
        .reshaping()
        .update_part(&session_id, reply.info.id(), &part.id, moved)
        .await;
    assert_eq!(
        refused.map_err(|error| error.kind()),
        Err(ErrorKind::Invalid)
    );
}

#[tokio::test]
async fn nothing_is_deleted_or_rewritten_while_the_session_replies() {
    let (_fake, test, session) = hanging_after(&["Still ", "thinking"]).await;
    let question = test
        .no_reply(
            &session,
            vec![dossier_core::wire::draft::Draft::text("kept")],
        )
        .await;
    let mut reply = reply_in_background(&test, &session.id, "go on");
    wait_for(&mut reply.events, |event| {
        matches!(&event.payload, EventPayload::PartDelta { .. })
    })
    .await;

    let message = test
        .ledger
        .reshaping()
        .delete_message(&session.id, question.info.id())
        .await;
    let part = test
        .ledger
        .reshaping()
        .delete_part(&session.id, question.info.id(), &question.parts[0].id)
        .await;
    let rewrite = test
        .ledger
        .reshaping()
        .update_part(
            &session.id,
            question.info.id(),
            &question.parts[0].id,
            question.parts[0].clone(),
        )
        .await;
    for outcome in [message, part, rewrite.map(|_| ())] {
        assert_eq!(outcome.map_err(|error| error.kind()), Err(ErrorKind::Busy));
    }
    test.ledger.replies().abort(&session.id);
    assert_eq!(
        describe(&test.history(&session.id).await[0].parts),
        ["text: kept"]
    );
}
