//! Which server replies in a session, until when (`reply_lease`; the behaviour is
//! `reply::reply_lease`). Every expiry is the database's clock, so servers whose clocks disagree
//! agree on who holds what.

use super::database_error::from_postgres;
use crate::wire::error::LedgerError;
use sqlx::PgPool;
use std::time::Duration;

/// SQLSTATE foreign_key_violation: the lease's session does not exist.
const FOREIGN_KEY: &str = "23503";

/// The lease's length as Postgres reads it: whole milliseconds.
fn milliseconds(duration: Duration) -> f64 {
    duration.as_millis() as f64
}

/// Takes the session's lease for `owner` when nobody holds it, not even `owner` itself (one run
/// per session, whichever server). True when taken; `SessionNotFound` for a session that is not
/// (or no longer) in the ledger.
pub async fn take(
    pool: &PgPool,
    session_id: &str,
    owner: &str,
    duration: Duration,
) -> Result<bool, LedgerError> {
    let taken: Option<String> = sqlx::query_scalar(
        "INSERT INTO reply_lease (session_id, owner, expires_at) \
         VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3 / 1000.0)) \
         ON CONFLICT (session_id) DO NOTHING RETURNING session_id",
    )
    .bind(session_id)
    .bind(owner)
    .bind(milliseconds(duration))
    .fetch_optional(pool)
    .await
    .map_err(|error| match &error {
        sqlx::Error::Database(database) if database.code().as_deref() == Some(FOREIGN_KEY) => {
            LedgerError::SessionNotFound(session_id.to_string())
        }
        _ => from_postgres(error),
    })?;
    Ok(taken.is_some())
}

/// Gives the session's lease back, if `owner` still holds it.
pub async fn release(pool: &PgPool, session_id: &str, owner: &str) -> Result<(), LedgerError> {
    sqlx::query("DELETE FROM reply_lease WHERE session_id = $1 AND owner = $2")
        .bind(session_id)
        .bind(owner)
        .execute(pool)
        .await
        .map_err(from_postgres)?;
    Ok(())
}

/// Extends every lease `owner` holds; returns their sessions.
pub async fn renew(
    pool: &PgPool,
    owner: &str,
    duration: Duration,
) -> Result<Vec<String>, LedgerError> {
    sqlx::query_scalar(
        "UPDATE reply_lease SET expires_at = clock_timestamp() + make_interval(secs => $2 / 1000.0) \
         WHERE owner = $1 RETURNING session_id",
    )
    .bind(owner)
    .bind(milliseconds(duration))
    .fetch_all(pool)
    .await
    .map_err(from_postgres)
}

/// Takes over, for `owner`, every lease of another server that ran out; returns their sessions.
/// One statement, so two servers sweeping at once never both take the same one.
pub async fn take_expired(
    pool: &PgPool,
    owner: &str,
    duration: Duration,
) -> Result<Vec<String>, LedgerError> {
    sqlx::query_scalar(
        "UPDATE reply_lease SET owner = $1, \
         expires_at = clock_timestamp() + make_interval(secs => $2 / 1000.0), \
         status = NULL, permission_requests = '[]', permission_version = 0 \
         WHERE expires_at < clock_timestamp() AND owner <> $1 RETURNING session_id",
    )
    .bind(owner)
    .bind(milliseconds(duration))
    .fetch_all(pool)
    .await
    .map_err(from_postgres)
}

/// Whether another server holds the session's lease (expired or not: until someone takes an
/// expired one over, its reply is still open).
pub async fn held_elsewhere(
    pool: &PgPool,
    session_id: &str,
    owner: &str,
) -> Result<bool, LedgerError> {
    let held: Option<i32> =
        sqlx::query_scalar("SELECT 1 FROM reply_lease WHERE session_id = $1 AND owner <> $2")
            .bind(session_id)
            .bind(owner)
            .fetch_optional(pool)
            .await
            .map_err(from_postgres)?;
    Ok(held.is_some())
}

/// Sessions other servers reply in right now (their lease not run out), each with the status
/// its server shared (JSON; `None` is busy), for the status listing.
pub async fn replying_elsewhere(
    pool: &PgPool,
    owner: &str,
) -> Result<Vec<(String, Option<String>)>, LedgerError> {
    sqlx::query_as(
        "SELECT session_id, status::text FROM reply_lease \
         WHERE owner <> $1 AND expires_at >= clock_timestamp() ORDER BY session_id",
    )
    .bind(owner)
    .fetch_all(pool)
    .await
    .map_err(from_postgres)
}

/// Shares the session's status (JSON; `None` is busy) with the other servers, while `owner`
/// holds its lease.
pub async fn share_status(
    pool: &PgPool,
    session_id: &str,
    owner: &str,
    status: Option<&str>,
) -> Result<(), LedgerError> {
    sqlx::query("UPDATE reply_lease SET status = $3::jsonb WHERE session_id = $1 AND owner = $2")
        .bind(session_id)
        .bind(owner)
        .bind(status)
        .execute(pool)
        .await
        .map_err(from_postgres)?;
    Ok(())
}

/// Shares the session's pending permission requests (a JSON array) with the other servers,
/// while `owner` holds its lease, unless a later change (`version`) is already there.
pub async fn share_permission_requests(
    pool: &PgPool,
    session_id: &str,
    owner: &str,
    requests: &str,
    version: i64,
) -> Result<(), LedgerError> {
    sqlx::query(
        "UPDATE reply_lease SET permission_requests = $3::jsonb, permission_version = $4 \
         WHERE session_id = $1 AND owner = $2 AND permission_version < $4",
    )
    .bind(session_id)
    .bind(owner)
    .bind(requests)
    .bind(version)
    .execute(pool)
    .await
    .map_err(from_postgres)?;
    Ok(())
}

/// The pending permission requests of replies other servers run now (their lease not run
/// out): one JSON array per session that has any.
pub async fn permission_requests_elsewhere(
    pool: &PgPool,
    owner: &str,
) -> Result<Vec<String>, LedgerError> {
    sqlx::query_scalar(
        "SELECT permission_requests::text FROM reply_lease \
         WHERE owner <> $1 AND expires_at >= clock_timestamp() \
           AND permission_requests <> '[]'::jsonb ORDER BY session_id",
    )
    .bind(owner)
    .fetch_all(pool)
    .await
    .map_err(from_postgres)
}
