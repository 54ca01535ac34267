//! The `dossier-blob:` URI scheme: the webview shows attachment bytes (image previews) that the
//! ledger stores by hash, without them ever travelling as base64 over IPC. File parts carry
//! `dossier-blob:sha256-<hex>`; the webview asks for `dossier-blob://localhost/sha256-<hex>`
//! (`http://dossier-blob.localhost/…` on Windows), which `convertFileSrc` produces.

use dossier_core::store::rows::blob_address::{hash_from_url, BLOB_URL_PREFIX};
use dossier_core::Ledger;
use tauri::http::{header, Request, Response, StatusCode};
use tauri::{Manager, Runtime, UriSchemeContext, UriSchemeResponder};

pub const SCHEME: &str = "dossier-blob";

/// The hash a request path names (`/sha256-<64 hex>`), or `None` for anything else.
pub fn requested_hash(path: &str) -> Option<String> {
    let name = path.trim_start_matches('/');
    let hash = name.strip_prefix("sha256-")?;
    hash_from_url(&format!("{BLOB_URL_PREFIX}{hash}")).map(str::to_string)
}

pub fn handle<R: Runtime>(
    context: UriSchemeContext<'_, R>,
    request: Request<Vec<u8>>,
    responder: UriSchemeResponder,
) {
    // No ledger while the window shows the start-up page: nothing to serve.
    let Some(ledger) = context
        .app_handle()
        .try_state::<Ledger>()
        .map(|ledger| ledger.inner().clone())
    else {
        let unavailable = Response::builder()
            .status(StatusCode::SERVICE_UNAVAILABLE)
            .body(Vec::new());
        match unavailable {
            Ok(response) => responder.respond(response),
            Err(error) => tracing::warn!(%error, "could not build an attachment response"),
        }
        return;
    };
    let hash = requested_hash(request.uri().path());
    tauri::async_runtime::spawn(async move {
        let found = match hash {
            Some(hash) => ledger.data().blob(&hash).await,
            None => Ok(None),
        };
        let response = match found {
            Ok(Some(blob)) => Response::builder()
                .header(header::CONTENT_TYPE, blob.mime)
                .body(blob.bytes),
            Ok(None) => Response::builder()
                .status(StatusCode::NOT_FOUND)
                .body(Vec::new()),
            Err(error) => {
                tracing::warn!(%error, "could not read an attachment for the webview");
                Response::builder()
                    .status(StatusCode::INTERNAL_SERVER_ERROR)
                    .body(Vec::new())
            }
        };
        match response {
            Ok(response) => responder.respond(response),
            Err(error) => tracing::warn!(%error, "could not build an attachment response"),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_well_formed_hashes_are_looked_up() {
        let hash = "a".repeat(64);
        assert_eq!(requested_hash(&format!("/sha256-{hash}")), Some(hash));
        assert_eq!(requested_hash("/sha256-short"), None);
        assert_eq!(requested_hash("/etc/passwd"), None);
        assert_eq!(requested_hash(&format!("/sha256-{}", "g".repeat(64))), None);
    }
}
