//! Several `dossier-server` processes on one PostgreSQL database behave as one (issue 16,
//! item 2): what is written through one reaches the event streams of the other, with the same
//! event ids; a session replies on one server at a time, and its retry countdown and questions
//! are listed by every server; a server killed mid-reply has its reply
//! closed by the other once its lease runs out, never before; servers killed while ingesting lose
//! and tear nothing. Real processes (the built binary), a real database, and a provider on
//! 127.0.0.1 that streams slowly. Only with `DOSSIER_TEST_ENGINE=postgres`: on SQLite one process
//! has the ledger, and these tests say they were skipped.

use super::binary::start_with;
use super::support::postgres_server::{fresh_database, TestDatabase};
use super::support::{http_client, on_postgres, EventReader};
use serde_json::{json, Value};
use sqlx::Connection;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tempfile::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::process::Child;

/// How long a reply's lease lasts in these tests (the default is 30 s).
const LEASE_SECONDS: u64 = 3;

fn skipped(test: &str) -> bool {
    if on_postgres() {
        return false;
    }
    eprintln!("{test}: skipped, it needs DOSSIER_TEST_ENGINE=postgres (several servers share a PostgreSQL ledger only)");
    true
}

/// An OpenAI-compatible provider on 127.0.0.1 that streams `words` words, one every `pause`.
/// Title requests get a short title at once.
struct SlowProvider {
    base_url: String,
    requests: Arc<AtomicUsize>,
}

/// What the provider does with its first reply request.
#[derive(Clone)]
enum FirstReply {
    Answer,
    /// Asks to read the file at this path (a tool call) instead of answering.
    Read(String),
    /// Refuses as rate-limited, asking to be tried again after these seconds.
    RateLimited(u32),
}

impl SlowProvider {
    async fn start(words: usize, pause: Duration) -> Self {
        Self::start_with_first(words, pause, FirstReply::Answer).await
    }

    /// The same, but its first reply request gets `first`.
    async fn start_with_first(words: usize, pause: Duration, first: FirstReply) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    return;
                };
                let counted = counted.clone();
                let first = first.clone();
                tokio::spawn(async move {
                    let body = read_request(&mut stream).await;
                    let is_title = body.contains("Generate a title for this conversation");
                    let mut number = 0;
                    if !is_title {
                        number = counted.fetch_add(1, Ordering::SeqCst) + 1;
                    }
                    if let (1, FirstReply::RateLimited(seconds)) = (number, &first) {
                        let refusal = json!({"error": {"message": "Rate limit reached, slow down", "type": "rate_limit_error"}}).to_string();
                        let head = format!("HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: {seconds}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{refusal}", refusal.len());
                        let _ = stream.write_all(head.as_bytes()).await;
                        let _ = stream.shutdown().await;
                        return;
                    }
                    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
                    if stream.write_all(head.as_bytes()).await.is_err() {
                        return;
                    }
                    if let (1, FirstReply::Read(path)) = (number, &first) {
                        let arguments = json!({"filePath": path}).to_string();
                        let call = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "slow-model",
                            "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                "function": {"name": "read", "arguments": arguments}}]}, "finish_reason": null}]});
                        let finish = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "slow-model",
                            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
                        let _ = stream
                            .write_all(
                                format!("data: {call}\n\ndata: {finish}\n\ndata: [DONE]\n\n")
                                    .as_bytes(),
                            )
                            .await;
                        let _ = stream.shutdown().await;
                        return;
                    }
                    let (count, wait) = if is_title {
                        (2, Duration::ZERO)
                    } else {
                        (words, pause)
                    };
                    for index in 0..count {
                        let chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "slow-model",
                            "choices": [{"index": 0, "delta": {"content": format!("word{index} ")}, "finish_reason": null}]});
                        if stream
                            .write_all(format!("data: {chunk}\n\n").as_bytes())
                            .await
                            .is_err()
                        {
                            return;
                        }
                        tokio::time::sleep(wait).await;
                    }
                    let finish = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "slow-model",
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
                    let _ = stream
                        .write_all(format!("data: {finish}\n\ndata: [DONE]\n\n").as_bytes())
                        .await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        Self { base_url, requests }
    }

    fn config(&self) -> String {
        json!({
            "model": "slow/slow-model",
            "provider": {"slow": {"npm": "@ai-sdk/openai-compatible",
                "options": {"baseURL": self.base_url, "apiKey": "not-a-real-key"},
                "models": {"slow-model": {"name": "Slow"}}}}
        })
        .to_string()
    }
}

