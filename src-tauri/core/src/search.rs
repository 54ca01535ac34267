//! Full-text search over every session: titles, user and assistant text, reasoning and the
//! names of attachments. Results are sessions, best first, each with its best excerpts and the
//! message each excerpt comes from. The index itself (FTS5, trigram) and the triggers that keep
//! it in step with the ledger live in `migrations/0002_search.sql`.

use crate::error::LedgerError;
use crate::ledger::Ledger;
use crate::session::Session;
use crate::session_store;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use std::collections::HashMap;
use ts_rs::TS;

pub const DEFAULT_RESULTS: u32 = 20;
const EXCERPTS_PER_SESSION: usize = 3;
/// Highlight markers inside snippets; control characters never appear in indexed text we show.
const MARK_START: char = '\u{1}';
const MARK_END: char = '\u{2}';
/// snippet()'s length is counted in tokens, and a trigram token starts at every character: the
/// most it allows (64) is about a line of text. Fewer left excerpts like "…d periwinkle: …".
const SNIPPET_TOKENS: u32 = 64;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SearchQuery {
    pub text: String,
    /// How many sessions to return; within one session (`sessionID`), how many excerpts.
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// How many sessions of results to skip (pages of `limit`).
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    #[serde(default)]
    pub include_archived: bool,
    /// Only this session (find within the open session, loaded or not).
    #[serde(rename = "sessionID")]
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SearchResult {
    pub session: Session,
    pub excerpts: Vec<Excerpt>,
}

/// Where a match was found, and the text around it split into plain and highlighted pieces so
/// a UI can mark them up without ever interpreting the text as HTML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Excerpt {
    /// `title`, `text`, `reasoning` or `file`.
    pub field: String,
    #[serde(rename = "messageID")]
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(rename = "partID")]
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_id: Option<String>,
    pub pieces: Vec<ExcerptPiece>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ExcerptPiece {
    pub text: String,
    pub highlighted: bool,
}

/// How a query is asked of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Matcher {
    /// Every word of three or more characters as a quoted phrase, all required.
    Fts(String),
    /// Only short words (a two-character Chinese word, say): a LIKE pattern over indexed text.
    Like(String),
}

/// Turns what a person typed into an FTS5 expression, or a LIKE pattern when no word is long
/// enough for trigrams. Quotes are doubled so nothing typed is read as query syntax.
pub fn matcher_for(text: &str) -> Option<Matcher> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return None;
    }
    let long: Vec<String> = words
        .iter()
        .filter(|word| word.chars().count() >= 3)
        .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
        .collect();
    if long.is_empty() {
        let joined = words.join(" ");
        let escaped = joined
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        return Some(Matcher::Like(format!("%{escaped}%")));
    }
    Some(Matcher::Fts(long.join(" AND ")))
}

/// Splits a snippet with highlight markers into pieces.
pub fn pieces_of(snippet: &str) -> Vec<ExcerptPiece> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut highlighted = false;
    for symbol in snippet.chars() {
        if symbol == MARK_START || symbol == MARK_END {
            if !current.is_empty() {
                pieces.push(ExcerptPiece {
                    text: std::mem::take(&mut current),
                    highlighted,
                });
            }
            highlighted = symbol == MARK_START;
        } else {
            current.push(symbol);
        }
    }
    if !current.is_empty() {
        pieces.push(ExcerptPiece {
            text: current,
            highlighted,
        });
    }
    pieces
}

/// For LIKE matches there is no snippet(): cut a window around the first occurrence ourselves.
fn like_excerpt(body: &str, needle: &str) -> Vec<ExcerptPiece> {
    let lower_body = body.to_lowercase();
    let lower_needle = needle.to_lowercase();
    let Some(start) = lower_body
        .find(&lower_needle)
        .filter(|_| lower_body.len() == body.len())
    else {
        return vec![ExcerptPiece {
            text: body.chars().take(120).collect(),
            highlighted: false,
        }];
    };
    let end = start + needle.len();
    let before: String = body[..start]
        .chars()
        .rev()
        .take(40)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let after: String = body[end..].chars().take(60).collect();
    let mut pieces = Vec::new();
    if !before.is_empty() {
        pieces.push(ExcerptPiece {
            text: before,
            highlighted: false,
        });
    }
    pieces.push(ExcerptPiece {
        text: body[start..end].to_string(),
        highlighted: true,
    });
    if !after.is_empty() {
        pieces.push(ExcerptPiece {
            text: after,
            highlighted: false,
        });
    }
    pieces
}

