//! Serving the built web UI (`ui/dist`) at `/`, so the same UI runs in a browser against a
//! headless ledger. Only files inside the UI folder are ever read: no `..`, no hidden files, and
//! the resolved path must stay under the folder after symlinks are followed.

use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use std::path::{Path, PathBuf};

/// The same policy as the desktop window's: scripts only from the UI itself, so rendered model
/// output can never run code even if it slipped past the sanitiser. No other page may frame
/// the UI either, so none can dress it up and trick a click (docs/local-server-security.md).
const POLICY: &str = "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'";

fn content_type(path: &Path) -> &'static str {
    match path
        .extension()
        .and_then(|extension| extension.to_str())
        .unwrap_or("")
    {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The file a request path names inside `root`, if it is a plain visible file there.
pub fn resolve(root: &Path, request_path: &str) -> Option<PathBuf> {
    let decoded = percent_encoding::percent_decode_str(request_path)
        .decode_utf8()
        .ok()?;
    let relative = decoded.trim_start_matches('/');
    let relative = if relative.is_empty() {
        "index.html"
    } else {
        relative
    };
    let mut path = root.to_path_buf();
    for component in relative.split('/') {
        if component.is_empty() || component.starts_with('.') || component.contains('\\') {
            return None;
        }
        path.push(component);
    }
    let canonical_root = root.canonicalize().ok()?;
    let canonical = path.canonicalize().ok()?;
    (canonical.starts_with(&canonical_root) && canonical.is_file()).then_some(canonical)
}

/// Answers a GET or HEAD for a UI file; `None` when this is not a UI request.
pub async fn serve(root: &Path, method: &Method, request_path: &str) -> Option<Response> {
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    let path = resolve(root, request_path)?;
    let bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "cannot read a UI file");
            return Some(StatusCode::INTERNAL_SERVER_ERROR.into_response());
        }
    };
    // Hashed asset names may be cached for good; index.html must be fetched fresh.
    let cache = if path.ends_with("index.html") {
        "no-cache"
    } else {
        "public, max-age=31536000, immutable"
    };
    Some(
        (
            [
                (CONTENT_TYPE, content_type(&path)),
                (CACHE_CONTROL, cache),
                (X_CONTENT_TYPE_OPTIONS, "nosniff"),
                (CONTENT_SECURITY_POLICY, POLICY),
            ],
            bytes,
        )
            .into_response(),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn only_visible_files_inside_the_folder_resolve() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(folder.path().join("assets")).unwrap();
        std::fs::write(folder.path().join("index.html"), "<!doctype html>").unwrap();
        std::fs::write(folder.path().join("assets/app.js"), "1").unwrap();
        std::fs::write(folder.path().join(".env"), "SECRET=1").unwrap();
        let root = folder.path();
        assert!(resolve(root, "/").is_some_and(|path| path.ends_with("index.html")));
        assert!(resolve(root, "/assets/app.js").is_some());
        for refused in [
            "/../etc/passwd",
            "/assets/../../x",
            "/.env",
            "/%2e%2e/x",
            "/assets/",
            "/missing.js",
            "/assets\\app.js",
        ] {
            assert!(resolve(root, refused).is_none(), "{refused}");
        }
    }
}
