//! The update commands on Tauri's mock runtime against a real release server on 127.0.0.1: a
//! `latest.json` and a package signed with a throwaway key (`fixtures/`, made once with
//! `tauri signer generate` and `tauri signer sign --app-version 9.9.9`). The plugin does the real
//! HTTP and the real minisign check; only the install is not reached, because a test binary is
//! a copy "built from source", which must never overwrite itself.

use super::*;
use crate::updates::install_kind::InstallKind;
use dossier_core::models::config::Locations;
use dossier_core::LedgerOptions;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use tauri::ipc::{CallbackFn, InvokeBody, InvokeResponseBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindowBuilder;

const PACKAGE: &[u8] = include_bytes!("fixtures/package.bin");
const SIGNATURE: &str = include_str!("fixtures/package.bin.sig");
const PUBLIC_KEY: &str = include_str!("fixtures/updater-test.pub");

/// The updater's name for this system, as `latest.json` keys it (`linux-x86_64`, …).
fn platform() -> String {
    let os = if cfg!(target_os = "macos") {
        "darwin"
    } else if cfg!(windows) {
        "windows"
    } else {
        "linux"
    };
    format!("{os}-{}", std::env::consts::ARCH)
}

/// A release server: `/latest.json` offers 9.9.9 with its package at `package_path`, which is
/// the signed package or (`/tampered.bin`) the same bytes with one changed.
struct ReleaseServer {
    address: String,
}

impl ReleaseServer {
    fn start(package_path: &'static str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let address = format!("http://{}", listener.local_addr().expect("address"));
        let manifest = json!({
            "version": "9.9.9",
            "notes": "Faster search.\n\nSessions open where you left them.",
            "pub_date": "2026-11-30T12:00:00Z",
            "platforms": {
                platform(): {
                    "url": format!("{address}{package_path}"),
                    "signature": SIGNATURE.trim(),
                }
            }
        })
        .to_string();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(&stream);
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                // Headers until the blank line; the requests have no body.
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                    line.clear();
                }
                let path = request_line.split_whitespace().nth(1).unwrap_or("/");
                let body: Vec<u8> = match path {
                    "/latest.json" => manifest.clone().into_bytes(),
                    "/package.bin" => PACKAGE.to_vec(),
                    "/tampered.bin" => {
                        let mut bytes = PACKAGE.to_vec();
                        bytes[0] ^= 1;
                        bytes
                    }
                    _ => Vec::new(),
                };
                let status = if body.is_empty() {
                    "404 Not Found"
                } else {
                    "200 OK"
                };
                let mut stream = &stream;
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        Self { address }
    }
}

struct Harness {
    folder: tempfile::TempDir,
    app: tauri::App<MockRuntime>,
    window: tauri::WebviewWindow<MockRuntime>,
}

fn harness(endpoint: &str) -> Harness {
    harness_installed_as(endpoint, InstallKind::of_this_process())
}

/// As installed by `kind`: the start-up check runs only in an installed copy (nothing here
/// installs, so no test binary overwrites itself).
fn harness_installed_as(endpoint: &str, kind: InstallKind) -> Harness {
    let folder = tempfile::tempdir().expect("temp dir");
    let locations = Locations::from_values(
        Some(folder.path().join("data")),
        Some(folder.path().join("dossier.json")),
    );
    let ledger =
        tauri::async_runtime::block_on(dossier_core::start_up::open(LedgerOptions::at(locations)))
            .expect("ledger opens");
    let mut context = mock_context(noop_assets());
    context.config_mut().plugins.0.insert(
        "updater".into(),
        json!({
            "pubkey": PUBLIC_KEY.trim(),
            "endpoints": [endpoint],
            // Loopback HTTP in this test only; the shipped config has an https endpoint.
            "dangerousInsecureTransportProtocol": true,
        }),
    );
    let base = mock_builder().plugin(tauri_plugin_updater::Builder::new().build());
    let app = crate::builder(base, ledger, false)
        .build(context)
        .expect("app builds");
    app.manage(Updates::new(
        folder.path().join("config").join("updates.json"),
        kind,
    ));
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .expect("window builds");
    Harness {
        folder,
        app,
        window,
    }
}

