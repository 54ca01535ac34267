//! A server on 127.0.0.1:0 over a fresh temporary ledger, a client for it, and a reader for its
//! SSE stream.

use dossier_core::models::config::{Config, Locations};
use dossier_core::{Ledger, LedgerOptions};
use dossier_server::{bind, serve, ServerError, ServerOptions};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tempfile::TempDir;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

// The core's test server for PostgreSQL, shared; the core's tests use the parts left unused here.
#[allow(dead_code)]
#[path = "../../../core/tests/ledger/support/postgres_server.rs"]
pub mod postgres_server;

/// The engine the tests' ledgers run on: `DOSSIER_TEST_ENGINE=postgres` puts each test
/// server's ledger in a PostgreSQL database of its own, SQLite's file otherwise.
pub fn on_postgres() -> bool {
    std::env::var("DOSSIER_TEST_ENGINE").is_ok_and(|engine| engine == "postgres")
}

pub struct TestServer {
    pub base: String,
    pub client: reqwest::Client,
    pub ledger: Ledger,
    /// Shared so a test can keep the data after stopping the server.
    pub folder: Arc<TempDir>,
    /// The server's own PostgreSQL database when the tests run on that engine (`on_postgres`).
    pub database_url: Option<String>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), ServerError>>>,
}

/// A provider named like the one in OpenCode's wire samples.
pub const FAKE_CONFIG: &str = r#"{
  "model": "fake/fake-model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "models": {"fake-model": {"name": "Fake"}}}}
}"#;

/// An HTTP client for the tests. reqwest is the one the core, rmcp and the updater share, built
/// with `rustls-no-provider`: a client needs a process-wide TLS provider even for plain HTTP, so
/// ring (the only one compiled) is installed first, as the core's `http_client` does.
pub fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

pub fn ledger_options(folder: &TempDir) -> LedgerOptions {
    let mut options = LedgerOptions::at(Locations::from_values(
        Some(folder.path().join("data")),
        Some(folder.path().join("dossier.json")),
    ));
    options.config = Some(Config::parse(FAKE_CONFIG).unwrap());
    options.default_directory = Some(folder.path().to_path_buf());
    options
}

impl TestServer {
    pub async fn start() -> Self {
        Self::start_with(test_options()).await
    }

    pub async fn start_with(options: ServerOptions) -> Self {
        Self::start_customised(options, |_| {}).await
    }

