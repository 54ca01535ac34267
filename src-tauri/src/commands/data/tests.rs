//! Settings → Data through the mock runtime: the overview over real IPC, a backup written and
//! then chosen and restored through the same functions the dialog commands call, and each
//! refusal crossing as `{kind, message}`.

use super::*;
use crate::commands::tests::harness;
use serde_json::json;
use tauri::Manager;

#[test]
fn the_overview_names_the_data_folder_and_lists_no_backups_of_a_new_ledger() {
    let harness = harness(false);
    let overview = harness.ok("data_overview", json!({}));
    let folder = overview["dataFolder"].as_str().expect("a folder");
    assert!(folder.ends_with("data"), "{folder}");
    assert_eq!(overview["backups"], json!([]));
    assert_eq!(overview["restoreWaiting"], json!(false));
}

#[test]
fn confirming_a_restore_with_no_backup_chosen_is_refused_as_a_conflict() {
    let harness = harness(false);
    let error = harness
        .invoke("restore_chosen_backup", json!({}))
        .expect_err("nothing was chosen");
    assert_eq!(error["kind"], "conflict");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|message| message.contains("Choose a backup")),
        "{error}"
    );
}

#[test]
fn a_backup_made_now_can_be_chosen_and_restored_and_the_old_ledger_is_listed() {
    let harness = harness(false);
    let kept = harness.new_session();
    let ledger = harness.app.state::<Ledger>().inner().clone();
    let chosen = ChosenBackup::default();
    let target = std::path::Path::new(
        &harness.ok("data_overview", json!({}))["dataFolder"]
            .as_str()
            .expect("a folder")
            .to_string(),
    )
    .parent()
    .expect("a parent")
    .join("by-hand.db");
    tauri::async_runtime::block_on(async {
        let saved = back_up_to(&ledger, &target).await.expect("backed up");
        assert_eq!(
            saved,
            BackupOutcome::Saved {
                path: target.display().to_string()
            }
        );
    });
    // Written after the backup: the restore takes it away again.
    harness.new_session();
    tauri::async_runtime::block_on(async {
        let choice = check_chosen(&ledger, &chosen, target.clone())
            .await
            .expect("a whole backup");
        assert_eq!(
            choice,
            ChosenRestore::Chosen {
                path: target.display().to_string(),
                sessions: 1
            }
        );
        restore_chosen(&ledger, &chosen).await.expect("restored");
    });
    // The ledger in use was backed up first: it is listed, with its size.
    let overview = harness.ok("data_overview", json!({}));
    let backups = overview["backups"].as_array().expect("a list");
    assert_eq!(backups.len(), 1, "{overview}");
    assert!(backups[0]["bytes"].as_u64().is_some_and(|bytes| bytes > 0));
    assert!(backups[0]["modified"].as_i64().is_some_and(|time| time > 0));
    // Staged, not in place until the ledger opens again with the folder to itself.
    assert_eq!(overview["restoreWaiting"], json!(true), "{overview}");
    // The restore takes effect when the ledger opens again (the app restarts to do that); the
    // closed ledger let go of the folder, so it can open again at once.
    let data_folder = std::path::PathBuf::from(overview["dataFolder"].as_str().expect("folder"));
    let config = data_folder.parent().expect("a parent").join("dossier.json");
    let reopened = tauri::async_runtime::block_on(dossier_core::start_up::open(
        dossier_core::LedgerOptions::at(dossier_core::models::config::Locations::from_values(
            Some(data_folder),
            Some(config),
        )),
    ))
    .expect("the restored ledger opens");
    let sessions = tauri::async_runtime::block_on(reopened.sessions().list(&Default::default()))
        .expect("sessions");
    let ids: Vec<&str> = sessions
        .sessions
        .iter()
        .map(|session| session.id.as_str())
        .collect();
    assert_eq!(ids, [kept.as_str()]);
}

#[test]
fn a_file_that_is_not_a_backup_is_refused_with_its_kind_and_nothing_is_remembered() {
    let harness = harness(false);
    let ledger = harness.app.state::<Ledger>().inner().clone();
    let chosen = ChosenBackup::default();
    let folder = tempfile::tempdir().expect("temp dir");
    let random = folder.path().join("random.db");
    std::fs::write(&random, b"not a database, just words in a file").expect("write");
    let error = tauri::async_runtime::block_on(check_chosen(&ledger, &chosen, random))
        .expect_err("refused");
    assert_eq!(error.body().kind, dossier_core::ErrorKind::Invalid);
    assert!(
        error.to_string().contains("not a database file at all"),
        "{error}"
    );
    let confirmed = tauri::async_runtime::block_on(restore_chosen(&ledger, &chosen));
    assert!(matches!(confirmed, Err(ShellError::NoBackupChosen)));
}

#[test]
fn the_suggested_backup_name_carries_the_day() {
    let day = time::Date::from_calendar_date(2026, time::Month::December, 1).expect("a date");
    assert_eq!(backup_file_name(day), "dossier-backup-2026-12-01.db");
}
