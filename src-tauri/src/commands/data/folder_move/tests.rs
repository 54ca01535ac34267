//! "Move data folder…" through the mock runtime: the overview says where the folder is and
//! whether it can move, a move through the same function the dialog command calls lands where
//! the next start finds it, the old copy is removed only through its own command, and refusals
//! cross as `{kind, message}`.

use super::*;
use crate::commands::tests::{harness, harness_with};
use dossier_core::store::data_folder::data_location;
use dossier_core::LedgerOptions;
use serde_json::json;
use tauri::Manager;

/// Options as `LedgerOptions::from_env` makes them, on a system whose folders are under `root`.
fn system_options(root: &Path) -> LedgerOptions {
    let (data_dir, settings) = data_location::resolve(
        None,
        &root.join("config").join(data_location::POINTER_FILE),
        &root.join("default"),
        &root.join("former"),
    );
    let mut options = LedgerOptions::at(dossier_core::models::config::Locations::from_values(
        Some(data_dir),
        Some(root.join("dossier.json")),
    ));
    options.data_folder = settings;
    options
}

#[test]
fn a_folder_named_by_the_variable_is_shown_as_fixed_and_a_move_is_refused_as_a_conflict() {
    let harness = harness(false);
    let overview = harness.ok("data_overview", json!({}));
    assert_eq!(overview["location"]["source"], "environment");
    assert_eq!(overview["location"]["movable"], false);
    assert_eq!(overview["location"]["previousFolder"], json!(null));
    let ledger = harness.app.state::<Ledger>().inner().clone();
    let target = tempfile::tempdir().expect("temp dir");
    let error = tauri::async_runtime::block_on(move_to(&ledger, &target.path().join("moved")))
        .expect_err("refused");
    let body = serde_json::to_value(&error).expect("serialises");
    assert_eq!(body["kind"], "conflict");
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|message| message.contains("DOSSIER_DATA_DIR")),
        "{body}"
    );
}

#[test]
fn a_move_is_found_at_the_next_start_and_the_old_copy_goes_only_when_asked() {
    let root = tempfile::tempdir().expect("temp dir");
    let ledger =
        tauri::async_runtime::block_on(dossier_core::start_up::open(system_options(root.path())))
            .expect("ledger opens");
    let harness = harness_with(
        tempfile::tempdir().expect("temp dir"),
        ledger.clone(),
        false,
    );
    let kept = harness.new_session();
    let overview = harness.ok("data_overview", json!({}));
    assert_eq!(overview["location"]["source"], "default");
    assert_eq!(overview["location"]["movable"], true);

    // A folder inside the one in use: refused with its kind, nothing moved.
    let inside = root.path().join("default").join("inner");
    let error = tauri::async_runtime::block_on(move_to(&ledger, &inside)).expect_err("refused");
    assert_eq!(error.body().kind, dossier_core::ErrorKind::Invalid);
    assert!(error.to_string().contains("inside"), "{error}");

    let target = root.path().join("elsewhere");
    let outcome = tauri::async_runtime::block_on(move_to(&ledger, &target)).expect("moved");
    assert_eq!(
        outcome,
        FolderMoveOutcome::Moved {
            folder: target.display().to_string(),
            previous_folder: root.path().join("default").display().to_string(),
            sessions: 1,
        }
    );
    drop(harness);

    // The restarted app: the new folder, the session, and the question about the old copy.
    let reopened =
        tauri::async_runtime::block_on(dossier_core::start_up::open(system_options(root.path())))
            .expect("the moved ledger opens");
    let harness = harness_with(tempfile::tempdir().expect("temp dir"), reopened, false);
    let overview = harness.ok("data_overview", json!({}));
    assert_eq!(overview["dataFolder"], json!(target.display().to_string()));
    assert_eq!(overview["location"]["source"], "moved");
    assert_eq!(
        overview["location"]["previousFolder"],
        json!(root.path().join("default").display().to_string())
    );
    let listed = harness.ok("list_sessions", json!({"body": {"roots": true}}));
    assert_eq!(listed["sessions"][0]["id"], json!(kept));
    let removed = harness.ok("remove_previous_data_folder", json!({}));
    assert!(removed["removed"]
        .as_array()
        .expect("a list")
        .contains(&json!("dossier.db")));
    assert!(!root.path().join("default").join("dossier.db").exists());
    let overview = harness.ok("data_overview", json!({}));
    assert_eq!(overview["location"]["previousFolder"], json!(null));
    let error = harness
        .invoke("remove_previous_data_folder", json!({}))
        .expect_err("nothing left to remove");
    assert_eq!(error["kind"], "conflict");
    harness.ok("keep_previous_data_folder", json!({}));
}
