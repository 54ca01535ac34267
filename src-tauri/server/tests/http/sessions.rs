//! Session routes: shapes, listing (order, limit, cursor, search, roots, archived), updates,
//! deletion and their error statuses.

use super::support::{assert_error, json_of, test_options, TestServer};
use serde_json::json;

#[tokio::test]
async fn create_with_empty_body_returns_an_opencode_session() {
    let server = TestServer::start().await;
    let response = server
        .client
        .post(server.url("/session"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let session = json_of(response).await;
    assert!(session["id"].as_str().unwrap().starts_with("ses_"));
    assert!(session["title"]
        .as_str()
        .unwrap()
        .starts_with("New session - "));
    assert_eq!(session["projectID"], "global");
    assert_eq!(session["tokens"]["cache"]["read"], 0);
    assert_eq!(session["time"]["created"], session["time"]["updated"]);
    assert_eq!(
        session["directory"],
        server.folder.path().display().to_string()
    );
}

#[tokio::test]
async fn create_takes_the_directory_from_the_query() {
    let server = TestServer::start().await;
    let response = server
        .client
        .post(server.url("/session?directory=%2Ftmp%2Fproject"))
        .json(&json!({"title": "Plan"}))
        .send()
        .await
        .unwrap();
    let session = json_of(response).await;
    assert_eq!(session["directory"], "/tmp/project");
    assert_eq!(session["title"], "Plan");
}

#[tokio::test]
async fn create_takes_the_directory_from_the_sdk_header() {
    let server = TestServer::start().await;
    let response = server
        .client
        .post(server.url("/session"))
        .header("x-opencode-directory", "%2Fhome%2Fuser%2Fmy%20project")
        .send()
        .await
        .unwrap();
    let session = json_of(response).await;
    assert_eq!(session["directory"], "/home/user/my project");
}

#[tokio::test]
async fn create_with_an_unknown_field_is_400_naming_it() {
    let server = TestServer::start().await;
    let response = server.post("/session", json!({"colour": "red"})).await;
    let message = assert_error(response, 400, "invalid").await;
    assert!(message.contains("colour"), "{message}");
}

#[tokio::test]
async fn malformed_json_is_400_with_the_parser_reason() {
    let server = TestServer::start().await;
    let response = server.post_raw("/session", "{\"title\": ").await;
    let message = assert_error(response, 400, "invalid").await;
    assert!(message.contains("not valid JSON"), "{message}");
    assert!(message.contains("line 1"), "{message}");
}

#[tokio::test]
async fn create_under_a_missing_parent_is_404() {
    let server = TestServer::start().await;
    let response = server
        .post("/session", json!({"parentID": "ses_doesnotexist"}))
        .await;
    assert_error(response, 404, "not_found").await;
}

#[tokio::test]
async fn get_returns_the_session_and_a_missing_one_is_404() {
    let server = TestServer::start().await;
    let created = server.create_session(json!({"title": "Alpha"})).await;
    let id = created["id"].as_str().unwrap();
    let fetched = json_of(server.get(&format!("/session/{id}")).await).await;
    assert_eq!(fetched, created);
    let response = server.get("/session/ses_missing").await;
    let message = assert_error(response, 404, "not_found").await;
    assert!(message.contains("ses_missing"));
}

#[tokio::test]
async fn list_is_newest_first_with_limit_and_cursor() {
    let server = TestServer::start().await;
    let mut ids = Vec::new();
    for index in 0..5 {
        let session = server
            .create_session(json!({"title": format!("Session {index}")}))
            .await;
        ids.push(session["id"].as_str().unwrap().to_string());
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    let response = server.get("/session?limit=2").await;
    assert_eq!(response.status(), 200);
    let cursor = response.headers()["x-next-cursor"]
        .to_str()
        .unwrap()
        .to_string();
    let link = response.headers()["link"].to_str().unwrap().to_string();
    assert!(link.starts_with("</session?limit=2&cursor="), "{link}");
    assert!(link.ends_with(">; rel=\"next\""), "{link}");
    let first: Vec<String> = titles_or_ids(json_of(response).await, "id");
    assert_eq!(first, vec![ids[4].clone(), ids[3].clone()]);

    let second = server
        .get(&format!("/session?limit=2&cursor={cursor}"))
        .await;
    assert_eq!(
        titles_or_ids(json_of(second).await, "id"),
        vec![ids[2].clone(), ids[1].clone()]
    );

    let everything = server.get("/session").await;
    assert!(everything.headers().get("x-next-cursor").is_none());
    assert_eq!(json_of(everything).await.as_array().unwrap().len(), 5);
}

fn titles_or_ids(list: serde_json::Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|session| session[field].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn list_search_matches_titles() {
    let server = TestServer::start().await;
    server
        .create_session(json!({"title": "Quarterly report"}))
        .await;
    server
        .create_session(json!({"title": "Holiday plans"}))
        .await;
    let found = json_of(server.get("/session?search=report&directory=/x").await).await;
    assert_eq!(titles_or_ids(found, "title"), vec!["Quarterly report"]);
}

#[tokio::test]
async fn archived_sessions_are_hidden_unless_asked_for() {
    let server = TestServer::start().await;
    let kept = server.create_session(json!({"title": "Kept"})).await;
    let archived = server.create_session(json!({"title": "Old"})).await;
    let id = archived["id"].as_str().unwrap();
    let response = server
        .patch(
            &format!("/session/{id}"),
            json!({"time": {"archived": 1700000000000_i64}}),
        )
        .await;
    assert_eq!(
        json_of(response).await["time"]["archived"],
        1700000000000_i64
    );
    let listed = json_of(server.get("/session").await).await;
    assert_eq!(
        titles_or_ids(listed, "id"),
        vec![kept["id"].as_str().unwrap()]
    );
    let with_archived = json_of(server.get("/session?archived=true").await).await;
    assert_eq!(with_archived.as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn archiving_stamps_the_ledgers_clock_and_unarchiving_clears_it() {
    const LEDGER_NOW: i64 = 1_800_000_000_000;
    let server = TestServer::start_customised(test_options(), |options| {
        options.clock = Some(std::sync::Arc::new(|| LEDGER_NOW));
    })
    .await;
    let session = server.create_session(json!({"title": "Old"})).await;
    let id = session["id"].as_str().unwrap();
    let path = format!("/dossier/session/{id}/archive");
    let archived = json_of(server.post(&path, json!({"archived": true})).await).await;
    assert_eq!(archived["time"]["archived"], LEDGER_NOW);
    assert!(json_of(server.get("/session").await)
        .await
        .as_array()
        .unwrap()
        .is_empty());
    let restored = json_of(server.post(&path, json!({"archived": false})).await).await;
    assert_eq!(restored["time"].get("archived"), None);
    let listed = json_of(server.get("/session").await).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_error(
        server
            .post(
                "/dossier/session/ses_missing/archive",
                json!({"archived": true}),
            )
            .await,
        404,
        "not_found",
    )
    .await;
}

#[tokio::test]
async fn pinned_lists_only_pinned_sessions() {
    let server = TestServer::start().await;
    let pinned = server.create_session(json!({"title": "Pinned"})).await;
    server.create_session(json!({"title": "Plain"})).await;
    let id = pinned["id"].as_str().unwrap();
    let response = server
        .patch(&format!("/session/{id}"), json!({"pinned": true}))
        .await;
    assert_eq!(json_of(response).await["pinned"], true);
    let listed = json_of(server.get("/session?pinned=true&roots=true").await).await;
    assert_eq!(titles_or_ids(listed, "title"), vec!["Pinned"]);
    let everything = json_of(server.get("/session").await).await;
    assert_eq!(everything.as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn roots_hides_children_and_children_lists_them() {
    let server = TestServer::start().await;
    let parent = server.create_session(json!({"title": "Parent"})).await;
    let parent_id = parent["id"].as_str().unwrap();
    let child = server
        .create_session(json!({"parentID": parent_id, "title": "Child"}))
        .await;
    assert_eq!(child["parentID"], parent_id);
    let roots = json_of(server.get("/session?roots=true").await).await;
    assert_eq!(titles_or_ids(roots, "title"), vec!["Parent"]);
    let children = json_of(server.get(&format!("/session/{parent_id}/children")).await).await;
    assert_eq!(titles_or_ids(children, "title"), vec!["Child"]);
    let response = server.get("/session/ses_missing/children").await;
    assert_error(response, 404, "not_found").await;
}

#[tokio::test]
async fn patch_renames_and_refuses_an_empty_title() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap();
    let renamed = json_of(
        server
            .patch(&format!("/session/{id}"), json!({"title": "Renamed"}))
            .await,
    )
    .await;
    assert_eq!(renamed["title"], "Renamed");
    let response = server
        .patch(&format!("/session/{id}"), json!({"title": "  "}))
        .await;
    assert_error(response, 400, "invalid").await;
    let response = server
        .patch("/session/ses_missing", json!({"title": "x"}))
        .await;
    assert_error(response, 404, "not_found").await;
}

#[tokio::test]
async fn delete_answers_true_then_the_session_is_gone() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap();
    let response = server.delete(&format!("/session/{id}")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(json_of(response).await, json!(true));
    assert_error(
        server.get(&format!("/session/{id}")).await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        server.delete(&format!("/session/{id}")).await,
        404,
        "not_found",
    )
    .await;
}

#[tokio::test]
async fn a_bad_query_value_is_400_naming_it() {
    let server = TestServer::start().await;
    let message = assert_error(server.get("/session?limit=many").await, 400, "invalid").await;
    assert!(message.contains("limit"), "{message}");
    assert_error(server.get("/session?cursor=garbage").await, 400, "invalid").await;
}

#[tokio::test]
async fn status_omits_idle_sessions() {
    let server = TestServer::start().await;
    server.create_session(json!({})).await;
    let response = server.get("/session/status").await;
    assert_eq!(response.status(), 200);
    assert_eq!(json_of(response).await, json!({}));
}
