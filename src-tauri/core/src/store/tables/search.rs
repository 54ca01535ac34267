//! Full-text search over every session: titles, user and assistant text, reasoning and the
//! names of attachments. Results are sessions, best first, each with its best excerpts and the
//! message each excerpt comes from. How text becomes index tokens (and why) is `search_text`;
//! keeping the index in step with the ledger is `search_index` and
//! `migrations/0003_search_words.sql`; excerpts are `search_excerpt`.

use crate::store::search::search_excerpt::excerpt;
use crate::store::search::search_query::{Excerpt, SearchQuery, SearchResult, DEFAULT_RESULTS};
use crate::store::search::search_text::{self, QueryTerm};
use crate::store::search::searchable_text::searchable_text;
use crate::store::tables::session_store;
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::part::PartBody;
use sqlx::{Row, SqliteConnection};
use std::collections::{HashMap, HashSet};

const EXCERPTS_PER_SESSION: usize = 3;
/// How many indexed words a query word is widened to (`tax` → `tax`, `taxes`, `taxi`…). The
/// list is alphabetical, so a one-letter word may miss some; a longer word rarely has as many.
const WIDENED_WORDS: i64 = 64;

/// Quotes a token for an FTS5 expression, so nothing typed is read as query syntax.
fn quoted(token: &str) -> String {
    format!("\"{}\"", token.replace('"', "\"\""))
}

/// The FTS5 expression for `terms`: every term required; a prefix term is the OR of the
/// indexed words it begins (plus itself, which the index folds for accents), a run is all of its
/// bigrams. Widening through `search_word` keeps each branch an exact token, which FTS5 walks
/// newest-first and stops early; its own `word*` reads every matching doclist in full first
/// (70–150 ms for a common word on a million parts).
async fn expression(
    connection: &mut SqliteConnection,
    terms: &[QueryTerm],
) -> Result<String, LedgerError> {
    let mut required = Vec::with_capacity(terms.len());
    for term in terms {
        match term {
            QueryTerm::Prefix(prefix) => {
                let mut words: Vec<String> = sqlx::query_scalar(
                    "SELECT word FROM search_word WHERE word >= ?1 AND word < ?1 || char(1114111) \
                     ORDER BY word LIMIT ?2",
                )
                .bind(prefix)
                .bind(WIDENED_WORDS)
                .fetch_all(&mut *connection)
                .await?;
                if !words.contains(prefix) {
                    words.push(prefix.clone());
                }
                let branches: Vec<String> = words.iter().map(|word| quoted(word)).collect();
                required.push(format!("({})", branches.join(" OR ")));
            }
            QueryTerm::Run(_) => {
                required.extend(term.bigrams().iter().map(|bigram| quoted(bigram)));
            }
        }
    }
    Ok(required.join(" AND "))
}

/// The text a part contributes to search, from its stored JSON.
fn stored_text(data: &str) -> Option<String> {
    let body: PartBody = serde_json::from_str(data).ok()?;
    searchable_text(&body).map(str::to_string)
}

/// The same in SQL, for checking many candidates without decoding whole parts in Rust.
const STORED_TEXT: &str = "CASE WHEN p.type = 'file' THEN json_extract(p.data, '$.filename') \
     ELSE json_extract(p.data, '$.text') END";

/// How many of the newest matching parts are looked at to fill the requested page. Reading
/// newest-first lets FTS5 walk its doclists in rowid order and stop early, so a word that occurs
/// in half a million parts costs no more than a rare one.
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

