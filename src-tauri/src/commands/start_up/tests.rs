//! The start-up page's commands and the gate, through Tauri's mock runtime with no ledger
//! managed: a database a newer Dossier wrote, then "Open read-only"; a command that needs the
//! ledger answered with a typed error, never Tauri's "state not managed".

use crate::shell;
use crate::start_up_problem::StartUp;
use dossier_core::models::config::Locations;
use dossier_core::{Ledger, LedgerOptions};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY,
};
use tauri::webview::InvokeRequest;
use tauri::{Manager, WebviewWindow, WebviewWindowBuilder};

struct Refused {
    _folder: tempfile::TempDir,
    data: PathBuf,
    app: tauri::App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
}

fn options_at(folder: &Path) -> LedgerOptions {
    LedgerOptions::at(Locations::from_values(
        Some(folder.join("data")),
        Some(folder.join("dossier.json")),
    ))
}

/// A ledger with one session titled `title`, then `mark` run on it, closed.
fn prepared_ledger(folder: &Path, title: &str, mark: &[&str]) {
    tauri::async_runtime::block_on(async {
        let ledger = dossier_core::start_up::open(options_at(folder))
            .await
            .expect("ledger opens");
        ledger
            .sessions()
            .create(dossier_core::wire::session::CreateSession {
                title: Some(title.into()),
                ..Default::default()
            })
            .await
            .expect("session");
        for statement in mark {
            sqlx::query(statement)
                .execute(ledger.pool().sqlite().expect("a SQLite ledger"))
                .await
                .expect(statement);
        }
        ledger.close().await;
    });
}

const FROM_THE_FUTURE: [&str; 2] = [
    "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
     VALUES (9999, 'from the future', TRUE, x'00', 0)",
    "INSERT INTO migration_app_version (version, app_version) VALUES (9999, '9.9.0')",
];

/// The app as `run` builds it when the ledger was refused: no ledger managed, the problem kept.
fn refused(mark: &[&str]) -> Refused {
    let folder = tempfile::tempdir().expect("temp dir");
    prepared_ledger(folder.path(), "Kept from the future", mark);
    let root = folder.path().to_path_buf();
    let error = tauri::async_runtime::block_on(dossier_core::start_up::open(options_at(&root)))
        .err()
        .expect("the ledger is refused");
    let app = shell(mock_builder(), false)
        .manage(StartUp::refused(
            &error,
            Box::new(move || options_at(&root)),
        ))
        .build(mock_context(noop_assets()))
        .expect("app builds");
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .expect("window builds");
    Refused {
        data: folder.path().join("data"),
        _folder: folder,
        app,
        window,
    }
}

impl Refused {
    fn invoke(&self, command: &str, body: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: command.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("url"),
            body: InvokeBody::Json(body),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(&self.window, request)
            .map(|response| response.deserialize::<Value>().expect("response is JSON"))
    }
}

fn database_bytes(data: &Path) -> Vec<u8> {
    std::fs::read(data.join("dossier.db")).expect("database")
}

