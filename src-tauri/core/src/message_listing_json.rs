//! Message listings as ready-made JSON, for adapters that send them straight to a client.
//!
//! Stored rows already hold each message's JSON and each part's body JSON, so a listing is
//! assembled by SQLite and string joins instead of parsing thousands of parts into structs
//! only to serialise them again. The output is byte-identical to serialising the typed page
//! (`Ledger::messages`); a test holds the two together.

use crate::error::LedgerError;
use crate::ledger::Ledger;
use crate::message_store::MessageQuery;
use crate::session_store;
use sqlx::Row;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessagePageJson {
    /// A JSON array of `{info, parts}`, oldest first.
    pub json: String,
    pub next_cursor: Option<String>,
}

// Each part is `{"id":…,"sessionID":…,"messageID":…,` followed by its stored body without the
// opening brace — exactly the field order of `Part`'s serialisation. Ids are plain ASCII
// letters and digits (see `id::validate_given`), so json_quote and serde agree on them.
const LISTING: &str = "SELECT m.seq AS seq, m.data AS data, \
     (SELECT '[' || coalesce(group_concat(\
         '{\"id\":' || json_quote(p.id) || ',\"sessionID\":' || json_quote(p.session_id) || \
         ',\"messageID\":' || json_quote(p.message_id) || ',' || substr(p.data, 2), ',' ORDER BY p.seq), '') || ']' \
      FROM part p WHERE p.message_id = m.id) AS parts \
     FROM message m WHERE m.session_id = ? AND m.seq < ? ORDER BY m.seq DESC LIMIT ?";

impl Ledger {
    pub async fn messages_json(
        &self,
        session_id: &str,
        query: &MessageQuery,
    ) -> Result<MessagePageJson, LedgerError> {
        let mut connection = self.pool.acquire().await?;
        session_store::get(&mut connection, session_id).await?;
        let before = match &query.before {
            Some(cursor) => cursor.parse::<i64>().map_err(|_| {
                LedgerError::InvalidRequest(format!(
                    "\"{cursor}\" is not a message cursor from this server"
                ))
            })?,
            None => i64::MAX,
        };
        let limit = query.limit.filter(|limit| *limit > 0).map(i64::from);
        let mut rows = sqlx::query(LISTING)
            .bind(session_id)
            .bind(before)
            .bind(limit.map_or(-1, |limit| limit + 1))
            .fetch_all(&mut *connection)
            .await?;
        let has_more = limit.is_some_and(|limit| rows.len() as i64 > limit);
        if let Some(limit) = limit {
            rows.truncate(limit as usize);
        }
        let mut json = String::with_capacity(
            rows.iter()
                .map(|row| row.try_get::<&str, _>("parts").map_or(0, str::len) + 512)
                .sum::<usize>()
                + 2,
        );
        json.push('[');
        let mut oldest_seq = None;
        for (index, row) in rows.iter().rev().enumerate() {
            if index > 0 {
                json.push(',');
            }
            if index == 0 {
                oldest_seq = Some(row.try_get::<i64, _>("seq")?);
            }
            json.push_str("{\"info\":");
            json.push_str(row.try_get::<&str, _>("data")?);
            json.push_str(",\"parts\":");
            json.push_str(row.try_get::<&str, _>("parts")?);
            json.push('}');
        }
        json.push(']');
        Ok(MessagePageJson {
            json,
            next_cursor: if has_more {
                oldest_seq.map(|seq| seq.to_string())
            } else {
                None
            },
        })
    }
}