/// Reads one HTTP request (headers and a Content-Length body); returns the body.
async fn read_request(stream: &mut tokio::net::TcpStream) -> String {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let Ok(read) = stream.read(&mut chunk).await else {
            return String::new();
        };
        if read == 0 {
            return String::from_utf8_lossy(&buffer).into_owned();
        }
        buffer.extend_from_slice(&chunk[..read]);
        let text = String::from_utf8_lossy(&buffer).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())
                        .flatten()
                })
                .unwrap_or(0);
            if buffer.len() >= end + 4 + length {
                return text[end + 4..].to_string();
            }
        }
    }
}

/// The servers' shared database and each server's own folder (its config, never the ledger).
struct Cluster {
    database: TestDatabase,
    folder: TempDir,
    config: String,
    started: usize,
}

impl Cluster {
    async fn new(config: String) -> Self {
        Self {
            database: fresh_database().await,
            folder: tempfile::tempdir().unwrap(),
            config,
            started: 0,
        }
    }

    /// Starts one more `dossier-server` on the shared database; returns it and its base URL.
    async fn start_server(&mut self) -> (Child, String) {
        self.started += 1;
        let own = self.folder.path().join(format!("server-{}", self.started));
        std::fs::create_dir_all(&own).unwrap();
        std::fs::write(own.join("dossier.json"), &self.config).unwrap();
        let lease = LEASE_SECONDS.to_string();
        start_with(
            &own,
            &["--database", &self.database.url],
            &[
                ("DOSSIER_REPLY_LEASE_SECONDS", lease.as_str()),
                ("DOSSIER_OLLAMA", "off"),
            ],
        )
        .await
    }

    async fn finish(self) {
        let pool = self.database.open().await;
        self.database.drop_database(pool).await;
    }
}

/// Two servers on one database, a session made through the first (with `session` as its body),
/// and an event stream on the second.
struct TwoServers {
    cluster: Cluster,
    first: Child,
    first_url: String,
    second: Child,
    second_url: String,
    session_id: String,
    watching: EventReader,
}

impl TwoServers {
    async fn start(provider: &SlowProvider, session: Value) -> Self {
        let mut cluster = Cluster::new(provider.config()).await;
        let (first, first_url) = cluster.start_server().await;
        let (second, second_url) = cluster.start_server().await;
        let session = post(&first_url, "/session", session)
            .await
            .json::<Value>()
            .await
            .unwrap();
        let session_id = session["id"].as_str().unwrap().to_string();
        let watching = events(&second_url, None).await;
        Self {
            cluster,
            first,
            first_url,
            second,
            second_url,
            session_id,
            watching,
        }
    }

    /// The first server's URL, the second's and the session's id, for the test to hold.
    fn addresses(&self) -> (String, String, String) {
        (
            self.first_url.clone(),
            self.second_url.clone(),
            self.session_id.clone(),
        )
    }

    /// Waits until the second server's stream says the session went idle.
    async fn until_idle(&mut self, within: Duration) {
        until(&mut self.watching, within, "session.idle", |frame| {
            frame.kind() == "session.idle"
        })
        .await;
    }

    /// Sends `text` (with a reply) through the first server, without waiting for the answer.
    fn prompt_first(&self, text: &str) -> tokio::task::JoinHandle<reqwest::Response> {
        let url = format!("{}/session/{}/message", self.first_url, self.session_id);
        let body = json!({"parts": [{"type": "text", "text": text}]});
        tokio::spawn(async move { http_client().post(url).json(&body).send().await.unwrap() })
    }

    async fn finish(mut self) {
        // Either may have been killed by the test already.
        let _ = self.first.start_kill();
        let _ = self.second.start_kill();
        self.cluster.finish().await;
    }
}