#[test]
fn a_newer_database_shows_the_page_then_opens_read_only() {
    let refused = refused(&FROM_THE_FUTURE);
    let before = database_bytes(&refused.data);

    let state = refused.invoke("start_up_state", json!({})).expect("state");
    assert_eq!(state["problem"]["kind"], "newerDatabase", "{state}");
    assert_eq!(state["problem"]["madeBy"], "9.9.0");
    assert_eq!(
        state["problem"]["dataFolder"],
        refused.data.display().to_string()
    );
    let message = state["problem"]["message"].as_str().expect("message");
    assert!(message.contains("Dossier 9.9.0"), "{message}");
    assert_eq!(state["readOnly"], Value::Null);

    // A command that needs the ledger is refused with a typed error, not a missing state.
    let refusal = refused
        .invoke("list_sessions", json!({"body": {"roots": true}}))
        .expect_err("no ledger yet");
    assert_eq!(refusal["kind"], "unavailable", "{refusal}");
    assert!(
        refusal["message"]
            .as_str()
            .is_some_and(|text| text.starts_with("Dossier has not opened your saved sessions")),
        "{refusal}"
    );

    let opened = refused.invoke("open_read_only", json!({})).expect("opens");
    assert_eq!(opened["madeBy"], "9.9.0");
    assert!(refused.app.try_state::<Ledger>().is_some());
    let state = refused.invoke("start_up_state", json!({})).expect("state");
    assert_eq!(state["problem"], Value::Null);
    assert_eq!(state["readOnly"]["madeBy"], "9.9.0");

    let sessions = refused
        .invoke("list_sessions", json!({"body": {"roots": true}}))
        .expect("sessions read");
    assert_eq!(sessions["sessions"][0]["title"], "Kept from the future");
    let write = refused
        .invoke("create_session", json!({"input": {}}))
        .expect_err("read-only");
    assert_eq!(write["kind"], "read_only", "{write}");

    // A second click changes nothing and says the same.
    let again = refused.invoke("open_read_only", json!({})).expect("again");
    assert_eq!(again["madeBy"], "9.9.0");

    tauri::async_runtime::block_on(refused.app.state::<Ledger>().close());
    assert!(
        database_bytes(&refused.data) == before,
        "the database file changed"
    );
}

#[test]
fn a_damaged_database_is_explained_but_not_opened_read_only() {
    let folder = tempfile::tempdir().expect("temp dir");
    let data = folder.path().join("data");
    std::fs::create_dir_all(&data).expect("data folder");
    std::fs::write(data.join("dossier.db"), vec![7_u8; 8192]).expect("noise");
    let root = folder.path().to_path_buf();
    let error = tauri::async_runtime::block_on(dossier_core::start_up::open(options_at(&root)))
        .err()
        .expect("refused");
    let app = shell(mock_builder(), false)
        .manage(StartUp::refused(
            &error,
            Box::new(move || options_at(&root)),
        ))
        .build(mock_context(noop_assets()))
        .expect("app builds");
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .expect("window builds");
    let refused = Refused {
        _folder: folder,
        data,
        app,
        window,
    };
    let state = refused.invoke("start_up_state", json!({})).expect("state");
    assert_eq!(state["problem"]["kind"], "damagedDatabase", "{state}");
    let refusal = refused
        .invoke("open_read_only", json!({}))
        .expect_err("not offered");
    assert_eq!(refusal["kind"], "conflict", "{refusal}");
    // Noise has no good backup to restore: the page's restore is refused, typed, too.
    assert_eq!(state["problem"]["safeCopy"], Value::Null, "{state}");
    let refusal = refused
        .invoke("restore_newest_backup", json!({}))
        .expect_err("no backup to restore");
    assert_eq!(refusal["kind"], "conflict", "{refusal}");
    assert!(refused.app.try_state::<Ledger>().is_none());
    for command in ["data_overview", "send_prompt", "search", "mcp_status"] {
        let refusal = refused.invoke(command, json!({})).expect_err(command);
        assert_eq!(refusal["kind"], "unavailable", "{command}: {refusal}");
    }
    assert_eq!(
        std::fs::read(refused.data.join("dossier.db")).expect("file"),
        vec![7_u8; 8192]
    );
}

/// Noise in every page but the first: SQLite reads the schema, the quick check fails.
fn damage(database: &Path) {
    let mut bytes = std::fs::read(database).expect("database");
    for page in bytes.chunks_mut(4096).skip(1) {
        let middle = page.len() / 2;
        for (offset, byte) in page[middle - 64..middle + 64].iter_mut().enumerate() {
            *byte = (offset * 37 % 251) as u8;
        }
        page[0] = 0x42;
    }
    std::fs::write(database, bytes).expect("damaged");
}