    /// A server whose ledger options the test adjusts first (hooks, …).
    pub async fn start_customised(
        options: ServerOptions,
        customise: impl FnOnce(&mut LedgerOptions),
    ) -> Self {
        let folder = tempfile::tempdir().unwrap();
        let mut ledger_options = ledger_options(&folder);
        if on_postgres() {
            // Dropped by the next test process once this one has ended (`drop_leftovers`).
            ledger_options.database_url = Some(postgres_server::fresh_database().await.url);
        }
        let database_url = ledger_options.database_url.clone();
        customise(&mut ledger_options);
        let ledger = dossier_core::start_up::open(ledger_options).await.unwrap();
        let listener = bind(&options).await.unwrap();
        let scheme = if options.tls.is_some() {
            "https"
        } else {
            "http"
        };
        let (ready_sender, ready) = oneshot::channel::<SocketAddr>();
        let (stop, stopped) = oneshot::channel::<()>();
        let served = ledger.clone();
        let task = tokio::spawn(async move {
            serve(
                listener,
                async move { Ok(served) },
                &options,
                async move {
                    // A dropped sender (test over) stops the server too.
                    let _ = stopped.await;
                },
                move |address| {
                    let _ = ready_sender.send(address);
                },
            )
            .await
        });
        let address = ready.await.unwrap();
        Self {
            base: format!("{scheme}://{address}"),
            client: http_client(),
            ledger,
            folder: Arc::new(folder),
            database_url,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Options that open this server's ledger again (its folder, and its database on
    /// PostgreSQL).
    pub fn reopening_options(&self) -> LedgerOptions {
        let mut options = ledger_options(&self.folder);
        options.database_url = self.database_url.clone();
        options
    }

    /// Everything the server's ledger holds, as bytes to look for what must not be there: the
    /// files under its data folder (the database, its log) on SQLite, every row of every table
    /// as text on PostgreSQL.
    pub async fn stored_bytes(&self) -> Vec<u8> {
        let Some(url) = &self.database_url else {
            let mut bytes = Vec::new();
            let mut folders = vec![self.folder.path().join("data")];
            while let Some(folder) = folders.pop() {
                for entry in std::fs::read_dir(&folder).unwrap() {
                    let path = entry.unwrap().path();
                    if path.is_dir() {
                        folders.push(path);
                    } else {
                        bytes.extend(std::fs::read(&path).unwrap());
                    }
                }
            }
            return bytes;
        };
        let pool = sqlx::PgPool::connect(url).await.unwrap();
        let tables: Vec<String> = sqlx::query_scalar(
            "SELECT table_name::text FROM information_schema.tables \
             WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        let mut bytes = Vec::new();
        for table in tables {
            let text: String = sqlx::query_scalar(&format!(
                "SELECT coalesce(string_agg(row.*::text, ' '), '') FROM \"{table}\" AS row"
            ))
            .fetch_one(&pool)
            .await
            .unwrap();
            bytes.extend(text.into_bytes());
        }
        pool.close().await;
        bytes
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.unwrap()
    }

    pub async fn post(&self, path: &str, body: Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    pub async fn post_raw(&self, path: &str, body: &str) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap()
    }

    pub async fn patch(&self, path: &str, body: Value) -> reqwest::Response {
        self.client
            .patch(self.url(path))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    pub async fn delete(&self, path: &str) -> reqwest::Response {
        self.client.delete(self.url(path)).send().await.unwrap()
    }

    pub async fn create_session(&self, body: Value) -> Value {
        let response = self.post("/session", body).await;
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    }

    /// A text file in the server's folder, as a `file://` URL.
    pub fn text_file(&self, name: &str, text: &str) -> (PathBuf, String) {
        let path = self.folder.path().join(name);
        std::fs::write(&path, text).unwrap();
        let url = format!("file://{}", path.display());
        (path, url)
    }

    pub fn no_reply_prompt(&self, file_url: &str, text: &str) -> Value {
        json!({
            "noReply": true,
            "parts": [
                {"type": "file", "mime": "text/plain", "filename": "notes.txt", "url": file_url},
                {"type": "text", "text": text}
            ]
        })
    }

    /// Opens the event stream. On PostgreSQL the ledger's events go round the database before
    /// they are delivered: the stream opens once those announced so far were, so none of them
    /// arrives on it as if it had come after.
    pub async fn events(&self, last_event_id: Option<u64>) -> EventReader {
        self.ledger.events().delivered().await;
        let mut request = self.client.get(self.url("/event"));
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id.to_string());
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        EventReader {
            response,
            buffer: String::new(),
        }
    }

    /// Stops the server as SIGTERM would and waits for it to finish.
    pub async fn stop(mut self) -> Result<(), ServerError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let task = self.task.take().unwrap();
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("server did not stop within 10 s")
            .unwrap()
    }
}

pub fn test_options() -> ServerOptions {
    ServerOptions {
        port: 0,
        ..ServerOptions::default()
    }
}

/// One SSE frame: its `id:` (if any) and its JSON `data:`.
#[derive(Debug, Clone)]
pub struct Frame {
    pub id: Option<u64>,
    pub data: Value,
}

impl Frame {
    pub fn kind(&self) -> &str {
        self.data["type"].as_str().unwrap_or("")
    }
}

pub struct EventReader {
    response: reqwest::Response,
    buffer: String,
}

impl EventReader {
    pub fn new(response: reqwest::Response) -> Self {
        Self {
            response,
            buffer: String::new(),
        }
    }

    pub async fn next(&mut self) -> Frame {
        tokio::time::timeout(Duration::from_secs(5), self.next_frame())
            .await
            .expect("no SSE frame within 5 s")
    }

    async fn next_frame(&mut self) -> Frame {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let text: String = self.buffer.drain(..end + 2).collect();
                let mut frame = Frame {
                    id: None,
                    data: Value::Null,
                };
                for line in text.lines() {
                    if let Some(id) = line.strip_prefix("id: ") {
                        frame.id = Some(id.parse().unwrap());
                    } else if let Some(data) = line.strip_prefix("data: ") {
                        frame.data = serde_json::from_str(data).unwrap();
                    }
                }
                return frame;
            }
            let chunk = self.response.chunk().await.unwrap().expect("stream ended");
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next frame that is not a heartbeat.
    pub async fn next_event(&mut self) -> Frame {
        loop {
            let frame = self.next().await;
            if frame.kind() != "server.heartbeat" {
                return frame;
            }
        }
    }

    /// True when the stream ends (the server closed it) within `wait`.
    pub async fn ends_within(&mut self, wait: Duration) -> bool {
        tokio::time::timeout(wait, async {
            loop {
                match self.response.chunk().await {
                    Ok(Some(_)) => continue,
                    Ok(None) | Err(_) => return,
                }
            }
        })
        .await
        .is_ok()
    }
}

pub async fn json_of(response: reqwest::Response) -> Value {
    response.json().await.unwrap()
}

/// Asserts an error response: status, typed `kind`, a non-empty message, and OpenCode's
/// `{name, data.message}` shape.
pub async fn assert_error(response: reqwest::Response, status: u16, kind: &str) -> String {
    assert_eq!(response.status(), status);
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["kind"], kind, "{body}");
    let message = body["message"].as_str().unwrap().to_string();
    assert!(!message.is_empty());
    assert_eq!(body["data"]["message"], message.as_str());
    assert!(body["name"].as_str().is_some_and(|name| !name.is_empty()));
    message
}