impl Harness {
    /// Through the real IPC path, as the webview calls it.
    fn invoke(&self, command: &str, body: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: command.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("url"),
            body: InvokeBody::Json(body),
            headers: Default::default(),
            invoke_key: tauri::test::INVOKE_KEY.to_string(),
        };
        get_ipc_response(&self.window, request)
            .map(|response| response.deserialize::<Value>().expect("response is JSON"))
    }

    /// The download with a channel that records every progress message (a channel cannot be
    /// passed through the mock IPC, so this calls the command itself).
    fn download(&self) -> (Result<AvailableUpdate, ShellError>, Vec<DownloadProgress>) {
        let received = Arc::new(Mutex::new(Vec::new()));
        let sink = received.clone();
        let channel = Channel::new(move |body| {
            if let InvokeResponseBody::Json(text) = body {
                let progress: Value = serde_json::from_str(&text).expect("progress is JSON");
                sink.lock().expect("lock").push(DownloadProgress {
                    downloaded: progress["downloaded"].as_u64().expect("downloaded"),
                    total: progress["total"].as_u64(),
                });
            }
            Ok(())
        });
        let outcome =
            tauri::async_runtime::block_on(download_update(self.app.state::<Updates>(), channel));
        let progress = received.lock().expect("lock").clone();
        (outcome, progress)
    }
}

#[test]
fn a_check_finds_the_newer_version_with_its_notes_and_remembers_when_it_looked() {
    let server = ReleaseServer::start("/package.bin");
    let harness = harness(&format!("{}/latest.json", server.address));

    let before = harness.invoke("update_status", json!({})).expect("status");
    assert_eq!(before["currentVersion"], "0.1.0");
    assert_eq!(before["installKind"], "source");
    assert_eq!(before["automaticChecks"], true);
    assert_eq!(before["lastCheckedAt"], Value::Null);
    assert_eq!(before["available"], Value::Null);

    let found = harness
        .invoke("check_for_update", json!({}))
        .expect("check");
    assert_eq!(
        found,
        json!({
            "version": "9.9.9",
            "notes": "Faster search.\n\nSessions open where you left them.",
            "publishedAt": "2026-11-30T12:00:00Z",
        })
    );

    let after = harness.invoke("update_status", json!({})).expect("status");
    assert_eq!(after["available"]["version"], "9.9.9");
    assert_eq!(after["downloaded"], false);
    let checked_at = after["lastCheckedAt"].as_i64().expect("a check time");
    assert!((now_ms() - checked_at).abs() < 60_000, "{checked_at}");
    // Written to the config folder, so the next start does not check again today.
    let schedule = ScheduleFile::new(harness.folder.path().join("config/updates.json")).load();
    assert_eq!(schedule.last_checked_at, Some(checked_at));
    assert!(!schedule.is_due(now_ms()));
}

#[test]
fn a_signed_download_reports_progress_and_verifies_but_a_source_build_refuses_to_install_it() {
    let server = ReleaseServer::start("/package.bin");
    let harness = harness(&format!("{}/latest.json", server.address));
    assert_eq!(
        harness.invoke("download_update", json!({"onProgress": "__CHANNEL__:1"})),
        Err(json!({
            "kind": "conflict",
            "message": "There is no update to download: check for updates first"
        }))
    );
    harness
        .invoke("check_for_update", json!({}))
        .expect("check");

    let (outcome, progress) = harness.download();
    assert_eq!(outcome.expect("verified download").version, "9.9.9");
    let length = PACKAGE.len() as u64;
    assert_eq!(
        progress.last().map(|last| (last.downloaded, last.total)),
        Some((length, Some(length))),
        "{progress:?}"
    );
    let status = harness.invoke("update_status", json!({})).expect("status");
    assert_eq!(status["downloaded"], true);

    // A test binary is unbundled: installing would overwrite the running build.
    let refused = harness
        .invoke("restart_to_update", json!({"now": false}))
        .expect_err("refused");
    assert_eq!(refused["kind"], "unavailable");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|message| message.contains("built from source")),
        "{refused}"
    );
    // Still downloaded and offered: nothing changed.
    let status = harness.invoke("update_status", json!({})).expect("status");
    assert_eq!(status["available"]["version"], "9.9.9");
    assert_eq!(status["downloaded"], true);
}

