//! Which server replies in a session, on a database several servers share (the behaviour is
//! `reply::reply_lease`; the SQL `postgres::reply_lease`). On SQLite one process has the ledger:
//! every run may reply, nobody else holds anything, and these answer so without a statement.

use crate::store::{Pool, Store};
use crate::wire::error::LedgerError;
use sqlx::PgPool;
use std::time::Duration;

pub use crate::store::postgres::reply_lease::DEFAULT_LEASE;

/// The database, this server's name in it and the lease's length, when several servers may
/// share the ledger.
fn shared(store: &Store) -> Option<(&PgPool, &str, Duration)> {
    let shared = store.shared()?;
    match &store.pool {
        Pool::Postgres(pool) => Some((pool, shared.owner.as_str(), shared.reply_lease)),
        Pool::Sqlite(_) => None,
    }
}

/// Whether this process may reply in the session now: true when it took the lease, or when the
/// ledger is not shared; false while another server (or this one's sweep) holds it.
pub async fn take(store: &Store, session_id: &str) -> Result<bool, LedgerError> {
    match shared(store) {
        Some((pool, owner, duration)) => {
            super::postgres::reply_lease::take(pool, session_id, owner, duration).await
        }
        None => Ok(true),
    }
}

/// Gives the lease back once the reply is closed. A failure only delays the others: the lease
/// then runs out, and the sweep finds the reply already closed.
pub async fn release(store: &Store, session_id: &str) {
    if let Some((pool, owner, _)) = shared(store) {
        if let Err(error) = super::postgres::reply_lease::release(pool, session_id, owner).await {
            tracing::warn!(%error, session = session_id, "could not give a reply's lease back");
        }
    }
}

/// Extends every lease this server holds; returns their sessions.
pub async fn renew(store: &Store) -> Result<Vec<String>, LedgerError> {
    match shared(store) {
        Some((pool, owner, duration)) => {
            super::postgres::reply_lease::renew(pool, owner, duration).await
        }
        None => Ok(Vec::new()),
    }
}

/// Takes over every lease of another server that ran out; returns their sessions.
pub async fn take_expired(store: &Store) -> Result<Vec<String>, LedgerError> {
    match shared(store) {
        Some((pool, owner, duration)) => {
            super::postgres::reply_lease::take_expired(pool, owner, duration).await
        }
        None => Ok(Vec::new()),
    }
}

/// Whether another server is replying in the session (reshaping refuses with `Busy` then).
pub async fn held_elsewhere(store: &Store, session_id: &str) -> Result<bool, LedgerError> {
    match shared(store) {
        Some((pool, owner, _)) => {
            super::postgres::reply_lease::held_elsewhere(pool, session_id, owner).await
        }
        None => Ok(false),
    }
}

/// The sessions other servers are replying in (their lease not run out).
pub async fn replying_elsewhere(store: &Store) -> Result<Vec<String>, LedgerError> {
    match shared(store) {
        Some((pool, owner, _)) => {
            super::postgres::reply_lease::replying_elsewhere(pool, owner).await
        }
        None => Ok(Vec::new()),
    }
}
