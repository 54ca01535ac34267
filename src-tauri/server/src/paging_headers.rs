//! The headers that point at the next page of a listing: `X-Next-Cursor` with the opaque cursor,
//! and an RFC 8288 `Link: <…>; rel="next"` relative to the request, as OpenCode sends them.

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};

pub const NEXT_CURSOR: HeaderName = HeaderName::from_static("x-next-cursor");

/// `cursor_parameter` is the query key that takes the cursor back (`before` for messages,
/// `cursor` for sessions). No headers when there is no next page.
pub fn next_page_headers(
    path: &str,
    limit: Option<u32>,
    cursor_parameter: &str,
    next_cursor: Option<&str>,
) -> HeaderMap {
    let mut headers = HeaderMap::new();
    let Some(cursor) = next_cursor else {
        return headers;
    };
    let encoded = utf8_percent_encode(cursor, NON_ALPHANUMERIC).to_string();
    let limit = limit
        .map(|limit| format!("limit={limit}&"))
        .unwrap_or_default();
    let link = format!("<{path}?{limit}{cursor_parameter}={encoded}>; rel=\"next\"");
    // The cursor travels as-is (clients send it back verbatim); the ledger's cursors are plain
    // ASCII, and the percent-encoded form is the fallback for anything that is not.
    let cursor_value = HeaderValue::from_str(cursor).or_else(|_| HeaderValue::from_str(&encoded));
    if let (Ok(cursor), Ok(link)) = (cursor_value, HeaderValue::from_str(&link)) {
        headers.insert(NEXT_CURSOR, cursor);
        headers.insert(axum::http::header::LINK, link);
    }
    headers
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn no_next_cursor_means_no_headers() {
        assert!(next_page_headers("/session/s/message", Some(5), "before", None).is_empty());
    }

    #[test]
    fn link_and_cursor_point_at_the_next_page() {
        let headers = next_page_headers("/session/ses_1/message", Some(5), "before", Some("42"));
        assert_eq!(headers[NEXT_CURSOR], "42");
        assert_eq!(
            headers[axum::http::header::LINK],
            "</session/ses_1/message?limit=5&before=42>; rel=\"next\""
        );
    }

    #[test]
    fn cursor_is_percent_encoded() {
        let headers = next_page_headers("/session", None, "cursor", Some("170:ses_a b"));
        assert_eq!(headers[NEXT_CURSOR], "170:ses_a b");
        assert_eq!(
            headers[axum::http::header::LINK],
            "</session?cursor=170%3Ases%5Fa%20b>; rel=\"next\""
        );
    }
}
