//! Deleted words leave the search index (`search_purge.rs`): a word only a deleted message,
//! session, rewritten part or old title held is forgotten from the word list and rewritten out of
//! the index's pages, while words other text still holds stay findable. And the word cut off at
//! the end of a reply still streaming never gets into the word list.

use crate::support::*;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::session::SessionPatch;
use std::time::Duration;

async fn remembered(test: &TestLedger, word: &str) -> bool {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM search_word WHERE word = ?)")
        .bind(word)
        .fetch_one(test.ledger.pool().sqlite().expect("a SQLite ledger"))
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// Whether the bytes of `word` are anywhere in the word indexes' stored pages.
async fn in_index_pages(test: &TestLedger, word: &str) -> bool {
    let mut pages: Vec<Vec<u8>> = Vec::new();
    for table in ["part_search_data", "title_search_data"] {
        pages.extend(
            sqlx::query_scalar::<_, Vec<u8>>(&format!("SELECT block FROM {table}"))
                .fetch_all(test.ledger.pool().sqlite().expect("a SQLite ledger"))
                .await
                .unwrap_or_else(|error| panic!("{error}")),
        );
    }
    pages.iter().any(|page| {
        page.windows(word.len())
            .any(|window| window == word.as_bytes())
    })
}

async fn rename(test: &TestLedger, session_id: &str, title: &str) {
    test.ledger
        .sessions()
        .update(
            session_id,
            SessionPatch {
                title: Some(title.into()),
                ..SessionPatch::default()
            },
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
}

async fn purge(test: &TestLedger) {
    test.ledger
        .data()
        .purge_deleted_words()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
}

#[tokio::test]
async fn a_deleted_secret_leaves_the_word_list_and_the_index_pages() {
    crate::sqlite_only!("the word index's purge");
    let test = open("{}").await;
    let pasted = test.session().await;
    let message = test
        .no_reply(&pasted, vec![Draft::text("my password is hunter2")])
        .await;
    let other = test.session().await;
    test.no_reply(&other, vec![Draft::text("where do I keep password hints")])
        .await;
    purge(&test).await;
    assert!(remembered(&test, "hunter2").await);
    assert!(in_index_pages(&test, "hunter2").await);

    test.ledger
        .reshaping()
        .delete_message(&pasted.id, message.info.id())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    // After any background run: either way the word is gone when this one returns.
    purge(&test).await;

    assert!(!remembered(&test, "hunter2").await);
    assert!(!in_index_pages(&test, "hunter2").await);
    // Nor anywhere in the files: free pages, the write-ahead log, the message's own row.
    let data = test.folder.path().join("data");
    for name in ["dossier.db", "dossier.db-wal"] {
        let bytes = std::fs::read(data.join(name)).unwrap_or_default();
        assert!(
            !bytes.windows(7).any(|window| window == b"hunter2"),
            "{name} still holds it"
        );
    }
    assert!(
        remembered(&test, "password").await,
        "another message still says it"
    );
    assert_eq!(
        session_ids(&search(&test, "password").await),
        std::slice::from_ref(&other.id)
    );
}

#[tokio::test]
async fn the_purge_runs_by_itself_after_a_session_is_deleted() {
    crate::sqlite_only!("the word index's purge");
    let test = open("{}").await;
    let session = test.session().await;
    test.no_reply(&session, vec![Draft::text("the code is zanzibar77")])
        .await;
    assert!(remembered(&test, "zanzibar77").await);

    test.ledger
        .sessions()
        .delete(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    // A guard against a hang, not a speed check.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while remembered(&test, "zanzibar77").await || in_index_pages(&test, "zanzibar77").await {
        assert!(tokio::time::Instant::now() < deadline, "never purged");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_rewritten_part_and_a_renamed_title_leave_their_old_words() {
    crate::sqlite_only!("the word index's purge");
    let test = open("{}").await;
    let session = test.session().await;
    let message = test
        .no_reply(&session, vec![Draft::text("meet at quaycorner")])
        .await;
    rename(&test, &session.id, "Trip to Lisbon").await;
    let mut part = message.parts[0].clone();
    part.body = dossier_core::wire::part::PartBody::Text(dossier_core::wire::part::TextPart {
        text: "meet at the station".into(),
        ..Default::default()
    });
    test.ledger
        .reshaping()
        .update_part(&session.id, message.info.id(), &part.id.clone(), part)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    rename(&test, &session.id, "Holiday").await;
    purge(&test).await;

    for gone in ["quaycorner", "lisbon"] {
        assert!(!remembered(&test, gone).await, "{gone}");
        assert!(!in_index_pages(&test, gone).await, "{gone}");
    }
    for kept in ["meet", "station", "holiday"] {
        assert!(remembered(&test, kept).await, "{kept}");
    }
}

#[tokio::test]
async fn a_streaming_replys_cut_off_last_word_is_not_remembered() {
    crate::sqlite_only!("the word index's purge");
    use dossier_core::wire::part::{PartBody, PartTime};
    let test = open("{}").await;
    let session = test.session().await;
    crate::reply_support::ask(&test, &session.id, "hello").await;
    let reply = &test.history(&session.id).await[1];
    let mut part = text_part_of(reply).clone();
    let mut write = |text: &str, end: Option<i64>| {
        let PartBody::Text(body) = &mut part.body else {
            unreachable!("a text part")
        };
        body.text = text.into();
        body.time = Some(PartTime { start: 1, end });
        part.clone()
    };

    // A checkpoint mid-word, then the finished part.
    let checkpoint = write("words like quartzit", None);
    test.ledger
        .reshaping()
        .update_part(
            &session.id,
            reply.info.id(),
            &checkpoint.id.clone(),
            checkpoint,
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(remembered(&test, "words").await);
    assert!(!remembered(&test, "quartzit").await);
    let finished = write("words like quartzite", Some(2));
    test.ledger
        .reshaping()
        .update_part(&session.id, reply.info.id(), &finished.id.clone(), finished)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(remembered(&test, "quartzite").await);
    assert!(!remembered(&test, "quartzit").await);
}
