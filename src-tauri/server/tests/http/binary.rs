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
        .args(["--hostname", "0.0.0.0", "--port", "0"])
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(message.contains("DOSSIER_SERVER_PASSWORD"), "{message}");
    assert!(message.contains("0.0.0.0"), "{message}");
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
