//! Attachment bytes on their way into the ledger: images are normalised (≤ 2000×2000 px,
//! ≤ 5 MB), and any `data:` URL larger than a few kilobytes moves into the content-addressed
//! blob store, leaving a short reference in the part.

use crate::pipeline::image_normalization::{self, Outcome};
use crate::store::rows::blob_address::{blob_url, INLINE_LIMIT};
use crate::store::tables::blob_store;
use crate::store::Transaction;
use crate::wire::data_url;
use crate::wire::error::LedgerError;
use crate::wire::part::{Part, PartBody};

pub(crate) struct PreparedPart {
    pub part: Part,
    /// Bytes to store before the part, whose URL then points at them.
    pub blob: Option<(String, Vec<u8>)>,
}

/// Decodes, normalises and decides inline-or-blob for every file part; no database access.
pub(crate) async fn prepare(parts: Vec<Part>) -> Vec<PreparedPart> {
    futures::future::join_all(parts.into_iter().map(prepare_one)).await
}

async fn prepare_one(mut part: Part) -> PreparedPart {
    let PartBody::File(file) = &mut part.body else {
        return PreparedPart { part, blob: None };
    };
    let Ok(decoded) = data_url::parse(&file.url) else {
        return PreparedPart { part, blob: None };
    };
    let (mime, bytes) = if file.mime.starts_with("image/") {
        let mime = file.mime.clone();
        let normalized = tokio::task::spawn_blocking(move || {
            image_normalization::normalize(&mime, decoded.bytes)
        })
        .await;
        match normalized {
            Ok(normalized) => {
                if let Outcome::KeptOriginal(reason) = &normalized.outcome {
                    tracing::info!(%reason, "image kept as sent");
                }
                (normalized.mime, normalized.bytes)
            }
            Err(error) => {
                // The normaliser itself panicked: keep the URL as sent, nothing lost.
                tracing::warn!(%error, "image normalisation crashed; keeping the original");
                return PreparedPart { part, blob: None };
            }
        }
    } else {
        (file.mime.clone(), decoded.bytes)
    };
    file.mime.clone_from(&mime);
    if bytes.len() <= INLINE_LIMIT {
        file.url = data_url::build(&mime, &bytes);
        return PreparedPart { part, blob: None };
    }
    PreparedPart {
        part,
        blob: Some((mime, bytes)),
    }
}

/// Moves large `data:` URLs to the blob store without touching their bytes (imports).
pub(crate) fn prepare_unchanged(parts: Vec<Part>) -> Vec<PreparedPart> {
    parts
        .into_iter()
        .map(|part| {
            let blob = match &part.body {
                PartBody::File(file) => data_url::parse(&file.url)
                    .ok()
                    .filter(|decoded| decoded.bytes.len() > INLINE_LIMIT)
                    .map(|decoded| (file.mime.clone(), decoded.bytes)),
                _ => None,
            };
            PreparedPart { part, blob }
        })
        .collect()
}

/// Writes pending blobs inside the caller's transaction and points their parts at them.
pub(crate) async fn store(
    transaction: &mut Transaction,
    prepared: Vec<PreparedPart>,
    now: i64,
) -> Result<Vec<Part>, LedgerError> {
    let mut parts = Vec::with_capacity(prepared.len());
    for PreparedPart { mut part, blob } in prepared {
        if let (Some((mime, bytes)), PartBody::File(file)) = (blob, &mut part.body) {
            let hash = blob_store::put(transaction, &mime, &bytes, now).await?;
            file.url = blob_url(&hash);
        }
        parts.push(part);
    }
    Ok(parts)
}
