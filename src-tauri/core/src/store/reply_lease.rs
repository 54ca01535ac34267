//! Which server replies in a session, on a database several servers share (the behaviour is
//! `reply::reply_lease`; the SQL `postgres::reply_lease`). On SQLite one process has the ledger:
//! every run may reply, nobody else holds anything, and these answer so without a statement.

use crate::store::{Pool, Store};
use crate::wire::error::LedgerError;
use crate::wire::event::SessionStatus;
use crate::wire::permission::PermissionRequest;
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

/// The sessions other servers are replying in (their lease not run out), with the status their
/// server shared (busy when it shared none, or one this build cannot read).
pub async fn replying_elsewhere(
    store: &Store,
) -> Result<Vec<(String, SessionStatus)>, LedgerError> {
    let Some((pool, owner, _)) = shared(store) else {
        return Ok(Vec::new());
    };
    let rows = super::postgres::reply_lease::replying_elsewhere(pool, owner).await?;
    Ok(rows
        .into_iter()
        .map(|(session_id, status)| {
            let status = status
                .and_then(|status| serde_json::from_str(&status).ok())
                .unwrap_or(SessionStatus::Busy);
            (session_id, status)
        })
        .collect())
}

/// Tells the other servers the status of a reply this server runs (a retry's countdown). A
/// failure only leaves them showing the status before; the reply goes on.
pub async fn share_status(store: &Store, session_id: &str, status: &SessionStatus) {
    let Some((pool, owner, _)) = shared(store) else {
        return;
    };
    let status = match status {
        SessionStatus::Busy | SessionStatus::Idle => None,
        retry => match serde_json::to_string(retry) {
            Ok(json) => Some(json),
            Err(error) => {
                tracing::warn!(%error, "a status could not be written as JSON");
                None
            }
        },
    };
    let shared =
        super::postgres::reply_lease::share_status(pool, session_id, owner, status.as_deref());
    if let Err(error) = shared.await {
        tracing::warn!(%error, session = session_id, "could not share a reply's status");
    }
}

/// Tells the other servers which permission requests a reply this server runs waits on:
/// `requests` is all of the session's, as of this server's `version`-th change to its pending
/// requests. A failure leaves the others listing the requests before.
pub async fn share_permission_requests(
    store: &Store,
    session_id: &str,
    requests: &[PermissionRequest],
    version: u64,
) {
    let Some((pool, owner, _)) = shared(store) else {
        return;
    };
    let written = serde_json::to_string(requests).map_err(|error| LedgerError::InvalidData {
        what: "permission requests".to_string(),
        reason: error.to_string(),
    });
    let version = i64::try_from(version).unwrap_or(i64::MAX);
    let shared = match written {
        Ok(json) => {
            super::postgres::reply_lease::share_permission_requests(
                pool, session_id, owner, &json, version,
            )
            .await
        }
        Err(error) => Err(error),
    };
    if let Err(error) = shared {
        tracing::warn!(%error, session = session_id, "could not share a reply's permission requests");
    }
}

/// The permission requests that replies on other servers wait on (their lease not run out).
pub async fn permission_requests_elsewhere(
    store: &Store,
) -> Result<Vec<PermissionRequest>, LedgerError> {
    let Some((pool, owner, _)) = shared(store) else {
        return Ok(Vec::new());
    };
    let mut requests = Vec::new();
    for json in super::postgres::reply_lease::permission_requests_elsewhere(pool, owner).await? {
        match serde_json::from_str::<Vec<PermissionRequest>>(&json) {
            Ok(listed) => requests.extend(listed),
            // Written by a newer Dossier: its own server still lists and answers them.
            Err(error) => {
                tracing::warn!(%error, "permission requests another server shared are unreadable")
            }
        }
    }
    Ok(requests)
}
