//! Rules Windows enforces and Linux does not, held by the ledger; each test names its rule
//! (docs/platforms.md lists them). The tests that need a drive letter run only on Windows —
//! under Wine in `scripts/test-windows.sh` and on the release workflow's runner; the others run
//! everywhere, so a change that breaks the rule fails on Linux too.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing unwrap is the test's report

use super::support::{open, FAKE_CONFIG};
use dossier_core::reshaping::export::export_file_name;
use dossier_core::reshaping::export_file::ExportFileKind;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::session::CreateSession;

/// Windows rules: `FlushFileBuffers` (the sync of a finished copy) needs a handle that may
/// write, and a file open in another handle is replaced only through a rename. "Back up now"
/// runs while the ledger is open (its pool holds `dossier.db`, a second ledger on the same
/// folder too), twice to one name; the second backup replaces the first, whole, and no partial
/// copy is left.
#[tokio::test]
async fn a_backup_while_the_ledger_is_open_is_whole_and_replaces_the_last_one() {
    crate::sqlite_only!("a backup is a copy of the database file");
    let test = open(FAKE_CONFIG).await;
    let first = test.session().await;
    test.no_reply(&first, vec![Draft::text("before the first backup")])
        .await;
    // Another process on the same folder (the server beside the app) holds it open too.
    let other =
        dossier_core::start_up::open(super::support::options(test.folder.path(), FAKE_CONFIG))
            .await
            .unwrap();
    let target = test.folder.path().join("Dossier backup.db");
    test.ledger.data().back_up_to(&target).await.unwrap();
    assert_eq!(
        test.ledger
            .data()
            .inspect_backup(&target)
            .await
            .unwrap()
            .sessions,
        1
    );
    let second = test.session().await;
    test.no_reply(&second, vec![Draft::text("after it")]).await;
    other.data().back_up_to(&target).await.unwrap();
    assert_eq!(
        test.ledger
            .data()
            .inspect_backup(&target)
            .await
            .unwrap()
            .sessions,
        2
    );
    other.close().await;
    let left: Vec<String> = std::fs::read_dir(test.folder.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| name.contains("partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Windows rule: a rename replaces a file another handle holds open only when that handle
/// allows it (`FILE_SHARE_DELETE`, which Rust's standard library asks for). A backup made again
/// while the last one is still open in a reader replaces it, whole.
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "Wine 8.0 refuses a rename over a file open in another handle (os error 5) even with FILE_SHARE_DELETE; Windows 10 1709+ replaces it (POSIX rename semantics, which std::fs::rename asks for)"
)]
async fn a_backup_replaces_the_last_one_while_a_reader_holds_it_open() {
    crate::sqlite_only!("a backup is a copy of the database file");
    let test = open(FAKE_CONFIG).await;
    let first = test.session().await;
    test.no_reply(&first, vec![Draft::text("before the first backup")])
        .await;
    let target = test.folder.path().join("Dossier backup.db");
    test.ledger.data().back_up_to(&target).await.unwrap();
    assert_eq!(
        test.ledger
            .data()
            .inspect_backup(&target)
            .await
            .unwrap()
            .sessions,
        1
    );

    let reader = std::fs::File::open(&target).unwrap();
    let second = test.session().await;
    test.no_reply(&second, vec![Draft::text("after it")]).await;
    test.ledger.data().back_up_to(&target).await.unwrap();
    drop(reader);

    assert_eq!(
        test.ledger
            .data()
            .inspect_backup(&target)
            .await
            .unwrap()
            .sessions,
        2
    );
    let left: Vec<String> = std::fs::read_dir(test.folder.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| name.contains("partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Windows rule: `CON`, `PRN`, `AUX`, `NUL`, `COM1`… name devices in every folder, in any case
/// and with any extension, so a session titled "CON" exported as `CON.md` would be written to
/// the console. Its export is named `CON_.md`, a real file that lists and reads back.
#[tokio::test]
async fn a_session_titled_con_exports_to_a_file_windows_can_create() {
    let test = open(FAKE_CONFIG).await;
    let session = test
        .ledger
        .sessions()
        .create(CreateSession {
            title: Some("CON".into()),
            ..CreateSession::default()
        })
        .await
        .unwrap();
    test.no_reply(&session, vec![Draft::text("the console is not a file")])
        .await;
    for (kind, expected) in [
        (ExportFileKind::Markdown, "CON_.md"),
        (ExportFileKind::Json, "CON_.json"),
    ] {
        let name = export_file_name(&session.title, kind.extension());
        assert_eq!(name, expected);
        let path = test.folder.path().join(&name);
        test.ledger
            .reshaping()
            .write_export(&session.id, kind, &path)
            .await
            .unwrap();
        let listed: Vec<String> = std::fs::read_dir(test.folder.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        assert!(listed.contains(&expected.to_string()), "{listed:?}");
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(written.contains("the console is not a file"), "{written}");
    }
    let imported = test
        .ledger
        .reshaping()
        .import_file(&test.folder.path().join("CON_.json"))
        .await
        .unwrap();
    assert_eq!(imported.title, "CON");
}

/// Windows rule: a path longer than 260 characters (`MAX_PATH`) fails in any API called without
/// the `\\?\` prefix unless the system and the program opted in to long paths. Rust's
/// standard library adds the prefix itself; SQLite opens its files through its own calls. A
/// ledger whose data folder is nested past 260 characters opens, keeps a session, backs up
/// and opens again. (Wine has no such limit, so only a real Windows runner can fail here.)
#[tokio::test]
async fn a_ledger_in_a_folder_past_260_characters_opens_writes_and_backs_up() {
    crate::sqlite_only!("the database file's own path");
    let root = tempfile::tempdir().unwrap();
    let mut folder = root.path().to_path_buf();
    while folder.display().to_string().len() <= 300 {
        folder.push("a folder with a long name for the path limit");
    }
    std::fs::create_dir_all(folder.join("work")).unwrap();
    let options = super::support::options(&folder, FAKE_CONFIG);
    let ledger = dossier_core::start_up::open(options).await.unwrap();
    let session = ledger
        .sessions()
        .create(CreateSession {
            title: Some("deep".into()),
            ..CreateSession::default()
        })
        .await
        .unwrap();
    let backup = folder.join("deep backup.db");
    ledger.data().back_up_to(&backup).await.unwrap();
    assert_eq!(
        ledger
            .data()
            .inspect_backup(&backup)
            .await
            .unwrap()
            .sessions,
        1
    );
    ledger.close().await;
    drop(ledger);
    let reopened = dossier_core::start_up::open(super::support::options(&folder, FAKE_CONFIG))
        .await
        .unwrap();
    assert_eq!(
        reopened.sessions().get(&session.id).await.unwrap().title,
        "deep"
    );
    reopened.close().await;
}

#[cfg(windows)]
mod drive_letters {
    use super::*;
    use crate::data_folder::{add_session, system_options, titles, workspace};
    use crate::support::describe;
    use std::path::{Path, PathBuf};

    /// Windows rule: a file URL for `C:\…` is `file:///C:/…` — three slashes, the drive letter,
    /// forward slashes — and names the drive-letter path, not `\C:\…`. A draft attaching one is
    /// read from that path; its CRLF line ends are read as lines, without a `\r` in the text.
    #[tokio::test]
    async fn a_draft_with_a_file_url_on_drive_c_attaches_that_file() {
        let test = open(FAKE_CONFIG).await;
        let path = test.write("Meeting notes.txt", "first line\r\nsecond line\r\n");
        let shown = path.display().to_string();
        assert_eq!(
            shown.as_bytes().get(1),
            Some(&b':'),
            "no drive letter: {shown}"
        );
        let url = format!("file:///{}", shown.replace('\\', "/").replace(' ', "%20"));
        assert!(url[8..].starts_with(&shown[..2]), "{url}");
        let session = test.session().await;
        let saved = test
            .no_reply(
                &session,
                vec![Draft::file(url, "text/plain", Some("Meeting notes.txt"))],
            )
            .await;
        let described = describe(&saved.parts);
        let input = serde_json::json!({ "filePath": shown }).to_string();
        assert_eq!(
            described[0],
            format!("text*: Called the Read tool with the following input: {input}")
        );
        assert!(
            described[1].contains(&format!("<path>{shown}</path>"))
                && described[1].contains("\n1: first line\n2: second line\n")
                && !described[1].contains('\r'),
            "{}",
            described[1]
        );
    }

    /// A folder on another drive letter than the temporary folder's: the one named by
    /// `DOSSIER_TEST_OTHER_VOLUME` (scripts/test-windows.sh maps a Wine drive for it), else `D:\`
    /// (GitHub's Windows runners have one).
    fn other_volume(beside: &Path) -> Option<PathBuf> {
        let candidate = std::env::var_os("DOSSIER_TEST_OTHER_VOLUME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(r"D:\"));
        let letter = |path: &Path| {
            path.display()
                .to_string()
                .to_ascii_uppercase()
                .chars()
                .next()
        };
        (candidate.is_dir() && letter(&candidate) != letter(beside)).then_some(candidate)
    }

    /// Windows rule: a file cannot be renamed to another volume (ERROR_NOT_SAME_DEVICE), and
    /// paths on two drive letters share no root. "Move data folder…" to a folder on another
    /// drive copies the ledger there, switches, and the next start opens it from that drive
    /// with every session and attachment; the old copy is removed only when asked.
    #[tokio::test]
    async fn a_data_folder_moves_to_another_drive_letter() {
        let (root, picture) = workspace();
        let Some(volume) = other_volume(root.path()) else {
            eprintln!(
                "skipped: no second drive letter (set DOSSIER_TEST_OTHER_VOLUME to a folder on one)"
            );
            return;
        };
        let ledger = dossier_core::start_up::open(system_options(root.path()))
            .await
            .unwrap();
        let with_picture = add_session(&ledger, "harbour", Some(&picture)).await;
        add_session(&ledger, "plain", None).await;
        let original = ledger.reshaping().export_json(&with_picture).await.unwrap();
        let before = titles(&ledger).await;

        let elsewhere = tempfile::tempdir_in(&volume).unwrap();
        let target = elsewhere.path().join("Dossier");
        let moved = ledger.data().move_data_folder(&target).await.unwrap();
        assert_eq!(moved.folder, target.display().to_string());
        assert_eq!(moved.sessions, 2);
        drop(ledger);

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
        let removed = reopened.data().remove_previous_data_folder().unwrap();
        assert!(removed.removed.contains(&"dossier.db".to_string()));
        assert!(!root.path().join("default").join("dossier.db").exists());
        reopened.close().await;
    }
}
