//! One data folder per system and "Move data folder…": a moved ledger opens from its new folder
//! at the next start with every session and attachment, the old copy is removed only when asked
//! and only Dossier's files; refusals change nothing; an earlier release's default folder is
//! adopted once, never with an empty ledger beside it, and two folders with sessions are refused.
//!
//! Each test has its own system: a temporary `default`, `former` default and pointer file, passed
//! to `data_location::resolve` the way `LedgerOptions::from_env` passes the real ones.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing unwrap is the test's report

use super::support::{self, file_url, no_reply, options};
use dossier_core::models::config::Locations;
use dossier_core::store::data_folder::data_location::{self, DataFolderSource};
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::session::CreateSession;
use dossier_core::{Ledger, LedgerError, LedgerOptions};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub fn pointer_of(root: &Path) -> PathBuf {
    root.join("config").join(data_location::POINTER_FILE)
}

/// The options `from_env` would make on a system whose folders are under `root`.
pub fn system_options(root: &Path) -> LedgerOptions {
    let (data_dir, settings) = data_location::resolve(
        None,
        &pointer_of(root),
        &root.join("default"),
        &root.join("former"),
    );
    let mut options = options(root, "{}");
    options.locations.data_dir = data_dir;
    options.data_folder = settings;
    options
}

/// A ledger at exactly `folder`, as an earlier release or `DOSSIER_DATA_DIR` would open it.
async fn named(root: &Path, folder: &Path) -> Ledger {
    let mut options = options(root, "{}");
    options.locations = Locations {
        data_dir: folder.to_path_buf(),
        config_path: root.join("config.json"),
    };
    dossier_core::start_up::open(options).await.unwrap()
}

pub async fn titles(ledger: &Ledger) -> BTreeSet<String> {
    ledger
        .sessions()
        .list(&SessionQuery {
            limit: Some(10_000),
            ..SessionQuery::default()
        })
        .await
        .unwrap()
        .sessions
        .into_iter()
        .map(|session| session.title)
        .collect()
}

pub async fn add_session(ledger: &Ledger, title: &str, picture: Option<&Path>) -> String {
    let session = ledger
        .sessions()
        .create(CreateSession {
            title: Some(title.into()),
            ..CreateSession::default()
        })
        .await
        .unwrap();
    let mut parts = vec![Draft::text(format!("notes for {title}"))];
    if let Some(picture) = picture {
        parts.push(Draft::file(
            file_url(picture),
            "image/png",
            Some("harbour.png"),
        ));
    }
    ledger
        .sessions()
        .prompt(&session.id, no_reply(parts))
        .await
        .unwrap();
    session.id
}

pub fn workspace() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("work")).unwrap();
    let picture = root.path().join("work").join("harbour.png");
    std::fs::write(&picture, support::png(120, 90)).unwrap();
    (root, picture)
}

const BACKUP_NAME: &str = "dossier-20261201T000000.000Z-schema-8.db";

