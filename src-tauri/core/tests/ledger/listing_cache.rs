//! The JSON listing keeps recent pages in memory; these tests hold that a kept page is never
//! served once any write has touched its session's messages or parts — through each ledger
//! write path, and through a plain SQL statement no ledger function knows about.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::message::ModelRef;
use dossier_core::wire::part::PartBody;
use dossier_core::ErrorKind;

fn queries() -> [MessageQuery; 3] {
    [
        MessageQuery::default(),
        MessageQuery {
            limit: Some(2),
            before: None,
        },
        MessageQuery {
            limit: Some(1),
            before: Some("3".into()),
        },
    ]
}

/// Lists every page twice (the second may be served from memory) and checks each against a
/// fresh typed read of the database; returns the whole listing.
async fn listed(test: &TestLedger, session_id: &str) -> String {
    let mut whole = String::new();
    for query in queries() {
        let typed = test
            .ledger
            .sessions()
            .messages(session_id, &query)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let expected = serde_json::to_string(&typed.messages).unwrap_or_default();
        for _ in 0..2 {
            let page = test
                .ledger
                .sessions()
                .messages_json(session_id, &query)
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            assert_eq!(page.json, expected, "{query:?}");
            assert_eq!(page.next_cursor, typed.next_cursor, "{query:?}");
            if query.limit.is_none() {
                whole = page.json;
            }
        }
    }
    whole
}