impl Store {
    /// Sessions matching `query`: title matches first (best bm25 first), then sessions by their
    /// most recent matching message. Each result carries up to three excerpts.
    pub async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchResult>, LedgerError> {
        #[cfg(feature = "postgres")]
        if let crate::store::Pool::Postgres(pool) = &self.pool {
            return crate::store::postgres::search::search(pool, query).await;
        }
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
        // The index cannot tell whether a run's bigrams sit next to each other; then the
        // candidates' text is read and checked.
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
        let mut connection = self.sqlite_pool("Search")?.acquire().await?;
        let expression = expression(&mut connection, &terms).await?;
        // Both filters are always in the statement so it binds the same values either way.
        let filters = format!(
            "{} AND (?2 IS NULL OR s.id = ?2)",
            if query.include_archived {
                ""
            } else {
                " AND s.time_archived IS NULL"
            }
        );
        let title_rows = sqlx::query(&format!(
            "SELECT s.id AS session_id, s.title FROM title_search \
             JOIN session s ON s.rowid = title_search.rowid \
             WHERE title_search MATCH ?1{filters} ORDER BY rank LIMIT 200"
        ))
        .bind(&expression)
        .bind(query.session_id.as_deref())
        .fetch_all(&mut *connection)
        .await?;
        // Scoped to one session, only its parts are candidates; otherwise the newest matches.
        let candidates = if query.session_id.is_some() {
            "SELECT rowid FROM part_search WHERE part_search MATCH ?1 AND rowid IN (SELECT rowid FROM part WHERE session_id = ?2) ORDER BY rowid DESC LIMIT ?3"
        } else {
            "SELECT rowid FROM part_search WHERE part_search MATCH ?1 ORDER BY rowid DESC LIMIT ?3"
        };
        let part_rows = sqlx::query(&format!(
            "SELECT p.rowid AS part_rowid, p.session_id, p.message_id, p.id AS part_id, p.type AS field, \
             CASE WHEN ?4 THEN {STORED_TEXT} END AS text \
             FROM ({candidates}) candidate JOIN part p ON p.rowid = candidate.rowid \
             JOIN session s ON s.id = p.session_id WHERE 1 = 1{filters} ORDER BY candidate.rowid DESC"
        ))
        .bind(&expression)
        .bind(query.session_id.as_deref())
        .bind(candidate_budget(offset, limit))
        .bind(check_runs)
        .fetch_all(&mut *connection)
        .await?;

        let mut order: Vec<String> = Vec::new();
        let mut excerpts: HashMap<String, Vec<Excerpt>> = HashMap::new();
        let mut chosen: HashMap<String, Vec<Candidate>> = HashMap::new();
        let mut texts: HashMap<i64, String> = HashMap::new();
        for row in &title_rows {
            let title: &str = row.try_get("title")?;
            if !search_text::runs_contiguous(title, &terms) {
                continue;
            }
            let session_id: String = row.try_get("session_id")?;
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
            let rowid: i64 = row.try_get("part_rowid")?;
            if check_runs {
                let Some(text) = row.try_get::<Option<String>, _>("text")? else {
                    continue;
                };
                if !search_text::runs_contiguous(&text, &terms) {
                    continue;
                }
                texts.insert(rowid, text);
            }
            let session_id: String = row.try_get("session_id")?;
            if !excerpts.contains_key(&session_id) && !chosen.contains_key(&session_id) {
                order.push(session_id.clone());
            }
            let shown = excerpts.get(&session_id).map_or(0, Vec::len);
            let parts = chosen.entry(session_id.clone()).or_default();
            if shown + parts.len() < excerpts_per_session {
                parts.push(Candidate {
                    rowid,
                    message_id: row.try_get("message_id")?,
                    part_id: row.try_get("part_id")?,
                    field: row.try_get("field")?,
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
            let rowids = serde_json::to_string(&missing)
                .map_err(|error| LedgerError::Corrupt(format!("search rowids: {error}")))?;
            let rows = sqlx::query(
                "SELECT rowid, data FROM part WHERE rowid IN (SELECT value FROM json_each(?))",
            )
            .bind(rowids)
            .fetch_all(&mut *connection)
            .await?;
            for row in rows {
                if let Some(text) = stored_text(row.try_get("data")?) {
                    texts.insert(row.try_get("rowid")?, text);
                }
            }
        }
        let mut results = Vec::with_capacity(page.len());
        let mut seen = HashSet::new();
        for session_id in page {
            if !seen.insert(session_id.clone()) {
                continue;
            }
            let Some(session) = session_store::find(&mut connection, &session_id).await? else {
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
        Ok(results)
    }
}
