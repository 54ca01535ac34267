//! Password protection: when `DOSSIER_SERVER_PASSWORD` is set, every request must carry HTTP
//! Basic credentials for user `dossier`, `Authorization: Bearer <password>`, or (for a browser's
//! `EventSource`, which cannot set headers) `?auth_token=<password>` as OpenCode accepts.

use crate::error::ServerError;
use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use std::sync::Arc;

pub const BASIC_USER: &str = "dossier";

#[derive(Clone)]
pub struct Password(pub Arc<str>);

pub async fn require_password(
    State(password): State<Password>,
    request: Request,
    next: Next,
) -> Response {
    let header = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok());
    let query = request.uri().query();
    if is_authorised(&password.0, header, query) {
        next.run(request).await
    } else {
        ServerError::Unauthorized.into_response()
    }
}

/// Pure check of the credentials a request carries.
pub fn is_authorised(password: &str, header: Option<&str>, query: Option<&str>) -> bool {
    if let Some(header) = header {
        let (scheme, credentials) = header.trim().split_once(' ').unwrap_or((header, ""));
        let credentials = credentials.trim();
        if scheme.eq_ignore_ascii_case("bearer") {
            return same_secret(credentials, password);
        }
        if scheme.eq_ignore_ascii_case("basic") {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(credentials)
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok());
            return decoded
                .as_deref()
                .and_then(|pair| pair.split_once(':'))
                .is_some_and(|(user, given)| user == BASIC_USER && same_secret(given, password));
        }
        return false;
    }
    query
        .into_iter()
        .flat_map(|query| query.split('&'))
        .filter_map(|pair| pair.split_once('='))
        .filter(|(key, _)| *key == "auth_token")
        .any(|(_, value)| {
            percent_encoding::percent_decode_str(value)
                .decode_utf8()
                .is_ok_and(|value| same_secret(&value, password))
        })
}

/// Compares without stopping at the first difference, so timing does not reveal a prefix.
fn same_secret(given: &str, expected: &str) -> bool {
    let (given, expected) = (given.as_bytes(), expected.as_bytes());
    let mut difference = given.len() ^ expected.len();
    for (index, byte) in expected.iter().enumerate() {
        difference |= usize::from(byte ^ given.get(index).copied().unwrap_or(0));
    }
    difference == 0
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    fn basic(user: &str, password: &str) -> String {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
        )
    }

    #[test]
    fn credentials_are_checked() {
        let table: [(Option<String>, Option<&str>, bool); 10] = [
            (None, None, false),
            (Some(basic("dossier", "secret")), None, true),
            (Some(basic("dossier", "wrong")), None, false),
            (Some(basic("opencode", "secret")), None, false),
            (Some("Bearer secret".into()), None, true),
            (Some("bearer secret".into()), None, true),
            (Some("Bearer secret2".into()), None, false),
            (Some("Token secret".into()), None, false),
            (None, Some("directory=x&auth_token=secret"), true),
            (None, Some("auth_token=secre"), false),
        ];
        for (header, query, expected) in table {
            assert_eq!(
                is_authorised("secret", header.as_deref(), query),
                expected,
                "{header:?} {query:?}"
            );
        }
    }

    #[test]
    fn same_secret_needs_equal_length_and_bytes() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abcd", "abc"));
        assert!(!same_secret("ab", "abc"));
        assert!(!same_secret("", "abc"));
    }
}