#[tokio::test]
async fn a_moved_ledger_opens_from_its_new_folder_with_every_session_and_attachment() {
    let (root, picture) = workspace();
    let ledger = dossier_core::start_up::open(system_options(root.path()))
        .await
        .unwrap();
    assert_eq!(ledger.store().data_dir(), root.path().join("default"));
    let with_picture = add_session(&ledger, "harbour", Some(&picture)).await;
    add_session(&ledger, "plain", None).await;
    let original = ledger.reshaping().export_json(&with_picture).await.unwrap();
    let before = titles(&ledger).await;
    // An automatic backup travels with the ledger.
    let backups = root.path().join("default").join("backups");
    std::fs::create_dir_all(&backups).unwrap();
    std::fs::write(backups.join(BACKUP_NAME), b"an older copy").unwrap();

    let target = root.path().join("external").join("Dossier");
    let moved = ledger.data().move_data_folder(&target).await.unwrap();
    assert_eq!(moved.folder, target.display().to_string());
    assert_eq!(
        moved.previous_folder,
        root.path().join("default").display().to_string()
    );
    assert_eq!(moved.sessions, 2);
    // The moved ledger is closed: nothing more can land in the old copy.
    assert!(ledger
        .sessions()
        .create(CreateSession::default())
        .await
        .is_err());
    drop(ledger);

    // The next start reads the pointer: the new folder, every session, the picture's bytes.
    let reopened = dossier_core::start_up::open(system_options(root.path()))
        .await
        .unwrap();
    assert_eq!(reopened.store().data_dir(), target);
    assert_eq!(titles(&reopened).await, before);
    assert_eq!(
        reopened
            .reshaping()
            .export_json(&with_picture)
            .await
            .unwrap(),
        original
    );
    assert_eq!(
        std::fs::read(target.join("backups").join(BACKUP_NAME)).unwrap(),
        b"an older copy"
    );
    let folder = reopened.data().data_folder().unwrap();
    assert_eq!(folder.source, DataFolderSource::Moved);
    assert!(folder.movable);
    assert_eq!(
        folder.previous_folder.as_deref(),
        Some(root.path().join("default").to_str().unwrap())
    );
    let leftovers: Vec<String> = std::fs::read_dir(&target)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| name.contains(".mov"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // The old copy goes only when asked, and only Dossier's files: the person's note stays.
    std::fs::write(root.path().join("default").join("my-note.txt"), b"mine").unwrap();
    let removed = reopened.data().remove_previous_data_folder().unwrap();
    assert!(removed.removed.contains(&"dossier.db".to_string()));
    assert!(removed.removed.contains(&format!(
        "backups{}{BACKUP_NAME}",
        std::path::MAIN_SEPARATOR
    )));
    assert!(!root.path().join("default").join("dossier.db").exists());
    assert!(root.path().join("default").join("my-note.txt").exists());
    assert_eq!(reopened.data().data_folder().unwrap().previous_folder, None);
    assert!(matches!(
        reopened.data().remove_previous_data_folder(),
        Err(LedgerError::NoPreviousDataFolder)
    ));
    assert_eq!(titles(&reopened).await, before);
}

#[tokio::test]
async fn a_refused_move_changes_nothing_and_the_ledger_stays_open() {
    let (root, _) = workspace();
    let ledger = dossier_core::start_up::open(system_options(root.path()))
        .await
        .unwrap();
    add_session(&ledger, "kept", None).await;
    let inside = root.path().join("default").join("nested");
    let error = ledger.data().move_data_folder(&inside).await.unwrap_err();
    assert!(
        matches!(error, LedgerError::MoveIntoCurrentFolder { .. }),
        "{error}"
    );
    let busy = root.path().join("busy");
    std::fs::create_dir_all(&busy).unwrap();
    std::fs::write(busy.join("holiday.jpg"), b"mine").unwrap();
    let error = ledger.data().move_data_folder(&busy).await.unwrap_err();
    assert!(
        matches!(error, LedgerError::MoveTargetNotEmpty { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("holiday.jpg"), "{error}");
    assert!(!pointer_of(root.path()).exists());
    assert!(!inside.exists());
    assert_eq!(
        std::fs::read_dir(&busy).unwrap().count(),
        1,
        "nothing written beside the person's file"
    );
    add_session(&ledger, "after", None).await;
    assert_eq!(titles(&ledger).await.len(), 2);
}

#[tokio::test]
async fn a_folder_named_by_the_variable_is_not_moved() {
    let (root, _) = workspace();
    let ledger = named(root.path(), &root.path().join("named")).await;
    assert!(!ledger.data().data_folder().unwrap().movable);
    let error = ledger
        .data()
        .move_data_folder(&root.path().join("elsewhere"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, LedgerError::DataFolderSetByEnvironment { .. }),
        "{error}"
    );
    assert!(!root.path().join("elsewhere").exists());
}

#[tokio::test]
async fn a_move_is_refused_while_another_process_uses_the_folder() {
    let (root, _) = workspace();
    let ledger = dossier_core::start_up::open(system_options(root.path()))
        .await
        .unwrap();
    // A second opener on the same folder, as dossier-server would be.
    let server = named(root.path(), &root.path().join("default")).await;
    let error = ledger
        .data()
        .move_data_folder(&root.path().join("elsewhere"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, LedgerError::DataFolderInUse { .. }),
        "{error}"
    );
    assert!(!pointer_of(root.path()).exists());
    // Nothing made for it either.
    assert!(!root.path().join("elsewhere").exists());
    server.close().await;
    drop(server);
    // Alone again, it moves.
    ledger
        .data()
        .move_data_folder(&root.path().join("elsewhere"))
        .await
        .unwrap();
}

#[tokio::test]
async fn the_former_default_folder_is_adopted_once_with_a_backup_and_a_note() {
    let (root, picture) = workspace();
    let former = root.path().join("former");
    let old = named(root.path(), &former).await;
    let id = add_session(&old, "from last year", Some(&picture)).await;
    let original = old.reshaping().export_json(&id).await.unwrap();
    old.close().await;
    drop(old);

    let ledger = dossier_core::start_up::open(system_options(root.path()))
        .await
        .unwrap();
    assert_eq!(ledger.store().data_dir(), root.path().join("default"));
    assert_eq!(ledger.reshaping().export_json(&id).await.unwrap(), original);
    // Backed up first, in its own folder; left where it was, with a note saying where it went.
    assert_eq!(
        dossier_core::store::sqlite::upgrade_backup::list(&former.join("backups"))
            .unwrap()
            .len(),
        1
    );
    assert!(former.join("dossier.db").exists());
    let note = std::fs::read_to_string(former.join("SESSIONS-MOVED.txt")).unwrap();
    assert!(
        note.contains(root.path().join("default").to_str().unwrap()),
        "{note}"
    );
    add_session(&ledger, "this year", None).await;
    ledger.close().await;
    drop(ledger);
    // Not adopted a second time, and not counted as a second ledger.
    let again = dossier_core::start_up::open(system_options(root.path()))
        .await
        .unwrap();
    assert_eq!(
        titles(&again).await,
        BTreeSet::from(["from last year".to_string(), "this year".to_string()])
    );
}

#[tokio::test]
async fn an_empty_ledger_in_the_default_folder_gives_way_to_the_former_one() {
    let (root, _) = workspace();
    let empty = named(root.path(), &root.path().join("default")).await;
    empty.close().await;
    drop(empty);
    let old = named(root.path(), &root.path().join("former")).await;
    add_session(&old, "kept", None).await;
    old.close().await;
    drop(old);
    let ledger = dossier_core::start_up::open(system_options(root.path()))
        .await
        .unwrap();
    assert_eq!(titles(&ledger).await, BTreeSet::from(["kept".to_string()]));
}

#[tokio::test]
async fn sessions_in_both_folders_are_refused_and_neither_is_changed() {
    let (root, _) = workspace();
    for (folder, title) in [("default", "new one"), ("former", "old one")] {
        let ledger = named(root.path(), &root.path().join(folder)).await;
        add_session(&ledger, title, None).await;
        ledger.close().await;
    }
    let error = dossier_core::start_up::open(system_options(root.path()))
        .await
        .err()
        .expect("refused");
    assert!(
        matches!(error, LedgerError::LedgersInTwoPlaces { .. }),
        "{error}"
    );
    let message = error.to_string();
    assert!(message.contains("1 in"), "{message}");
    assert!(
        message.contains(root.path().join("former").to_str().unwrap()),
        "{message}"
    );
    assert!(!root
        .path()
        .join("former")
        .join("SESSIONS-MOVED.txt")
        .exists());
    for (folder, title) in [("default", "new one"), ("former", "old one")] {
        let ledger = named(root.path(), &root.path().join(folder)).await;
        assert_eq!(titles(&ledger).await, BTreeSet::from([title.to_string()]));
        ledger.close().await;
    }
}

#[tokio::test]
async fn a_pointer_to_a_missing_folder_is_refused_and_nothing_is_created() {
    let (root, _) = workspace();
    let gone = root.path().join("unplugged-disk").join("Dossier");
    data_location::write_pointer(
        &pointer_of(root.path()),
        &data_location::Pointer {
            data_folder: gone.clone(),
            previous_folder: None,
        },
    )
    .unwrap();
    let error = dossier_core::start_up::open(system_options(root.path()))
        .await
        .err()
        .expect("refused");
    assert!(
        matches!(error, LedgerError::DataFolderMissing { .. }),
        "{error}"
    );
    assert!(error.says_what_to_do());
    assert!(!gone.exists());
    assert!(!root.path().join("default").exists());
}
