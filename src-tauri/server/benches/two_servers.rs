//! Load across two servers on one PostgreSQL database (issue 16): two `dossier-server`
//! processes on a database of their own, and concurrent clients, half on each server, each with
//! one keep-alive HTTP connection and a session of its own, sending `noReply` prompts to that
//! session and listing sessions in turn for a fixed time. Prints throughput, p50/p99 per request
//! kind and server, and the errors; asserts nothing (targets: no errors, p99 under 50 ms).
//!
//! Run with `cargo bench -p dossier-server --bench two_servers`; knobs:
//! `DOSSIER_BENCH_CLIENTS` (50), `DOSSIER_BENCH_SECONDS` (60), and `DOSSIER_BENCH_SERVER`, the
//! `dossier-server` executable to run (default: the one Cargo built beside this bench, in the
//! bench's profile). PostgreSQL is the server `scripts/postgres-for-tests.sh start` runs (reused
//! when running), or the admin URL in `DOSSIER_TEST_POSTGRES_URL`; the bench creates its
//! database there and drops it at the end.

// A benchmark is a test harness: a failed unwrap is its error report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};
use sqlx::{Connection, PgConnection};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const CONFIG: &str = r#"{"model": "fake/fake-model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "models": {"fake-model": {}}}}}"#;
const SERVERS: usize = 2;

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

