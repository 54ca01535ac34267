//! Fork, revert, unrevert, resend; Dossier's search, export and import routes.

use super::support::{assert_error, json_of, TestServer};
use serde_json::json;

async fn session_with(server: &TestServer, texts: &[&str]) -> (String, Vec<String>) {
    let session = server
        .create_session(json!({"title": "Trip to Lisbon"}))
        .await;
    let id = session["id"].as_str().unwrap().to_string();
    let mut messages = Vec::new();
    for text in texts {
        let response = server
            .post(
                &format!("/session/{id}/message"),
                json!({"noReply": true, "parts": [{"type": "text", "text": text}]}),
            )
            .await;
        messages.push(
            json_of(response).await["info"]["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    (id, messages)
}

#[tokio::test]
async fn fork_returns_the_new_session_with_messages_before_the_point() {
    let server = TestServer::start().await;
    let (id, messages) = session_with(&server, &["one", "two", "three"]).await;
    let response = server
        .post(
            &format!("/session/{id}/fork"),
            json!({"messageID": messages[2]}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let fork = json_of(response).await;
    assert_eq!(fork["title"], "Trip to Lisbon (fork #1)");
    let fork_id = fork["id"].as_str().unwrap();
    let listed = json_of(server.get(&format!("/session/{fork_id}/message")).await).await;
    let texts: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["one", "two"]);
    let missing = server
        .post(
            &format!("/session/{id}/fork"),
            json!({"messageID": "msg_nope"}),
        )
        .await;
    assert_error(missing, 404, "not_found").await;
    let everything = server.post_raw(&format!("/session/{id}/fork"), "").await;
    assert_eq!(
        json_of(everything).await["title"],
        "Trip to Lisbon (fork #1)"
    );
}

#[tokio::test]
async fn revert_and_unrevert_set_and_clear_the_marker() {
    let server = TestServer::start().await;
    let (id, messages) = session_with(&server, &["keep", "undo"]).await;
    let reverted = json_of(
        server
            .post(
                &format!("/session/{id}/revert"),
                json!({"messageID": messages[1]}),
            )
            .await,
    )
    .await;
    assert_eq!(reverted["revert"]["messageID"], messages[1].as_str());
    let restored = json_of(
        server
            .post_raw(&format!("/session/{id}/unrevert"), "")
            .await,
    )
    .await;
    assert!(restored.get("revert").is_none());
    let bad = server
        .post(&format!("/session/{id}/revert"), json!({}))
        .await;
    assert_error(bad, 400, "invalid").await;
}

#[tokio::test]
async fn resend_replaces_the_message_with_edited_text() {
    let server = TestServer::start().await;
    let (id, messages) = session_with(&server, &["first try", "later"]).await;
    let response = server
        .post(
            &format!("/session/{id}/message/{}/resend", messages[0]),
            json!({"text": "second try", "noReply": true}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(json_of(response).await["parts"][0]["text"], "second try");
    let listed = json_of(server.get(&format!("/session/{id}/message")).await).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn search_finds_sessions_by_what_was_said() {
    let server = TestServer::start().await;
    let (id, messages) = session_with(&server, &["book the tram to Belém"]).await;
    session_with(&server, &["nothing relevant"]).await;
    let results = json_of(server.get("/dossier/search?q=tram").await).await;
    assert_eq!(results.as_array().unwrap().len(), 1);
    assert_eq!(results[0]["session"]["id"], id.as_str());
    assert_eq!(results[0]["excerpts"][0]["messageID"], messages[0].as_str());
    let highlighted: Vec<&str> = results[0]["excerpts"][0]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|piece| piece["highlighted"] == true)
        .map(|piece| piece["text"].as_str().unwrap())
        .collect();
    assert_eq!(highlighted, ["tram"]);
    assert_error(server.get("/dossier/search?q=%20").await, 400, "invalid").await;
    assert_error(server.get("/dossier/search").await, 400, "invalid").await;
}

#[tokio::test]
async fn export_and_import_round_trip_over_http() {
    let server = TestServer::start().await;
    let (id, _) = session_with(&server, &["remember the milk"]).await;
    server
        .patch(&format!("/session/{id}"), json!({"title": "Plan: 长 trip"}))
        .await;
    let response = server.get(&format!("/session/{id}/export")).await;
    assert_eq!(response.status(), 200);
    // Named after the title (UTF-8, unsafe characters replaced), the id for older clients.
    assert_eq!(
        response.headers()["content-disposition"].to_str().unwrap(),
        format!(
            "attachment; filename=\"{id}.json\"; filename*=UTF-8''Plan%5F%20%E9%95%BF%20trip%2Ejson"
        )
    );
    let exported = json_of(response).await;
    let imported = json_of(server.post("/session/import", exported).await).await;
    assert_ne!(imported["id"], id.as_str());
    let new_id = imported["id"].as_str().unwrap();
    let listed = json_of(server.get(&format!("/session/{new_id}/message")).await).await;
    assert_eq!(listed[0]["parts"][0]["text"], "remember the milk");
    let markdown = server
        .get(&format!("/session/{id}/export?format=markdown"))
        .await;
    assert!(markdown.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/markdown"));
    assert!(markdown.text().await.unwrap().contains("remember the milk"));
    // The reader's clock, when the browser says it (minutes east of UTC), not the server's.
    let in_new_york = server
        .get(&format!(
            "/session/{id}/export?format=markdown&utcOffset=-300"
        ))
        .await
        .text()
        .await
        .unwrap();
    assert!(in_new_york.contains(" (UTC-05:00)"), "{in_new_york}");
    assert_error(
        server
            .get(&format!(
                "/session/{id}/export?format=markdown&utcOffset=9999"
            ))
            .await,
        400,
        "invalid",
    )
    .await;
    assert_error(
        server
            .get(&format!("/session/{id}/export?format=pdf"))
            .await,
        400,
        "invalid",
    )
    .await;
    assert_error(
        server.post("/session/import", json!({"nope": true})).await,
        400,
        "invalid",
    )
    .await;
}

#[tokio::test]
async fn abort_status_and_permission_answers_have_opencodes_shapes() {
    let server = TestServer::start().await;
    let (id, _) = session_with(&server, &["hello"]).await;
    assert_eq!(
        json_of(server.post_raw(&format!("/session/{id}/abort"), "").await).await,
        json!(true)
    );
    assert_error(
        server.post_raw("/session/ses_missing/abort", "").await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(
        json_of(server.get("/session/status").await).await,
        json!({})
    );
    assert_eq!(json_of(server.get("/permission").await).await, json!([]));
    let unknown = server
        .post(
            &format!("/session/{id}/permissions/per_nope"),
            json!({"response": "once"}),
        )
        .await;
    assert_error(unknown, 404, "not_found").await;
    let bad = server
        .post(
            &format!("/session/{id}/permissions/per_nope"),
            json!({"response": "maybe"}),
        )
        .await;
    assert_error(bad, 400, "invalid").await;
}

#[tokio::test]
async fn summarize_writes_a_summary_reply_and_answers_true() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap().to_string();
    let answered = server
        .post(
            &format!("/session/{id}/message"),
            json!({"model": {"providerID": "dossier", "modelID": "offline"}, "parts": [{"type": "text", "text": "what is in my notes?"}]}),
        )
        .await;
    assert_eq!(answered.status(), 200);
    let response = server
        .post(
            &format!("/session/{id}/summarize"),
            json!({"providerID": "dossier", "modelID": "offline"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(json_of(response).await, json!(true));
    let listed = json_of(server.get(&format!("/session/{id}/message")).await).await;
    let messages = listed.as_array().unwrap();
    assert_eq!(messages.len(), 4, "{listed}");
    assert_eq!(messages[2]["info"]["role"], "user");
    assert_eq!(messages[2]["parts"][0]["type"], "compaction");
    assert_eq!(messages[2]["parts"][0]["auto"], false);
    assert_eq!(messages[3]["info"]["role"], "assistant");
    assert_eq!(messages[3]["info"]["summary"], true);
    assert_eq!(messages[3]["info"]["parentID"], messages[2]["info"]["id"]);
}

#[tokio::test]
async fn summarize_checks_its_body_and_the_session() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap().to_string();
    let missing_model = server
        .post(
            &format!("/session/{id}/summarize"),
            json!({"providerID": "dossier"}),
        )
        .await;
    assert_error(missing_model, 400, "invalid").await;
    let unknown_field = server
        .post(
            &format!("/session/{id}/summarize"),
            json!({"providerID": "dossier", "modelID": "offline", "extra": 1}),
        )
        .await;
    assert_error(unknown_field, 400, "invalid").await;
    let unknown_model = server
        .post(
            &format!("/session/{id}/summarize"),
            json!({"providerID": "nobody", "modelID": "nothing"}),
        )
        .await;
    let message = assert_error(unknown_model, 404, "not_found").await;
    assert!(
        message.contains("nobody/nothing") || message.contains("nobody"),
        "{message}"
    );
    let no_session = server
        .post(
            "/session/ses_missing/summarize",
            json!({"providerID": "dossier", "modelID": "offline"}),
        )
        .await;
    assert_error(no_session, 404, "not_found").await;
}

#[tokio::test]
async fn continue_is_dossier_s_own_route_and_refuses_a_session_without_a_stopped_reply() {
    let server = TestServer::start().await;
    let (id, _) = session_with(&server, &["hello"]).await;
    let message = assert_error(
        server
            .post_raw(&format!("/dossier/session/{id}/continue"), "")
            .await,
        400,
        "invalid",
    )
    .await;
    assert!(
        message.contains("no stopped reply to continue"),
        "{message}"
    );
    assert_error(
        server
            .post_raw("/dossier/session/ses_missing/continue", "")
            .await,
        404,
        "not_found",
    )
    .await;
}

#[tokio::test]
async fn regenerate_answers_a_reply_again_and_refuses_your_own_message() {
    let server = TestServer::start().await;
    let (id, messages) = session_with(&server, &["hello"]).await;
    let refused = assert_error(
        server
            .post_raw(
                &format!("/session/{id}/message/{}/regenerate", messages[0]),
                "",
            )
            .await,
        400,
        "invalid",
    )
    .await;
    assert!(refused.contains("not a reply"), "{refused}");
    let reply = json_of(
        server
            .post(
                &format!("/session/{id}/message"),
                json!({"parts": [{"type": "text", "text": "hello again"}]}),
            )
            .await,
    )
    .await;
    let reply_id = reply["info"]["id"].as_str().unwrap();
    let response = server
        .post_raw(&format!("/session/{id}/message/{reply_id}/regenerate"), "")
        .await;
    assert_eq!(response.status(), 200);
    let again = json_of(response).await;
    assert_eq!(again["info"]["role"], "assistant");
    assert_ne!(again["info"]["id"], reply["info"]["id"]);
}

#[tokio::test]
async fn symbols_list_a_files_outline_and_refuse_what_is_not_a_file() {
    let server = TestServer::start().await;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("guide.md");
    std::fs::write(&path, "# Guide\n\n## Install\n\nRun it.\n").unwrap();
    let query = |path: &std::path::Path| {
        let encoded: String =
            url::form_urlencoded::byte_serialize(path.display().to_string().as_bytes()).collect();
        format!("/dossier/symbols?path={encoded}")
    };
    let symbols = json_of(server.get(&query(&path)).await).await;
    assert_eq!(
        symbols,
        json!([{"name": "Guide", "kind": "section", "line": 0, "endLine": 4, "children": [
            {"name": "Install", "kind": "section", "line": 2, "endLine": 4, "children": []}
        ]}])
    );
    let notes = folder.path().join("notes.txt");
    std::fs::write(&notes, "plain\n").unwrap();
    assert_eq!(json_of(server.get(&query(&notes)).await).await, json!([]));
    assert_error(
        server.get(&query(&folder.path().join("gone.md"))).await,
        400,
        "invalid",
    )
    .await;
    assert_error(
        server.get("/dossier/symbols?path=relative.md").await,
        400,
        "invalid",
    )
    .await;
    assert_error(server.get("/dossier/symbols").await, 400, "invalid").await;
}
