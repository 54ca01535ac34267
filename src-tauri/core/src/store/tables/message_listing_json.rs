//! Message listings as ready-made JSON, for adapters that send them straight to a client.
//!
//! Stored rows already hold each message's JSON and each part's body JSON, so a listing is
//! assembled by SQLite and string joins instead of parsing thousands of parts into structs
//! only to serialise them again. The output is byte-identical to serialising the typed page
//! (`Ledger::messages`); a test holds the two together.
//!
//! Recent listings are kept in memory with the version of their session's messages they were
//! built from (`migrations/0007_message_listing_version.sql`: triggers move it on with every
//! write to a message or part row), and served again while that version is unchanged. The
//! version and the listing are read in one read transaction, so a kept listing is exactly the
//! messages of its version.

use crate::store::rows::message_page::MessageQuery;
use crate::store::tables::kept_listings::KeptListings;
use crate::store::tables::session_store;
use crate::store::Store;
use crate::wire::error::LedgerError;
use sqlx::{Connection, Row};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessagePageJson {
    /// A JSON array of `{info, parts}`, oldest first.
    pub json: String,
    pub next_cursor: Option<String>,
}

// Which messages the page holds: how many there are up to `limit + 1` (more than `limit` means
// older ones remain) and the oldest sequence number among the `limit` kept. Only sequence
// numbers, read from the `(session_id, seq)` index.
const PAGE_BOUNDS: &str = "WITH page AS (SELECT seq FROM message \
     WHERE session_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3) \
     SELECT (SELECT count(*) FROM page) AS fetched, \
     (SELECT min(seq) FROM (SELECT seq FROM page ORDER BY seq DESC LIMIT ?4)) AS oldest";

// The page's messages, oldest first, as ONE row: handing thousands of rows across sqlx's worker
// thread one by one costs more than SQLite's own string building.
//
// Each part is `{"id":…,"sessionID":…,"messageID":…,` followed by its stored body without the
// opening brace — exactly the field order of `Part`'s serialisation. Ids are plain ASCII
// letters and digits (see `id::validate_given`), so json_quote and serde agree on them.
//
// Why it is shaped this way (measured on 1,000 messages / 4,000 parts, 1.5 MB): each string is
// built by one `format()` instead of a chain of `||`, which copies the growing string at every
// step; and the messages are joined in the order of an ordered subquery read straight from the
// `(session_id, seq)` index, not by `group_concat(… ORDER BY seq)`, which copies every
// message's finished JSON into a sorter first. SQLite keeps an ordered subquery's order for the
// aggregate above it on purpose (it never flattens such a subquery into an aggregate: ticket
// #2942, about exactly this use of group_concat). Together: 37–48 ms became 3.6–4.3 ms. A
// message's own few parts still use the aggregate's ORDER BY, which costs little at that size.
const LISTING: &str = "SELECT format('[%s]', coalesce(group_concat(item, ','), '')) AS json FROM (\
     SELECT format('{\"info\":%s,\"parts\":[%s]}', m.data, coalesce((SELECT group_concat(\
         format('{\"id\":%s,\"sessionID\":%s,\"messageID\":%s,%s', json_quote(p.id), \
           json_quote(p.session_id), json_quote(p.message_id), substr(p.data, 2)), ',' ORDER BY p.seq) \
       FROM part p WHERE p.message_id = m.id), '')) AS item \
     FROM message m WHERE m.session_id = ?1 AND m.seq >= ?2 AND m.seq < ?3 ORDER BY m.seq)";

// A session that no message or part was ever written to has no row: version 0, which no write
// produces (the clock starts at 0 and every write first moves it on).
const VERSION: &str = "SELECT coalesce((SELECT version FROM message_listing_version \
     WHERE session_id = ?1), 0)";

/// How many listings are kept, and how many bytes of JSON at most: a few open sessions' worth
/// (1,000 messages of a text + file prompt are 1.5 MB), small beside the app's memory budget.
const KEPT_LISTINGS: usize = 8;
const KEPT_BYTES: usize = 16 * 1024 * 1024;

/// Listings already built, each under its session and page, with the version of its session's
/// messages it was built from.
pub(crate) type ListingCache = KeptListings<(String, i64, Option<i64>), MessagePageJson>;

/// The empty cache, bounded as said at `KEPT_LISTINGS`.
pub(crate) fn listing_cache() -> ListingCache {
    KeptListings::new(KEPT_LISTINGS, KEPT_BYTES, |page: &MessagePageJson| {
        page.json.len()
    })
}

impl Store {
    pub async fn messages_json(
        &self,
        session_id: &str,
        query: &MessageQuery,
    ) -> Result<MessagePageJson, LedgerError> {
        let Some(pool) = self.pool.sqlite() else {
            return self.messages_json_from_typed_page(session_id, query).await;
        };
        let mut connection = pool.acquire().await?;
        // One read transaction, so the page's bounds and its messages come from the same
        // snapshot even while a reply is being written.
        let mut transaction = connection.begin().await?;
        session_store::get(&mut transaction, session_id).await?;
        let before = query.before_seq()?;
        let limit = query.limit.filter(|limit| *limit > 0).map(i64::from);
        let version: i64 = sqlx::query_scalar(VERSION)
            .bind(session_id)
            .fetch_one(&mut *transaction)
            .await?;
        let listings = &self.upkeep.message_listings;
        let key = (session_id.to_string(), before, limit);
        if let Some(page) = listings.get(&key, version) {
            transaction.commit().await?;
            return Ok(page);
        }
        let bounds = sqlx::query(PAGE_BOUNDS)
            .bind(session_id)
            .bind(before)
            .bind(limit.map_or(-1, |limit| limit + 1))
            .bind(limit.unwrap_or(-1))
            .fetch_one(&mut *transaction)
            .await?;
        let fetched: i64 = bounds.try_get("fetched")?;
        let oldest: Option<i64> = bounds.try_get("oldest")?;
        let json = match oldest {
            Some(oldest) => {
                sqlx::query_scalar(LISTING)
                    .bind(session_id)
                    .bind(oldest)
                    .bind(before)
                    .fetch_one(&mut *transaction)
                    .await?
            }
            None => "[]".to_string(),
        };
        transaction.commit().await?;
        let has_more = limit.is_some_and(|limit| fetched > limit);
        let page = MessagePageJson {
            json,
            next_cursor: if has_more {
                oldest.map(|seq| seq.to_string())
            } else {
                None
            },
        };
        listings.keep(&key, version, &page);
        Ok(page)
    }

    /// The listing serialised from the typed page, on an engine without SQLite's JSON
    /// assembly (PostgreSQL). The same bytes by construction: the SQLite path is held to
    /// exactly this by a test.
    async fn messages_json_from_typed_page(
        &self,
        session_id: &str,
        query: &MessageQuery,
    ) -> Result<MessagePageJson, LedgerError> {
        let page = self.messages(session_id, query).await?;
        let json = serde_json::to_string(&page.messages)
            .map_err(|error| LedgerError::Corrupt(format!("message listing: {error}")))?;
        Ok(MessagePageJson {
            json,
            next_cursor: page.next_cursor,
        })
    }
}