/// The app as `run` builds it after refusing a damaged ledger whose automatic backups hold one
/// session ("In the backup"); a second session was written after that backup.
fn refused_as_damaged() -> (Refused, Vec<u8>) {
    let folder = tempfile::tempdir().expect("temp dir");
    let root = folder.path().to_path_buf();
    tauri::async_runtime::block_on(async {
        let ledger = dossier_core::start_up::open(options_at(&root))
            .await
            .expect("ledger opens");
        for title in ["In the backup", "Written after the backup"] {
            ledger
                .sessions()
                .create(dossier_core::wire::session::CreateSession {
                    title: Some(title.into()),
                    ..Default::default()
                })
                .await
                .expect("session");
            if title == "In the backup" {
                std::fs::create_dir_all(root.join("data").join("backups")).expect("backups/");
                ledger
                    .data()
                    .back_up_to(
                        &root
                            .join("data")
                            .join("backups")
                            .join("dossier-20261201T120000.000Z-schema-1.db"),
                    )
                    .await
                    .expect("backup");
            }
        }
        // Every page in the file, none left in the log where the damage would not reach it.
        let (busy, _, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
            .fetch_one(ledger.pool().sqlite().expect("a SQLite ledger"))
            .await
            .expect("checkpoint");
        assert_eq!(busy, 0);
        ledger.close().await;
    });
    let database = root.join("data").join("dossier.db");
    damage(&database);
    let damaged = std::fs::read(&database).expect("damaged bytes");
    let error = tauri::async_runtime::block_on(dossier_core::start_up::open(options_at(&root)))
        .err()
        .expect("refused");
    let app = shell(mock_builder(), false)
        .manage(StartUp::refused(
            &error,
            Box::new(move || options_at(&root)),
        ))
        .build(mock_context(noop_assets()))
        .expect("app builds");
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .expect("window builds");
    let refused = Refused {
        data: folder.path().join("data"),
        _folder: folder,
        app,
        window,
    };
    (refused, damaged)
}

#[test]
fn a_damaged_database_is_restored_from_the_newest_good_backup_from_the_page() {
    let (refused, damaged) = refused_as_damaged();
    let state = refused.invoke("start_up_state", json!({})).expect("state");
    assert_eq!(state["problem"]["kind"], "damagedDatabase", "{state}");
    let safe_copy = state["problem"]["safeCopy"].as_str().expect("a safe copy");
    assert!(safe_copy.ends_with("dossier-20261201T120000.000Z-schema-1.db"));

    refused
        .invoke("restore_newest_backup", json!({}))
        .expect("restored");

    assert!(refused.app.try_state::<Ledger>().is_some());
    let state = refused.invoke("start_up_state", json!({})).expect("state");
    assert_eq!(state["problem"], Value::Null, "{state}");
    assert_eq!(state["readOnly"], Value::Null, "{state}");
    let sessions = refused
        .invoke("list_sessions", json!({"body": {"roots": true}}))
        .expect("sessions");
    let titles: Vec<&str> = sessions["sessions"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|session| session["title"].as_str())
        .collect();
    assert_eq!(titles, ["In the backup"], "{sessions}");
    // Writable, like any ledger that opened normally.
    refused
        .invoke("create_session", json!({"input": {}}))
        .expect("writable");
    // The damaged file is kept, whole, in damaged/.
    let damaged_folder = refused.data.join("damaged");
    let kept = std::fs::read_dir(&damaged_folder)
        .expect("damaged/")
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".db"))
        .any(|entry| std::fs::read(entry.path()).is_ok_and(|bytes| bytes == damaged));
    assert!(
        kept,
        "the damaged bytes are not in {}",
        damaged_folder.display()
    );

    // Nothing left to restore: a second click is refused, typed.
    let again = refused
        .invoke("restore_newest_backup", json!({}))
        .expect_err("already open");
    assert_eq!(again["kind"], "conflict", "{again}");
    tauri::async_runtime::block_on(refused.app.state::<Ledger>().close());
}

#[test]
fn the_restore_is_not_offered_without_a_good_backup_or_for_a_newer_database() {
    let newer = refused(&FROM_THE_FUTURE);
    let before = database_bytes(&newer.data);
    let refusal = newer
        .invoke("restore_newest_backup", json!({}))
        .expect_err("not offered");
    assert_eq!(refusal["kind"], "conflict", "{refusal}");
    assert!(
        refusal["message"]
            .as_str()
            .is_some_and(|text| text.starts_with("Restoring a backup from this page")),
        "{refusal}"
    );
    assert!(newer.app.try_state::<Ledger>().is_none());
    assert!(database_bytes(&newer.data) == before);
}
