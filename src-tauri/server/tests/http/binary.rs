//! The real `dossier-server` executable: the one listening line on port 0, serving, SIGTERM
//! (Unix; Windows has no SIGTERM to send, so there the test kills it), refusing a non-loopback
//! address without a password, and the allowed hosts and origins it reads from flags and the
//! environment.

use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

fn server_command(data: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dossier-server"));
    command
        .env("DOSSIER_DATA_DIR", data.join("data"))
        .env("DOSSIER_CONFIG", data.join("dossier.json"))
        .env_remove("DOSSIER_SERVER_PASSWORD")
        .env_remove("DOSSIER_ALLOWED_HOSTS")
        .env_remove("DOSSIER_ALLOWED_ORIGINS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Starts the binary on port 0 and returns it with the base URL from its one line.
async fn start(data: &std::path::Path) -> (Child, String) {
    start_with(data, &[], &[]).await
}

/// The same with more flags and environment variables (also used by the MCP tests).
pub(super) async fn start_with(
    data: &std::path::Path,
    arguments: &[&str],
    variables: &[(&str, &str)],
) -> (Child, String) {
    let mut child = server_command(data)
        .args(["--hostname", "127.0.0.1", "--port", "0"])
        .args(arguments)
        .envs(variables.iter().copied())
        .spawn()
        .unwrap();
    let stdout = child.stdout.as_mut().unwrap();
    let mut line = String::new();
    let mut reader = BufReader::new(stdout);
    tokio::time::timeout(Duration::from_secs(30), reader.read_line(&mut line))
        .await
        .expect("no listening line within 30 s")
        .unwrap();
    let base = line
        .trim_end()
        .strip_prefix("dossier server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    assert_ne!(base, "http://127.0.0.1:0");
    (child, base)
}

/// Stops the server as a service manager does: SIGTERM, which it answers by closing cleanly.
#[cfg(unix)]
async fn terminate(child: &mut Child) -> std::process::ExitStatus {
    let pid = child.id().unwrap().to_string();
    let status = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .await
        .unwrap();
    assert!(status.success());
    tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("server did not stop within 10 s of SIGTERM")
        .unwrap()
}

/// Ends a server the test is done with: on Unix by SIGTERM, and it must close cleanly; on Windows
/// (no SIGTERM, and Ctrl-C cannot reach a child without a console of its own) it is killed.
async fn stop(child: &mut Child) {
    #[cfg(unix)]
    {
        let status = terminate(child).await;
        assert!(status.success(), "{status:?}");
    }
    #[cfg(not(unix))]
    child.kill().await.unwrap();
}

#[tokio::test]
async fn port_zero_prints_one_line_serves_and_stops_cleanly_on_sigterm() {
    let data = tempfile::tempdir().unwrap();
    let (mut child, base) = start(data.path()).await;
    let client = crate::http::support::http_client();
    let created: serde_json::Value = client
        .post(format!("{base}/session"))
        .json(&serde_json::json!({"title": "Survives a restart"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    stop(&mut child).await;
    let mut rest = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut rest)
        .await
        .unwrap();
    assert_eq!(rest, "", "only one line is printed");

    let (mut again, base) = start(data.path()).await;
    let fetched: serde_json::Value = client
        .get(format!(
            "{base}/session/{}",
            created["id"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(fetched["title"], "Survives a restart");
    stop(&mut again).await;
}

#[tokio::test]
async fn a_non_loopback_hostname_without_a_password_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let output = server_command(data.path())
        .args(["--hostname", "0.0.0.0", "--port", "0", "--behind-proxy"])
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(message.contains("DOSSIER_SERVER_PASSWORD"), "{message}");
    assert!(message.contains("token create"), "{message}");
    assert!(message.contains("0.0.0.0"), "{message}");
}

/// A person starting the server on a database it cannot reach reads why on its error output,
/// without the password, and the exit status says it failed (1, not 2: no argument was wrong),
/// on loopback and beyond it (where the tokens are read before listening).
#[tokio::test]
async fn an_unreachable_database_stops_start_up_with_the_reason_and_a_failure_status() {
    let data = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let database = format!("postgres://dossier:secret-word@127.0.0.1:{port}/dossier");
    for hostname in ["127.0.0.1", "0.0.0.0"] {
        let output = server_command(data.path())
            .args(["--hostname", hostname, "--port", "0", "--behind-proxy"])
            .args(["--database", &database])
            .output()
            .await
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{hostname}");
        assert!(output.stdout.is_empty(), "{hostname}");
        let message = String::from_utf8(output.stderr).unwrap();
        assert!(
            message.contains(&format!(
                "dossier-server: Dossier could not connect to its database \
                 postgres://dossier@127.0.0.1:{port}/dossier: the connection to \
                 127.0.0.1:{port} was refused"
            )),
            "{hostname}: {message}"
        );
        assert!(
            message.contains("Nothing was opened or changed"),
            "{message}"
        );
        assert!(!message.contains("secret-word"), "{message}");
    }
}

#[tokio::test]
async fn a_non_loopback_hostname_over_plain_http_is_refused_even_with_a_password() {
    let data = tempfile::tempdir().unwrap();
    let output = server_command(data.path())
        .args(["--hostname", "0.0.0.0", "--port", "0"])
        .env("DOSSIER_SERVER_PASSWORD", "hunter2")
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(message.contains("plain HTTP on \"0.0.0.0\""), "{message}");
    assert!(message.contains("--tls-cert"), "{message}");
    assert!(message.contains("--behind-proxy"), "{message}");
}

#[tokio::test]
async fn with_tls_files_the_binary_serves_https_and_says_so() {
    let data = tempfile::tempdir().unwrap();
    let made = super::tls::made_certificate();
    let certificate = made.files.certificate.display().to_string();
    let key = made.files.key.display().to_string();
    let mut child = server_command(data.path())
        .args(["--hostname", "127.0.0.1", "--port", "0"])
        .args(["--tls-cert", &certificate, "--tls-key", &key])
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut reader = BufReader::new(child.stdout.as_mut().unwrap());
    tokio::time::timeout(Duration::from_secs(30), reader.read_line(&mut line))
        .await
        .expect("no listening line within 30 s")
        .unwrap();
    let base = line
        .trim_end()
        .strip_prefix("dossier server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    assert!(base.starts_with("https://127.0.0.1:"), "{base}");
    let health = super::tls::trusting_client(&made.pem)
        .get(format!("{base}/global/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    stop(&mut child).await;
}

#[tokio::test]
async fn a_bad_tls_file_is_named_at_start_up_before_listening() {
    let data = tempfile::tempdir().unwrap();
    let made = super::tls::made_certificate();
    let not_a_key = made.folder.path().join("not-a-key.pem");
    std::fs::write(&not_a_key, "hello").unwrap();
    let certificate = made.files.certificate.display().to_string();
    for (key, expected) in [
        (not_a_key.display().to_string(), "no PEM private key"),
        (
            made.folder.path().join("absent.pem").display().to_string(),
            "cannot read it",
        ),
    ] {
        let output = server_command(data.path())
            .args(["--hostname", "127.0.0.1", "--port", "0"])
            .args(["--tls-cert", &certificate, "--tls-key", &key])
            .output()
            .await
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        assert!(output.stdout.is_empty(), "it said it was listening");
        let message = String::from_utf8(output.stderr).unwrap();
        assert!(message.contains(&key), "{message}");
        assert!(message.contains("--tls-key"), "{message}");
        assert!(message.contains(expected), "{message}");
        assert!(!message.contains("panicked"), "{message}");
    }
}

#[tokio::test]
async fn allowed_hosts_and_origins_come_from_flags_and_the_environment() {
    let data = tempfile::tempdir().unwrap();
    let (mut child, base) = start_with(
        data.path(),
        &["--allowed-host", "box.lan"],
        &[("DOSSIER_ALLOWED_ORIGINS", "https://ui.example.org")],
    )
    .await;
    let client = crate::http::support::http_client();
    let status_with = |headers: &'static [(&'static str, &'static str)], write: bool| {
        let mut request = if write {
            client
                .post(format!("{base}/session"))
                .header("content-type", "application/json")
                .body("{}")
        } else {
            client.get(format!("{base}/session"))
        };
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        async move { request.send().await.unwrap().status().as_u16() }
    };
    assert_eq!(status_with(&[("host", "box.lan")], false).await, 200);
    assert_eq!(status_with(&[("host", "other.lan")], false).await, 421);
    assert_eq!(
        status_with(&[("origin", "https://ui.example.org")], true).await,
        200
    );
    assert_eq!(
        status_with(&[("origin", "https://evil.example")], true).await,
        403
    );
    stop(&mut child).await;
}

#[tokio::test]
async fn a_malformed_allowed_origin_stops_start_up_with_the_reason() {
    let data = tempfile::tempdir().unwrap();
    let output = server_command(data.path())
        .args(["--port", "0", "--allowed-origin", "null"])
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(message.contains("--allowed-origin"), "{message}");
    assert!(message.contains("\"null\" is not an origin"), "{message}");
}

async fn token_command(data: &std::path::Path, words: &[&str]) -> (i32, String, String) {
    let output = server_command(data)
        .arg("token")
        .args(words)
        .output()
        .await
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Every file under `folder`, recursively, that `keep` accepts.
fn files_under(
    folder: &std::path::Path,
    keep: impl Fn(&std::path::Path) -> bool,
) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if keep(&path) {
                found.push(path);
            }
        }
    }
    found
}

/// Every file under `folder`, recursively, named `name`.
fn files_named(folder: &std::path::Path, name: &str) -> Vec<std::path::PathBuf> {
    files_under(folder, |path| {
        path.file_name().is_some_and(|found| found == name)
    })
}

/// Every file under `folder`, recursively, that holds `needle`.
fn files_holding(folder: &std::path::Path, needle: &str) -> Vec<std::path::PathBuf> {
    files_under(folder, |path| {
        std::fs::read(path)
            .unwrap()
            .windows(needle.len())
            .any(|window| window == needle.as_bytes())
    })
}

/// Whether any token exists is remembered between requests (`access_token_presence`), yet a
/// token made by another process while the server runs counts from the very next request, and
/// so does the last one revoked.
#[tokio::test]
async fn tokens_made_and_revoked_by_another_process_count_from_the_next_request() {
    let data = tempfile::tempdir().unwrap();
    let (mut child, base) = start_with(data.path(), &[], &[]).await;
    let client = crate::http::support::http_client();
    let bare = || async {
        client
            .get(format!("{base}/session"))
            .send()
            .await
            .unwrap()
            .status()
    };
    // Read from the table once, then answered from memory.
    assert_eq!(bare().await, 200);
    assert_eq!(bare().await, 200);

    let (code, token, stderr) = token_command(data.path(), &["create", "alice"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(bare().await, 401, "the new token was not noticed");
    let with_token = client
        .get(format!("{base}/session"))
        .bearer_auth(token.trim_end())
        .send()
        .await
        .unwrap();
    assert_eq!(with_token.status(), 200);

    // The marker as if touched long ago (settled): "a token exists" is remembered now.
    let marker = files_named(data.path(), "access-tokens.changed")
        .pop()
        .expect("the token command left a marker beside the ledger");
    std::fs::File::options()
        .write(true)
        .open(&marker)
        .and_then(|file| file.set_modified(std::time::SystemTime::now() - Duration::from_secs(60)))
        .unwrap();
    assert_eq!(bare().await, 401);
    assert_eq!(bare().await, 401);
    let (code, _, stderr) = token_command(data.path(), &["revoke", "alice"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(bare().await, 200, "the revocation was not noticed");
    stop(&mut child).await;
}

#[tokio::test]
async fn token_help_prints_the_usage_and_succeeds_without_making_a_ledger() {
    let data = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = token_command(data.path(), &["--help"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("token create NAME"), "{stdout}");
    assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 0);
    let (code, _, stderr) = token_command(data.path(), &[]).await;
    assert_eq!(code, 2, "a missing subcommand is still a usage error");
    assert!(stderr.contains("token create NAME"), "{stderr}");
}

#[tokio::test]
async fn token_commands_make_list_and_revoke_and_no_token_is_logged_or_stored() {
    let data = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = token_command(data.path(), &["create", "alice"]).await;
    assert_eq!(code, 0, "{stderr}");
    let token = stdout.trim_end().to_string();
    assert_eq!(stdout, format!("{token}\n"), "only the token is printed");
    assert!(token.starts_with("dossier_"), "{token}");
    assert!(stderr.contains("shown only this once"), "{stderr}");
    assert!(!stderr.contains(&token));
    let (code, _, stderr) = token_command(data.path(), &["create", "alice"]).await;
    assert_eq!(code, 1);
    assert!(stderr.contains("already exists"), "{stderr}");
    let (code, ci_token, _) = token_command(data.path(), &["create", "ci"]).await;
    assert_eq!(code, 0);
    let ci_token = ci_token.trim_end().to_string();
    let (code, listing, _) = token_command(data.path(), &["list"]).await;
    assert_eq!(code, 0);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len(), 3, "{listing}");
    assert!(lines[0].starts_with("NAME"), "{listing}");
    assert!(
        lines[1].starts_with("alice ") && lines[1].ends_with("never"),
        "{listing}"
    );
    assert!(
        lines[2].starts_with("ci ") && lines[2].ends_with("never"),
        "{listing}"
    );
    assert!(!listing.contains("dossier_"), "{listing}");

    let (mut child, base) = start_with(data.path(), &[], &[]).await;
    let client = crate::http::support::http_client();
    let bare = client.get(format!("{base}/session")).send().await.unwrap();
    assert_eq!(bare.status(), 401);
    let created: serde_json::Value = client
        .post(format!("{base}/session"))
        .bearer_auth(&token)
        .json(&serde_json::json!({"title": "Alice's"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(created["dossierCreatedByToken"], "alice");
    let id = created["id"].as_str().unwrap();
    let export = client
        .get(format!("{base}/session/{id}/export"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(export.status(), 200);
    assert!(!export.text().await.unwrap().contains(&token));
    // Refused requests that carry the token are logged; the token is not.
    let foreign = client
        .get(format!("{base}/session"))
        .bearer_auth(&token)
        .header("origin", "https://elsewhere.example")
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);

    let (_, listing, _) = token_command(data.path(), &["list"]).await;
    let alice = listing
        .lines()
        .find(|line| line.starts_with("alice "))
        .unwrap();
    assert!(!alice.ends_with("never"), "use not recorded: {listing}");

    // Revoked while the server runs: its next request is refused; the other token still works.
    let (code, _, stderr) = token_command(data.path(), &["revoke", "alice"]).await;
    assert_eq!(code, 0, "{stderr}");
    let refused = client
        .get(format!("{base}/session"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let other = client
        .get(format!("{base}/session"))
        .bearer_auth(&ci_token)
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 200);
    let (code, _, stderr) = token_command(data.path(), &["revoke", "alice"]).await;
    assert_eq!(code, 1);
    assert!(
        stderr.contains("No access token is named \"alice\""),
        "{stderr}"
    );
    let (code, _, stderr) = token_command(data.path(), &["remove", "ci"]).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("token create NAME"), "{stderr}");

    stop(&mut child).await;
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .await
        .unwrap();
    assert!(
        log.contains("refused a request"),
        "the log is not being read: {log}"
    );
    for secret in [&token, &ci_token] {
        assert!(
            !log.contains(secret.as_str()),
            "a token is in the log: {log}"
        );
        let bare = secret.trim_start_matches("dossier_");
        assert_eq!(
            files_holding(data.path(), bare),
            Vec::<std::path::PathBuf>::new()
        );
    }
}

/// `--models-dir`: the folder's GGUF files are served as provider `local` in OpenCode's
/// `config.providers` shape, first and the default; with the real test model
/// (`scripts/test-model.sh`, `DOSSIER_TEST_MODEL`) a prompt is answered by it through the worker
/// that sits beside the server binary.
#[tokio::test]
async fn models_dir_serves_the_local_models() {
    let data = tempfile::tempdir().unwrap();
    let models = data.path().join("models-elsewhere");
    std::fs::create_dir_all(&models).unwrap();
    let model = std::env::var_os("DOSSIER_TEST_MODEL").map(std::path::PathBuf::from);
    let model_id = match &model {
        Some(path) => {
            #[cfg(unix)]
            std::os::unix::fs::symlink(path, models.join("smollm2.gguf")).unwrap();
            #[cfg(not(unix))]
            std::fs::copy(path, models.join("smollm2.gguf")).unwrap();
            "smollm2"
        }
        None => {
            eprintln!(
                "answer skipped: DOSSIER_TEST_MODEL is not set (scripts/test-model.sh sets it)"
            );
            std::fs::write(models.join("listed-only.gguf"), b"GGUF").unwrap();
            "listed-only"
        }
    };
    let (mut child, base) = start_with(
        data.path(),
        &["--models-dir", models.to_str().unwrap()],
        &[],
    )
    .await;
    let client = crate::http::support::http_client();
    let providers: serde_json::Value = client
        .get(format!("{base}/config/providers"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(providers["providers"][0]["id"], "local");
    assert_eq!(providers["providers"][0]["name"], "On this computer");
    assert_eq!(
        providers["providers"][0]["models"][model_id]["id"],
        model_id
    );
    assert_eq!(providers["default"]["local"], model_id);
    // SmolLM2's template takes no tools, so the listing says the model makes no tool calls.
    assert_eq!(
        providers["providers"][0]["models"][model_id]["capabilities"]["toolcall"],
        false
    );
    if model.is_some() {
        let session: serde_json::Value = client
            .post(format!("{base}/session"))
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let reply: serde_json::Value = client
            .post(format!(
                "{base}/session/{}/message",
                session["id"].as_str().unwrap()
            ))
            .json(&serde_json::json!({"parts": [{"type": "text", "text": "Say hello."}]}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(reply["info"]["providerID"], "local", "{reply}");
        assert!(reply["info"]["error"].is_null(), "{reply}");
        let text: String = reply["parts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|part| part["type"] == "text")
            .filter_map(|part| part["text"].as_str())
            .collect();
        assert!(!text.trim().is_empty(), "{reply}");
    }
    stop(&mut child).await;
}
