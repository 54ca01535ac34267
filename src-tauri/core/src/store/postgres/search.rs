//! Full-text search on Postgres: the twin of `store::search` (there a method of `Store`, here a
//! function of the pool). The query is cut by the same Rust code (`search_text::query_terms`),
//! excerpts are cut by the same `search_excerpt`, and results follow the same rules: sessions
//! whose title matches first (best first), then sessions by their most recent matching part,
//! each with up to three excerpts; an unspaced run's bigrams must sit next to each other in the
//! text itself.
//!
//! What differs: a query word matches every indexed word it begins through tsquery's prefix
//! match (`word:*`) on the GIN index, not through SQLite's list of at most 64 widened words; and
//! titles are ranked by `ts_rank`, not FTS5's bm25, so two matching titles may come in another
//! order than on SQLite.

use super::database_error::from_postgres;
use super::session_store;
use crate::store::search::search_excerpt::excerpt;
use crate::store::search::search_query::{Excerpt, SearchQuery, SearchResult, DEFAULT_RESULTS};
use crate::store::search::search_text::{self, QueryTerm};
use crate::store::search::searchable_text::searchable_text;
use crate::wire::error::LedgerError;
use crate::wire::part::PartBody;
use sqlx::{PgPool, Row};
use std::collections::{HashMap, HashSet};

const EXCERPTS_PER_SESSION: usize = 3;

/// A lexeme in tsquery syntax, quoted so nothing typed is read as an operator.
fn quoted(token: &str) -> String {
    format!("'{}'", token.replace('\\', "\\\\").replace('\'', "''"))
}

/// The tsquery for `terms`: every term required; a prefix term matches the indexed words it
/// begins, a run all of its bigrams.
fn tsquery(terms: &[QueryTerm]) -> String {
    let mut required = Vec::with_capacity(terms.len());
    for term in terms {
        match term {
            QueryTerm::Prefix(prefix) => required.push(format!(
                "{}:*",
                quoted(&search_text::without_diacritics(prefix))
            )),
            QueryTerm::Run(_) => {
                required.extend(term.bigrams().iter().map(|bigram| quoted(bigram)));
            }
        }
    }
    required.join(" & ")
}

/// The text a part contributes to search, from its stored JSON.
fn stored_text(data: &str) -> Option<String> {
    let body: PartBody = serde_json::from_str(data).ok()?;
    searchable_text(&body).map(str::to_string)
}

/// The same in SQL, for checking many candidates without decoding whole parts in Rust.
const STORED_TEXT: &str = "CASE WHEN p.type = 'file' THEN p.data::jsonb ->> 'filename' \
     ELSE p.data::jsonb ->> 'text' END";

/// How many of the newest matching parts are looked at to fill the requested page.
fn candidate_budget(offset: usize, limit: usize) -> i64 {
    ((offset + limit) * 25).max(500) as i64
}

/// A matching part, before its excerpt is cut.
struct Candidate {
    rowid: i64,
    message_id: String,
    part_id: String,
    field: String,
}

