//! Keeping the Postgres search index in step with the ledger: the twin of
//! `store::sqlite::search_index`. The text is prepared by the same Rust code (`search_text`), so both
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
use crate::store::search::search_text;
use crate::store::search::searchable_text::searchable_text;
use crate::wire::error::LedgerError;
use crate::wire::part::PartBody;
use sqlx::PgConnection;

/// What a `tsvector` may hold: Postgres refuses a larger one (and with it the part's write).
const TSVECTOR_LIMIT: usize = 1_048_575;
/// Room for the `tsvector`'s header and alignment.
const TSVECTOR_MARGIN: usize = 64 * 1024;
/// What each lexeme costs in a `tsvector`, besides its bytes: `to_tsvector` builds it with one
/// position per word (entry 4, alignment up to 1, count 2, position 2) before `strip` drops
/// them, and the limit applies to that vector.
const LEXEME_OVERHEAD: usize = 10;

/// The tokens of `text`, each once. Parts keep no positions, so repeats add nothing. A part so
/// large that its distinct words would not fit in a `tsvector` (megabytes of identifiers, say)
/// is indexed by as many as fit — its write must not fail for search's sake.
fn distinct_tokens(text: &str) -> String {
    let mut tokens: Vec<String> = search_text::index_tokens(text)
        .iter()
        .map(|token| search_text::without_diacritics(token))
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    let mut room = TSVECTOR_LIMIT - TSVECTOR_MARGIN;
    let mut kept = Vec::with_capacity(tokens.len());
    for token in &tokens {
        let cost = token.len() + LEXEME_OVERHEAD;
        if cost > room {
            tracing::debug!(
                kept = kept.len(),
                of = tokens.len(),
                "part too large to index in full"
            );
            break;
        }
        room -= cost;
        kept.push(token.as_str());
    }
    kept.join(" ")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_words_are_indexed_once_and_a_huge_part_only_as_far_as_fits() {
        assert_eq!(
            distinct_tokens("the cat and the hat, the end"),
            "and cat end hat the"
        );
        let words: Vec<String> = (0..200_000).map(|number| format!("w{number:06}")).collect();
        let kept = distinct_tokens(&words.join(" "));
        let count = kept.split(' ').count();
        assert!(count < words.len(), "all {count} kept");
        assert!(count * (7 + LEXEME_OVERHEAD) <= TSVECTOR_LIMIT - TSVECTOR_MARGIN);
        assert!(kept.starts_with("w000000 w000001"));
    }
}
