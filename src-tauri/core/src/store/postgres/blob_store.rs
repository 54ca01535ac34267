//! Content-addressed attachment bytes on Postgres (`bytea`): the twin of `store::tables::blob_store`,
//! whose hashing and `dossier-blob:` URLs are used as they are.

use super::database_error::from_postgres;
use crate::store::rows::blob_address::{hash_from_url, hash_of, Blob};
use crate::wire::error::LedgerError;
use sqlx::{PgConnection, PgPool};

/// Stores `bytes` (once per distinct content) inside the caller's transaction.
///
/// When the bytes are already stored, their row is locked until the caller's transaction ends
/// (the no-op update): a concurrent deletion of the last part that refers to them then waits for
/// this transaction, sees the part it adds, and keeps the bytes (`part_blob_release` in the
/// migration). SQLite needs none of this: it runs one writer at a time.
pub async fn put(
    transaction: &mut PgConnection,
    mime: &str,
    bytes: &[u8],
    now: i64,
) -> Result<String, LedgerError> {
    let hash = hash_of(bytes);
    sqlx::query(
        "INSERT INTO blob (hash, mime, size, bytes, time_created) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (hash) DO UPDATE SET hash = blob.hash",
    )
    .bind(&hash)
    .bind(mime)
    .bind(i64::try_from(bytes.len()).unwrap_or(i64::MAX))
    .bind(bytes)
    .bind(now)
    .execute(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    Ok(hash)
}

pub async fn get(pool: &PgPool, hash: &str) -> Result<Option<Blob>, LedgerError> {
    let row: Option<(String, Vec<u8>)> =
        sqlx::query_as("SELECT mime, bytes FROM blob WHERE hash = $1")
            .bind(hash)
            .fetch_optional(pool)
            .await
            .map_err(from_postgres)?;
    Ok(row.map(|(mime, bytes)| Blob { mime, bytes }))
}

/// Turns a blob reference back into the `data:` URL a provider or an export needs.
pub async fn inline_url(pool: &PgPool, url: &str) -> Result<String, LedgerError> {
    let Some(hash) = hash_from_url(url) else {
        return Ok(url.to_string());
    };
    let blob = get(pool, hash)
        .await?
        .ok_or_else(|| LedgerError::Corrupt(format!("attachment {hash} is missing")))?;
    Ok(crate::wire::data_url::build(&blob.mime, &blob.bytes))
}
