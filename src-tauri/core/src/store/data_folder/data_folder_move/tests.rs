//! The refusals that need no copy, the room estimate, and the removal of an old copy touching
//! nothing but Dossier's own files.

#![allow(clippy::unwrap_used)] // a failing unwrap is the test's report

use super::*;

fn kind_of(error: &LedgerError) -> &'static str {
    match error {
        LedgerError::MoveIntoCurrentFolder { .. } => "into current",
        LedgerError::MoveTargetNotEmpty { .. } => "not empty",
        LedgerError::MoveTargetHasLedger { .. } => "has ledger",
        LedgerError::MoveTargetReadOnly { .. } => "read-only",
        LedgerError::MoveTargetTooSmall { .. } => "too small",
        _ => "other",
    }
}

#[test]
fn a_target_is_refused_for_each_reason_with_its_own_error() {
    let root = tempfile::tempdir().unwrap();
    let current = root.path().join("current");
    let default = root.path().join("default");
    std::fs::create_dir_all(current.join("backups")).unwrap();
    std::fs::create_dir_all(&default).unwrap();
    let full = root.path().join("full");
    std::fs::create_dir_all(&full).unwrap();
    std::fs::write(full.join("thesis.docx"), b"mine").unwrap();
    let other_ledger = root.path().join("other");
    std::fs::create_dir_all(&other_ledger).unwrap();
    std::fs::write(other_ledger.join(DATABASE_FILE), b"x").unwrap();
    // A folder reached through `..` is still the one in use.
    let sneaky = root
        .path()
        .join("full")
        .join("..")
        .join("current")
        .join("sub");
    let cases: Vec<(PathBuf, &str)> = vec![
        (current.clone(), "into current"),
        (current.join("backups").join("new"), "into current"),
        (sneaky, "into current"),
        (full.clone(), "not empty"),
        (other_ledger, "has ledger"),
        (PathBuf::from("relative/folder"), "read-only"),
    ];
    for (target, expected) in cases {
        let error = check_target(&current, &target, &default).unwrap_err();
        assert_eq!(kind_of(&error), expected, "{}: {error}", target.display());
        assert_eq!(error.kind(), crate::wire::error::ErrorKind::Invalid);
    }
    let error = check_target(&current, &full, &default).unwrap_err();
    assert!(error.to_string().contains("thesis.docx"), "{error}");
}

#[test]
fn an_empty_new_or_leftover_only_folder_is_accepted() {
    let root = tempfile::tempdir().unwrap();
    let current = root.path().join("current");
    let default = root.path().join("default");
    std::fs::create_dir_all(&current).unwrap();
    let empty = root.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    check_target(&current, &empty, &default).unwrap();
    check_target(&current, &root.path().join("not-yet"), &default).unwrap();
    // What an earlier move cut short left, and what a file manager puts in any folder.
    let leftovers = root.path().join("leftovers");
    std::fs::create_dir_all(leftovers.join("backups")).unwrap();
    for name in [
        ".DS_Store",
        "dossier.db.moving",
        "dossier.db.moved",
        "ledger.lock",
    ] {
        std::fs::write(leftovers.join(name), b"x").unwrap();
    }
    std::fs::write(
        leftovers
            .join("backups")
            .join("dossier-20261201T000000.000Z-schema-8.db"),
        b"x",
    )
    .unwrap();
    check_target(&current, &leftovers, &default).unwrap();
    // A backup folder with a file of the person's is theirs.
    std::fs::write(leftovers.join("backups").join("notes.txt"), b"mine").unwrap();
    assert_eq!(
        kind_of(&check_target(&current, &leftovers, &default).unwrap_err()),
        "not empty"
    );
    // The default folder holds the window's own files (WebKit, the log): moving back is fine.
    std::fs::create_dir_all(default.join("logs")).unwrap();
    std::fs::write(default.join(".window-state.json"), b"{}").unwrap();
    check_target(&current, &default, &default).unwrap();
    std::fs::write(default.join(DATABASE_FILE), b"x").unwrap();
    assert_eq!(
        kind_of(&check_target(&current, &default, &default).unwrap_err()),
        "has ledger"
    );
}

