//! Named access tokens on a real database: made once and never stored in the clear, listed
//! without their text, checked, revoked at once, and the session recording which token
//! created it (its name).

#![allow(clippy::unwrap_used)] // a failing unwrap is the test's report

use crate::support::{self, open, FAKE_CONFIG};
use dossier_core::store::tables::access_tokens::TOKEN_PREFIX;
use dossier_core::wire::session::CreateSession;
use dossier_core::ErrorKind;

#[tokio::test]
async fn a_token_is_shown_once_stored_hashed_and_checked() {
    let test = open(FAKE_CONFIG).await;
    let store = test.ledger.store();
    assert!(!store.has_access_tokens().await.unwrap());
    let made = store.create_access_token("alice-laptop").await.unwrap();
    assert_eq!(made.name, "alice-laptop");
    assert!(made.token.starts_with(TOKEN_PREFIX), "{}", made.token);
    // 32 random bytes in unpadded base64url.
    assert_eq!(made.token.len(), TOKEN_PREFIX.len() + 43);
    assert!(store.has_access_tokens().await.unwrap());
    let other = store.create_access_token("ci").await.unwrap();
    assert_ne!(made.token, other.token);

    assert_eq!(
        store
            .access_token_name(&made.token)
            .await
            .unwrap()
            .as_deref(),
        Some("alice-laptop")
    );
    assert_eq!(
        store
            .access_token_name(&other.token)
            .await
            .unwrap()
            .as_deref(),
        Some("ci")
    );
    let mut wrong = made.token.clone();
    wrong.pop();
    wrong.push(if made.token.ends_with('A') { 'B' } else { 'A' });
    assert_eq!(store.access_token_name(&wrong).await.unwrap(), None);
    assert_eq!(store.access_token_name("").await.unwrap(), None);

    let listed = store.access_tokens().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|token| token.name.as_str()).collect();
    assert_eq!(names, ["alice-laptop", "ci"]);
    assert_eq!(listed[0].created, made.created);
    assert!(listed[0].last_used.is_some_and(|used| used >= made.created));

    // Nowhere in the database (its file and log, or its tables) is the token's text.
    test.ledger.close().await;
    let secret = &made.token[TOKEN_PREFIX.len()..];
    let stored = support::stored_bytes(&test).await;
    assert!(!stored.is_empty());
    for (place, bytes) in stored {
        assert!(
            !bytes
                .windows(secret.len())
                .any(|window| window == secret.as_bytes()),
            "the token is in {place}"
        );
    }
}

#[tokio::test]
async fn a_revoked_token_is_refused_at_once_and_its_name_is_free_again() {
    let test = open(FAKE_CONFIG).await;
    let store = test.ledger.store();
    let made = store.create_access_token("bob").await.unwrap();
    assert!(store
        .access_token_name(&made.token)
        .await
        .unwrap()
        .is_some());
    store.revoke_access_token("bob").await.unwrap();
    assert_eq!(store.access_token_name(&made.token).await.unwrap(), None);
    assert!(!store.has_access_tokens().await.unwrap());
    let again = store.revoke_access_token("bob").await.unwrap_err();
    assert_eq!(again.kind(), ErrorKind::NotFound);
    assert!(again.to_string().contains("\"bob\""), "{again}");
    let renewed = store.create_access_token("bob").await.unwrap();
    assert_ne!(renewed.token, made.token);
    assert_eq!(store.access_token_name(&made.token).await.unwrap(), None);
}

#[tokio::test]
async fn a_name_is_unique_and_plain() {
    let test = open(FAKE_CONFIG).await;
    let store = test.ledger.store();
    store.create_access_token("carol").await.unwrap();
    let taken = store.create_access_token("carol").await.unwrap_err();
    assert_eq!(taken.kind(), ErrorKind::Conflict);
    let bad = store.create_access_token("carol laptop").await.unwrap_err();
    assert_eq!(bad.kind(), ErrorKind::Invalid);
    assert_eq!(store.access_tokens().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_session_records_the_token_that_created_it() {
    let test = open(FAKE_CONFIG).await;
    let by_token = test
        .ledger
        .sessions()
        .create_by_token(CreateSession::default(), Some("alice-laptop".into()))
        .await
        .unwrap();
    assert_eq!(by_token.created_by_token.as_deref(), Some("alice-laptop"));
    let plain = test
        .ledger
        .sessions()
        .create(CreateSession::default())
        .await
        .unwrap();
    assert_eq!(plain.created_by_token, None);
    let json = serde_json::to_value(&by_token).unwrap();
    assert_eq!(json["dossierCreatedByToken"], "alice-laptop");
    let json = serde_json::to_value(&plain).unwrap();
    assert!(json.get("dossierCreatedByToken").is_none(), "{json}");

    let read = test.ledger.sessions().get(&by_token.id).await.unwrap();
    assert_eq!(read.created_by_token.as_deref(), Some("alice-laptop"));
    let forked = test
        .ledger
        .reshaping()
        .fork_session(&by_token.id, None)
        .await
        .unwrap();
    assert_eq!(forked.created_by_token, None);
}
