//! Keeping the search index in step with the ledger. The tables and the triggers that remove
//! rows are in `migrations/0003_search_words.sql`; what goes into them is prepared in Rust
//! (`search_text`), so the rows are written here, by `message_store` and `session_store`, in the
//! same transaction as the part or session they index.
//!
//! Deletions need no Rust: the index is contentless with `contentless_delete=1`, so a trigger
//! can drop a row by rowid, and the triggers also fire for rows removed by ON DELETE CASCADE
//! (a deleted session, a reverted message). An UPDATE of a part's body or a session's title
//! drops the old row by trigger too, so a write path that forgot to re-index would leave a row
//! missing, never stale text — and the functions here only ever add a row to a rowid the
//! triggers have cleared (a plain INSERT: REPLACE would write a needless tombstone).

use crate::store::engine::{Connect, Connection};
use crate::store::search::search_text;
use crate::store::search::searchable_text::searchable_text;
use crate::wire::error::LedgerError;
use crate::wire::part::PartBody;
use sqlx::{Row, SqliteConnection, SqlitePool};

/// Writes an index row (`tokens`, at `rowid`) and remembers the index's words, so a query word can be widened to the words it begins
/// (`invoice` → `invoice`, `invoices`, `invoiced`) without FTS5's own prefix queries, which
/// merge every matching doclist in full before returning the first row.
async fn insert_with_words(
    connection: &mut SqliteConnection,
    insert_and_remember: &str,
    rowid: i64,
    tokens: &[String],
    remembered: &[String],
) -> Result<(), LedgerError> {
    let list = words_list(remembered)?;
    sqlx::query(insert_and_remember)
        .bind(rowid)
        .bind(tokens.join(" "))
        .bind(list)
        .execute(connection)
        .await?;
    Ok(())
}

/// The words to remember, as the JSON list `json_each` reads.
fn words_list(remembered: &[String]) -> Result<String, LedgerError> {
    let mut words: Vec<&str> = remembered.iter().map(String::as_str).collect();
    words.sort_unstable();
    words.dedup();
    serde_json::to_string(&words)
        .map_err(|error| LedgerError::Corrupt(format!("search words: {error}")))
}

/// Indexes the part the statement before it inserted, for a command that writes parts and
/// their index rows together (`last_insert_rowid()` is the part's: a trigger's own inserts do
/// not change it once the trigger is done). Binds the two values of `part_index_values`.
pub(crate) const INDEX_LAST_INSERTED_PART: &str =
    "INSERT INTO part_search (rowid, body) VALUES (last_insert_rowid(), ?); \
     INSERT OR IGNORE INTO search_word (word) SELECT value FROM json_each(?);";

/// What indexing a new part writes: the index row's text and the words to remember (as
/// `index_part` writes them), or `None` when the part is not searched.
pub(crate) fn part_index_values(body: &PartBody) -> Result<Option<(String, String)>, LedgerError> {
    let Some(text) = searchable_text(body) else {
        return Ok(None);
    };
    let tokens = search_text::index_tokens(text);
    let settled = if still_streaming(body) {
        &tokens[..tokens.len().saturating_sub(1)]
    } else {
        &tokens[..]
    };
    Ok(Some((tokens.join(" "), words_list(settled)?)))
}

// The index row and its words in one command, which SQLite runs statement after statement (the
// `?`s numbered across both): one round trip to the connection's thread instead of two.
const INDEX_PART: &str = "INSERT INTO part_search (rowid, body) VALUES (?, ?); \
     INSERT OR IGNORE INTO search_word (word) SELECT value FROM json_each(?)";
const INDEX_TITLE: &str = "INSERT INTO title_search (rowid, title) VALUES (?, ?); \
     INSERT OR IGNORE INTO search_word (word) SELECT value FROM json_each(?)";

/// Indexes the part just inserted or updated at `rowid`. Call inside the transaction that wrote
/// it.
pub async fn index_part(
    connection: &mut impl Connect,
    rowid: i64,
    body: &PartBody,
) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::search_index::index_part(connection, rowid, body).await
        }
    };
    let Some(text) = searchable_text(body) else {
        return Ok(());
    };
    let tokens = search_text::index_tokens(text);
    // A reply still streaming ends in a word cut mid-way ("hunt" of "hunter"): remembering it at
    // every checkpoint would fill the word list with fragments. The part's last write, when it
    // finishes, remembers its last word.
    let settled = if still_streaming(body) {
        &tokens[..tokens.len().saturating_sub(1)]
    } else {
        &tokens[..]
    };
    insert_with_words(connection, INDEX_PART, rowid, &tokens, settled).await
}

fn still_streaming(body: &PartBody) -> bool {
    match body {
        PartBody::Text(text) => text.time.as_ref().is_some_and(|time| time.end.is_none()),
        PartBody::Reasoning(reasoning) => reasoning.time.end.is_none(),
        _ => false,
    }
}

/// Indexes the title of the session just inserted at `rowid`, or whose title just changed.
pub async fn index_title(
    connection: &mut impl Connect,
    rowid: i64,
    title: &str,
) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::search_index::index_title(connection, rowid, title)
                .await
        }
    };
    let tokens = search_text::index_tokens(title);
    insert_with_words(connection, INDEX_TITLE, rowid, &tokens, &tokens).await
}

/// Indexes everything already in the ledger when a migration asked for it (a database that
/// had the trigram index of 0002 gets its new index here: SQL alone cannot prepare the text).
/// One transaction, so an interrupted rebuild is simply done again at the next open.
pub async fn rebuild_if_pending(pool: &SqlitePool) -> Result<(), LedgerError> {
    let pending: i64 = sqlx::query_scalar("SELECT count(*) FROM search_rebuild")
        .fetch_one(pool)
        .await?;
    if pending == 0 {
        return Ok(());
    }
    let mut connection = pool.acquire().await?;
    let mut transaction = crate::store::sqlite::database::begin_write(&mut connection).await?;
    for table in ["part_search", "title_search"] {
        sqlx::query(&format!(
            "INSERT INTO {table} ({table}) VALUES ('delete-all')"
        ))
        .execute(&mut *transaction)
        .await?;
    }
    let mut after = 0_i64;
    loop {
        let rows = sqlx::query(
            "SELECT rowid, data FROM part WHERE rowid > ? AND type IN ('text', 'reasoning', 'file') \
             ORDER BY rowid LIMIT 1000",
        )
        .bind(after)
        .fetch_all(&mut *transaction)
        .await?;
        let Some(last) = rows.last() else {
            break;
        };
        after = last.try_get("rowid")?;
        for row in &rows {
            let data: &str = row.try_get("data")?;
            let body: PartBody = serde_json::from_str(data)
                .map_err(|error| LedgerError::Corrupt(format!("part: {error}")))?;
            index_part(&mut transaction, row.try_get("rowid")?, &body).await?;
        }
    }
    let titles = sqlx::query("SELECT rowid, title FROM session")
        .fetch_all(&mut *transaction)
        .await?;
    for row in &titles {
        index_title(
            &mut transaction,
            row.try_get("rowid")?,
            row.try_get("title")?,
        )
        .await?;
    }
    sqlx::query("DELETE FROM search_rebuild")
        .execute(&mut *transaction)
        .await?;
    transaction.commit().await?;
    Ok(())
}
