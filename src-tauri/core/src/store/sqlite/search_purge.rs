//! Deleted words leave the search index (`migrations/0006_search_forget.sql` says why and what
//! the triggers note). After a deletion commits, a background task prepares the noted text into
//! words as `search_text` does, forgets from `search_word` the words no remaining part or title
//! holds, and merges both word indexes whole, which rewrites their pages without the deleted
//! rows' entries (a contentless index only tombstones them). Until then a deleted word can no
//! longer be found, only read from the file by a forensic tool; the task runs in the background
//! because a full merge of a large index takes a moment, and one run covers every deletion
//! that arrived meanwhile.

use crate::store::search::search_text;
use crate::store::search::searchable_text::searchable_text;
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::part::PartBody;
use sqlx::{Row, SqliteConnection, SqlitePool};
use std::collections::BTreeSet;
use std::sync::Arc;
use tokio::sync::{mpsc, Mutex};
use tokio::task::JoinHandle;

/// Notes handled per write transaction, so a huge deletion does not hold the write lock long.
const NOTES_PER_BATCH: i64 = 200;
/// Index pages written per merge step; each step is its own transaction.
const MERGE_PAGES: i64 = 64;

/// Wakes the background purge; dropping it (the ledger is gone) ends the task.
pub(crate) struct SearchPurge {
    wake: mpsc::Sender<()>,
    /// One run at a time, so a run asked for directly ends after any background one.
    running: Arc<Mutex<()>>,
    /// The task, taken by `stop`.
    task: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl SearchPurge {
    /// Starts the task, which first handles what a crash may have left noted.
    pub(crate) fn start(pool: SqlitePool) -> Self {
        let (wake, mut woken) = mpsc::channel::<()>(1);
        let running = Arc::new(Mutex::new(()));
        let exclusive = running.clone();
        let task = tokio::spawn(async move {
            loop {
                let outcome = {
                    let _running = exclusive.lock().await;
                    purge_deleted_words(&pool).await
                };
                if let Err(error) = outcome {
                    if pool.is_closed() {
                        return;
                    }
                    tracing::warn!("deleted words stay in the search index for now: {error}");
                }
                if woken.recv().await.is_none() {
                    return;
                }
            }
        });
        Self {
            wake,
            running,
            task: std::sync::Mutex::new(Some(task)),
        }
    }

    /// Ends the task once no run is under way (a run finishes first), and waits for it: when
    /// this returns the purge holds no connection and starts none.
    pub(crate) async fn stop(&self) {
        let _running = self.running.lock().await;
        let task = self
            .task
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        let Some(task) = task else {
            return;
        };
        // With the run lock held here, the task is waiting to be woken or for that lock: it
        // holds no connection. A run asked for and not begun loses nothing: the notes stay in
        // the database, and the next open starts with a run.
        task.abort();
        if let Err(error) = task.await {
            if !error.is_cancelled() {
                tracing::warn!(%error, "the search purge ended abnormally");
            }
        }
    }

    /// Asks for a run after a deletion; a run already asked for covers this one too.
    pub(crate) fn wake(&self) {
        // Full means a run is already pending; closed means the task is gone with the pool.
        let _ = self.wake.try_send(());
    }
}

impl Store {
    /// Runs the purge now, after any background run still going: when it returns, every
    /// deletion committed before the call has left the index and the files. Returns how many
    /// deleted texts it handled itself.
    pub async fn purge_deleted_words(&self) -> Result<usize, LedgerError> {
        self.writable()?;
        let Some(search_purge) = &self.upkeep.search_purge else {
            return Ok(0);
        };
        let _running = search_purge.running.lock().await;
        purge_deleted_words(self.sqlite_pool("Purging deleted words")?).await
    }
}

/// Forgets the words of the text deleted since the last run that nothing else holds, and merges
/// the indexes so their entries are gone from the pages too. Returns how many noted texts it
/// handled.
async fn purge_deleted_words(pool: &SqlitePool) -> Result<usize, LedgerError> {
    // Most wake-ups (every start, a renamed default title) find nothing: a read says so without
    // taking the write lock.
    let noted: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM search_forgotten)")
        .fetch_one(pool)
        .await?;
    if !noted {
        return Ok(0);
    }
    let mut handled = 0;
    let mut forgotten = 0;
    loop {
        let mut connection = pool.acquire().await?;
        let mut transaction = crate::store::sqlite::database::begin_write(&mut connection).await?;
        let notes =
            sqlx::query("SELECT rowid, kind, text FROM search_forgotten ORDER BY rowid LIMIT ?")
                .bind(NOTES_PER_BATCH)
                .fetch_all(&mut *transaction)
                .await?;
        let Some(last) = notes.last() else {
            break;
        };
        let last: i64 = last.try_get("rowid")?;
        let mut words = BTreeSet::new();
        for note in &notes {
            let text: &str = note.try_get("text")?;
            let kind: &str = note.try_get("kind")?;
            words.extend(words_of(kind, text));
        }
        for word in &words {
            if !still_held(&mut transaction, word).await? {
                sqlx::query("DELETE FROM search_word WHERE word = ?")
                    .bind(word)
                    .execute(&mut *transaction)
                    .await?;
                forgotten += 1;
            }
        }
        sqlx::query("DELETE FROM search_forgotten WHERE rowid <= ?")
            .bind(last)
            .execute(&mut *transaction)
            .await?;
        transaction.commit().await?;
        handled += notes.len();
    }
    // Only a word held nowhere else tells anything the ledger does not still say, so the
    // (whole-index) merge runs only when such a word went.
    if forgotten > 0 {
        let mut connection = pool.acquire().await?;
        for table in ["part_search", "title_search"] {
            merge_whole(&mut connection, table).await?;
        }
        drop(connection);
        // The merge freed the pages that held them: out of the file too.
        crate::store::sqlite::disk_space::give_back_free_pages(pool).await?;
    }
    Ok(handled)
}

