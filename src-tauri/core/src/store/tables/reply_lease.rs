//! Which server replies in a session, on a database several servers share (the behaviour is
//! `reply::reply_lease`; the SQL `postgres::reply_lease`). On SQLite one process has the ledger:
//! every run may reply, nobody else holds anything, and these answer so without a statement.
//! So do they in a build without the `postgres` feature, where no ledger is ever shared: each
//! function's shared branch is compiled only with the feature, and its arguments then go unread.
#![cfg_attr(not(feature = "postgres"), allow(unused_variables))]

#[cfg(feature = "postgres")]
use crate::store::Pool;
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::event::SessionStatus;
use crate::wire::permission::PermissionRequest;
#[cfg(feature = "postgres")]
use sqlx::PgPool;
use std::time::Duration;

/// How long a lease lasts unrenewed when the options name no other length. Its owner renews it
/// every third of that, so a living server loses a lease only when it cannot reach the
/// database for twenty seconds; a dead one's reply is closed within about 45 seconds.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// The database, this server's name in it and the lease's length, when several servers may
/// share the ledger.
#[cfg(feature = "postgres")]
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
    #[cfg(feature = "postgres")]
    if let Some((pool, owner, duration)) = shared(store) {
        return crate::store::postgres::reply_lease::take(pool, session_id, owner, duration).await;
    }
    Ok(true)
}

/// Gives the lease back once the reply is closed. A failure only delays the others: the lease
/// then runs out, and the sweep finds the reply already closed.
pub async fn release(store: &Store, session_id: &str) {
    #[cfg(feature = "postgres")]
    if let Some((pool, owner, _)) = shared(store) {
        if let Err(error) =
            crate::store::postgres::reply_lease::release(pool, session_id, owner).await
        {
            tracing::warn!(%error, session = session_id, "could not give a reply's lease back");
        }
    }
}

/// Extends every lease this server holds; returns their sessions.
pub async fn renew(store: &Store) -> Result<Vec<String>, LedgerError> {
    #[cfg(feature = "postgres")]
    if let Some((pool, owner, duration)) = shared(store) {
        return crate::store::postgres::reply_lease::renew(pool, owner, duration).await;
    }
    Ok(Vec::new())
}

/// Takes over every lease of another server that ran out; returns their sessions.
pub async fn take_expired(store: &Store) -> Result<Vec<String>, LedgerError> {
    #[cfg(feature = "postgres")]
    if let Some((pool, owner, duration)) = shared(store) {
        return crate::store::postgres::reply_lease::take_expired(pool, owner, duration).await;
    }
    Ok(Vec::new())
}

/// Whether another server is replying in the session (reshaping refuses with `Busy` then).
pub async fn held_elsewhere(store: &Store, session_id: &str) -> Result<bool, LedgerError> {
    #[cfg(feature = "postgres")]
    if let Some((pool, owner, _)) = shared(store) {
        return crate::store::postgres::reply_lease::held_elsewhere(pool, session_id, owner).await;
    }
    Ok(false)
}

/// The sessions other servers are replying in (their lease not run out), with the status their
/// server shared (busy when it shared none, or one this build cannot read).
pub async fn replying_elsewhere(
    store: &Store,
) -> Result<Vec<(String, SessionStatus)>, LedgerError> {
    #[cfg(feature = "postgres")]
    if let Some((pool, owner, _)) = shared(store) {
        let rows = crate::store::postgres::reply_lease::replying_elsewhere(pool, owner).await?;
        return Ok(rows
            .into_iter()
            .map(|(session_id, status)| {
                let status = status
                    .and_then(|status| serde_json::from_str(&status).ok())
                    .unwrap_or(SessionStatus::Busy);
                (session_id, status)
            })
            .collect());
    }
    Ok(Vec::new())
}

/// Tells the other servers the status of a reply this server runs (a retry's countdown). A
/// failure only leaves them showing the status before; the reply goes on.
pub async fn share_status(store: &Store, session_id: &str, status: &SessionStatus) {
    #[cfg(feature = "postgres")]
    if let Some((pool, owner, _)) = shared(store) {
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
        let shared = crate::store::postgres::reply_lease::share_status(
            pool,
            session_id,
            owner,
            status.as_deref(),
        );
        if let Err(error) = shared.await {
            tracing::warn!(%error, session = session_id, "could not share a reply's status");
        }
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
    #[cfg(feature = "postgres")]
    if let Some((pool, owner, _)) = shared(store) {
        let written = serde_json::to_string(requests).map_err(|error| LedgerError::InvalidData {
            what: "permission requests".to_string(),
            reason: error.to_string(),
        });
        let version = i64::try_from(version).unwrap_or(i64::MAX);
        let shared = match written {
            Ok(json) => {
                crate::store::postgres::reply_lease::share_permission_requests(
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
}

/// The permission requests that replies on other servers wait on (their lease not run out).
pub async fn permission_requests_elsewhere(
    store: &Store,
) -> Result<Vec<PermissionRequest>, LedgerError> {
    #[cfg(feature = "postgres")]
    if let Some((pool, owner, _)) = shared(store) {
        let mut requests = Vec::new();
        for json in
            crate::store::postgres::reply_lease::permission_requests_elsewhere(pool, owner).await?
        {
            match serde_json::from_str::<Vec<PermissionRequest>>(&json) {
                Ok(listed) => requests.extend(listed),
                // Written by a newer Dossier: its own server still lists and answers them.
                Err(error) => {
                    tracing::warn!(%error, "permission requests another server shared are unreadable")
                }
            }
        }
        return Ok(requests);
    }
    Ok(Vec::new())
}
