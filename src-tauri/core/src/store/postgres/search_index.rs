//! Keeping the Postgres search index in step with the ledger: the twin of
//! `store::search_index`. The text is prepared by the same Rust code (`search_text`), so both
//! engines hold the same tokens for the same text; here they become a `tsvector` with the
//! `simple` configuration (lower-cased, no stemming, no stop words: the tokens are already
//! what the index should hold).
//!
//! Deletions need no Rust: the index rows reference their part or session with ON DELETE
//! CASCADE, and a rewritten part or renamed session loses its row by trigger (the migration),
//! so the functions here only ever add a row to a rowid whose old row is gone. No word list is
//! kept (SQLite's `search_word`): a query widens a word to the words it begins with tsquery's
//! prefix match, on the GIN index itself.

use super::database_error::from_postgres;
use crate::store::search_index::searchable_text;
use crate::store::search_text;
use crate::wire::error::LedgerError;
use crate::wire::part::PartBody;
use sqlx::PgConnection;

/// The tokens of `text`, each once. Parts keep no positions, so repeats add nothing; leaving
/// them out keeps a long part's `tsvector` well under Postgres's 1 MB limit.
fn distinct_tokens(text: &str) -> String {
    let mut tokens: Vec<String> = search_text::index_tokens(text)
        .iter()
        .map(|token| search_text::without_diacritics(token))
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    tokens.join(" ")
}

/// Indexes the part just inserted or updated at `rowid`. Call inside the transaction that wrote
/// it.
pub async fn index_part(
    connection: &mut PgConnection,
    rowid: i64,
    body: &PartBody,
) -> Result<(), LedgerError> {
    let Some(text) = searchable_text(body) else {
        return Ok(());
    };
    // `strip`: no positions, like SQLite's part index (detail=none) — a query is an AND of
    // tokens, and `search` checks an unspaced run's bigrams are contiguous in the text itself.
    sqlx::query(
        "INSERT INTO part_search (rowid, words) VALUES ($1, strip(to_tsvector('simple', $2)))",
    )
    .bind(rowid)
    .bind(distinct_tokens(text))
    .execute(connection)
    .await
    .map_err(from_postgres)?;
    Ok(())
}

/// Indexes the title of the session just inserted at `rowid`, or whose title just changed.
/// Titles keep positions, for ranking.
pub async fn index_title(
    connection: &mut PgConnection,
    rowid: i64,
    title: &str,
) -> Result<(), LedgerError> {
    let tokens: Vec<String> = search_text::index_tokens(title)
        .iter()
        .map(|token| search_text::without_diacritics(token))
        .collect();
    sqlx::query("INSERT INTO title_search (rowid, words) VALUES ($1, to_tsvector('simple', $2))")
        .bind(rowid)
        .bind(tokens.join(" "))
        .execute(connection)
        .await
        .map_err(from_postgres)?;
    Ok(())
}
