//! Content-addressed attachment bytes. File parts hold `dossier-blob:sha256-<hex>` instead of
//! megabytes of base64, so the database stays small and message listings stay fast; the bytes
//! are fetched only when something needs them (a provider request, an export, a preview).

use crate::store::engine::{Connect, Connection, Pool};
use crate::wire::error::LedgerError;
use sha2::{Digest, Sha256};

pub const BLOB_URL_PREFIX: &str = "dossier-blob:sha256-";

/// Data URLs up to this many decoded bytes stay inline in the part; larger ones go to the store.
pub const INLINE_LIMIT: usize = 8 * 1024;

pub struct Blob {
    pub mime: String,
    pub bytes: Vec<u8>,
}

pub fn hash_of(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

pub fn blob_url(hash: &str) -> String {
    format!("{BLOB_URL_PREFIX}{hash}")
}

pub fn hash_from_url(url: &str) -> Option<&str> {
    url.strip_prefix(BLOB_URL_PREFIX)
        .filter(|hash| hash.len() == 64 && hash.bytes().all(|byte| byte.is_ascii_hexdigit()))
}

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
