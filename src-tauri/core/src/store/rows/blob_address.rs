//! Where attachment bytes are found: `dossier-blob:sha256-<hex>`, the SHA-256 of the bytes, the
//! same on both engines (`tables::blob_store`, `postgres::blob_store`).

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
