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
// letters and digits (see `id::validate_given`), so json_quote and serde agree on them. The
// whole page comes back as ONE row: handing thousands of rows across sqlx's worker thread one
// by one costs more than SQLite's own string building.
const LISTING: &str = "WITH page AS (SELECT m.id, m.seq, m.data FROM message m \
     WHERE m.session_id = ?1 AND m.seq < ?2 ORDER BY m.seq DESC LIMIT ?3), \
     kept AS (SELECT id, seq, data FROM page ORDER BY seq DESC LIMIT ?4) \
     SELECT (SELECT count(*) FROM page) AS fetched, (SELECT min(seq) FROM kept) AS oldest, \
     '[' || coalesce((SELECT group_concat('{\"info\":' || k.data || ',\"parts\":' || \
       (SELECT '[' || coalesce(group_concat(\
         '{\"id\":' || json_quote(p.id) || ',\"sessionID\":' || json_quote(p.session_id) || \
         ',\"messageID\":' || json_quote(p.message_id) || ',' || substr(p.data, 2), ',' ORDER BY p.seq), '') || ']' \
        FROM part p WHERE p.message_id = k.id) || '}', ',' ORDER BY k.seq) FROM kept k), '') || ']' AS json";

impl Ledger {
    pub async fn messages_json(
        &self,
        session_id: &str,
        query: &MessageQuery,
    ) -> Result<MessagePageJson, LedgerError> {
        let mut connection = self.pool.acquire().await?;
        session_store::get(&mut connection, session_id).await?;
        let before = query.before_seq()?;
        let limit = query.limit.filter(|limit| *limit > 0).map(i64::from);
        let row = sqlx::query(LISTING)
            .bind(session_id)
            .bind(before)
            .bind(limit.map_or(-1, |limit| limit + 1))
            .bind(limit.unwrap_or(-1))
            .fetch_one(&mut *connection)
            .await?;
        let fetched: i64 = row.try_get("fetched")?;
        let oldest: Option<i64> = row.try_get("oldest")?;
        let json: String = row.try_get("json")?;
        let has_more = limit.is_some_and(|limit| fetched > limit);
        Ok(MessagePageJson {
            json,
            next_cursor: if has_more {
                oldest.map(|seq| seq.to_string())
            } else {
                None
            },
        })
    }
}
