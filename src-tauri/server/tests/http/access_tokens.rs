//! Named access tokens over HTTP: once a token exists every request needs credentials, a
//! token is accepted as `Authorization: Bearer`, a revoked one is refused by the next request,
//! the password keeps working beside tokens, and the session a token's holder creates records
//! the token's name (in the response, the event and later reads) — never the token. An event
//! stream already open ends at its next heartbeat once its credentials would be refused.

use super::support::{
    assert_error, http_client, json_of, ledger_options, test_options, EventReader, TestServer,
};
use dossier_server::{bind, serve, ServerError, ServerOptions};
use serde_json::json;

#[tokio::test]
async fn once_a_token_exists_every_request_needs_credentials() {
    let server = TestServer::start().await;
    assert_eq!(server.get("/session").await.status(), 200);
    let made = server
        .ledger
        .store()
        .create_access_token("alice-laptop")
        .await
        .unwrap();
    let bare = server.get("/session").await;
    assert_eq!(
        bare.headers()["www-authenticate"],
        "Basic realm=\"dossier\""
    );
    assert_error(bare, 401, "unauthorized").await;
    assert_eq!(server.get("/event").await.status(), 401);
    let with_token = server
        .client
        .get(server.url("/session"))
        .bearer_auth(&made.token)
        .send()
        .await
        .unwrap();
    assert_eq!(with_token.status(), 200);
    // Only the header carries a token: a URL ends up in proxies' logs.
    let in_query = server
        .get(&format!("/session?auth_token={}", made.token))
        .await;
    assert_eq!(in_query.status(), 401);
}

#[tokio::test]
async fn a_wrong_token_is_refused_without_being_repeated() {
    let server = TestServer::start().await;
    let made = server
        .ledger
        .store()
        .create_access_token("alice-laptop")
        .await
        .unwrap();
    let guess = format!("{}x", made.token);
    let response = server
        .client
        .get(server.url("/session"))
        .bearer_auth(&guess)
        .send()
        .await
        .unwrap();
    let message = assert_error(response, 401, "unauthorized").await;
    assert!(message.contains("not this server's password nor a current access token"));
    assert!(
        !message.contains(&guess) && !message.contains(&made.token),
        "{message}"
    );
}

#[tokio::test]
async fn a_revoked_token_is_refused_by_the_next_request() {
    let server = TestServer::start().await;
    let store = server.ledger.store();
    let made = store.create_access_token("bob").await.unwrap();
    let kept = store.create_access_token("carol").await.unwrap();
    let list = |token: String| {
        let request = server.client.get(server.url("/session")).bearer_auth(token);
        async move { request.send().await.unwrap() }
    };
    assert_eq!(list(made.token.clone()).await.status(), 200);
    store.revoke_access_token("bob").await.unwrap();
    let refused = list(made.token.clone()).await;
    let message = assert_error(refused, 401, "unauthorized").await;
    assert!(message.contains("revoked"), "{message}");
    assert_eq!(list(kept.token.clone()).await.status(), 200);
}

/// A server whose event streams beat (and so recheck their credentials) every 100 ms.
async fn server_with_quick_heartbeats() -> TestServer {
    TestServer::start_with(ServerOptions {
        heartbeat: std::time::Duration::from_millis(100),
        ..test_options()
    })
    .await
}

/// Opens `path`'s event stream with a bearer token and reads its first frame.
async fn open_stream(server: &TestServer, path: &str, token: &str) -> EventReader {
    let response = server
        .client
        .get(server.url(path))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = EventReader::new(response);
    let first = stream.next().await;
    // `/global/event` wraps each event as `{directory, project, payload}`.
    let kind = first.data["payload"]["type"]
        .as_str()
        .unwrap_or(first.kind());
    assert_eq!(kind, "server.connected");
    stream
}

#[tokio::test]
async fn an_open_event_stream_ends_once_its_token_is_revoked() {
    let server = server_with_quick_heartbeats().await;
    let store = server.ledger.store();
    let revoked = store.create_access_token("bob").await.unwrap();
    let kept = store.create_access_token("carol").await.unwrap();
    let mut revoked_stream = open_stream(&server, "/event", &revoked.token).await;
    let mut revoked_global = open_stream(&server, "/global/event", &revoked.token).await;
    let mut kept_stream = open_stream(&server, "/event", &kept.token).await;
    assert_eq!(revoked_stream.next().await.kind(), "server.heartbeat");

    store.revoke_access_token("bob").await.unwrap();
    let wait = std::time::Duration::from_secs(5);
    assert!(revoked_stream.ends_within(wait).await, "/event stayed open");
    assert!(
        revoked_global.ends_within(wait).await,
        "/global/event stayed open"
    );
    // The other token's stream goes on beating, and its reconnect is refused like any request.
    for _ in 0..3 {
        assert_eq!(kept_stream.next().await.kind(), "server.heartbeat");
    }
    let reconnect = server
        .client
        .get(server.url("/event"))
        .bearer_auth(&revoked.token)
        .send()
        .await
        .unwrap();
    let message = assert_error(reconnect, 401, "unauthorized").await;
    assert!(message.contains("revoked"), "{message}");
}