#[test]
fn write_errors_become_read_only_or_too_small() {
    let target = Path::new("/mnt/stick/dossier");
    #[cfg(unix)]
    {
        // EACCES, EROFS, ENOSPC as the system reports them.
        for (code, expected) in [(13, "read-only"), (30, "read-only"), (28, "too small")] {
            let error = std::io::Error::from_raw_os_error(code);
            assert_eq!(kind_of(&write_refusal(target, &error)), expected, "{code}");
        }
    }
    let refusal = write_refusal(
        target,
        &std::io::Error::from(std::io::ErrorKind::PermissionDenied),
    );
    assert!(
        refusal.to_string().contains("/mnt/stick/dossier"),
        "{refusal}"
    );
}

#[test]
fn the_room_needed_counts_the_ledger_its_log_and_the_backups_with_a_margin() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(folder.path().join("backups")).unwrap();
    std::fs::write(folder.path().join(DATABASE_FILE), vec![0_u8; 10_000]).unwrap();
    std::fs::write(folder.path().join("dossier.db-wal"), vec![0_u8; 1_000]).unwrap();
    std::fs::write(
        folder
            .path()
            .join("backups")
            .join("dossier-20261201T000000.000Z-schema-8.db"),
        vec![0_u8; 4_000],
    )
    .unwrap();
    // Not ours, not counted.
    std::fs::write(
        folder.path().join("backups").join("film.mkv"),
        vec![0_u8; 50_000],
    )
    .unwrap();
    assert_eq!(room_needed(folder.path()).unwrap(), with_margin(15_000));
    assert_eq!(with_margin(15_000), 15_000 + 1_500 + 16 * 1024 * 1024);
    #[cfg(unix)]
    assert!(available_space(&folder.path().join("not").join("yet")).is_some_and(|bytes| bytes > 0));
}

#[test]
fn removing_the_old_copy_takes_only_dossiers_files_and_never_a_folder_with_others() {
    let root = tempfile::tempdir().unwrap();
    let current = root.path().join("current");
    std::fs::create_dir_all(&current).unwrap();
    let previous = root.path().join("previous");
    std::fs::create_dir_all(previous.join("backups")).unwrap();
    for name in [
        "dossier.db",
        "dossier.db-wal",
        "dossier.db-shm",
        "ledger.lock",
    ] {
        std::fs::write(previous.join(name), b"x").unwrap();
    }
    let backup = "dossier-20261201T000000.000Z-schema-8.db";
    std::fs::write(previous.join("backups").join(backup), b"x").unwrap();
    std::fs::write(previous.join("backups").join("mine.txt"), b"mine").unwrap();
    std::fs::write(previous.join("diary.txt"), b"mine").unwrap();
    let removed = remove_previous(&previous, &current).unwrap();
    let mut names = removed.removed.clone();
    names.sort();
    assert_eq!(
        names,
        [
            format!("backups{}{backup}", std::path::MAIN_SEPARATOR),
            "dossier.db".into(),
            "dossier.db-shm".into(),
            "dossier.db-wal".into(),
            "ledger.lock".into(),
        ]
    );
    assert!(!removed.folder_removed);
    assert!(previous.join("diary.txt").exists());
    assert!(previous.join("backups").join("mine.txt").exists());
    // With only Dossier's files, the folder goes too.
    std::fs::remove_file(previous.join("diary.txt")).unwrap();
    std::fs::remove_file(previous.join("backups").join("mine.txt")).unwrap();
    std::fs::write(previous.join("dossier.db"), b"x").unwrap();
    let removed = remove_previous(&previous, &current).unwrap();
    assert!(removed.folder_removed);
    assert!(!previous.exists());
    // The folder in use is never "the old copy".
    assert!(matches!(
        remove_previous(&current, &current),
        Err(LedgerError::NoPreviousDataFolder)
    ));
}