#[test]
fn a_package_whose_signature_does_not_verify_is_refused_with_a_plain_message() {
    let server = ReleaseServer::start("/tampered.bin");
    let harness = harness(&format!("{}/latest.json", server.address));
    harness
        .invoke("check_for_update", json!({}))
        .expect("check");

    let (outcome, _) = harness.download();
    let error = outcome.expect_err("tampered package refused");
    assert!(
        matches!(error, ShellError::UpdateSignatureRejected { .. }),
        "{error:?}"
    );
    let body = serde_json::to_value(&error).expect("serialises");
    assert_eq!(body["kind"], "invalid");
    let message = body["message"].as_str().expect("message");
    assert!(
        message.starts_with(
            "The update was refused because its signature does not match Dossier's signing key"
        ),
        "{message}"
    );
    assert!(message.contains("Nothing was installed"), "{message}");
    // The refused bytes are not kept: there is nothing to install.
    let status = harness.invoke("update_status", json!({})).expect("status");
    assert_eq!(status["downloaded"], false);
    assert_eq!(status["available"]["version"], "9.9.9");
}

#[test]
fn an_unreachable_server_is_reported_as_unavailable_and_not_recorded_as_a_check() {
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("address")
        .port();
    let harness = harness(&format!("http://127.0.0.1:{port}/latest.json"));
    let error = harness
        .invoke("check_for_update", json!({}))
        .expect_err("unreachable");
    assert_eq!(error["kind"], "unavailable");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|message| message.starts_with("Could not reach the update server")),
        "{error}"
    );
    let status = harness.invoke("update_status", json!({})).expect("status");
    assert_eq!(status["lastCheckedAt"], Value::Null);
}

#[test]
fn automatic_checks_can_be_turned_off_and_stay_off() {
    let harness = harness("http://127.0.0.1:9/latest.json");
    let status = harness
        .invoke("set_automatic_update_checks", json!({"enabled": false}))
        .expect("saved");
    assert_eq!(status["automaticChecks"], false);
    let schedule = ScheduleFile::new(harness.folder.path().join("config/updates.json")).load();
    assert!(!schedule.automatic_checks);
    assert!(!schedule.is_due(now_ms()));
}

#[test]
fn a_restart_waits_for_streaming_replies_unless_told_to_go_now() {
    assert_eq!(restart_plan(0, false), RestartPlan::Now);
    assert_eq!(restart_plan(0, true), RestartPlan::Now);
    assert_eq!(
        restart_plan(2, false),
        RestartPlan::WhenRepliesFinish { streaming: 2 }
    );
    assert_eq!(restart_plan(2, true), RestartPlan::Now);
    assert_eq!(
        serde_json::to_value(restart_plan(1, false)).expect("serialises"),
        json!({"plan": "whenRepliesFinish", "streaming": 1})
    );
}

/// Counts the update announcements the window would receive.
fn announcements(harness: &Harness) -> Arc<Mutex<Vec<String>>> {
    use tauri::Listener;
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = heard.clone();
    harness
        .app
        .listen_any(UPDATE_AVAILABLE_EVENT, move |event| {
            sink.lock().expect("lock").push(event.payload().to_string());
        });
    heard
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("address")
        .port()
}

