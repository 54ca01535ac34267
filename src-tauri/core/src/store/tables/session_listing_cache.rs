//! Session listings kept in memory with the tick of the listing clock they were built at
//! (`migrations/0010_session_listing_clock.sql`: triggers move it with every change to a column
//! a listing shows), and served again while the clock has not moved. Confirming that costs one
//! statement, where building a page of a hundred sessions cost most of a listing's time
//! (docs/benchmarks.md). SQLite only: on PostgreSQL each listing is built.

use crate::store::rows::session_page::{SessionPage, SessionQuery};
use crate::store::tables::kept_listings::KeptListings;
use crate::store::tables::session_store;
use crate::store::Store;
use crate::wire::error::LedgerError;

/// How many listings are kept: the sidebar's pages, its pinned sessions and a search or two;
/// and how many sessions in all (a page may hold up to `MAX_PAGE`, a session about a kilobyte),
/// so the memory kept stays a couple of megabytes.
const KEPT_LISTINGS: usize = 8;
const KEPT_SESSIONS: usize = 2_000;

pub(crate) type SessionListingCache = KeptListings<SessionQuery, SessionPage>;

/// The empty cache, bounded as said at `KEPT_LISTINGS`.
pub(crate) fn session_listing_cache() -> SessionListingCache {
    KeptListings::new(KEPT_LISTINGS, KEPT_SESSIONS, |page: &SessionPage| {
        page.sessions.len()
    })
}

impl Store {
    /// A page of sessions, newest first; on SQLite the kept one while nothing it shows changed.
    pub async fn sessions(&self, query: &SessionQuery) -> Result<SessionPage, LedgerError> {
        if self.pool.sqlite().is_none() {
            return session_store::list(&self.pool, query).await;
        }
        // The store's connection, not one from the pool: a listing kept in memory costs one
        // hand-off to the connection's thread, and the pool's hand-back would add one more
        // (`connection_shelf`).
        let mut pooled = self.connection().await?;
        let Some(connection) = pooled.sqlite() else {
            return session_store::list(&self.pool, query).await;
        };
        let listings = &self.upkeep.session_listings;
        let known = listings.version_of(query);
        let (tick, page) = session_store::list_unless_unchanged(connection, query, known).await?;
        if let Some(page) = page {
            listings.keep(query, tick, &page);
            return Ok(page);
        }
        if let Some(page) = listings.get(query, tick) {
            return Ok(page);
        }
        // Dropped from memory between the two looks (another query's listing took its place).
        let (tick, page) = session_store::list_unless_unchanged(connection, query, None).await?;
        let page =
            page.ok_or_else(|| LedgerError::Corrupt("session listing: no page came back".into()))?;
        listings.keep(query, tick, &page);
        Ok(page)
    }
}
