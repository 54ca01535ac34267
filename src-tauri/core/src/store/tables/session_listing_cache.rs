//! Session listings kept in memory with the tick of the listing clock they were built at
//! (`migrations/0010_session_listing_clock.sql`: triggers move it with every change to a column
//! a listing shows), and served again while the clock has not moved. Confirming that costs one
//! statement, where building a page of a hundred sessions cost most of a listing's time
//! (docs/benchmarks.md). SQLite only: on PostgreSQL each listing is built.

use crate::store::rows::session_page::{SessionPage, SessionQuery};
use crate::store::tables::session_store;
use crate::store::Store;
use crate::wire::error::LedgerError;
use std::sync::{Mutex, PoisonError};

/// How many listings are kept: the sidebar's pages, its pinned sessions and a search or two;
/// and how many sessions in all (a page may hold up to `MAX_PAGE`, a session about a kilobyte),
/// so the memory kept stays a couple of megabytes.
const KEPT_LISTINGS: usize = 8;
const KEPT_SESSIONS: usize = 2_000;

#[derive(Default)]
pub(crate) struct SessionListingCache {
    kept: Mutex<Vec<KeptListing>>,
}

struct KeptListing {
    query: SessionQuery,
    tick: i64,
    page: SessionPage,
    /// When it was last served or built (a counter), for dropping the least recently used.
    used: u64,
}

impl SessionListingCache {
    fn tick_of(&self, query: &SessionQuery) -> Option<i64> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.iter()
            .find(|listing| listing.query == *query)
            .map(|listing| listing.tick)
    }

    fn get(&self, query: &SessionQuery, tick: i64) -> Option<SessionPage> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let now = kept.iter().map(|listing| listing.used).max().unwrap_or(0) + 1;
        let listing = kept
            .iter_mut()
            .find(|listing| listing.query == *query && listing.tick == tick)?;
        listing.used = now;
        Some(listing.page.clone())
    }

    fn keep(&self, query: &SessionQuery, tick: i64, page: &SessionPage) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let now = kept.iter().map(|listing| listing.used).max().unwrap_or(0) + 1;
        // One entry per query; a page built at an older tick than the kept one (two readers
        // racing a write) does not replace it.
        if let Some(index) = kept.iter().position(|listing| listing.query == *query) {
            if kept[index].tick > tick {
                return;
            }
            kept.swap_remove(index);
        }
        kept.push(KeptListing {
            query: query.clone(),
            tick,
            page: page.clone(),
            used: now,
        });
        while kept.len() > KEPT_LISTINGS
            || kept
                .iter()
                .map(|listing| listing.page.sessions.len())
                .sum::<usize>()
                > KEPT_SESSIONS
        {
            let Some(oldest) = kept
                .iter()
                .enumerate()
                .min_by_key(|(_, listing)| listing.used)
                .map(|(index, _)| index)
            else {
                break;
            };
            kept.swap_remove(oldest);
        }
    }
}

impl Store {
    /// A page of sessions, newest first; on SQLite the kept one while nothing it shows changed.
    pub async fn sessions(&self, query: &SessionQuery) -> Result<SessionPage, LedgerError> {
        let Some(pool) = self.pool.sqlite() else {
            return session_store::list(&self.pool, query).await;
        };
        let listings = &self.upkeep.session_listings;
        let known = listings.tick_of(query);
        let (tick, page) = session_store::list_unless_unchanged(pool, query, known).await?;
        if let Some(page) = page {
            listings.keep(query, tick, &page);
            return Ok(page);
        }
        if let Some(page) = listings.get(query, tick) {
            return Ok(page);
        }
        // Dropped from memory between the two looks (another query's listing took its place).
        let (tick, page) = session_store::list_unless_unchanged(pool, query, None).await?;
        let page =
            page.ok_or_else(|| LedgerError::Corrupt("session listing: no page came back".into()))?;
        listings.keep(query, tick, &page);
        Ok(page)
    }
}