#[tokio::test]
async fn a_stream_opened_while_no_token_existed_ends_once_one_does() {
    let server = server_with_quick_heartbeats().await;
    let mut stream = server.events(None).await;
    assert_eq!(stream.next().await.kind(), "server.connected");
    assert_eq!(stream.next().await.kind(), "server.heartbeat");
    server
        .ledger
        .store()
        .create_access_token("first")
        .await
        .unwrap();
    assert!(
        stream.ends_within(std::time::Duration::from_secs(5)).await,
        "a stream without credentials stayed open after credentials became necessary"
    );
}

#[tokio::test]
async fn the_password_keeps_working_beside_tokens() {
    let server = TestServer::start_with(ServerOptions {
        password: Some("hunter2".into()),
        ..test_options()
    })
    .await;
    let made = server
        .ledger
        .store()
        .create_access_token("ci")
        .await
        .unwrap();
    for request in [
        server
            .client
            .get(server.url("/session"))
            .bearer_auth("hunter2"),
        server
            .client
            .get(server.url("/session"))
            .basic_auth("dossier", Some("hunter2")),
        server.client.get(server.url("/session?auth_token=hunter2")),
        server
            .client
            .get(server.url("/session"))
            .bearer_auth(&made.token),
    ] {
        assert_eq!(request.send().await.unwrap().status(), 200);
    }
    let created = server
        .client
        .post(server.url("/session"))
        .bearer_auth("hunter2")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let created = json_of(created).await;
    assert!(created.get("dossierCreatedByToken").is_none(), "{created}");
    assert_eq!(server.get("/session").await.status(), 401);
}

#[tokio::test]
async fn a_session_records_the_name_of_the_token_that_created_it() {
    let server = TestServer::start().await;
    let made = server
        .ledger
        .store()
        .create_access_token("alice-laptop")
        .await
        .unwrap();
    let stream = server
        .client
        .get(server.url("/event"))
        .bearer_auth(&made.token)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let mut events = super::support::EventReader::new(stream);
    assert_eq!(events.next().await.kind(), "server.connected");
    let created = server
        .client
        .post(server.url("/session"))
        .bearer_auth(&made.token)
        .json(&json!({"title": "Alice's"}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 200);
    let created = json_of(created).await;
    assert_eq!(created["dossierCreatedByToken"], "alice-laptop");
    let event = events.next_event().await;
    assert_eq!(event.kind(), "session.created");
    assert_eq!(
        event.data["properties"]["info"]["dossierCreatedByToken"],
        "alice-laptop"
    );
    let id = created["id"].as_str().unwrap();
    let read = server
        .client
        .get(server.url(&format!("/session/{id}")))
        .bearer_auth(&made.token)
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(read).await["dossierCreatedByToken"], "alice-laptop");
    let serialized = event.data.to_string();
    assert!(!serialized.contains(&made.token));
}

/// Bound to loopback for the test, but serving with `hostname` as the policy sees it.
async fn served_as(
    hostname: &str,
    folder: &tempfile::TempDir,
) -> (
    String,
    dossier_core::Ledger,
    tokio::task::JoinHandle<Result<(), ServerError>>,
) {
    let ledger = dossier_core::start_up::open(ledger_options(folder))
        .await
        .unwrap();
    let options = ServerOptions {
        hostname: hostname.into(),
        behind_proxy: true,
        ..test_options()
    };
    let listener = bind(&test_options()).await.unwrap();
    let address = listener.local_addr().unwrap();
    let served = ledger.clone();
    let serving = tokio::spawn(async move {
        serve(
            listener,
            async move { Ok(served) },
            &options,
            std::future::pending(),
            |_| {},
        )
        .await
    });
    (format!("http://{address}"), ledger, serving)
}

#[tokio::test]
async fn beyond_loopback_requests_need_credentials_even_after_the_last_token_goes() {
    let folder = tempfile::tempdir().unwrap();
    let (_, ledger, serving) = served_as("0.0.0.0", &folder).await;
    // No password and no token: refused at start-up, never serving anyone.
    let refusal = serving.await.unwrap().unwrap_err();
    assert!(
        matches!(&refusal, ServerError::PasswordRequired { hostname } if hostname == "0.0.0.0"),
        "{refusal}"
    );

    let folder = tempfile::tempdir().unwrap();
    {
        let ledger = dossier_core::start_up::open(ledger_options(&folder))
            .await
            .unwrap();
        ledger.store().create_access_token("team").await.unwrap();
        ledger.close().await;
    }
    drop(ledger);
    let (base, ledger, _serving) = served_as("0.0.0.0", &folder).await;
    let client = http_client();
    let mut answered = None;
    for _ in 0..50 {
        if let Ok(response) = client.get(format!("{base}/session")).send().await {
            answered = Some(response);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_error(answered.expect("never served"), 401, "unauthorized").await;
    ledger.store().revoke_access_token("team").await.unwrap();
    let response = client.get(format!("{base}/session")).send().await.unwrap();
    assert_error(response, 401, "unauthorized").await;
}
