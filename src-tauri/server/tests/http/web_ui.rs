//! The built web UI served at `/` beside the API, and nothing outside its folder.

use super::support::{assert_error, json_of, test_options, TestServer};
use dossier_server::ServerOptions;
use serde_json::json;

#[tokio::test]
async fn the_ui_is_served_at_the_root_with_a_strict_policy() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(folder.path().join("assets")).unwrap();
    std::fs::write(
        folder.path().join("index.html"),
        "<!doctype html><title>Dossier</title>",
    )
    .unwrap();
    std::fs::write(folder.path().join("assets/app.js"), "console.log(1)").unwrap();
    std::fs::write(folder.path().join("secret.txt.bak"), "x").unwrap();
    let server = TestServer::start_with(ServerOptions {
        ui_directory: Some(folder.path().to_path_buf()),
        ..test_options()
    })
    .await;
    let page = server.get("/").await;
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert!(page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .starts_with("default-src 'self'"));
    assert!(page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .ends_with("frame-ancestors 'none'"));
    assert!(page
        .text()
        .await
        .unwrap()
        .contains("<title>Dossier</title>"));
    let script = server.get("/assets/app.js").await;
    assert!(script.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/javascript"));
    // The API keeps its routes and its JSON errors.
    assert_eq!(json_of(server.get("/session").await).await, json!([]));
    assert_error(
        server.get("/assets/../../etc/passwd").await,
        404,
        "not_found",
    )
    .await;
    assert_error(server.get("/missing.js").await, 404, "not_found").await;
}

#[tokio::test]
async fn without_a_ui_folder_the_root_is_a_json_404() {
    let server = TestServer::start().await;
    assert_error(server.get("/").await, 404, "not_found").await;
}