/// The answer to a prompt sent with `prompt_first`, once it comes (`what` names it if not).
async fn answer_of(
    prompt: tokio::task::JoinHandle<reqwest::Response>,
    within: Duration,
    what: &str,
) -> Value {
    tokio::time::timeout(within, prompt)
        .await
        .unwrap_or_else(|_| panic!("{what}"))
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn get(base: &str, path: &str) -> Value {
    let response = http_client()
        .get(format!("{base}{path}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "GET {path}");
    response.json().await.unwrap()
}

async fn post(base: &str, path: &str, body: Value) -> reqwest::Response {
    http_client()
        .post(format!("{base}{path}"))
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn events(base: &str, last_event_id: Option<u64>) -> EventReader {
    let mut request = http_client().get(format!("{base}/event"));
    if let Some(id) = last_event_id {
        request = request.header("Last-Event-ID", id.to_string());
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut reader = EventReader::new(response);
    assert_eq!(reader.next().await.kind(), "server.connected");
    reader
}

/// Reads frames until one `matches`, within `wait`; returns it.
async fn until(
    reader: &mut EventReader,
    wait: Duration,
    what: &str,
    matches: impl Fn(&super::support::Frame) -> bool,
) -> super::support::Frame {
    tokio::time::timeout(wait, async {
        loop {
            let frame = reader.next().await;
            if matches(&frame) {
                return frame;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {what} within {wait:?}"))
}

fn kill(child: &mut Child) {
    child.start_kill().unwrap();
}

fn assistant_messages(messages: &Value) -> Vec<Value> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["info"]["role"] == "assistant")
        .cloned()
        .collect()
}

fn text_of(message: &Value) -> String {
    message["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|part| part["type"] == "text")
        .map(|part| part["text"].as_str().unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn what_is_written_through_one_server_reaches_the_event_streams_of_the_other() {
    if skipped("what_is_written_through_one_server_reaches_the_event_streams_of_the_other") {
        return;
    }
    let provider = SlowProvider::start(2, Duration::ZERO).await;
    let mut cluster = Cluster::new(provider.config()).await;
    let (mut first, first_url) = cluster.start_server().await;
    let (mut second, second_url) = cluster.start_server().await;
    let mut watching_second = events(&second_url, None).await;

    let session = post(&first_url, "/session", json!({"title": "Shared"}))
        .await
        .json::<Value>()
        .await
        .unwrap();
    let id = session["id"].as_str().unwrap().to_string();
    let created = until(
        &mut watching_second,
        Duration::from_secs(10),
        "session.created on the other server",
        |frame| frame.kind() == "session.created",
    )
    .await;
    assert_eq!(created.data["properties"]["info"]["id"], id);
    let created_id = created.id.unwrap();

    let prompt = post(
        &first_url,
        &format!("/session/{id}/message"),
        json!({"noReply": true, "parts": [{"type": "text", "text": "seen everywhere"}]}),
    )
    .await;
    assert_eq!(prompt.status(), 200);
    let part = until(
        &mut watching_second,
        Duration::from_secs(10),
        "the prompt's part on the other server",
        |frame| frame.kind() == "message.part.updated",
    )
    .await;
    assert_eq!(part.data["properties"]["part"]["text"], "seen everywhere");
    // The other server reads the same ledger.
    let listed = get(&second_url, &format!("/session/{id}/message")).await;
    assert_eq!(text_of(&listed[0]), "seen everywhere");

    // Event ids are one sequence for all servers: a client that saw the session created on the
    // second server resumes on the first and gets what came after, nothing before.
    let mut resumed = events(&first_url, Some(created_id)).await;
    let mut kinds = Vec::new();
    let mut previous = created_id;
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), resumed.next())
            .await
            .expect("the replay on the first server");
        assert_ne!(
            frame.kind(),
            "server.resync-required",
            "the first server could not replay the second's ids"
        );
        let sequence = frame.id.unwrap();
        assert!(sequence > previous, "{sequence} after {previous}");
        previous = sequence;
        kinds.push(frame.kind().to_string());
        if frame.kind() == "message.part.updated" {
            assert_eq!(frame.data["properties"]["part"]["text"], "seen everywhere");
            break;
        }
    }
    assert!(kinds.contains(&"message.updated".to_string()), "{kinds:?}");
    assert!(!kinds.contains(&"session.created".to_string()), "{kinds:?}");

    kill(&mut first);
    kill(&mut second);
    cluster.finish().await;
}

#[tokio::test]
async fn a_session_replies_on_one_server_at_a_time() {
    if skipped("a_session_replies_on_one_server_at_a_time") {
        return;
    }
    let provider = SlowProvider::start(20, Duration::from_millis(100)).await;
    let mut servers = TwoServers::start(&provider, json!({})).await;
    let (first_url, second_url, id) = servers.addresses();
    let first_prompt = servers.prompt_first("first question");
    until(
        &mut servers.watching,
        Duration::from_secs(20),
        "the first reply streaming",
        |frame| {
            frame.kind() == "message.part.delta"
                || (frame.kind() == "message.part.updated"
                    && frame.data["properties"]["part"]["text"]
                        .as_str()
                        .is_some_and(|text| text.starts_with("word")))
        },
    )
    .await;

    // While the first server replies, the second lists the session as busy, refuses to reshape
    // it, as the first would, and a prompt sent to it waits for the reply instead of starting a
    // second one.
    let status = get(&second_url, "/session/status").await;
    assert_eq!(status[&id]["type"], "busy", "{status}");
    let messages = get(&second_url, &format!("/session/{id}/message")).await;
    let user_id = messages[0]["info"]["id"].as_str().unwrap().to_string();
    let revert = post(
        &second_url,
        &format!("/session/{id}/revert"),
        json!({"messageID": user_id}),
    )
    .await;
    assert_eq!(
        revert.status(),
        409,
        "revert on the other server while replying"
    );
    let error: Value = revert.json().await.unwrap();
    assert_eq!(error["name"], "SessionBusyError", "{error}");

    let second_answer = post(
        &second_url,
        &format!("/session/{id}/message"),
        json!({"parts": [{"type": "text", "text": "second question"}]}),
    )
    .await;
    assert_eq!(second_answer.status(), 200);
    let second_answer: Value = second_answer.json().await.unwrap();
    let first_answer: Value = first_prompt.await.unwrap().json().await.unwrap();
    assert_eq!(first_answer["info"]["role"], "assistant");
    assert_eq!(second_answer["info"]["role"], "assistant");

    let messages = get(&first_url, &format!("/session/{id}/message")).await;
    let roles: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["info"]["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "user", "assistant"],
        "one reply per question"
    );
    let replies = assistant_messages(&messages);
    assert_eq!(second_answer["info"]["id"], replies[1]["info"]["id"]);
    let first_done = replies[0]["info"]["time"]["completed"].as_i64().unwrap();
    let second_started = replies[1]["info"]["time"]["created"].as_i64().unwrap();
    assert!(
        second_started >= first_done,
        "the second reply began before the first ended"
    );
    for reply in &replies {
        assert!(reply["info"]["error"].is_null(), "{reply}");
        assert!(text_of(reply).contains("word19"), "{reply}");
    }
    assert_eq!(provider.requests.load(Ordering::SeqCst), 2);

    servers.finish().await;
}

#[tokio::test]
async fn stop_sent_to_another_server_stops_the_reply() {
    if skipped("stop_sent_to_another_server_stops_the_reply") {
        return;
    }
    let provider = SlowProvider::start(400, Duration::from_millis(50)).await;
    let mut servers = TwoServers::start(&provider, json!({})).await;
    let (second_url, id) = (servers.second_url.clone(), servers.session_id.clone());
    let prompt = servers.prompt_first("go on and on");
    until(
        &mut servers.watching,
        Duration::from_secs(20),
        "the reply streaming",
        |frame| frame.kind() == "message.part.delta",
    )
    .await;
    let stop = post(&second_url, &format!("/session/{id}/abort"), json!({})).await;
    assert_eq!(stop.status(), 200);
    let answer = answer_of(prompt, Duration::from_secs(10), "the reply did not stop").await;
    assert_eq!(
        answer["info"]["error"]["name"], "MessageAbortedError",
        "{answer}"
    );
    assert!(!text_of(&answer).contains("word399"), "it ran to the end");
    servers.until_idle(Duration::from_secs(5)).await;

    servers.finish().await;
}

#[tokio::test]
async fn a_retry_countdown_shows_on_every_server() {
    if skipped("a_retry_countdown_shows_on_every_server") {
        return;
    }
    let provider =
        SlowProvider::start_with_first(3, Duration::ZERO, FirstReply::RateLimited(3)).await;
    let mut servers = TwoServers::start(&provider, json!({})).await;
    let (first_url, second_url, id) = servers.addresses();
    let prompt = servers.prompt_first("hello");
    // The first server's reply is refused once and waits to try again; the second server's
    // clients hear of it, and both servers list the same countdown (shared before it is
    // announced).
    let frame = until(
        &mut servers.watching,
        Duration::from_secs(20),
        "a retry status",
        |frame| {
            frame.kind() == "session.status"
                && frame.data["properties"]["status"]["type"] == "retry"
        },
    )
    .await;
    let announced = frame.data["properties"]["status"].clone();
    assert_eq!(announced["attempt"], 1, "{announced}");
    assert!(
        announced["message"]
            .as_str()
            .unwrap_or_default()
            .contains("Rate limit"),
        "{announced}"
    );
    for url in [&first_url, &second_url] {
        let statuses = get(url, "/session/status").await;
        assert_eq!(statuses[id.as_str()], announced, "{url}: {statuses}");
    }
    // Trying again, the reply goes on: busy on both, and then idle (not listed) on both.
    let frame = until(
        &mut servers.watching,
        Duration::from_secs(20),
        "busy again",
        |frame| {
            frame.kind() == "session.status" && frame.data["properties"]["status"]["type"] == "busy"
        },
    )
    .await;
    assert_eq!(frame.data["properties"]["sessionID"], id.as_str());
    let listed = get(&second_url, "/session/status").await;
    assert!(
        listed[id.as_str()] == json!({"type": "busy"}) || listed.get(id.as_str()).is_none(),
        "{listed}"
    );
    let reply = answer_of(prompt, Duration::from_secs(20), "the reply did not finish").await;
    assert!(reply["info"]["error"].is_null(), "{reply}");
    assert!(text_of(&reply).contains("word2"), "{reply}");
    servers.until_idle(Duration::from_secs(5)).await;
    for url in [&first_url, &second_url] {
        let statuses = get(url, "/session/status").await;
        assert!(statuses.get(id.as_str()).is_none(), "{url}: {statuses}");
    }

    servers.finish().await;
}

#[tokio::test]
async fn a_question_asked_on_one_server_is_answered_through_the_other() {
    if skipped("a_question_asked_on_one_server_is_answered_through_the_other") {
        return;
    }
    let secrets = tempfile::tempdir().unwrap();
    let path = secrets.path().join("secrets.env");
    std::fs::write(&path, "KEY=1\n").unwrap();
    let provider = SlowProvider::start_with_first(
        3,
        Duration::ZERO,
        FirstReply::Read(path.display().to_string()),
    )
    .await;
    let mut servers = TwoServers::start(
        &provider,
        json!({"directory": secrets.path().display().to_string()}),
    )
    .await;
    let (first_url, second_url, id) = servers.addresses();
    let prompt = servers.prompt_first("read my secrets");
    // The first server's reply asks (reading a `.env` file asks by default); the question
    // reaches the second server's clients and its `GET /permission` (it is listed before it
    // is announced), and each answer is given there.
    let mut answered = 0;
    loop {
        let frame = until(
            &mut servers.watching,
            Duration::from_secs(20),
            "a question or the end",
            |frame| frame.kind() == "permission.asked" || frame.kind() == "session.idle",
        )
        .await;
        if frame.kind() == "session.idle" {
            break;
        }
        let request = frame.data["properties"]["id"].as_str().unwrap().to_string();
        for url in [&first_url, &second_url] {
            let listed = get(url, "/permission").await;
            let listed: Vec<&Value> = listed.as_array().unwrap().iter().collect();
            assert_eq!(listed.len(), 1, "{url}: {listed:?}");
            assert_eq!(listed[0]["id"], request.as_str(), "{listed:?}");
            assert_eq!(listed[0]["sessionID"], id.as_str(), "{listed:?}");
            assert_eq!(listed[0]["permission"], "read", "{listed:?}");
        }
        let answer = post(
            &second_url,
            &format!("/session/{id}/permissions/{request}"),
            json!({"response": "once"}),
        )
        .await;
        assert_eq!(answer.status(), 200, "{:?}", answer.text().await);
        // Once its server took the answer (it says so to every client), no server lists it.
        until(
            &mut servers.watching,
            Duration::from_secs(20),
            "the answer taken",
            |frame| {
                frame.kind() == "permission.replied"
                    && frame.data["properties"]["requestID"] == request.as_str()
            },
        )
        .await;
        for url in [&first_url, &second_url] {
            let listed = get(url, "/permission").await;
            assert_eq!(listed, json!([]), "{url}");
        }
        answered += 1;
        assert!(answered <= 3, "asked again and again");
    }
    assert!(answered >= 1, "no question was asked");
    let reply = answer_of(prompt, Duration::from_secs(10), "the reply did not finish").await;
    assert!(reply["info"]["error"].is_null(), "{reply}");
    let messages = get(&second_url, &format!("/session/{id}/message")).await;
    let tool = messages
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|message| message["parts"].as_array().unwrap().iter())
        .find(|part| part["type"] == "tool")
        .cloned()
        .expect("the read call");
    assert_eq!(tool["state"]["status"], "completed", "{tool}");
    assert!(
        tool["state"]["output"]
            .as_str()
            .unwrap_or_default()
            .contains("KEY=1"),
        "{tool}"
    );
    // An answer to a question nobody asked is still refused.
    let unknown = post(
        &second_url,
        &format!("/session/{id}/permissions/per_nobody_asked"),
        json!({"response": "once"}),
    )
    .await;
    assert_eq!(unknown.status(), 404);

    servers.finish().await;
}

#[tokio::test]
async fn a_server_killed_mid_reply_has_its_reply_closed_by_another_after_the_lease() {
    if skipped("a_server_killed_mid_reply_has_its_reply_closed_by_another_after_the_lease") {
        return;
    }
    let provider = SlowProvider::start(400, Duration::from_millis(50)).await;
    let mut servers = TwoServers::start(&provider, json!({})).await;
    let (second_url, id) = (servers.second_url.clone(), servers.session_id.clone());
    // Its answer never comes: the server is killed before it.
    let _prompt = servers.prompt_first("a long answer please");
    // Let it stream long enough for its text to be saved along the way.
    let started = Instant::now();
    loop {
        let messages = get(&second_url, &format!("/session/{id}/message")).await;
        let replies = assistant_messages(&messages);
        if replies
            .first()
            .is_some_and(|reply| text_of(reply).contains("word20 "))
        {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the reply never got going"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    kill(&mut servers.first);
    servers.first.wait().await.unwrap();
    // Dead, its server renews the lease no more: it runs out at `expires_at` (the database's
    // clock, in milliseconds). When exactly depends on when it was last renewed, which a
    // loaded machine delays, so the test reads it rather than counting from the kill.
    let mut database = sqlx::PgConnection::connect(&servers.cluster.database.url)
        .await
        .unwrap();
    let (expires_at, now): (f64, f64) = sqlx::query_as(
        "SELECT (extract(epoch FROM expires_at) * 1000)::float8, \
                (extract(epoch FROM clock_timestamp()) * 1000)::float8 \
         FROM reply_lease WHERE session_id = $1",
    )
    .bind(&id)
    .fetch_one(&mut database)
    .await
    .unwrap();
    database.close().await.unwrap();

    // Never while the lease may still be its owner's: the reply stays open until then.
    let left = Duration::from_millis((expires_at - now).max(0.0) as u64);
    if left > Duration::from_millis(300) {
        tokio::time::sleep(left - Duration::from_millis(200)).await;
    }
    let messages = get(&second_url, &format!("/session/{id}/message")).await;
    let reply = &assistant_messages(&messages)[0];
    if left > Duration::from_millis(300) {
        assert!(
            reply["info"]["time"]["completed"].is_null() && reply["info"]["error"].is_null(),
            "closed before the lease ran out: {reply}"
        );
    }
    let kept = text_of(reply);

    // After the lease, the other server closes it as interrupted, keeping the streamed text,
    // and says so on its event stream.
    let closed = until(
        &mut servers.watching,
        Duration::from_secs(20),
        "the reply closed by the other server",
        |frame| {
            frame.kind() == "message.updated"
                && frame.data["properties"]["info"]["role"] == "assistant"
                && !frame.data["properties"]["info"]["error"].is_null()
        },
    )
    .await;
    assert_eq!(
        closed.data["properties"]["info"]["error"]["name"],
        "MessageAbortedError"
    );
    // Closed after the lease ran out (the closing server's clock and the database's are this
    // machine's one clock).
    let completed = closed.data["properties"]["info"]["time"]["completed"]
        .as_f64()
        .unwrap();
    assert!(
        completed >= expires_at.floor(),
        "closed at {completed}, before the lease ran out at {expires_at}"
    );
    let messages = get(&second_url, &format!("/session/{id}/message")).await;
    let reply = &assistant_messages(&messages)[0];
    assert!(!reply["info"]["time"]["completed"].is_null());
    let text = text_of(reply);
    assert!(text.starts_with("word0 word1 word2 "), "{text}");
    assert!(
        text.len() >= kept.len(),
        "streamed text lost: {text:?} < {kept:?}"
    );
    servers.until_idle(Duration::from_secs(5)).await;
    // The session answers again, on the server that is left.
    let status = get(&second_url, "/session/status").await;
    assert!(status.get(&id).is_none(), "{status}");

    servers.finish().await;
}

#[tokio::test]
async fn servers_killed_while_ingesting_lose_and_tear_nothing() {
    if skipped("servers_killed_while_ingesting_lose_and_tear_nothing") {
        return;
    }
    const ROUNDS: usize = 20;
    let provider = SlowProvider::start(1, Duration::ZERO).await;
    let mut cluster = Cluster::new(provider.config()).await;
    let (mut survivor, survivor_url) = cluster.start_server().await;
    let notes = cluster.folder.path().join("notes.txt");
    std::fs::write(
        &notes,
        (0..200)
            .map(|line| format!("line {line} of notes\n"))
            .collect::<String>(),
    )
    .unwrap();
    let prompt = json!({"noReply": true, "parts": [
        {"type": "text", "text": "a prompt"},
        {"type": "file", "mime": "text/plain", "filename": "notes.txt", "url": format!("file://{}", notes.display())},
        {"type": "text", "text": "end"},
    ]});
    // What one whole prompt is, from the server that stays.
    let session = post(&survivor_url, "/session", json!({}))
        .await
        .json::<Value>()
        .await
        .unwrap();
    let session_id = session["id"].as_str().unwrap().to_string();
    let whole: Value = post(
        &survivor_url,
        &format!("/session/{session_id}/message"),
        prompt.clone(),
    )
    .await
    .json()
    .await
    .unwrap();
    let parts_per_prompt = whole["parts"].as_array().unwrap().len();
    assert!(parts_per_prompt >= 3, "{whole}");

    let mut acknowledged: Vec<String> = Vec::new();
    for round in 0..ROUNDS {
        let (mut doomed, doomed_url) = cluster.start_server().await;
        // Two writers at once: the server about to die and the one that stays.
        let writers: Vec<_> = [doomed_url.clone(), survivor_url.clone()]
            .into_iter()
            .map(|url| {
                let (prompt, session_id) = (prompt.clone(), session_id.clone());
                tokio::spawn(async move {
                    let mut saved = Vec::new();
                    let client = http_client();
                    loop {
                        let response = client
                            .post(format!("{url}/session/{session_id}/message"))
                            .json(&prompt)
                            .send()
                            .await;
                        let Ok(response) = response else { break };
                        if response.status() != 200 {
                            break;
                        }
                        let Ok(message) = response.json::<Value>().await else {
                            break;
                        };
                        saved.push(message["info"]["id"].as_str().unwrap().to_string());
                    }
                    saved
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(50 + (round as u64 * 37) % 250)).await;
        kill(&mut doomed);
        doomed.wait().await.unwrap();
        let mut writers = writers.into_iter();
        let doomed_writer = writers.next().unwrap();
        acknowledged.extend(doomed_writer.await.unwrap());
        // The survivor's writer stops once it is told to: abort it after the check.
        let survivor_writer = writers.next().unwrap();
        survivor_writer.abort();

        let messages = get(&survivor_url, &format!("/session/{session_id}/message")).await;
        let messages = messages.as_array().unwrap();
        for message in messages {
            assert_eq!(
                message["parts"].as_array().unwrap().len(),
                parts_per_prompt,
                "round {round}: a torn prompt {}",
                message["info"]["id"]
            );
        }
        let stored: std::collections::HashSet<&str> = messages
            .iter()
            .map(|message| message["info"]["id"].as_str().unwrap())
            .collect();
        for id in &acknowledged {
            assert!(
                stored.contains(id.as_str()),
                "round {round}: acknowledged {id} lost"
            );
        }
    }
    assert!(
        acknowledged.len() >= ROUNDS,
        "the killed servers barely ingested anything: {}",
        acknowledged.len()
    );
    // And in the database itself: no message without its parts, no part without its message.
    let pool = cluster.database.open().await;
    let orphans: (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM message WHERE NOT EXISTS (SELECT 1 FROM part WHERE part.message_id = message.id)), \
                (SELECT count(*) FROM part WHERE NOT EXISTS (SELECT 1 FROM message WHERE message.id = part.message_id))",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(orphans, (0, 0));
    pool.close().await;

    kill(&mut survivor);
    cluster.finish().await;
}
