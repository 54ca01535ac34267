//! Deleting a conversation gives its disk space back (`disk_space.rs`): the database file
//! shrinks by the attachments it held (and the settings view's figure with it), and a database
//! made before that was switched on is converted once at open without losing what search finds.

use crate::support::*;
use dossier_core::store::sqlite::disk_space::StorageUse;
use dossier_core::store::DATABASE_FILE;
use dossier_core::wire::draft::Draft;
use sqlx::SqlitePool;

const ATTACHMENT_BYTES: usize = 4 * 1024 * 1024;

/// Bytes that do not repeat, so nothing along the way could store them in less room.
fn unrepeating_pdf(size: usize) -> Vec<u8> {
    let mut bytes = b"%PDF-1.4\n".to_vec();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    while bytes.len() < size {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    bytes
}

async fn pragma(pool: &SqlitePool, name: &str) -> i64 {
    sqlx::query_scalar(&format!("PRAGMA {name}"))
        .fetch_one(pool)
        .await
        .unwrap_or_else(|error| panic!("PRAGMA {name}: {error}"))
}

/// The database's size as SQLite sees it, write-ahead log included.
async fn database_bytes(pool: &SqlitePool) -> i64 {
    pragma(pool, "page_count").await * pragma(pool, "page_size").await
}

/// The file's own `auto_vacuum`, read by a connection of its own. A connection answers the
/// pragma from the file's header only once it has read it, hence the schema read first.
async fn auto_vacuum_of(file: &std::path::Path) -> i64 {
    use sqlx::ConnectOptions;
    let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(file)
        .connect()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    sqlx::query("SELECT count(*) FROM sqlite_master")
        .fetch_one(&mut connection)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    sqlx::query_scalar("PRAGMA auto_vacuum")
        .fetch_one(&mut connection)
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

async fn found(test: &TestLedger, text: &str) -> Vec<String> {
    session_ids(&search(test, text).await)
}

#[tokio::test]
async fn deleting_a_session_shrinks_the_database_file_by_its_attachments() {
    crate::sqlite_only!("the file's free pages");
    let test = open("{}").await;
    let kept = test.session().await;
    test.no_reply(&kept, vec![Draft::text("the kept conversation")])
        .await;
    let deleted = test.session().await;
    let path = test.write("scan.pdf", unrepeating_pdf(ATTACHMENT_BYTES));
    test.no_reply(
        &deleted,
        vec![
            Draft::text("a big scan"),
            Draft::file(file_url(&path), "application/pdf", Some("scan.pdf")),
        ],
    )
    .await;
    let pool = test
        .ledger
        .pool()
        .sqlite()
        .expect("a SQLite ledger")
        .clone();
    let before = database_bytes(&pool).await;
    assert!(before > ATTACHMENT_BYTES as i64, "{before} bytes");
    let shown_before = storage_use(&test);
    assert!(
        shown_before.bytes > ATTACHMENT_BYTES as u64,
        "{shown_before:?}"
    );

    test.ledger
        .sessions()
        .delete(&deleted.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let after = database_bytes(&pool).await;
    assert_eq!(pragma(&pool, "freelist_count").await, 0);
    assert!(
        after < before - (ATTACHMENT_BYTES as i64 * 9 / 10),
        "{before} bytes before the deletion, {after} after"
    );
    assert_eq!(found(&test, "conversation").await, [kept.id]);

    // On disk too, at once: the file and its write-ahead log.
    let data = test.folder.path().join("data");
    let on_disk: u64 = [DATABASE_FILE.to_string(), format!("{DATABASE_FILE}-wal")]
        .iter()
        .map(|name| std::fs::metadata(data.join(name)).map_or(0, |file| file.len()))
        .sum();
    assert!(on_disk < 1024 * 1024, "{on_disk} bytes on disk");
    // What the settings view shows is what the file system counts.
    assert_eq!(
        storage_use(&test),
        StorageUse {
            data_folder: data.display().to_string(),
            bytes: on_disk
        }
    );
}

fn storage_use(test: &TestLedger) -> StorageUse {
    test.ledger
        .data()
        .storage_use()
        .unwrap_or_else(|error| panic!("{error}"))
}

#[tokio::test]
async fn a_database_that_kept_its_free_pages_is_converted_once_and_search_still_works() {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    std::fs::create_dir_all(folder.path().join("work")).unwrap_or_else(|error| panic!("{error}"));
    let first = dossier_core::start_up::open(options(folder.path(), "{}"))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut sessions = Vec::new();
    for word in ["apricot", "blueberry", "cherry"] {
        let session = first
            .sessions()
            .create(Default::default())
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        first
            .sessions()
            .prompt(&session.id, no_reply(vec![Draft::text(word)]))
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        sessions.push(session.id);
    }
    // Leave a gap in the rowids, the case in which a full VACUUM may renumber rows.
    first
        .sessions()
        .delete(&sessions[0])
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    // Turn the file back into one made before incremental vacuum: auto_vacuum = NONE.
    let mut connection = first
        .pool()
        .sqlite()
        .expect("a SQLite ledger")
        .acquire()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    for statement in ["PRAGMA auto_vacuum = NONE", "VACUUM"] {
        sqlx::query(statement)
            .execute(&mut *connection)
            .await
            .unwrap_or_else(|error| panic!("{statement}: {error}"));
    }
    drop(connection);
    first.close().await;
    let file = folder.path().join("data").join(DATABASE_FILE);
    assert_eq!(auto_vacuum_of(&file).await, 0);

    let second = TestLedger {
        ledger: dossier_core::start_up::open(options(folder.path(), "{}"))
            .await
            .unwrap_or_else(|error| panic!("{error}")),
        folder,
        database: None,
    };
    assert_eq!(auto_vacuum_of(&file).await, 2);
    assert!(found(&second, "apricot").await.is_empty());
    assert_eq!(found(&second, "blueberry").await, [sessions[1].clone()]);
    assert_eq!(found(&second, "cherry").await, [sessions[2].clone()]);
}

/// The race behind a once-in-five failure of the test above: SQLite lets one checkpoint run at
/// a time and answers a second at once with "busy" (in the pragma's result, not as an error,
/// and without waiting), so a deletion whose truncating checkpoint met the background
/// checkpoint left the write-ahead log full of the deleted pages. Here a second connection
/// checkpoints over and over while writes keep giving it pages to copy; every hand-back must
/// still leave the log empty.
#[tokio::test]
async fn space_comes_back_while_another_checkpoint_is_running() {
    crate::sqlite_only!("the write-ahead log's file");
    use sqlx::ConnectOptions;
    let test = open("{}").await;
    let session = test.session().await;
    let file = test.folder.path().join("data").join(DATABASE_FILE);
    let log = test
        .folder
        .path()
        .join("data")
        .join(format!("{DATABASE_FILE}-wal"));
    let mut other = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&file)
        .connect()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let checkpoints = tokio::spawn({
        let stop = stop.clone();
        async move {
            let mut runs = 0u64;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
                    .execute(&mut other)
                    .await
                    .unwrap_or_else(|error| panic!("{error}"));
                runs += 1;
                tokio::task::yield_now().await;
            }
            runs
        }
    });
    let text = "words to copy ".repeat(4_000);
    for round in 0..40 {
        test.no_reply(&session, vec![Draft::text(format!("{round} {text}"))])
            .await;
        test.ledger
            .store()
            .give_back_free_pages()
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let left = std::fs::metadata(&log).map_or(0, |log| log.len());
        assert_eq!(
            left, 0,
            "round {round}: {left} bytes left in the write-ahead log"
        );
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let runs = checkpoints.await.unwrap_or_else(|error| panic!("{error}"));
    assert!(runs > 40, "the other connection checkpointed {runs} times");
}