/// Sessions matching `query`: title matches first (best first), then sessions by their most
/// recent matching message. Each result carries up to three excerpts.
pub async fn search(pool: &PgPool, query: &SearchQuery) -> Result<Vec<SearchResult>, LedgerError> {
    if query.text.trim().is_empty() {
        return Err(LedgerError::InvalidRequest(
            "type something to search for".into(),
        ));
    }
    let terms = search_text::query_terms(&query.text);
    if terms.is_empty() {
        // Only punctuation: nothing the index holds can match.
        return Ok(Vec::new());
    }
    let check_runs = terms
        .iter()
        .any(|term| matches!(term, QueryTerm::Run(run) if run.chars().count() > 2));
    let limit = query.limit.unwrap_or(DEFAULT_RESULTS).clamp(1, 200) as usize;
    let offset = query.offset.unwrap_or(0) as usize;
    // Find-in-session steps through every matching message, not just the best three.
    let excerpts_per_session = if query.session_id.is_some() {
        limit
    } else {
        EXCERPTS_PER_SESSION
    };
    // One snapshot for every read: another server may write meanwhile.
    let mut transaction = pool
        .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        .await
        .map_err(from_postgres)?;
    // Plans made for this query's words, every time. After five runs of a prepared statement
    // Postgres may switch to a generic plan made without them, and for these statements that
    // plan scans every part's search row: 1.7–2.3 s a query at a million parts instead of
    // 18–26 ms (docs/benchmarks.md#postgresql). Planning anew costs well under a millisecond.
    sqlx::query("SET LOCAL plan_cache_mode = force_custom_plan")
        .execute(&mut *transaction)
        .await
        .map_err(from_postgres)?;
    let tsquery = tsquery(&terms);
    let filters = format!(
        "{} AND ($2::text IS NULL OR s.id = $2)",
        if query.include_archived {
            ""
        } else {
            " AND s.time_archived IS NULL"
        }
    );
    let title_rows = sqlx::query(&format!(
        "SELECT s.id AS session_id, s.title FROM title_search t \
         JOIN session s ON s.rowid = t.rowid \
         WHERE t.words @@ $1::tsquery{filters} \
         ORDER BY ts_rank(t.words, $1::tsquery) DESC, s.rowid LIMIT 200"
    ))
    .bind(&tsquery)
    .bind(query.session_id.as_deref())
    .fetch_all(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    // Scoped to one session, only its parts are candidates; otherwise the newest matches.
    let candidates = if query.session_id.is_some() {
        "SELECT rowid FROM part_search WHERE words @@ $1::tsquery \
         AND rowid IN (SELECT rowid FROM part WHERE session_id = $2) ORDER BY rowid DESC LIMIT $3"
    } else {
        "SELECT rowid FROM part_search WHERE words @@ $1::tsquery ORDER BY rowid DESC LIMIT $3"
    };
    let part_rows = sqlx::query(&format!(
        "SELECT p.rowid AS part_rowid, p.session_id, p.message_id, p.id AS part_id, \
         p.type AS field, CASE WHEN $4 THEN {STORED_TEXT} END AS text \
         FROM ({candidates}) candidate JOIN part p ON p.rowid = candidate.rowid \
         JOIN session s ON s.id = p.session_id WHERE TRUE{filters} \
         ORDER BY candidate.rowid DESC"
    ))
    .bind(&tsquery)
    .bind(query.session_id.as_deref())
    .bind(candidate_budget(offset, limit))
    .bind(check_runs)
    .fetch_all(&mut *transaction)
    .await
    .map_err(from_postgres)?;

    let mut order: Vec<String> = Vec::new();
    let mut excerpts: HashMap<String, Vec<Excerpt>> = HashMap::new();
    let mut chosen: HashMap<String, Vec<Candidate>> = HashMap::new();
    let mut texts: HashMap<i64, String> = HashMap::new();
    for row in &title_rows {
        let title: &str = row.try_get("title").map_err(from_postgres)?;
        if !search_text::runs_contiguous(title, &terms) {
            continue;
        }
        let session_id: String = row.try_get("session_id").map_err(from_postgres)?;
        if !excerpts.contains_key(&session_id) {
            order.push(session_id.clone());
        }
        excerpts.entry(session_id).or_default().push(Excerpt {
            field: "title".into(),
            message_id: None,
            part_id: None,
            pieces: excerpt(title, &terms),
        });
    }
    for row in &part_rows {
        let rowid: i64 = row.try_get("part_rowid").map_err(from_postgres)?;
        if check_runs {
            let Some(text) = row
                .try_get::<Option<String>, _>("text")
                .map_err(from_postgres)?
            else {
                continue;
            };
            if !search_text::runs_contiguous(&text, &terms) {
                continue;
            }
            texts.insert(rowid, text);
        }
        let session_id: String = row.try_get("session_id").map_err(from_postgres)?;
        if !excerpts.contains_key(&session_id) && !chosen.contains_key(&session_id) {
            order.push(session_id.clone());
        }
        let shown = excerpts.get(&session_id).map_or(0, Vec::len);
        let parts = chosen.entry(session_id.clone()).or_default();
        if shown + parts.len() < excerpts_per_session {
            parts.push(Candidate {
                rowid,
                message_id: row.try_get("message_id").map_err(from_postgres)?,
                part_id: row.try_get("part_id").map_err(from_postgres)?,
                field: row.try_get("field").map_err(from_postgres)?,
            });
        }
    }
    let page: Vec<String> = order.into_iter().skip(offset).take(limit).collect();
    // Text only for what is shown: the page's parts that were not read for checking.
    let missing: Vec<i64> = page
        .iter()
        .filter_map(|session_id| chosen.get(session_id))
        .flatten()
        .map(|candidate| candidate.rowid)
        .filter(|rowid| !texts.contains_key(rowid))
        .collect();
    if !missing.is_empty() {
        let rows = sqlx::query("SELECT rowid, data FROM part WHERE rowid = ANY($1)")
            .bind(&missing)
            .fetch_all(&mut *transaction)
            .await
            .map_err(from_postgres)?;
        for row in rows {
            let data: &str = row.try_get("data").map_err(from_postgres)?;
            if let Some(text) = stored_text(data) {
                texts.insert(row.try_get("rowid").map_err(from_postgres)?, text);
            }
        }
    }
    let mut results = Vec::with_capacity(page.len());
    let mut seen = HashSet::new();
    for session_id in page {
        if !seen.insert(session_id.clone()) {
            continue;
        }
        let Some(session) = session_store::find(&mut transaction, &session_id).await? else {
            continue;
        };
        let mut session_excerpts = excerpts.remove(&session_id).unwrap_or_default();
        for candidate in chosen.remove(&session_id).unwrap_or_default() {
            let text = texts.remove(&candidate.rowid).unwrap_or_default();
            session_excerpts.push(Excerpt {
                field: candidate.field,
                message_id: Some(candidate.message_id),
                part_id: Some(candidate.part_id),
                pieces: excerpt(&text, &terms),
            });
        }
        results.push(SearchResult {
            session,
            excerpts: session_excerpts,
        });
    }
    transaction.commit().await.map_err(from_postgres)?;
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_an_and_of_prefixes_and_bigrams_with_nothing_read_as_syntax() {
        let cases: &[(&str, &str)] = &[
            ("invoice", "'invoice':*"),
            ("Invoice March", "'invoice':* & 'march':*"),
            ("这个文件", "'这个' & '个文' & '文件'"),
            ("文", "'文':*"),
            ("o'brien", "'o':* & 'brien':*"),
            ("a & b | !c", "'a':* & 'b':* & 'c':*"),
        ];
        for (typed, expected) in cases {
            assert_eq!(
                tsquery(&search_text::query_terms(typed)),
                *expected,
                "{typed}"
            );
        }
        assert_eq!(quoted("it's\\"), "'it''s\\\\'");
    }
}
