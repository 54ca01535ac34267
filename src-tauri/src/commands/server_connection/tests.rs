//! The desktop app attached to a real dossier-server on 127.0.0.1, through the commands the
//! webview calls (Tauri's mock runtime): the connection test's typed answers, the token in the
//! keychain (the core's in-memory store here), the relay and its allow-list, the server's events
//! forwarded in place of the local ledger's, a drop sent as its contents, and the way back.

use crate::attached_server::AttachedServer;
use crate::commands::tests::{harness, Harness};
use dossier_core::models::config::Locations;
use dossier_core::models::credentials::{CredentialStore, InMemoryCredentials};
use dossier_core::{Ledger, LedgerOptions};
use dossier_server::tls_configuration::TlsFiles;
use dossier_server::{bind, serve, ServerOptions};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tauri::{Listener, Manager};

struct Server {
    base: String,
    token: String,
    ledger: Ledger,
    _folder: tempfile::TempDir,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// A dossier-server on 127.0.0.1 with one access token (so every request needs one).
fn start_server(tls: Option<TlsFiles>) -> Server {
    tauri::async_runtime::block_on(async move {
        let folder = tempfile::tempdir().expect("temp dir");
        let mut options = LedgerOptions::at(Locations::from_values(
            Some(folder.path().join("data")),
            Some(folder.path().join("dossier.json")),
        ));
        options.default_directory = Some(folder.path().to_path_buf());
        let ledger = dossier_core::start_up::open(options)
            .await
            .expect("ledger opens");
        let token = ledger
            .store()
            .create_access_token("desk")
            .await
            .expect("token")
            .token;
        let scheme = if tls.is_some() { "https" } else { "http" };
        let options = ServerOptions {
            port: 0,
            tls,
            ..ServerOptions::default()
        };
        let listener = bind(&options).await.expect("binds");
        let (ready_sender, ready) = tokio::sync::oneshot::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = ledger.clone();
        tauri::async_runtime::spawn(async move {
            let outcome = serve(
                listener,
                async move { Ok(served) },
                &options,
                async move {
                    // A dropped sender (the test is over) stops the server too.
                    let _ = stopped.await;
                },
                move |address| {
                    let _ = ready_sender.send(address);
                },
            )
            .await;
            if let Err(error) = outcome {
                panic!("server failed: {error}");
            }
        });
        let address = ready.await.expect("server ready");
        Server {
            base: format!("{scheme}://{address}"),
            token,
            ledger,
            _folder: folder,
            _stop: stop,
        }
    })
}

/// The harness, keeping the token in an in-memory keychain and the address in a temporary file.
fn attached_harness() -> (Harness, Arc<InMemoryCredentials>, tempfile::TempDir) {
    let harness = harness(true);
    let tokens = Arc::new(InMemoryCredentials::default());
    let settings = tempfile::tempdir().expect("temp dir");
    harness
        .app
        .state::<AttachedServer>()
        .keep_in(settings.path().join("server.json"), tokens.clone());
    (harness, tokens, settings)
}

fn collect(harness: &Harness, event: &str) -> Arc<Mutex<Vec<Value>>> {
    let received: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = received.clone();
    harness.app.listen_any(event, move |event| {
        sink.lock()
            .expect("lock")
            .push(serde_json::from_str(event.payload()).expect("JSON"));
    });
    received
}

/// Waits up to five seconds for an event that `matches`.
fn wait_for(received: &Arc<Mutex<Vec<Value>>>, matches: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..500 {
        if let Some(found) = received
            .lock()
            .expect("lock")
            .iter()
            .find(|event| matches(event))
        {
            return found.clone();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no matching event in {:?}", received.lock().expect("lock"));
}

fn relay(harness: &Harness, method: &str, path: &str, body: Option<Value>) -> Value {
    let mut request = json!({"method": method, "path": path});
    if let Some(body) = body {
        request["body"] = Value::String(body.to_string());
    }
    harness.ok("relay_request", json!({"request": request}))
}

fn body_of(response: &Value) -> Value {
    serde_json::from_str(response["body"].as_str().expect("body text")).expect("JSON body")
}

fn message_of(error: &Value) -> &str {
    error["message"].as_str().expect("message")
}

fn test_error(harness: &Harness, url: &str, token: &str) -> Value {
    harness
        .invoke(
            "test_server_connection",
            json!({"url": url, "token": token}),
        )
        .expect_err("refused")
}

/// A port with nothing listening on it.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

/// An HTTP server that is not Dossier: answers every request with `answer`.
fn foreign_server(answer: &'static str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    format!("http://{address}")
}

#[test]
fn test_connection_tells_each_problem_apart_in_plain_words() {
    let harness = harness(false);
    let server = start_server(None);

    let passed = harness.ok(
        "test_server_connection",
        json!({"url": format!("{}/", server.base), "token": format!(" {} ", server.token)}),
    );
    assert_eq!(passed["url"], json!(server.base));
    assert_eq!(passed["version"], json!(env!("CARGO_PKG_VERSION")));

    let plain_http = test_error(&harness, "http://dossier.example.com:4096", &server.token);
    assert_eq!(plain_http["kind"], "invalid");
    assert!(
        message_of(&plain_http).contains("plain http:// is only allowed to this computer"),
        "{plain_http}"
    );

    let token = test_error(&harness, &server.base, "dossier_wrong");
    assert_eq!(token["kind"], "invalid");
    assert!(
        message_of(&token).contains("refused the access token"),
        "{token}"
    );

    let unreachable = test_error(
        &harness,
        &format!("http://127.0.0.1:{}", closed_port()),
        &server.token,
    );
    assert_eq!(unreachable["kind"], "unavailable");
    assert!(
        message_of(&unreachable)
            .starts_with("Could not reach the Dossier server at http://127.0.0.1:"),
        "{unreachable}"
    );

    let opencode_like = foreign_server(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 35\r\nconnection: close\r\n\r\n{\"healthy\":true,\"version\":\"0.9.0\"}\n",
    );
    let foreign = test_error(&harness, &opencode_like, &server.token);
    assert_eq!(foreign["kind"], "invalid");
    assert!(
        message_of(&foreign).contains("does not answer like a Dossier server"),
        "{foreign}"
    );
    let web_page =
        foreign_server("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    let not_found = test_error(&harness, &web_page, &server.token);
    assert!(message_of(&not_found).contains("404"), "{not_found}");
    // A redirect is not followed: the token would go wherever it points.
    let redirecting = foreign_server(
        "HTTP/1.1 302 Found\r\nlocation: http://example.com/global/health\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    );
    let redirected = test_error(&harness, &redirecting, &server.token);
    assert!(message_of(&redirected).contains("302"), "{redirected}");
}

#[test]
fn a_certificate_this_computer_does_not_trust_is_refused_before_the_token_is_sent() {
    let harness = harness(false);
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).expect("cert");
    let folder = tempfile::tempdir().expect("temp dir");
    let files = TlsFiles {
        certificate: folder.path().join("cert.pem"),
        key: folder.path().join("key.pem"),
    };
    std::fs::write(&files.certificate, made.cert.pem()).expect("write");
    std::fs::write(&files.key, made.signing_key.serialize_pem()).expect("write");
    let server = start_server(Some(files));
    let error = test_error(&harness, &server.base, &server.token);
    assert_eq!(error["kind"], "unavailable");
    assert!(
        message_of(&error).starts_with(&format!("The certificate of {} was refused", server.base)),
        "{error}"
    );
}

#[test]
fn attached_window_relays_the_ui_s_routes_with_the_token_and_shows_the_server_s_events_only() {
    let (harness, tokens, _settings) = attached_harness();
    let server = start_server(None);
    let core_events = collect(&harness, crate::events::CORE_EVENT);
    let connection = collect(
        &harness,
        crate::attached_server::event_relay::CONNECTION_EVENT,
    );

    assert_eq!(
        harness.ok("ledger_in_use", json!({})),
        json!({"ledger": "local"})
    );
    let in_use = harness.ok(
        "connect_to_server",
        json!({"url": server.base, "token": server.token}),
    );
    assert_eq!(
        in_use,
        json!({"ledger": "server", "url": server.base, "tokenRemembered": true})
    );
    assert_eq!(
        tokens.read(&server.base).expect("read"),
        Some(server.token.clone()),
        "the token is in the keychain under the server's address"
    );
    wait_for(&connection, |event| event["state"] == "connected");

    // A session made through the relay is the server's.
    let created = relay(
        &harness,
        "POST",
        "/session",
        Some(json!({"title": "From the desk"})),
    );
    assert_eq!(created["status"], 200);
    let session = body_of(&created);
    let id = session["id"].as_str().expect("id").to_string();
    let on_server =
        tauri::async_runtime::block_on(server.ledger.sessions().get(&id)).expect("on the server");
    assert_eq!(on_server.title, "From the desk");
    let forwarded = wait_for(&core_events, |event| {
        event["type"] == "session.created" && event["properties"]["info"]["id"] == json!(id)
    });
    assert_eq!(forwarded["properties"]["sessionID"], json!(id));

    // Listing pages through the relay with the server's cursor header.
    relay(
        &harness,
        "POST",
        "/session",
        Some(json!({"title": "Second"})),
    );
    let listed = relay(&harness, "GET", "/session?roots=true&limit=1", None);
    assert_eq!(body_of(&listed).as_array().expect("list").len(), 1);
    assert!(
        listed["headers"]
            .as_array()
            .expect("headers")
            .iter()
            .any(|header| header[0] == "x-next-cursor"),
        "{listed}"
    );
    // Export: the server's file and the name it offers (the save dialog is the shell's).
    let exported = tauri::async_runtime::block_on(harness.app.state::<AttachedServer>().relay(
        crate::attached_server::server_export::export_request(
            &id,
            crate::commands::reshaping::ExportFormat::Markdown,
        ),
    ))
    .expect("export relayed");
    let (name, contents) = crate::attached_server::server_export::exported_file(
        exported,
        &id,
        crate::commands::reshaping::ExportFormat::Markdown,
    )
    .expect("exported");
    assert!(name.ends_with(".md"), "{name}");
    assert!(contents.contains("From the desk"), "{contents}");
    // A server error comes back as the server's typed body, for the HTTP backend to read.
    let missing = relay(&harness, "GET", "/session/ses_missing/message", None);
    assert_eq!(missing["status"], 404);
    assert_eq!(body_of(&missing)["kind"], "not_found");

    // Outside the allow-list nothing leaves the computer.
    for (method, path) in [
        ("GET", "/event"),
        ("GET", "/dossier/mcp/settings"),
        ("GET", "/session/..%2Fconfig"),
    ] {
        let refused = harness
            .invoke(
                "relay_request",
                json!({"request": {"method": method, "path": path}}),
            )
            .expect_err("refused");
        assert_eq!(refused["kind"], "invalid", "{method} {path}");
    }

    // The local ledger's events are held back while the window shows the server's.
    let local = harness.new_session();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !core_events
            .lock()
            .expect("lock")
            .iter()
            .any(|event| event["properties"]["sessionID"] == json!(local)),
        "a local event reached the attached window"
    );
}

#[test]
fn a_file_dropped_while_attached_reaches_the_server_as_its_contents() {
    let (harness, _tokens, _settings) = attached_harness();
    let server = start_server(None);
    harness.ok(
        "connect_to_server",
        json!({"url": server.base, "token": server.token}),
    );
    let files = tempfile::tempdir().expect("temp dir");
    let notes = files.path().join("notes.txt");
    std::fs::write(&notes, "alpha\nbeta\ngamma\n").expect("write");
    let dropped = collect(&harness, crate::drop::DROPPED_EVENT);
    harness.ok("simulate_drop", json!({"paths": [notes, files.path()]}));
    let event = wait_for(&dropped, |_| true);
    assert_eq!(event[0]["kind"], "text");
    assert_eq!(
        event[0]["url"],
        "data:text/plain;base64,YWxwaGEKYmV0YQpnYW1tYQo="
    );
    assert_eq!(event[1]["kind"], "unreadable");
    assert_eq!(
        event[1]["reason"],
        crate::drop::dropped_contents::FOLDER_REASON
    );

    let session = body_of(&relay(&harness, "POST", "/session", Some(json!({}))));
    let id = session["id"].as_str().expect("id");
    let sent = relay(
        &harness,
        "POST",
        &format!("/session/{id}/message"),
        Some(json!({"noReply": true, "parts": [
            {"type": "text", "text": "read this"},
            {"type": "file", "mime": event[0]["mime"], "filename": event[0]["name"], "url": event[0]["url"]},
        ]})),
    );
    assert_eq!(sent["status"], 200, "{sent}");
    let message = body_of(&sent);
    let parts = message["parts"].as_array().expect("parts");
    assert!(
        parts.iter().any(|part| part["text"]
            .as_str()
            .is_some_and(|text| text.contains("gamma"))),
        "the server read the contents: {parts:?}"
    );
    assert!(parts
        .iter()
        .any(|part| part["type"] == "file" && part["filename"] == "notes.txt"));

    // A path from before connecting is refused, not sent for the server to look up.
    let body = json!({"parts": [
        {"type": "file", "mime": "text/plain", "filename": "notes.txt", "url": format!("file://{}", notes.display())}
    ]});
    let refused = harness
        .invoke(
            "relay_request",
            json!({"request": {"method": "POST", "path": format!("/session/{id}/message"), "body": body.to_string()}}),
        )
        .expect_err("refused");
    assert!(
        message_of(&refused).contains("notes.txt was attached from this computer's disk"),
        "{refused}"
    );
}

#[test]
fn the_next_launch_attaches_again_and_use_local_ledger_forgets_the_token() {
    let (harness, tokens, settings) = attached_harness();
    let server = start_server(None);
    harness.ok(
        "connect_to_server",
        json!({"url": server.base, "token": server.token}),
    );

    // The next launch, on the same settings file and keychain, attaches again.
    let next = attached_harness().0;
    let resumed = AttachedServer::default();
    resumed.keep_in(settings.path().join("server.json"), tokens.clone());
    resumed.resume(next.app.handle());
    assert!(resumed.is_attached());

    let local = harness.ok("use_local_ledger", json!({}));
    assert_eq!(local, json!({"ledger": "local", "lastServer": server.base}));
    assert_eq!(tokens.read(&server.base).expect("read"), None);
    let error = harness
        .invoke(
            "relay_request",
            json!({"request": {"method": "GET", "path": "/session"}}),
        )
        .expect_err("not attached");
    assert_eq!(error["kind"], "conflict");
    // Local again: the next launch stays local, with the address offered in the form.
    let after = AttachedServer::default();
    after.keep_in(settings.path().join("server.json"), tokens);
    after.resume(next.app.handle());
    assert!(!after.is_attached());
    assert_eq!(
        serde_json::to_value(after.ledger_in_use()).expect("JSON"),
        json!({"ledger": "local", "lastServer": server.base})
    );
}

#[test]
fn local_sessions_are_copied_to_the_server_with_their_messages() {
    let (harness, _tokens, _settings) = attached_harness();
    let refused = harness
        .invoke("copy_local_sessions", json!({}))
        .expect_err("not attached yet");
    assert_eq!(refused["kind"], "conflict");
    let first = harness.ok(
        "create_session",
        json!({"input": {"title": "Garden plans"}}),
    );
    let first_id = first["id"].as_str().expect("id");
    harness.ok(
        "send_prompt",
        json!({"sessionId": first_id, "input": {"noReply": true, "parts": [{"type": "text", "text": "water the roses"}]}}),
    );
    harness.ok("create_session", json!({"input": {"title": "Tax return"}}));
    let server = start_server(None);
    harness.ok(
        "connect_to_server",
        json!({"url": server.base, "token": server.token}),
    );

    let report = harness.ok("copy_local_sessions", json!({}));
    assert_eq!(report, json!({"copied": 2, "failed": []}));
    let listed = body_of(&relay(&harness, "GET", "/session?roots=true", None));
    let titles: Vec<&str> = listed
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|session| session["title"].as_str())
        .collect();
    // Newest first on the server too: copied oldest first.
    assert_eq!(titles, ["Tax return", "Garden plans"]);
    let garden = listed[1]["id"].as_str().expect("id");
    assert_ne!(garden, first_id, "the server gives the copy its own id");
    let messages = body_of(&relay(
        &harness,
        "GET",
        &format!("/session/{garden}/message"),
        None,
    ));
    assert!(
        messages.to_string().contains("water the roses"),
        "{messages}"
    );
}

#[test]
fn without_a_keychain_the_window_connects_for_this_run_only() {
    let harness = harness(false);
    let settings = tempfile::tempdir().expect("temp dir");
    harness.app.state::<AttachedServer>().keep_in(
        settings.path().join("server.json"),
        Arc::new(InMemoryCredentials::unavailable(
            "no Secret Service on this bus",
        )),
    );
    let server = start_server(None);
    let in_use = harness.ok(
        "connect_to_server",
        json!({"url": server.base, "token": server.token}),
    );
    assert_eq!(
        in_use,
        json!({"ledger": "server", "url": server.base, "tokenRemembered": false})
    );
    assert_eq!(relay(&harness, "GET", "/agent", None)["status"], 200);
    // The next launch starts on the local ledger and offers the address again.
    let next = AttachedServer::default();
    next.keep_in(
        settings.path().join("server.json"),
        Arc::new(InMemoryCredentials::default()),
    );
    next.resume(harness.app.handle());
    assert!(!next.is_attached());
}

/// The events collected so far, forgotten, so the next `wait_for` sees only what follows.
fn forget(received: &Arc<Mutex<Vec<Value>>>) {
    received.lock().expect("lock").clear();
}

fn states(received: &Arc<Mutex<Vec<Value>>>) -> Vec<Value> {
    received
        .lock()
        .expect("lock")
        .iter()
        .map(|event| event["state"].clone())
        .collect()
}

#[test]
fn a_revoked_token_shows_as_refused_not_retrying_and_a_new_token_brings_the_window_back() {
    let (harness, _tokens, _settings) = attached_harness();
    let server = start_server(None);
    let connection = collect(
        &harness,
        crate::attached_server::event_relay::CONNECTION_EVENT,
    );
    harness.ok(
        "connect_to_server",
        json!({"url": server.base, "token": server.token}),
    );
    wait_for(&connection, |event| event["state"] == "connected");
    harness.new_session();

    // Another token keeps the loopback server asking for one once "desk" is gone (with no token
    // left at all it would let anyone in), as `dossier-server token revoke desk` leaves it.
    let store = server.ledger.store();
    let spare = tauri::async_runtime::block_on(store.create_access_token("spare"))
        .expect("token")
        .token;
    tauri::async_runtime::block_on(store.revoke_access_token("desk")).expect("revoked");
    forget(&connection);

    // The event stream opened before the revocation; the next request is refused, with the
    // shell's own words and the kind the window turns into its notice.
    let refused = harness
        .invoke(
            "relay_request",
            json!({"request": {"method": "GET", "path": "/session?roots=true"}}),
        )
        .expect_err("refused");
    assert_eq!(refused["kind"], "unauthorized", "{refused}");
    assert_eq!(
        message_of(&refused),
        format!(
            "{} no longer accepts this computer's access token (it may have been revoked). \
             Nothing on this computer was lost. Enter a new token in Settings → Connect to a \
             Dossier server, or use this computer's ledger",
            server.base
        )
    );
    // The stream asks again at once and tells the window: refused, never "retrying".
    wait_for(&connection, |event| event["state"] == "refused");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(states(&connection), [json!("refused")]);

    // What the shell asks for the window on its own is refused the same way, and the copy
    // stops at the first refusal rather than naming every session.
    let export = tauri::async_runtime::block_on(harness.app.state::<AttachedServer>().relay(
        crate::attached_server::server_export::export_request(
            "ses_any",
            crate::commands::reshaping::ExportFormat::Markdown,
        ),
    ))
    .expect_err("refused");
    assert!(
        matches!(
            export,
            crate::error::ShellError::Attached(
                crate::attached_server::AttachedError::ServerTokenNoLongerAccepted { .. }
            )
        ),
        "{export:?}"
    );
    let copy = harness
        .invoke("copy_local_sessions", json!({}))
        .expect_err("refused");
    assert_eq!(copy["kind"], "unauthorized", "{copy}");

    // Settings → Connect with the new token: the window is the server's again.
    forget(&connection);
    harness.ok(
        "connect_to_server",
        json!({"url": server.base, "token": spare}),
    );
    wait_for(&connection, |event| event["state"] == "connected");
    assert_eq!(
        relay(&harness, "GET", "/session?roots=true", None)["status"],
        200
    );
}

/// A window attached at launch (as `resume` does) to `url`, its token in the keychain.
fn attached_at_launch(harness: &Harness, url: &str) -> AttachedServer {
    let settings = tempfile::tempdir().expect("temp dir");
    let file = settings.path().join("server.json");
    std::fs::write(&file, json!({"url": url, "attached": true}).to_string()).expect("write");
    let tokens = Arc::new(InMemoryCredentials::default());
    tokens.store(url, "dossier_token").expect("kept");
    let attached = AttachedServer::default();
    attached.keep_in(file, tokens);
    attached.resume(harness.app.handle());
    assert!(attached.is_attached(), "{url}");
    attached
}

#[test]
fn only_a_refusal_says_refused_a_server_that_is_down_or_failing_is_retried() {
    let cases = [
        (
            foreign_server("HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"),
            "refused",
        ),
        // A proxy in front of the server, with its own page rather than Dossier's JSON.
        (
            foreign_server("HTTP/1.1 403 Forbidden\r\ncontent-type: text/html\r\ncontent-length: 9\r\nconnection: close\r\n\r\nForbidden"),
            "refused",
        ),
        (
            foreign_server("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"),
            "reconnecting",
        ),
        (format!("http://127.0.0.1:{}", closed_port()), "reconnecting"),
    ];
    for (url, expected) in cases {
        let harness = harness(false);
        let connection = collect(
            &harness,
            crate::attached_server::event_relay::CONNECTION_EVENT,
        );
        let attached = attached_at_launch(&harness, &url);
        wait_for(&connection, |event| event["state"] == expected);
        // Long enough for a second try of a server that is down (1 s after the first).
        std::thread::sleep(Duration::from_millis(1500));
        let seen = states(&connection);
        assert!(
            seen.iter().all(|state| state == expected),
            "{url}: {seen:?}"
        );
        tauri::async_runtime::block_on(attached.use_local()).expect("local again");
    }
}