/// How many of the newest matching parts are looked at to fill the requested page. Reading
/// newest-first lets FTS5 walk its doclists in rowid order and stop early, so a word that occurs
/// in half a million parts costs no more than a rare one.
fn candidate_budget(offset: usize, limit: usize) -> i64 {
    ((offset + limit) * 25).max(500) as i64
}

impl Ledger {
    /// Sessions matching `query`: title matches first (best bm25 first), then sessions by their
    /// most recent matching message. Each result carries up to three excerpts.
    pub async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchResult>, LedgerError> {
        let Some(matcher) = matcher_for(&query.text) else {
            return Err(LedgerError::InvalidRequest(
                "type something to search for".into(),
            ));
        };
        let limit = query.limit.unwrap_or(DEFAULT_RESULTS).clamp(1, 200) as usize;
        let offset = query.offset.unwrap_or(0) as usize;
        // Find-in-session steps through every matching message, not just the best three.
        let excerpts_per_session = if query.session_id.is_some() {
            limit
        } else {
            EXCERPTS_PER_SESSION
        };
        // Both filters are always in the statement so it binds the same values either way.
        let filters = format!(
            "{} AND (?2 IS NULL OR s.id = ?2)",
            if query.include_archived {
                ""
            } else {
                " AND s.time_archived IS NULL"
            }
        );
        let (title_condition, part_condition, argument) = match &matcher {
            Matcher::Fts(expression) => (
                "title_search MATCH ?1",
                "part_search MATCH ?1",
                expression.clone(),
            ),
            Matcher::Like(pattern) => (
                "title_search.title LIKE ?1 ESCAPE '\\'",
                "part_search.body LIKE ?1 ESCAPE '\\'",
                pattern.clone(),
            ),
        };
        let title_order = if matches!(matcher, Matcher::Fts(_)) {
            "ORDER BY rank"
        } else {
            "ORDER BY s.time_updated DESC"
        };
        let title_rows = sqlx::query(&format!(
            "SELECT s.id AS session_id, title_search.title AS body, \
             snippet(title_search, 0, char(1), char(2), '…', {SNIPPET_TOKENS}) AS snippet \
             FROM title_search JOIN session s ON s.rowid = title_search.rowid \
             WHERE {title_condition}{filters} {title_order} LIMIT 200"
        ))
        .bind(&argument)
        .bind(query.session_id.as_deref())
        .fetch_all(&self.pool)
        .await?;
        // Scoped to one session, only its parts are candidates; otherwise the newest matches.
        let candidates = if query.session_id.is_some() {
            format!("SELECT rowid FROM part_search WHERE {part_condition} AND rowid IN (SELECT rowid FROM part WHERE session_id = ?2) ORDER BY rowid DESC LIMIT ?3")
        } else {
            format!(
                "SELECT rowid FROM part_search WHERE {part_condition} ORDER BY rowid DESC LIMIT ?3"
            )
        };
        let part_rows = sqlx::query(&format!(
            "SELECT p.rowid AS part_rowid, p.session_id, p.message_id, p.id AS part_id, p.type AS field \
             FROM ({candidates}) candidate JOIN part p ON p.rowid = candidate.rowid \
             JOIN session s ON s.id = p.session_id WHERE 1 = 1{filters} ORDER BY candidate.rowid DESC"
        ))
        .bind(&argument)
        .bind(query.session_id.as_deref())
        .bind(candidate_budget(offset, limit))
        .fetch_all(&self.pool)
        .await?;

        let mut order: Vec<String> = Vec::new();
        let mut excerpts: HashMap<String, Vec<Excerpt>> = HashMap::new();
        let mut wanted_rowids: Vec<(i64, String, String)> = Vec::new();
        let needle = query.text.trim().to_string();
        for row in &title_rows {
            let session_id: String = row.try_get("session_id")?;
            let pieces = match matcher {
                Matcher::Fts(_) => pieces_of(row.try_get::<&str, _>("snippet")?),
                Matcher::Like(_) => like_excerpt(row.try_get::<&str, _>("body")?, &needle),
            };
            if !excerpts.contains_key(&session_id) {
                order.push(session_id.clone());
            }
            excerpts.entry(session_id).or_default().push(Excerpt {
                field: "title".into(),
                message_id: None,
                part_id: None,
                pieces,
            });
        }
        for row in &part_rows {
            let session_id: String = row.try_get("session_id")?;
            let entry = excerpts.entry(session_id.clone()).or_insert_with(|| {
                order.push(session_id.clone());
                Vec::new()
            });
            if entry.len() < excerpts_per_session {
                let part_id: String = row.try_get("part_id")?;
                entry.push(Excerpt {
                    field: row.try_get("field")?,
                    message_id: Some(row.try_get("message_id")?),
                    part_id: Some(part_id.clone()),
                    pieces: Vec::new(),
                });
                wanted_rowids.push((row.try_get("part_rowid")?, part_id, session_id.clone()));
            }
        }
        let page: Vec<String> = order.into_iter().skip(offset).take(limit).collect();
        let on_page: std::collections::HashSet<&str> = page.iter().map(String::as_str).collect();
        let wanted: Vec<i64> = wanted_rowids
            .iter()
            .filter(|(_, _, session_id)| on_page.contains(session_id.as_str()))
            .map(|(rowid, _, _)| *rowid)
            .collect();
        // Excerpts only for what is shown: snippet() is the expensive part of a search.
        let mut snippets: HashMap<i64, Vec<ExcerptPiece>> = HashMap::new();
        if !wanted.is_empty() {
            let rowids = serde_json::to_string(&wanted).unwrap_or_else(|_| "[]".into());
            let snippet_statement = format!(
                "SELECT rowid, snippet(part_search, 0, char(1), char(2), '…', {SNIPPET_TOKENS}) AS text FROM part_search \
                 WHERE part_search MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))"
            );
            let rows = match matcher {
                Matcher::Fts(_) => sqlx::query(&snippet_statement),
                Matcher::Like(_) => sqlx::query(
                    "SELECT rowid, body AS text FROM part_search WHERE ?1 IS NOT NULL AND rowid IN (SELECT value FROM json_each(?2))",
                ),
            }
            .bind(&argument)
            .bind(rowids)
            .fetch_all(&self.pool)
            .await?;
            for row in rows {
                let text: &str = row.try_get("text")?;
                let pieces = match matcher {
                    Matcher::Fts(_) => pieces_of(text),
                    Matcher::Like(_) => like_excerpt(text, &needle),
                };
                snippets.insert(row.try_get("rowid")?, pieces);
            }
        }
        let by_part: HashMap<String, i64> = wanted_rowids
            .into_iter()
            .map(|(rowid, part_id, _)| (part_id, rowid))
            .collect();
        let mut results = Vec::with_capacity(page.len());
        let mut connection = self.pool.acquire().await?;
        for session_id in page {
            let Some(session) = session_store::find(&mut connection, &session_id).await? else {
                continue;
            };
            let mut session_excerpts = excerpts.remove(&session_id).unwrap_or_default();
            for excerpt in &mut session_excerpts {
                if let Some(rowid) = excerpt
                    .part_id
                    .as_ref()
                    .and_then(|part_id| by_part.get(part_id))
                {
                    excerpt.pieces = snippets.remove(rowid).unwrap_or_default();
                }
            }
            results.push(SearchResult {
                session,
                excerpts: session_excerpts,
            });
        }
        Ok(results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_become_quoted_phrases_or_like_patterns() {
        assert_eq!(
            matcher_for("tax return"),
            Some(Matcher::Fts("\"tax\" AND \"return\"".into()))
        );
        assert_eq!(
            matcher_for("say \"hi\" now"),
            Some(Matcher::Fts(
                "\"say\" AND \"\"\"hi\"\"\" AND \"now\"".into()
            ))
        );
        assert_eq!(matcher_for("a tax"), Some(Matcher::Fts("\"tax\"".into())));
        assert_eq!(matcher_for("文件"), Some(Matcher::Like("%文件%".into())));
        assert_eq!(matcher_for("5%"), Some(Matcher::Like("%5\\%%".into())));
        assert_eq!(matcher_for("   "), None);
    }

    #[test]
    fn snippets_split_into_highlighted_pieces() {
        let pieces = pieces_of("…the \u{1}tax\u{2} return");
        assert_eq!(
            pieces,
            vec![
                ExcerptPiece {
                    text: "…the ".into(),
                    highlighted: false
                },
                ExcerptPiece {
                    text: "tax".into(),
                    highlighted: true
                },
                ExcerptPiece {
                    text: " return".into(),
                    highlighted: false
                },
            ]
        );
    }
}
