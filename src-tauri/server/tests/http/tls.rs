//! HTTPS with `--tls-cert`/`--tls-key`: a certificate made at test time, a client that trusts
//! it, on 127.0.0.1. Routes and the event stream work over TLS; a client that does not trust
//! the certificate, a plain-HTTP request to the HTTPS port and a client that never finishes
//! its handshake each fail on their own without stopping the server for anyone else.

use super::support::{http_client, test_options, TestServer};
use dossier_server::tls_configuration::TlsFiles;
use dossier_server::ServerOptions;
use serde_json::json;
use std::time::Duration;
use tempfile::TempDir;

/// A self-signed certificate for 127.0.0.1 and localhost, written as PEM files.
pub struct MadeCertificate {
    pub folder: TempDir,
    pub files: TlsFiles,
    pub pem: String,
}

pub fn made_certificate() -> MadeCertificate {
    let made =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()])
            .unwrap();
    let folder = tempfile::tempdir().unwrap();
    let files = TlsFiles {
        certificate: folder.path().join("cert.pem"),
        key: folder.path().join("key.pem"),
    };
    let pem = made.cert.pem();
    std::fs::write(&files.certificate, &pem).unwrap();
    std::fs::write(&files.key, made.signing_key.serialize_pem()).unwrap();
    MadeCertificate { folder, files, pem }
}

/// A client that trusts only `pem`.
pub fn trusting_client(pem: &str) -> reqwest::Client {
    // The provider must be in place before the builder asks for it.
    drop(http_client());
    reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(pem.as_bytes()).unwrap()])
        .build()
        .unwrap()
}

async fn https_server(made: &MadeCertificate) -> TestServer {
    let mut server = TestServer::start_with(ServerOptions {
        tls: Some(made.files.clone()),
        ..test_options()
    })
    .await;
    server.client = trusting_client(&made.pem);
    server
}

#[tokio::test]
async fn routes_and_the_event_stream_work_over_https() {
    let made = made_certificate();
    let server = https_server(&made).await;
    assert!(
        server.base.starts_with("https://127.0.0.1:"),
        "{}",
        server.base
    );
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let created = server.create_session(json!({"title": "Over TLS"})).await;
    let event = events.next_event().await;
    assert_eq!(event.kind(), "session.created");
    assert_eq!(event.data["properties"]["info"]["id"], created["id"]);
    let listed: serde_json::Value = server.get("/session").await.json().await.unwrap();
    assert_eq!(listed[0]["title"], "Over TLS");
}

#[tokio::test]
async fn a_client_that_does_not_trust_the_certificate_is_refused() {
    let made = made_certificate();
    let server = https_server(&made).await;
    let other = made_certificate();
    let error = trusting_client(&other.pem)
        .get(server.url("/session"))
        .send()
        .await
        .unwrap_err();
    assert!(error.is_connect(), "{error:?}");
    // The failed handshake cost nobody else anything.
    assert_eq!(server.get("/session").await.status(), 200);
}

#[tokio::test]
async fn plain_http_to_the_https_port_gets_no_answer_and_https_still_works() {
    let made = made_certificate();
    let server = https_server(&made).await;
    let plain = server.base.replacen("https://", "http://", 1);
    let outcome = http_client()
        .get(format!("{plain}/session"))
        .timeout(Duration::from_secs(15))
        .send()
        .await;
    assert!(outcome.is_err(), "plain HTTP was answered: {outcome:?}");
    assert_eq!(server.get("/session").await.status(), 200);
}

#[tokio::test]
async fn a_client_silent_after_connecting_does_not_hold_up_others() {
    let made = made_certificate();
    let server = https_server(&made).await;
    let address = server.base.trim_start_matches("https://").to_string();
    // Connected, and never says hello.
    let _silent = tokio::net::TcpStream::connect(&address).await.unwrap();
    let answered = tokio::time::timeout(Duration::from_secs(5), server.get("/session"))
        .await
        .expect("a silent connection held up the next client");
    assert_eq!(answered.status(), 200);
}

#[tokio::test]
async fn without_tls_the_server_speaks_plain_http_only() {
    let made = made_certificate();
    let server = TestServer::start().await;
    assert!(server.base.starts_with("http://"), "{}", server.base);
    assert_eq!(server.get("/session").await.status(), 200);
    let secure = server.base.replacen("http://", "https://", 1);
    let outcome = trusting_client(&made.pem)
        .get(format!("{secure}/session"))
        .send()
        .await;
    assert!(outcome.is_err(), "HTTPS was answered: {outcome:?}");
}

#[tokio::test]
async fn the_server_stops_cleanly_over_tls_with_a_stream_open() {
    let made = made_certificate();
    let server = https_server(&made).await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let stopping = tokio::spawn(async move { server.stop().await });
    assert!(events.ends_within(Duration::from_secs(5)).await);
    stopping.await.unwrap().unwrap();
}
