//! A session's cost and token totals are the sum of its steps: undone turns leave them when the
//! next prompt removes them, a fork counts only the steps it copies, and an import counts the
//! steps it brings whatever the file's totals say.

use crate::reply_support::*;
use crate::support::*;
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::message::MessageWithParts;
use dossier_core::wire::part::PartBody;
use dossier_core::wire::session::Session;

/// Input plus output tokens of the steps in `messages`.
fn step_tokens(messages: &[MessageWithParts]) -> u64 {
    messages
        .iter()
        .flat_map(|message| &message.parts)
        .map(|part| match &part.body {
            PartBody::StepFinish(step) => step.tokens.input + step.tokens.output,
            _ => 0,
        })
        .sum()
}

fn totals(session: &Session) -> u64 {
    session.tokens.input + session.tokens.output
}

async fn reread(test: &TestLedger, session_id: &str) -> Session {
    test.ledger
        .sessions()
        .get(session_id)
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// A session with two questions, each answered by the offline model (which counts tokens).
async fn two_turns(test: &TestLedger) -> (Session, Vec<MessageWithParts>) {
    let session = test.session().await;
    ask(test, &session.id, "first question").await;
    ask(
        test,
        &session.id,
        "a second, longer question about the garden",
    )
    .await;
    let history = test.history(&session.id).await;
    assert_eq!(history.len(), 4);
    let session = reread(test, &session.id).await;
    assert_eq!(totals(&session), step_tokens(&history));
    (session, history)
}

#[tokio::test]
async fn an_undone_turn_leaves_the_totals_when_the_next_prompt_removes_it() {
    let test = open("{}").await;
    let (session, history) = two_turns(&test).await;
    test.ledger
        .reshaping()
        .revert(&session.id, history[2].info.id(), None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    test.no_reply(&session, vec![Draft::text("instead, this")])
        .await;
    let after = reread(&test, &session.id).await;
    assert_eq!(totals(&after), step_tokens(&history[..2]));
    assert!(totals(&after) < totals(&session));
}

#[tokio::test]
async fn a_fork_counts_only_the_steps_it_copies() {
    let test = open("{}").await;
    let (session, history) = two_turns(&test).await;
    let fork = test
        .ledger
        .reshaping()
        .fork_session(&session.id, Some(history[2].info.id()))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(totals(&fork), step_tokens(&history[..2]));
    assert_eq!(totals(&reread(&test, &fork.id).await), totals(&fork));
}

#[tokio::test]
async fn an_import_counts_the_steps_it_brings_not_the_files_totals() {
    let test = open("{}").await;
    let (session, history) = two_turns(&test).await;
    let exported = test
        .ledger
        .reshaping()
        .export_json(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut document = serde_json::to_value(&exported).unwrap_or_default();
    document["info"]["tokens"]["input"] = serde_json::json!(999_999);
    document["info"]["cost"] = serde_json::json!(12.5);
    let imported = test
        .ledger
        .reshaping()
        .import_session(document)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(totals(&imported), step_tokens(&history));
    assert_eq!(imported.cost, session.cost);
}

#[tokio::test]
async fn a_listing_gives_the_same_session_as_reading_it_to_the_last_bit_of_its_cost() {
    // A listing has SQLite build its page as JSON, whose numbers keep 15 digits; this sum needs
    // 17 to come back as the same f64 (0.1 + 0.2 = 0.30000000000000004).
    let test = open("{}").await;
    let (session, _) = two_turns(&test).await;
    let exported = test
        .ledger
        .reshaping()
        .export_json(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut document = serde_json::to_value(&exported).unwrap_or_default();
    let mut costs = vec![0.2, 0.1];
    for message in document["messages"].as_array_mut().into_iter().flatten() {
        for part in message["parts"].as_array_mut().into_iter().flatten() {
            if part["type"] == "step-finish" {
                part["cost"] = serde_json::json!(costs.pop().unwrap_or(0.0));
            }
        }
    }
    assert!(costs.is_empty(), "the two turns' steps took the costs");
    let imported = test
        .ledger
        .reshaping()
        .import_session(document)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(imported.cost, 0.1 + 0.2);
    let listed = test
        .ledger
        .sessions()
        .list(&SessionQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let from_listing = listed
        .sessions
        .iter()
        .find(|listed| listed.id == imported.id)
        .unwrap_or_else(|| panic!("the import is listed"));
    assert_eq!(from_listing, &reread(&test, &imported.id).await);
    assert_eq!(from_listing.cost.to_bits(), (0.1f64 + 0.2).to_bits());
}
