//! Listings kept in memory, each under its query and the version of the rows it was built from,
//! and served again only while the database still reads that version. Both the message listings
//! (`message_listing_json`: a per-session version) and the session listings
//! (`session_listing_cache`: the listing clock) keep theirs here. Bounded twice: a number of
//! listings, and a weight in all (bytes of JSON, or sessions), the least recently used dropped
//! first.

use std::sync::{Mutex, PoisonError};

pub(crate) struct KeptListings<Query, Page> {
    kept: Mutex<Vec<Kept<Query, Page>>>,
    most_listings: usize,
    most_weight: usize,
    weight: fn(&Page) -> usize,
}

struct Kept<Query, Page> {
    query: Query,
    version: i64,
    page: Page,
    /// When it was last served or built (a counter), for dropping the least recently used.
    used: u64,
}

impl<Query: PartialEq + Clone, Page: Clone> KeptListings<Query, Page> {
    pub(crate) fn new(
        most_listings: usize,
        most_weight: usize,
        weight: fn(&Page) -> usize,
    ) -> Self {
        Self {
            kept: Mutex::new(Vec::new()),
            most_listings,
            most_weight,
            weight,
        }
    }

    /// The version the listing kept for `query` was built from, if one is kept.
    pub(crate) fn version_of(&self, query: &Query) -> Option<i64> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.iter()
            .find(|listing| listing.query == *query)
            .map(|listing| listing.version)
    }

    /// The listing kept for `query`, if it was built from `version`.
    pub(crate) fn get(&self, query: &Query, version: i64) -> Option<Page> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let now = kept.iter().map(|listing| listing.used).max().unwrap_or(0) + 1;
        let listing = kept
            .iter_mut()
            .find(|listing| listing.query == *query && listing.version == version)?;
        listing.used = now;
        Some(listing.page.clone())
    }

    pub(crate) fn keep(&self, query: &Query, version: i64, page: &Page) {
        if (self.weight)(page) > self.most_weight {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let now = kept.iter().map(|listing| listing.used).max().unwrap_or(0) + 1;
        // One entry per query; a listing built from an older version than the kept one (two
        // readers racing a write) does not replace it.
        if let Some(index) = kept.iter().position(|listing| listing.query == *query) {
            if kept[index].version > version {
                return;
            }
            kept.swap_remove(index);
        }
        kept.push(Kept {
            query: query.clone(),
            version,
            page: page.clone(),
            used: now,
        });
        let weight = self.weight;
        while kept.len() > self.most_listings
            || kept
                .iter()
                .map(|listing| weight(&listing.page))
                .sum::<usize>()
                > self.most_weight
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
