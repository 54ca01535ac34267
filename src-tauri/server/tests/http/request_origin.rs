//! Requests a browser would send on behalf of another web page — simple cross-origin posts,
//! forms, a DNS-rebinding page's `Host`, preflights — are refused with a typed error before
//! anything is stored or read; the server's own pages, tools without `Origin`, and the names and
//! origins the operator allowed keep working.

use super::support::{assert_error, json_of, test_options, TestServer};
use dossier_server::request_origin::{parse_allowed_host, parse_origin};
use dossier_server::ServerOptions;
use reqwest::Method;
use serde_json::{json, Value};

const FOREIGN: &str = "http://evil.example";
const SECRET: &str = "the-vault-combination-is-31-41-59";

/// One request with exactly these headers (reqwest adds `Host` only when none is given).
async fn send(
    server: &TestServer,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> reqwest::Response {
    let mut request = server.client.request(method, server.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.body(body.to_string());
    }
    request.send().await.unwrap()
}

fn port_of(server: &TestServer) -> u16 {
    server.base.rsplit(':').next().unwrap().parse().unwrap()
}

async fn session_count(server: &TestServer) -> usize {
    json_of(server.get("/session").await)
        .await
        .as_array()
        .unwrap()
        .len()
}

/// A body each way a page can send one without a preflight: plain text, a form, a multipart
/// form (the JSON as a field), and an untyped blob (what `sendBeacon` sends for one).
fn simple_bodies(json_text: &str) -> Vec<(Option<&'static str>, String)> {
    vec![
        (Some("text/plain;charset=UTF-8"), json_text.to_string()),
        (
            Some("application/x-www-form-urlencoded"),
            format!("{json_text}="),
        ),
        (
            Some("multipart/form-data; boundary=dossier"),
            format!(
                "--dossier\r\nContent-Disposition: form-data; name=\"body\"\r\n\r\n{json_text}\r\n--dossier--\r\n"
            ),
        ),
        (None, json_text.to_string()),
    ]
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[tokio::test]
async fn simple_and_json_posts_from_a_foreign_page_create_no_session() {
    let server = TestServer::start().await;
    let body = r#"{"title":"planted"}"#;
    for (content_type, text) in simple_bodies(body) {
        let mut headers = vec![("origin", FOREIGN)];
        headers.extend(content_type.map(|value| ("content-type", value)));
        let response = send(&server, Method::POST, "/session", &headers, Some(&text)).await;
        let message = assert_error(response, 403, "forbidden_origin").await;
        assert!(message.contains(FOREIGN), "{message}");
    }
    let json = send(
        &server,
        Method::POST,
        "/session",
        &[("origin", FOREIGN), ("content-type", "application/json")],
        Some(body),
    )
    .await;
    assert_error(json, 403, "forbidden_origin").await;
    let sandboxed = send(
        &server,
        Method::POST,
        "/session",
        &[("origin", "null"), ("content-type", "application/json")],
        Some(body),
    )
    .await;
    assert_error(sandboxed, 403, "forbidden_origin").await;
    let another_local_port = send(
        &server,
        Method::POST,
        "/session",
        &[
            ("origin", "http://127.0.0.1:1"),
            ("content-type", "application/json"),
        ],
        Some(body),
    )
    .await;
    assert_error(another_local_port, 403, "forbidden_origin").await;
    assert_eq!(session_count(&server).await, 0);
}

#[tokio::test]
async fn bodies_that_are_not_declared_json_are_415_even_without_an_origin() {
    let server = TestServer::start().await;
    for (content_type, text) in simple_bodies(r#"{"title":"planted"}"#) {
        let headers: Vec<(&str, &str)> = content_type
            .map(|value| ("content-type", value))
            .into_iter()
            .collect();
        let response = send(&server, Method::POST, "/session", &headers, Some(&text)).await;
        let message = assert_error(response, 415, "unsupported_media_type").await;
        assert!(message.contains("application/json"), "{message}");
    }
    // An empty form (a `<form method=post>` without fields) is refused as well.
    let empty_form = send(
        &server,
        Method::POST,
        "/session",
        &[("content-type", "application/x-www-form-urlencoded")],
        None,
    )
    .await;
    assert_error(empty_form, 415, "unsupported_media_type").await;
    assert_eq!(session_count(&server).await, 0);
    // A declared JSON body, with or without a charset, and an empty untyped post still work.
    for content_type in ["application/json", "application/json; charset=utf-8"] {
        let response = send(
            &server,
            Method::POST,
            "/session",
            &[("content-type", content_type)],
            Some(r#"{"title":"mine"}"#),
        )
        .await;
        assert_eq!(response.status(), 200, "{content_type}");
    }
    let empty = send(&server, Method::POST, "/session", &[], None).await;
    assert_eq!(empty.status(), 200);
    assert_eq!(session_count(&server).await, 3);
}

#[tokio::test]
async fn a_foreign_page_cannot_make_the_server_read_a_local_file() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({"title": "kept"})).await;
    let id = session["id"].as_str().unwrap();
    let (_, file_url) = server.text_file("secret.txt", SECRET);
    let prompt = server
        .no_reply_prompt(&file_url, "summarise this")
        .to_string();
    let path = format!("/session/{id}/message");
    for (content_type, text) in simple_bodies(&prompt) {
        let mut headers = vec![("origin", FOREIGN)];
        headers.extend(content_type.map(|value| ("content-type", value)));
        let response = send(&server, Method::POST, &path, &headers, Some(&text)).await;
        assert_error(response, 403, "forbidden_origin").await;
        // The same from a page that sends no Origin (an old browser, say) fails on the type.
        let headers: Vec<(&str, &str)> = content_type
            .map(|value| ("content-type", value))
            .into_iter()
            .collect();
        let response = send(&server, Method::POST, &path, &headers, Some(&text)).await;
        assert_error(response, 415, "unsupported_media_type").await;
    }
    let async_path = format!("/session/{id}/prompt_async");
    let response = send(
        &server,
        Method::POST,
        &async_path,
        &[("origin", FOREIGN), ("content-type", "text/plain")],
        Some(&prompt),
    )
    .await;
    assert_error(response, 403, "forbidden_origin").await;
    assert_eq!(json_of(server.get(&path).await).await, json!([]));
    let export = server
        .get(&format!("/session/{id}/export"))
        .await
        .text()
        .await
        .unwrap();
    assert!(!export.contains(SECRET));
    assert!(!contains(&server.stored_bytes().await, SECRET));
    // The control: the same prompt sent as JSON does store the file, so the search above
    // would have found it.
    let accepted = server.post_raw(&path, &prompt).await;
    assert_eq!(accepted.status(), 200);
    assert!(contains(&server.stored_bytes().await, SECRET));
}

#[tokio::test]
async fn a_dns_rebinding_page_is_misdirected_whatever_its_origin_says() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({"title": "private"})).await;
    let id = session["id"].as_str().unwrap();
    let port = port_of(&server);
    let rebound = format!("evil.example:{port}");
    let rebound_origin = format!("http://evil.example:{port}");
    for path in [
        "/session".to_string(),
        format!("/session/{id}/message"),
        format!("/session/{id}/export"),
        "/event".to_string(),
        "/global/event".to_string(),
        "/".to_string(),
    ] {
        for origin in [None, Some(rebound_origin.as_str())] {
            let mut headers = vec![("host", rebound.as_str())];
            headers.extend(origin.map(|value| ("origin", value)));
            let response = send(&server, Method::GET, &path, &headers, None).await;
            let message = assert_error(response, 421, "misdirected").await;
            assert!(message.contains(&rebound), "{message}");
            assert!(message.contains("--allowed-host"), "{message}");
        }
    }
    let write = send(
        &server,
        Method::POST,
        "/session",
        &[
            ("host", rebound.as_str()),
            ("origin", rebound_origin.as_str()),
            ("content-type", "application/json"),
        ],
        Some(r#"{"title":"planted"}"#),
    )
    .await;
    assert_error(write, 421, "misdirected").await;
    let delete = send(
        &server,
        Method::DELETE,
        &format!("/session/{id}"),
        &[("host", rebound.as_str())],
        None,
    )
    .await;
    assert_error(delete, 421, "misdirected").await;
    // The same port under another loopback address is not a name this server was bound to.
    let other_loopback = send(
        &server,
        Method::GET,
        "/session",
        &[("host", &format!("127.0.0.2:{port}"))],
        None,
    )
    .await;
    assert_error(other_loopback, 421, "misdirected").await;
    let titles: Vec<Value> = json_of(server.get("/session").await)
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|session| session["title"].clone())
        .collect();
    assert_eq!(titles, [json!("private")]);
}

