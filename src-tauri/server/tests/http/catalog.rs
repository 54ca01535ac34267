//! The listings the SDK reads, the 501 answers for contract routes not built yet, and the JSON
//! fallbacks for unknown paths and methods.

use super::support::{assert_error, json_of, TestServer};
use serde_json::json;

#[tokio::test]
async fn agents_are_listed_with_the_default_first() {
    let server = TestServer::start().await;
    let agents = json_of(server.get("/agent").await).await;
    let names: Vec<&str> = agents
        .as_array()
        .unwrap()
        .iter()
        .map(|agent| agent["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "build");
    assert!(names.contains(&"plan"));
    assert_eq!(agents[0]["mode"], "primary");
}

#[tokio::test]
async fn config_shows_the_model_settings() {
    let server = TestServer::start().await;
    let config = json_of(server.get("/config").await).await;
    assert_eq!(config["model"], "fake/fake-model");
}

#[tokio::test]
async fn providers_are_listed_in_opencode_shape() {
    let server = TestServer::start().await;
    let configured = json_of(server.get("/config/providers").await).await;
    assert_eq!(configured["providers"][0]["id"], "fake");
    assert_eq!(
        configured["providers"][0]["models"]["fake-model"]["name"],
        "Fake"
    );
    assert_eq!(configured["default"]["fake"], "fake-model");
    let all = json_of(server.get("/provider").await).await;
    assert_eq!(all["connected"], json!(["fake", "dossier"]));
    assert_eq!(all["all"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn path_project_and_health_answer() {
    let server = TestServer::start().await;
    let path = json_of(server.get("/path?directory=/tmp/work").await).await;
    assert_eq!(path["directory"], "/tmp/work");
    assert_eq!(
        path["state"],
        server.folder.path().join("data").display().to_string()
    );
    let project = json_of(server.get("/project/current").await).await;
    assert_eq!(project["id"], "global");
    let projects = json_of(server.get("/project").await).await;
    assert_eq!(projects[0]["id"], "global");
    let health = json_of(server.get("/global/health").await).await;
    assert_eq!(health["healthy"], true);
    assert_eq!(json_of(server.get("/command").await).await, json!([]));
    assert_eq!(json_of(server.get("/mcp").await).await, json!({}));
}

#[tokio::test]
async fn contract_routes_not_built_yet_answer_501_with_json() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap();
    let routes = [
        ("POST", format!("/session/{id}/command")),
        ("POST", format!("/session/{id}/shell")),
    ];
    for (method, path) in routes {
        let response = server
            .client
            .request(method.parse().unwrap(), server.url(&path))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        let message = assert_error(response, 501, "not_implemented").await;
        assert!(message.contains(&path), "{message}");
    }
}

#[tokio::test]
async fn an_unknown_path_is_404_with_json() {
    let server = TestServer::start().await;
    let message = assert_error(server.get("/no/such/thing").await, 404, "not_found").await;
    assert!(message.contains("/no/such/thing"), "{message}");
}

#[tokio::test]
async fn a_wrong_method_is_405_with_json() {
    let server = TestServer::start().await;
    let response = server
        .client
        .put(server.url("/session"))
        .send()
        .await
        .unwrap();
    assert_error(response, 405, "method_not_allowed").await;
}

#[tokio::test]
async fn every_route_accepts_opencode_directory_and_workspace_queries() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap();
    let query = "directory=%2Ftmp%2Fx&workspace=wrk_1";
    for path in [
        "/session".to_string(),
        "/session/status".to_string(),
        format!("/session/{id}"),
        format!("/session/{id}/children"),
        format!("/session/{id}/message"),
        "/agent".to_string(),
        "/config".to_string(),
        "/config/providers".to_string(),
        "/provider".to_string(),
        "/path".to_string(),
        "/project/current".to_string(),
    ] {
        let response = server.get(&format!("{path}?{query}")).await;
        assert_eq!(response.status(), 200, "{path}");
    }
    let response = server
        .post(
            &format!("/session/{id}/message?{query}"),
            json!({"noReply": true, "parts": [{"type": "text", "text": "hi"}]}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let response = server
        .patch(&format!("/session/{id}?{query}"), json!({"title": "t"}))
        .await;
    assert_eq!(response.status(), 200);
}
