//! Who may call: the password (`DOSSIER_SERVER_PASSWORD`: HTTP Basic for user `dossier`,
//! `Authorization: Bearer <password>`, or, for a browser's `EventSource`, which cannot set
//! headers, `?auth_token=<password>` as OpenCode accepts) and named access tokens
//! (`Authorization: Bearer <token>` only: a token in a URL ends up in proxies' logs).
//!
//! Credentials are needed when a password is set, when the server listens on anything but
//! loopback, or when any access token exists — asked on each request (and on SQLite answered
//! from memory until `dossier-server token` touches the ledger's marker file:
//! `access_token_presence`), so a token made or revoked while the server runs counts from the
//! next request. A
//! request that came with a token carries its name on (`AccessTokenName`), so the session it
//! creates records it. An open event stream asks again at every heartbeat and ends once its
//! credentials would be refused. Neither the token nor the password is ever logged or echoed.

use crate::error::ServerError;
use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use dossier_core::store::Store;
use dossier_core::LedgerError;
use std::sync::Arc;

pub const BASIC_USER: &str = "dossier";

/// What the middleware checks against.
#[derive(Clone)]
pub struct Credentials {
    pub password: Option<Arc<str>>,
    /// Listening beyond loopback: credentials are needed even while no token exists.
    pub always_required: bool,
    pub store: Store,
}

/// The name of the access token a request was authenticated with (a request extension).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessTokenName(pub String);

pub async fn require_credentials(
    State(credentials): State<Credentials>,
    mut request: Request,
    next: Next,
) -> Response {
    let presented = PresentedCredentials {
        header: request
            .headers()
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string),
        query: request.uri().query().map(str::to_string),
        credentials,
    };
    match presented.verdict().await {
        Ok(Verdict::Allowed(token_name)) => {
            if let Some(name) = token_name {
                request.extensions_mut().insert(name);
            }
            // Kept for `GET /event`, which asks again at every heartbeat (see `still_allowed`).
            request.extensions_mut().insert(presented);
            next.run(request).await
        }
        Ok(Verdict::Refused(error)) => error.into_response(),
        Err(error) => ServerError::Ledger(error).into_response(),
    }
}

/// What one request presented, with what it is checked against. An event stream keeps it:
/// a stream lives for hours, and a token revoked (or a first token made, so that credentials
/// become necessary) while it is open must end it as it refuses the next request.
#[derive(Clone)]
pub struct PresentedCredentials {
    credentials: Credentials,
    header: Option<String>,
    query: Option<String>,
}

enum Verdict {
    /// With the name of the access token that allowed it, if one did.
    Allowed(Option<AccessTokenName>),
    Refused(ServerError),
}

impl PresentedCredentials {
    async fn verdict(&self) -> Result<Verdict, LedgerError> {
        let credentials = &self.credentials;
        let header = self.header.as_deref();
        if let Some(password) = credentials.password.as_deref() {
            if is_authorised(password, header, self.query.as_deref()) {
                return Ok(Verdict::Allowed(None));
            }
        }
        let bearer = header.and_then(bearer_credentials);
        if let Some(token) = bearer {
            if let Some(name) = credentials.store.access_token_name(token).await? {
                return Ok(Verdict::Allowed(Some(AccessTokenName(name))));
            }
        }
        let required = credentials.password.is_some()
            || credentials.always_required
            || credentials.store.has_access_tokens().await?;
        Ok(match (required, bearer) {
            (false, _) => Verdict::Allowed(None),
            (true, Some(_)) => Verdict::Refused(ServerError::CredentialsRefused),
            (true, None) => Verdict::Refused(ServerError::Unauthorized),
        })
    }

    /// Asked again by a long-lived response. A ledger that cannot answer right now is not a
    /// refusal: the stream stays, and the next heartbeat asks again.
    pub async fn still_allowed(&self) -> bool {
        match self.verdict().await {
            Ok(Verdict::Allowed(_)) => true,
            Ok(Verdict::Refused(_)) => false,
            Err(error) => {
                tracing::warn!(%error, "could not recheck an event stream's credentials; asking again at the next heartbeat");
                true
            }
        }
    }
}

/// The credentials of an `Authorization: Bearer …` header.
fn bearer_credentials(header: &str) -> Option<&str> {
    let (scheme, credentials) = header.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| credentials.trim())
        .filter(|credentials| !credentials.is_empty())
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
    fn bearer_credentials_are_read_from_the_header() {
        assert_eq!(bearer_credentials("Bearer dossier_x"), Some("dossier_x"));
        assert_eq!(bearer_credentials(" bearer  dossier_x "), Some("dossier_x"));
        assert_eq!(bearer_credentials("Bearer "), None);
        assert_eq!(bearer_credentials("Basic ZG9zc2llcjp4"), None);
        assert_eq!(bearer_credentials("dossier_x"), None);
    }

    #[test]
    fn same_secret_needs_equal_length_and_bytes() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abcd", "abc"));
        assert!(!same_secret("ab", "abc"));
        assert!(!same_secret("", "abc"));
    }
}
