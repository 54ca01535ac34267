//! Content-addressed attachment bytes. File parts hold `dossier-blob:sha256-<hex>` instead of
//! megabytes of base64, so the database stays small and message listings stay fast; the bytes
//! are fetched only when something needs them (a provider request, an export, a preview).

use crate::store::engine::{Connect, Connection, Pool};
use crate::store::rows::blob_address::{hash_from_url, hash_of, Blob};
use crate::wire::error::LedgerError;

/// Stores `bytes` (once per distinct content) inside the caller's transaction.
pub async fn put(
    transaction: &mut impl Connect,
    mime: &str,
    bytes: &[u8],
    now: i64,
) -> Result<String, LedgerError> {
    let transaction = match transaction.connection() {
        Connection::Sqlite(transaction) => transaction,
        #[cfg(feature = "postgres")]
        Connection::Postgres(transaction) => {
            return crate::store::postgres::blob_store::put(transaction, mime, bytes, now).await
        }
    };
    let hash = hash_of(bytes);
    sqlx::query(
        "INSERT INTO blob (hash, mime, size, bytes, time_created) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(hash) DO NOTHING",
    )
    .bind(&hash)
    .bind(mime)
    .bind(i64::try_from(bytes.len()).unwrap_or(i64::MAX))
    .bind(bytes)
    .bind(now)
    .execute(transaction)
    .await?;
    Ok(hash)
}

pub async fn get(pool: &Pool, hash: &str) -> Result<Option<Blob>, LedgerError> {
    match pool {
        Pool::Sqlite(pool) => get_from_file(pool, hash).await,
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => crate::store::postgres::blob_store::get(pool, hash).await,
    }
}

async fn get_from_file(pool: &sqlx::SqlitePool, hash: &str) -> Result<Option<Blob>, LedgerError> {
    let row: Option<(String, Vec<u8>)> =
        sqlx::query_as("SELECT mime, bytes FROM blob WHERE hash = ?")
            .bind(hash)
            .fetch_optional(pool)
            .await?;
    Ok(row.map(|(mime, bytes)| Blob { mime, bytes }))
}

/// Turns a blob reference back into the `data:` URL a provider or an export needs.
pub async fn inline_url(pool: &Pool, url: &str) -> Result<String, LedgerError> {
    let pool = match pool {
        Pool::Sqlite(pool) => pool,
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            return crate::store::postgres::blob_store::inline_url(pool, url).await
        }
    };
    let Some(hash) = hash_from_url(url) else {
        return Ok(url.to_string());
    };
    let blob = get_from_file(pool, hash)
        .await?
        .ok_or_else(|| LedgerError::Corrupt(format!("attachment {hash} is missing")))?;
    Ok(crate::wire::data_url::build(&blob.mime, &blob.bytes))
}