/// The words a noted text put into the index: a part's searchable text, or a title.
fn words_of(kind: &str, text: &str) -> Vec<String> {
    if kind == "title" {
        return search_text::index_tokens(text);
    }
    match serde_json::from_str::<PartBody>(text) {
        Ok(body) => searchable_text(&body)
            .map(search_text::index_tokens)
            .unwrap_or_default(),
        // Unreadable JSON cannot have been indexed either.
        Err(_) => Vec::new(),
    }
}

/// Whether any remaining part or title holds `word`. A word the index cannot be asked about
/// (FTS5 refusing the query) counts as held: kept is harmless, and one odd word must not stop
/// the purge of every other.
async fn still_held(connection: &mut SqliteConnection, word: &str) -> Result<bool, LedgerError> {
    let phrase = format!("\"{}\"", word.replace('"', "\"\""));
    let held = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM part_search WHERE part_search MATCH ?1) \
         OR EXISTS (SELECT 1 FROM title_search WHERE title_search MATCH ?1)",
    )
    .bind(phrase)
    .fetch_one(connection)
    .await;
    match held {
        Ok(held) => Ok(held),
        // SQLITE_ERROR: the query itself was refused (a full disk or a lock is another code,
        // and fails the run, which the next deletion retries).
        Err(sqlx::Error::Database(error)) if error.code().as_deref() == Some("1") => {
            tracing::debug!(word, %error, "kept a word the index could not be asked about");
            Ok(true)
        }
        Err(other) => Err(other.into()),
    }
}

/// Merges every segment of `table` into one, a few pages per transaction so replies can write
/// in between. FTS5 reports a step that found nothing to do as fewer than two changes.
async fn merge_whole(connection: &mut SqliteConnection, table: &str) -> Result<(), LedgerError> {
    let step = format!("INSERT INTO {table} ({table}, rank) VALUES ('merge', -{MERGE_PAGES})");
    // A bound far beyond any real index (a million steps of 64 pages), only against a loop.
    for _ in 0..1_000_000 {
        let before: i64 = sqlx::query_scalar("SELECT total_changes()")
            .fetch_one(&mut *connection)
            .await?;
        sqlx::query(&step).execute(&mut *connection).await?;
        let after: i64 = sqlx::query_scalar("SELECT total_changes()")
            .fetch_one(&mut *connection)
            .await?;
        if after - before < 2 {
            return Ok(());
        }
    }
    tracing::warn!(table, "the search index merge did not settle");
    Ok(())
}
