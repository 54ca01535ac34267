//! Attachment bytes leave the database with the last part that refers to them
//! (`migrations/0004_blob_release.sql`): deleting a session, or the cleanup after an undo,
//! removes pictures nothing else points at, and keeps those a fork still shows.

use crate::support::*;
use dossier_core::store::rows::blob_address;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::message::MessageWithParts;
use dossier_core::wire::part::PartBody;

fn blob_hash(message: &MessageWithParts) -> String {
    message
        .parts
        .iter()
        .find_map(|part| match &part.body {
            PartBody::File(file) => blob_address::hash_from_url(&file.url).map(str::to_string),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no stored attachment in {:?}", message.parts))
}

async fn stored(test: &TestLedger, hash: &str) -> bool {
    test.ledger
        .data()
        .blob(hash)
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .is_some()
}

async fn with_picture(
    test: &TestLedger,
    name: &str,
) -> (dossier_core::wire::session::Session, String) {
    let path = test.write(name, png(300, 200));
    let session = test.session().await;
    let saved = test
        .no_reply(
            &session,
            vec![
                Draft::text("look at this"),
                Draft::file(file_url(&path), "image/png", Some(name)),
            ],
        )
        .await;
    (session, blob_hash(&saved))
}

#[tokio::test]
async fn deleting_the_last_session_that_shows_a_picture_deletes_its_bytes() {
    let test = open(FAKE_CONFIG).await;
    let (session, hash) = with_picture(&test, "photo.png").await;
    let fork = test
        .ledger
        .reshaping()
        .fork_session(&session.id, None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(stored(&test, &hash).await);

    test.ledger
        .sessions()
        .delete(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        stored(&test, &hash).await,
        "the fork still shows the picture"
    );

    test.ledger
        .sessions()
        .delete(&fork.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(!stored(&test, &hash).await, "no session shows it any more");
}

#[tokio::test]
async fn an_undone_message_takes_its_picture_along_when_the_next_prompt_removes_it() {
    let test = open(FAKE_CONFIG).await;
    let (session, hash) = with_picture(&test, "photo.png").await;
    let other = test.write("other.png", png(320, 200));
    let kept = test
        .no_reply(
            &session,
            vec![Draft::file(
                file_url(&other),
                "image/png",
                Some("other.png"),
            )],
        )
        .await;
    let kept_hash = blob_hash(&kept);
    let first = test.history(&session.id).await[0].info.id().to_string();
    test.ledger
        .reshaping()
        .revert(&session.id, &first, None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        stored(&test, &hash).await,
        "undo alone keeps everything for redo"
    );

    test.no_reply(&session, vec![Draft::text("start again")])
        .await;
    assert!(!stored(&test, &hash).await);
    assert!(
        !stored(&test, &kept_hash).await,
        "both undone messages went"
    );
}

#[tokio::test]
async fn the_same_picture_in_two_sessions_survives_either_one_being_deleted() {
    let test = open(FAKE_CONFIG).await;
    let (first, hash) = with_picture(&test, "photo.png").await;
    let (second, same) = with_picture(&test, "photo.png").await;
    assert_eq!(hash, same, "content-addressed: stored once");
    test.ledger
        .sessions()
        .delete(&second.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(stored(&test, &hash).await);
    let listing = test
        .ledger
        .sessions()
        .messages(&first.id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(blob_hash(&listing.messages[0]), hash);
}
