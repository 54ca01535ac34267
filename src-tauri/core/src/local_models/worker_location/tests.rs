#![allow(clippy::unwrap_used)] // a failing unwrap is the test's report

use super::*;

fn folder_with(names: &[&str]) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    for name in names {
        std::fs::write(folder.path().join(name), b"worker").unwrap();
    }
    folder
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn an_older_processor_gets_the_baseline_build_when_it_was_shipped() {
    let suffix = std::env::consts::EXE_SUFFIX;
    let installed = folder_with(&[
        &format!("{WORKER_NAME}{suffix}"),
        &format!("{BASELINE_WORKER_NAME}{suffix}"),
    ]);
    let folders = [installed.path()];

    let older = find_in(&folders, &worker_names(false)).unwrap();
    assert_eq!(file_name(&older), format!("{BASELINE_WORKER_NAME}{suffix}"));

    let newer = find_in(&folders, &worker_names(true)).unwrap();
    assert_eq!(file_name(&newer), format!("{WORKER_NAME}{suffix}"));
}

#[test]
fn without_the_baseline_build_an_older_processor_still_finds_the_default_worker() {
    // That worker then refuses in words, naming what the processor lacks.
    let suffix = std::env::consts::EXE_SUFFIX;
    let installed = folder_with(&[&format!("{WORKER_NAME}{suffix}")]);
    let found = find_in(&[installed.path()], &worker_names(false)).unwrap();
    assert_eq!(file_name(&found), format!("{WORKER_NAME}{suffix}"));
}

#[test]
fn the_folder_beside_the_app_wins_over_the_one_above() {
    let suffix = std::env::consts::EXE_SUFFIX;
    let above = folder_with(&[&format!("{BASELINE_WORKER_NAME}{suffix}")]);
    let beside = folder_with(&[&format!("{WORKER_NAME}{suffix}")]);
    let found = find_in(&[beside.path(), above.path()], &worker_names(false)).unwrap();
    assert_eq!(found.parent().unwrap(), beside.path());
}

#[test]
fn a_missing_worker_names_every_place_looked_at() {
    let empty = tempfile::tempdir().unwrap();
    let error = find_in(&[empty.path()], &worker_names(false)).unwrap_err();
    let LocalEngineError::WorkerMissing { looked_for } = error else {
        panic!("expected WorkerMissing, got {error:?}");
    };
    assert!(looked_for.contains(BASELINE_WORKER_NAME), "{looked_for}");
    assert!(looked_for.contains(WORKER_NAME), "{looked_for}");
}