#[tokio::test]
async fn every_loopback_name_is_served_with_its_own_origin() {
    let server = TestServer::start().await;
    let port = port_of(&server);
    for name in ["127.0.0.1", "localhost", "[::1]"] {
        let host = format!("{name}:{port}");
        let origin = format!("http://{host}");
        let created = send(
            &server,
            Method::POST,
            "/session",
            &[
                ("host", host.as_str()),
                ("origin", origin.as_str()),
                ("content-type", "application/json"),
                ("sec-fetch-site", "same-origin"),
            ],
            Some(&format!(r#"{{"title":"from {name}"}}"#)),
        )
        .await;
        assert_eq!(created.status(), 200, "{host}");
        let listing = send(
            &server,
            Method::GET,
            "/session",
            &[("host", host.as_str())],
            None,
        )
        .await;
        assert_eq!(listing.status(), 200, "{host}");
        let events = send(
            &server,
            Method::GET,
            "/event",
            &[("host", host.as_str()), ("origin", origin.as_str())],
            None,
        )
        .await;
        assert_eq!(events.status(), 200, "{host}");
    }
    // A page of this server under one loopback name may call it under another.
    let across = send(
        &server,
        Method::POST,
        "/session",
        &[
            ("host", &format!("127.0.0.1:{port}")),
            ("origin", &format!("http://localhost:{port}")),
            ("content-type", "application/json"),
        ],
        Some("{}"),
    )
    .await;
    assert_eq!(across.status(), 200);
    // Over a real connection to the name, not just a header.
    let by_name = server
        .client
        .get(format!("http://localhost:{port}/session"))
        .send()
        .await
        .unwrap();
    assert_eq!(by_name.status(), 200);
    assert_eq!(session_count(&server).await, 4);
}

#[tokio::test]
async fn a_server_bound_to_ipv6_loopback_answers_there() {
    let options = ServerOptions {
        hostname: "::1".into(),
        ..test_options()
    };
    // Some containers have no IPv6 loopback; the Host rule itself is covered above.
    if std::net::TcpListener::bind("[::1]:0").is_err() {
        eprintln!("skipped: no IPv6 loopback here");
        return;
    }
    let server = TestServer::start_with(options).await;
    assert!(server.base.starts_with("http://[::1]:"), "{}", server.base);
    let created = send(
        &server,
        Method::POST,
        "/session",
        &[
            ("origin", server.base.as_str()),
            ("content-type", "application/json"),
        ],
        Some("{}"),
    )
    .await;
    assert_eq!(created.status(), 200);
    let foreign = send(
        &server,
        Method::GET,
        "/session",
        &[("origin", FOREIGN)],
        None,
    )
    .await;
    assert_error(foreign, 403, "forbidden_origin").await;
}

#[tokio::test]
async fn operator_allowed_hosts_and_origins_are_served() {
    let server = TestServer::start_with(ServerOptions {
        allowed_hosts: vec![parse_allowed_host("dossier.example.org").unwrap()],
        allowed_origins: vec![parse_origin("https://ui.example.org").unwrap()],
        ..test_options()
    })
    .await;
    let port = port_of(&server);
    // A proxy forwarding its own name (any port), and the page it serves.
    for (host, origin) in [
        ("dossier.example.org", "https://dossier.example.org"),
        (
            "dossier.example.org:8443",
            "https://dossier.example.org:8443",
        ),
    ] {
        let created = send(
            &server,
            Method::POST,
            "/session",
            &[
                ("host", host),
                ("origin", origin),
                ("content-type", "application/json"),
            ],
            Some("{}"),
        )
        .await;
        assert_eq!(created.status(), 200, "{host}");
    }
    // A proxy that rewrites Host to the loopback address, with the public page's origin (to
    // the browser, another site: the allowed Origin decides, not Sec-Fetch-Site).
    let rewritten = send(
        &server,
        Method::POST,
        "/session",
        &[
            ("host", &format!("127.0.0.1:{port}")),
            ("origin", "https://ui.example.org"),
            ("sec-fetch-site", "cross-site"),
            ("content-type", "application/json"),
        ],
        Some("{}"),
    )
    .await;
    assert_eq!(rewritten.status(), 200);
    let other_name = send(
        &server,
        Method::GET,
        "/session",
        &[("host", "other.example.org")],
        None,
    )
    .await;
    assert_error(other_name, 421, "misdirected").await;
    let other_origin = send(
        &server,
        Method::POST,
        "/session",
        &[
            ("origin", "http://ui.example.org"),
            ("content-type", "application/json"),
        ],
        Some("{}"),
    )
    .await;
    assert_error(other_origin, 403, "forbidden_origin").await;
    assert_eq!(session_count(&server).await, 3);
}

#[tokio::test]
async fn a_preflight_or_read_from_a_foreign_page_gets_no_cors_grant() {
    let server = TestServer::start().await;
    server.create_session(json!({"title": "private"})).await;
    let preflight = send(
        &server,
        Method::OPTIONS,
        "/session",
        &[
            ("origin", FOREIGN),
            ("access-control-request-method", "POST"),
            ("access-control-request-headers", "content-type"),
        ],
        None,
    )
    .await;
    assert!(preflight
        .headers()
        .get("access-control-allow-origin")
        .is_none());
    assert_error(preflight, 403, "forbidden_origin").await;
    let read = send(
        &server,
        Method::GET,
        "/session",
        &[("origin", FOREIGN)],
        None,
    )
    .await;
    assert!(read.headers().get("access-control-allow-origin").is_none());
    let text = read.text().await.unwrap();
    assert!(!text.contains("private"), "{text}");
    for path in ["/event", "/global/event"] {
        let stream = send(&server, Method::GET, path, &[("origin", FOREIGN)], None).await;
        assert_error(stream, 403, "forbidden_origin").await;
    }
}

#[tokio::test]
async fn another_pages_requests_without_origin_are_refused_except_a_link_to_the_ui() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({"title": "private"})).await;
    let id = session["id"].as_str().unwrap();
    let cross_site = [("sec-fetch-site", "cross-site")];
    for path in [
        format!("/session/{id}/export"),
        "/event".into(),
        "/global/event".into(),
    ] {
        let response = send(&server, Method::GET, &path, &cross_site, None).await;
        assert_error(response, 403, "forbidden_origin").await;
    }
    let read = send(
        &server,
        Method::GET,
        "/session",
        &[
            ("sec-fetch-site", "cross-site"),
            ("sec-fetch-mode", "no-cors"),
        ],
        None,
    )
    .await;
    assert_error(read, 403, "forbidden_origin").await;
    // A page on another port of this machine is the same site, and no more trusted.
    let same_site = send(
        &server,
        Method::GET,
        "/session",
        &[
            ("sec-fetch-site", "same-site"),
            ("sec-fetch-mode", "no-cors"),
        ],
        None,
    )
    .await;
    assert_error(same_site, 403, "forbidden_origin").await;
    let abort = send(
        &server,
        Method::POST,
        &format!("/session/{id}/abort"),
        &cross_site,
        None,
    )
    .await;
    assert_error(abort, 403, "forbidden_origin").await;
    let delete = send(
        &server,
        Method::DELETE,
        &format!("/session/{id}"),
        &cross_site,
        None,
    )
    .await;
    assert_error(delete, 403, "forbidden_origin").await;
    // Someone following a link to the server from another site still gets an answer (here the
    // API-only server's JSON 404 for `/`), not a refusal.
    let link = send(
        &server,
        Method::GET,
        "/",
        &[
            ("sec-fetch-site", "cross-site"),
            ("sec-fetch-mode", "navigate"),
        ],
        None,
    )
    .await;
    assert_error(link, 404, "not_found").await;
    assert_eq!(session_count(&server).await, 1);
}

#[tokio::test]
async fn a_foreign_page_is_refused_before_the_password_is_asked_for() {
    let server = TestServer::start_with(ServerOptions {
        password: Some("hunter2".into()),
        ..test_options()
    })
    .await;
    let response = send(
        &server,
        Method::POST,
        "/session",
        &[("origin", FOREIGN), ("content-type", "text/plain")],
        Some("{}"),
    )
    .await;
    // No WWW-Authenticate: a foreign page must not make the browser prompt for the password.
    assert!(response.headers().get("www-authenticate").is_none());
    assert_error(response, 403, "forbidden_origin").await;
    let own = send(
        &server,
        Method::POST,
        "/session",
        &[
            ("origin", server.base.as_str()),
            ("content-type", "application/json"),
            ("authorization", "Bearer hunter2"),
        ],
        Some("{}"),
    )
    .await;
    assert_eq!(own.status(), 200);
}