#[tokio::test]
async fn a_kept_listing_follows_every_ledger_write() {
    let fake = FakeProvider::start(vec![
        openai_text(&["First answer."]),
        openai_text(&["We said hello."]),
        openai_text(&["After the summary."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    assert_eq!(listed(&test, &session.id).await, "[]");

    // A prompt, then a reply (inserted and rewritten as it streams).
    let first = test
        .no_reply(&session, vec![Draft::text("a question")])
        .await;
    assert!(listed(&test, &session.id).await.contains("a question"));
    ask(&test, &session.id, "hello there").await;
    assert!(listed(&test, &session.id).await.contains("First answer."));

    // A part rewritten, then deleted.
    let mut part = first.parts[0].clone();
    if let PartBody::Text(text) = &mut part.body {
        text.text = "a rewritten question".into();
    }
    test.ledger
        .reshaping()
        .update_part(&session.id, first.info.id(), &part.id, part.clone())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let after_update = listed(&test, &session.id).await;
    assert!(after_update.contains("a rewritten question"));
    assert!(!after_update.contains("\"a question\""));
    test.ledger
        .reshaping()
        .delete_part(&session.id, first.info.id(), &part.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(!listed(&test, &session.id)
        .await
        .contains("a rewritten question"));

    // A message deleted.
    test.ledger
        .reshaping()
        .delete_message(&session.id, first.info.id())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(!listed(&test, &session.id).await.contains(first.info.id()));

    // Compaction: a request and a summary are written by the loop.
    test.ledger
        .replies()
        .summarize(&session.id, ModelRef::new("fake", "fake-model"), false)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(listed(&test, &session.id).await.contains("We said hello."));

    // Revert, then the next prompt clears what was reverted.
    let history = test.history(&session.id).await;
    let reverted = history[history.len() - 1].info.id().to_string();
    test.ledger
        .reshaping()
        .revert(&session.id, &reverted, None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    listed(&test, &session.id).await;
    test.no_reply(&session, vec![Draft::text("after the revert")])
        .await;
    let after_revert = listed(&test, &session.id).await;
    assert!(after_revert.contains("after the revert"));
    assert!(!after_revert.contains(&reverted));

    // The session deleted: its kept pages are not served, the session is gone.
    test.ledger
        .sessions()
        .delete(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let missing = test
        .ledger
        .sessions()
        .messages_json(&session.id, &MessageQuery::default())
        .await
        .err();
    assert_eq!(missing.map(|error| error.kind()), Some(ErrorKind::NotFound));
}

#[tokio::test]
async fn a_kept_listing_follows_a_write_no_ledger_function_made() {
    crate::sqlite_only!("the listing cache of SQLite's assembled JSON");
    let test = open("{}").await;
    let session = test.session().await;
    let other = test.session().await;
    for index in 0..4 {
        test.no_reply(&session, vec![Draft::text(format!("words {index}"))])
            .await;
    }
    test.no_reply(&other, vec![Draft::text("elsewhere")]).await;
    let before = listed(&test, &session.id).await;
    let elsewhere = listed(&test, &other.id).await;
    assert!(before.contains("words 3"));

    let pool = test.ledger.pool().sqlite().expect("a SQLite ledger");
    sqlx::query("UPDATE part SET data = replace(data, 'words 3', 'changed behind its back')")
        .execute(pool)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(listed(&test, &session.id)
        .await
        .contains("changed behind its back"));

    sqlx::query("DELETE FROM message WHERE session_id = ? AND seq = (SELECT min(seq) FROM message WHERE session_id = ?)")
        .bind(&session.id)
        .bind(&session.id)
        .execute(pool)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(!listed(&test, &session.id).await.contains("words 0"));

    // A write to one session leaves the other's kept listing as it was, and still right.
    assert_eq!(listed(&test, &other.id).await, elsewhere);
}

/// Lists sessions twice (the second may be served from memory) and holds both against the
/// database read afresh: the ids in order (newest first, archived left out) and each session as
/// `get` reads it. Returns the listing.
async fn sessions_listed(test: &TestLedger) -> Vec<dossier_core::wire::session::Session> {
    use dossier_core::store::rows::session_page::SessionQuery;
    let query = SessionQuery {
        limit: Some(50),
        ..SessionQuery::default()
    };
    let first = test
        .ledger
        .sessions()
        .list(&query)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let again = test
        .ledger
        .sessions()
        .list(&query)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(first, again);
    let mut expected = Vec::new();
    for listed in &first.sessions {
        expected.push(
            test.ledger
                .sessions()
                .get(&listed.id)
                .await
                .unwrap_or_else(|error| panic!("{error}")),
        );
    }
    assert_eq!(first.sessions, expected);
    let unarchived = scalar(
        &test.ledger,
        "SELECT count(*) FROM session WHERE time_archived IS NULL",
    )
    .await;
    assert_eq!(first.sessions.len() as i64, unarchived);
    first.sessions
}

fn titles(sessions: &[dossier_core::wire::session::Session]) -> Vec<&str> {
    sessions
        .iter()
        .map(|session| session.title.as_str())
        .collect()
}

#[tokio::test]
async fn a_kept_session_listing_follows_every_ledger_write() {
    use dossier_core::wire::permission::{Action, Rule};
    use dossier_core::wire::session::SessionPatch;
    let fake = FakeProvider::start(vec![openai_text(&["An answer."])]).await;
    let test = open(&fake.openai_config()).await;
    let rename = |title: &str| SessionPatch {
        title: Some(title.into()),
        ..SessionPatch::default()
    };
    assert!(sessions_listed(&test).await.is_empty());

    // Created, renamed, pinned.
    let first = test.session().await;
    let second = test.session().await;
    assert_eq!(sessions_listed(&test).await.len(), 2);
    let sessions = test.ledger.sessions();
    sessions
        .update(&first.id, rename("Harbour"))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    sessions
        .update(&second.id, rename("Lighthouse"))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        titles(&sessions_listed(&test).await),
        ["Lighthouse", "Harbour"]
    );
    sessions
        .update(
            &first.id,
            SessionPatch {
                pinned: Some(true),
                permission: Some(vec![Rule::new("read", "*.md", Action::Allow)]),
                ..SessionPatch::default()
            },
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let listed = sessions_listed(&test).await;
    assert_eq!(titles(&listed), ["Harbour", "Lighthouse"]);
    assert!(listed[0].pinned);

    // A prompt moves its session to the top and records its agent and model; a reply adds its
    // cost and tokens.
    test.no_reply(&second, vec![Draft::text("a question")])
        .await;
    let listed = sessions_listed(&test).await;
    assert_eq!(titles(&listed), ["Lighthouse", "Harbour"]);
    assert!(listed[0].model.is_some());
    ask(&test, &first.id, "hello there").await;
    let listed = sessions_listed(&test).await;
    assert_eq!(listed[0].id, first.id);
    assert!(listed[0].tokens.output > 0, "{:?}", listed[0].tokens);

    // A fork appears; an archived session leaves the listing; a deleted one is gone.
    let fork = test
        .ledger
        .reshaping()
        .fork_session(&first.id, None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(sessions_listed(&test)
        .await
        .iter()
        .any(|session| session.id == fork.id));
    sessions
        .archive(&second.id, true)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(!sessions_listed(&test)
        .await
        .iter()
        .any(|session| session.id == second.id));
    sessions
        .delete(&fork.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        sessions_listed(&test)
            .await
            .iter()
            .map(|session| session.id.as_str())
            .collect::<Vec<_>>(),
        [first.id.as_str()]
    );
}

#[tokio::test]
async fn a_kept_session_listing_follows_a_write_no_ledger_function_made() {
    crate::sqlite_only!("the session listings kept beside SQLite's listing clock");
    let test = open("{}").await;
    let session = test.session().await;
    sessions_listed(&test).await;
    execute(
        &test.ledger,
        "UPDATE session SET title = 'changed behind its back', cost = 1.25",
    )
    .await;
    let listed = sessions_listed(&test).await;
    assert_eq!(titles(&listed), ["changed behind its back"]);
    assert_eq!(listed[0].cost, 1.25);
    execute(&test.ledger, "DELETE FROM session").await;
    assert!(sessions_listed(&test).await.is_empty());
    drop(session);
}

#[tokio::test]
async fn every_column_a_listing_shows_moves_the_listing_clock() {
    // A column added to `session` later must be added to the clock's update trigger
    // (migrations/0010_session_listing_clock.sql), or a kept listing would not show its changes.
    crate::sqlite_only!("SQLite's listing clock");
    let test = open("{}").await;
    let session = test.session().await;
    let pool = test.ledger.pool().sqlite().expect("a SQLite ledger");
    let columns: Vec<String> = sqlx::query_scalar("SELECT name FROM pragma_table_info('session')")
        .fetch_all(pool)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(columns.len() > 20, "{columns:?}");
    let mut unseen = Vec::new();
    for column in columns.iter().filter(|column| *column != "last_seq") {
        let before = scalar(&test.ledger, "SELECT tick FROM session_listing_clock").await;
        sqlx::query(&format!(
            "UPDATE session SET {column} = {column} WHERE id = ?"
        ))
        .bind(&session.id)
        .execute(pool)
        .await
        .unwrap_or_else(|error| panic!("{column}: {error}"));
        let after = scalar(&test.ledger, "SELECT tick FROM session_listing_clock").await;
        if after == before {
            unseen.push(column.clone());
        }
    }
    assert!(
        unseen.is_empty(),
        "columns the listing clock misses: {unseen:?}"
    );
    // The sequence counter alone does not move it: every prompt moves that.
    let before = scalar(&test.ledger, "SELECT tick FROM session_listing_clock").await;
    execute(&test.ledger, "UPDATE session SET last_seq = last_seq + 1").await;
    let after = scalar(&test.ledger, "SELECT tick FROM session_listing_clock").await;
    assert_eq!(after, before);
}
