//! Password protection on and off.

use super::support::{assert_error, test_options, TestServer};
use dossier_server::ServerOptions;

async fn protected() -> TestServer {
    TestServer::start_with(ServerOptions {
        password: Some("hunter2".into()),
        ..test_options()
    })
    .await
}

#[tokio::test]
async fn without_a_password_no_credentials_are_needed() {
    let server = TestServer::start().await;
    assert_eq!(server.get("/session").await.status(), 200);
}

#[tokio::test]
async fn with_a_password_a_bare_request_is_401_with_json() {
    let server = protected().await;
    let response = server.get("/session").await;
    assert_eq!(
        response.headers()["www-authenticate"],
        "Basic realm=\"dossier\""
    );
    assert_error(response, 401, "unauthorized").await;
    let events = server.get("/event").await;
    assert_eq!(events.status(), 401);
}

#[tokio::test]
async fn basic_as_dossier_and_bearer_are_accepted() {
    let server = protected().await;
    let basic = server
        .client
        .get(server.url("/session"))
        .basic_auth("dossier", Some("hunter2"))
        .send()
        .await
        .unwrap();
    assert_eq!(basic.status(), 200);
    let bearer = server
        .client
        .get(server.url("/session"))
        .bearer_auth("hunter2")
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status(), 200);
    let token = server.get("/session?auth_token=hunter2").await;
    assert_eq!(token.status(), 200);
}

#[tokio::test]
async fn a_wrong_password_or_user_is_401() {
    let server = protected().await;
    let wrong = server
        .client
        .get(server.url("/session"))
        .basic_auth("dossier", Some("hunter3"))
        .send()
        .await
        .unwrap();
    assert_error(wrong, 401, "unauthorized").await;
    let user = server
        .client
        .get(server.url("/session"))
        .basic_auth("admin", Some("hunter2"))
        .send()
        .await
        .unwrap();
    assert_error(user, 401, "unauthorized").await;
}
