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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SearchQuery {
    pub text: String,
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

struct Hit {
    session_id: String,
    score: f64,
    excerpt: Excerpt,
}

impl Ledger {
    pub async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchResult>, LedgerError> {
        let Some(matcher) = matcher_for(&query.text) else {
            return Err(LedgerError::InvalidRequest(
                "type something to search for".into(),
            ));
        };
        let limit = query.limit.unwrap_or(DEFAULT_RESULTS).clamp(1, 200) as usize;
        let offset = query.offset.unwrap_or(0) as usize;
        let mut archived = if query.include_archived {
            String::new()
        } else {
            " AND s.time_archived IS NULL".to_string()
        };
        // Always present so the statement binds the same two values either way.
        archived.push_str(" AND (?2 IS NULL OR s.id = ?2)");
        let snippet_part = "snippet(part_search, 0, char(1), char(2), '…', 12)";
        let snippet_title = "snippet(title_search, 0, char(1), char(2), '…', 12)";
        let (part_sql, title_sql, argument) = match &matcher {
            Matcher::Fts(expression) => (
                format!("SELECT p.session_id, p.message_id, p.id AS part_id, p.type AS field, bm25(part_search) AS score, {snippet_part} AS excerpt \
                         FROM part_search JOIN part p ON p.rowid = part_search.rowid JOIN session s ON s.id = p.session_id \
                         WHERE part_search MATCH ?1{archived} ORDER BY score LIMIT 2000"),
                format!("SELECT s.id AS session_id, NULL AS message_id, NULL AS part_id, 'title' AS field, bm25(title_search) * 4.0 AS score, {snippet_title} AS excerpt \
                         FROM title_search JOIN session s ON s.rowid = title_search.rowid WHERE title_search MATCH ?1{archived} ORDER BY score LIMIT 500"),
                expression.clone(),
            ),
            Matcher::Like(pattern) => (
                format!("SELECT p.session_id, p.message_id, p.id AS part_id, p.type AS field, 0.0 AS score, part_search.body AS excerpt \
                         FROM part_search JOIN part p ON p.rowid = part_search.rowid JOIN session s ON s.id = p.session_id \
                         WHERE part_search.body LIKE ?1 ESCAPE '\\'{archived} ORDER BY s.time_updated DESC LIMIT 2000"),
                format!("SELECT s.id AS session_id, NULL AS message_id, NULL AS part_id, 'title' AS field, -1.0 AS score, title_search.title AS excerpt \
                         FROM title_search JOIN session s ON s.rowid = title_search.rowid WHERE title_search.title LIKE ?1 ESCAPE '\\'{archived} LIMIT 500"),
                pattern.clone(),
            ),
        };
        let needle = query.text.trim().to_string();
        let mut hits = Vec::new();
        for sql in [title_sql, part_sql] {
            let rows = sqlx::query(&sql)
                .bind(&argument)
                .bind(query.session_id.as_deref())
                .fetch_all(&self.pool)
                .await?;
            for row in rows {
                let excerpt_text: String = row.try_get("excerpt")?;
                let pieces = match matcher {
                    Matcher::Fts(_) => pieces_of(&excerpt_text),
                    Matcher::Like(_) => like_excerpt(&excerpt_text, &needle),
                };
                hits.push(Hit {
                    session_id: row.try_get("session_id")?,
                    score: row.try_get("score")?,
                    excerpt: Excerpt {
                        field: row.try_get("field")?,
                        message_id: row.try_get("message_id")?,
                        part_id: row.try_get("part_id")?,
                        pieces,
                    },
                });
            }
        }
        // Best (lowest bm25) first; sessions ranked by their best hit, then by recency in SQL.
        let mut order: Vec<String> = Vec::new();
        let mut grouped: HashMap<String, (f64, Vec<Excerpt>)> = HashMap::new();
        hits.sort_by(|left, right| left.score.total_cmp(&right.score));
        for hit in hits {
            let entry = grouped.entry(hit.session_id.clone()).or_insert_with(|| {
                order.push(hit.session_id.clone());
                (hit.score, Vec::new())
            });
            if entry.1.len() < EXCERPTS_PER_SESSION {
                entry.1.push(hit.excerpt);
            }
        }
        let mut results = Vec::new();
        let mut connection = self.pool.acquire().await?;
        for session_id in order.into_iter().skip(offset).take(limit) {
            let Some(session) = session_store::find(&mut connection, &session_id).await? else {
                continue;
            };
            let excerpts = grouped
                .remove(&session_id)
                .map(|(_, excerpts)| excerpts)
                .unwrap_or_default();
            results.push(SearchResult { session, excerpts });
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