/// The admin URL of a PostgreSQL server: the caller's, or the tests' script's.
fn admin_url() -> String {
    if let Ok(url) = std::env::var("DOSSIER_TEST_POSTGRES_URL") {
        return url;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/postgres-for-tests.sh"
    );
    let output = std::process::Command::new("bash")
        .args([script, "start"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{script} start failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .last()
        .expect("the script printed no URL")
        .trim()
        .to_string()
}

/// The bench's databases are named for the process that made them.
const DATABASE_PREFIX: &str = "dossier_bench_two_servers_";

/// Drops the databases of earlier runs that ended without dropping theirs (their process gone),
/// so a failed run does not keep its disk.
async fn drop_leftovers(connection: &mut PgConnection) {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE starts_with(datname, $1)")
            .bind(DATABASE_PREFIX)
            .fetch_all(&mut *connection)
            .await
            .unwrap();
    for name in names {
        let pid = name.trim_start_matches(DATABASE_PREFIX);
        if std::path::Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&mut *connection)
            .await
            .unwrap();
    }
}

/// `admin` with its database replaced by `name`.
fn url_of(admin: &str, name: &str) -> String {
    let mut url = url::Url::parse(admin).unwrap();
    url.set_path(name);
    url.to_string()
}

/// The `dossier-server` to run: `DOSSIER_BENCH_SERVER` (e.g. an optimised build), else the one
/// Cargo built beside this bench, in the bench's own profile.
fn server_executable() -> String {
    std::env::var("DOSSIER_BENCH_SERVER")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_dossier-server").to_string())
}

/// Starts one server on `database_url` with a folder of its own, and returns it with the base
/// URL from the one line it prints once it answers.
async fn start_server(folder: &std::path::Path, database_url: &str) -> (Child, String) {
    std::fs::create_dir_all(folder).unwrap();
    std::fs::write(folder.join("dossier.json"), CONFIG).unwrap();
    let mut child = Command::new(server_executable())
        .args(["--hostname", "127.0.0.1", "--port", "0"])
        .env("DOSSIER_DATA_DIR", folder.join("data"))
        .env("DOSSIER_CONFIG", folder.join("dossier.json"))
        .env("DOSSIER_DATABASE_URL", database_url)
        .env("DOSSIER_OLLAMA", "off")
        .env_remove("DOSSIER_SERVER_PASSWORD")
        .current_dir(folder)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    tokio::time::timeout(Duration::from_secs(60), reader.read_line(&mut line))
        .await
        .expect("no listening line within 60 s")
        .unwrap();
    let base = line
        .trim_end()
        .strip_prefix("dossier server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    (child, base)
}

/// Stops a server as a service manager does, with SIGTERM, and waits for it.
async fn stop_server(mut child: Child) {
    if let Some(pid) = child.id() {
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await;
    }
    if tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
}

#[derive(Default)]
struct Tally {
    prompts: Vec<Duration>,
    listings: Vec<Duration>,
    errors: Vec<String>,
}

/// One client: its own connection and session on `base`, prompting and listing until
/// `deadline`. An error is counted and the client goes on, as a person's window would.
async fn client(base: String, index: usize, deadline: Instant) -> Tally {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let mut tally = Tally::default();
    let session: Value = http
        .post(format!("{base}/session"))
        .json(&json!({"title": format!("load client {index}")}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let prompt_path = format!("{base}/session/{}/message", session["id"].as_str().unwrap());
    let listing_path = format!("{base}/session?limit=50");
    let mut turn = 0;
    while Instant::now() < deadline {
        turn += 1;
        let started = Instant::now();
        let sent = http
            .post(&prompt_path)
            .json(&json!({"noReply": true, "parts": [
                {"type": "text", "text": format!("client {index} says hello, turn {turn}")}
            ]}))
            .send()
            .await;
        match read(sent).await {
            Ok(()) => tally.prompts.push(started.elapsed()),
            Err(error) => tally.errors.push(format!("prompt: {error}")),
        }
        let started = Instant::now();
        match read(http.get(&listing_path).send().await).await {
            Ok(()) => tally.listings.push(started.elapsed()),
            Err(error) => tally.errors.push(format!("listing: {error}")),
        }
    }
    tally
}

/// Reads the whole answer (a request is done when its body is), an error unless it is a 2xx.
async fn read(sent: Result<reqwest::Response, reqwest::Error>) -> Result<(), String> {
    let response = sent.map_err(|error| error.to_string())?;
    let status = response.status();
    let body = response.bytes().await.map_err(|error| error.to_string())?;
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("{status}: {}", String::from_utf8_lossy(&body)))
    }
}

fn print_kind(label: &str, mut samples: Vec<Duration>, seconds: f64) {
    samples.sort();
    println!(
        "  {label:<28} {:>7} requests  {:>8.1}/s  p50 {:>7.2} ms  p99 {:>7.2} ms  max {:>8.2} ms",
        samples.len(),
        samples.len() as f64 / seconds,
        percentile(&samples, 0.5),
        percentile(&samples, 0.99),
        samples
            .last()
            .map_or(f64::NAN, |max| max.as_secs_f64() * 1000.0)
    );
}

#[tokio::main]
async fn main() {
    let clients = knob("DOSSIER_BENCH_CLIENTS", 50).max(1);
    let seconds = knob("DOSSIER_BENCH_SECONDS", 60).max(1);

    // reqwest is built with `rustls-no-provider` (as the tests' `support::http_client`), which
    // needs a process-wide TLS provider even for plain HTTP clients.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let admin = admin_url();
    let mut connection = PgConnection::connect(&admin).await.unwrap();
    drop_leftovers(&mut connection).await;
    let database = format!("{DATABASE_PREFIX}{}", std::process::id());
    sqlx::query(&format!("CREATE DATABASE {database}"))
        .execute(&mut connection)
        .await
        .unwrap();
    let database_url = url_of(&admin, &database);

    let folder = tempfile::tempdir().unwrap();
    let mut servers = Vec::new();
    for number in 0..SERVERS {
        // One after the other: the first runs the migrations, so the second's start is the
        // ordinary one of a server joining a database in use.
        servers.push(
            start_server(
                &folder.path().join(format!("server-{number}")),
                &database_url,
            )
            .await,
        );
    }
    let bases: Vec<String> = servers.iter().map(|(_, base)| base.clone()).collect();
    println!(
        "dossier-server load: {clients} clients across {SERVERS} servers ({}) on one PostgreSQL \
         database, {seconds} s; server executable {}",
        bases.join(", "),
        server_executable()
    );

    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds as u64);
    let tasks: Vec<_> = (0..clients)
        .map(|index| {
            let server = index % SERVERS;
            let task = tokio::spawn(client(bases[server].clone(), index, deadline));
            (server, task)
        })
        .collect();
    let mut per_server: Vec<Tally> = (0..SERVERS).map(|_| Tally::default()).collect();
    for (server, task) in tasks {
        let tally = task.await.unwrap();
        let into = &mut per_server[server];
        into.prompts.extend(tally.prompts);
        into.listings.extend(tally.listings);
        into.errors.extend(tally.errors);
    }
    let elapsed = started.elapsed().as_secs_f64();

    let mut all = Tally::default();
    for (number, tally) in per_server.iter().enumerate() {
        let its_clients = (0..clients)
            .filter(|index| index % SERVERS == number)
            .count();
        println!("server {number} ({its_clients} clients):");
        print_kind("noReply prompt", tally.prompts.clone(), elapsed);
        print_kind("GET /session?limit=50", tally.listings.clone(), elapsed);
        all.prompts.extend(tally.prompts.iter().copied());
        all.listings.extend(tally.listings.iter().copied());
        all.errors.extend(tally.errors.iter().cloned());
    }
    println!("both servers, {elapsed:.1} s:");
    let requests = all.prompts.len() + all.listings.len();
    print_kind("noReply prompt", all.prompts, elapsed);
    print_kind("GET /session?limit=50", all.listings, elapsed);
    println!(
        "  throughput {:.1} requests/s; errors {}",
        requests as f64 / elapsed,
        all.errors.len()
    );
    for error in all.errors.iter().take(5) {
        println!("    {error}");
    }

    for (child, _) in servers {
        stop_server(child).await;
    }
    sqlx::query(&format!("DROP DATABASE {database} WITH (FORCE)"))
        .execute(&mut connection)
        .await
        .unwrap();
}