#[test]
fn the_start_up_check_is_silent_offline_and_tries_again_at_the_next_start() {
    let harness = harness_installed_as(
        &format!("http://127.0.0.1:{}/latest.json", free_port()),
        InstallKind::AppImage,
    );
    let heard = announcements(&harness);
    let outcome = tauri::async_runtime::block_on(automatic_check(harness.app.handle()));
    assert_eq!(outcome, AutomaticCheck::Unreachable);
    // Nothing reaches the window: no announcement, and no error for the person to dismiss.
    assert!(heard.lock().expect("lock").is_empty());
    let status = harness.invoke("update_status", json!({})).expect("status");
    assert_eq!(status["available"], Value::Null);
    assert_eq!(status["lastCheckedAt"], Value::Null);
    // Not counted as a check: the next start asks again.
    let schedule = ScheduleFile::new(harness.folder.path().join("config/updates.json")).load();
    assert!(schedule.is_due(now_ms()));
}

#[test]
fn the_start_up_check_announces_what_it_finds_once_a_day_and_never_when_turned_off() {
    let server = ReleaseServer::start("/package.bin");
    let endpoint = format!("{}/latest.json", server.address);

    let source = harness(&endpoint);
    assert_eq!(
        tauri::async_runtime::block_on(automatic_check(source.app.handle())),
        AutomaticCheck::NotDue,
        "a copy built from source never checks by itself"
    );

    let installed = harness_installed_as(&endpoint, InstallKind::AppImage);
    let heard = announcements(&installed);
    let outcome = tauri::async_runtime::block_on(automatic_check(installed.app.handle()));
    let AutomaticCheck::Found(found) = outcome else {
        panic!("expected the update, got {outcome:?}");
    };
    assert_eq!(found.version, "9.9.9");
    let payloads = heard.lock().expect("lock").clone();
    assert_eq!(payloads.len(), 1, "{payloads:?}");
    let announced: Value = serde_json::from_str(&payloads[0]).expect("payload is JSON");
    assert_eq!(announced["version"], "9.9.9");
    // Settings (or the sidebar's notice) opened later finds it in the status too.
    let status = installed
        .invoke("update_status", json!({}))
        .expect("status");
    assert_eq!(status["available"]["version"], "9.9.9");

    // The same day: not again.
    assert_eq!(
        tauri::async_runtime::block_on(automatic_check(installed.app.handle())),
        AutomaticCheck::NotDue
    );

    let turned_off = harness_installed_as(&endpoint, InstallKind::AppImage);
    turned_off
        .invoke("set_automatic_update_checks", json!({"enabled": false}))
        .expect("saved");
    let heard = announcements(&turned_off);
    assert_eq!(
        tauri::async_runtime::block_on(automatic_check(turned_off.app.handle())),
        AutomaticCheck::NotDue
    );
    assert!(heard.lock().expect("lock").is_empty());
    let status = turned_off
        .invoke("update_status", json!({}))
        .expect("status");
    assert_eq!(status["lastCheckedAt"], Value::Null);
}

#[test]
fn a_waiting_restart_goes_ahead_only_once_every_reply_has_finished() {
    use std::future::Future;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Waker};

    let (sender, receiver) = tokio::sync::broadcast::channel::<&str>(16);
    let streaming = AtomicUsize::new(2);
    let mut wait = Box::pin(until_idle(receiver, || streaming.load(Ordering::SeqCst)));
    let mut context = Context::from_waker(Waker::noop());
    let mut poll = || wait.as_mut().poll(&mut context).is_ready();

    assert!(!poll(), "two replies are streaming");
    streaming.store(1, Ordering::SeqCst);
    sender.send("session.idle").expect("sent");
    assert!(!poll(), "one reply is still streaming");
    streaming.store(0, Ordering::SeqCst);
    sender.send("session.idle").expect("sent");
    assert!(poll(), "every session is idle");

    // With nothing streaming it does not wait at all; a closed ledger leaves nothing to wait for.
    let (_sender, receiver) = tokio::sync::broadcast::channel::<&str>(1);
    assert!(Box::pin(until_idle(receiver, || 0))
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
        .is_ready());
    let (sender, receiver) = tokio::sync::broadcast::channel::<&str>(1);
    drop(sender);
    assert!(Box::pin(until_idle(receiver, || 3))
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
        .is_ready());
}
