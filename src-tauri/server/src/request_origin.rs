//! Who may talk to the server: the refusal, before any handler or the password check runs, of
//! requests a browser sends on behalf of some other web page. Three rules, each a pure function
//! here and applied by one thin middleware (`refuse_foreign_requests`):
//!
//! - the `Host` must name this server (a loopback name on its port, the address it is bound to,
//!   or a name the operator allowed), so a page that rebinds its own DNS name to 127.0.0.1 gets
//!   nothing (421 `misdirected`);
//! - an `Origin` must be this server's own or one the operator allowed, and a request without
//!   one that the browser marks as another page's (`Sec-Fetch-Site: cross-site` or
//!   `same-site`) may only be a link followed to a page that changes nothing, streams nothing
//!   and exports nothing (403 `forbidden_origin`);
//! - a body sent with a request that changes state must be `application/json`, which no form,
//!   beacon or "simple" cross-origin fetch can send without a preflight this server never
//!   grants (415 `unsupported_media_type`).
//!
//! `docs/local-server-security.md` explains the threats behind each rule.

use crate::error::ServerError;
use crate::server_options::ServerOptions;
use axum::extract::{Request, State};
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN, TRANSFER_ENCODING};
use axum::http::uri::{Authority, Scheme};
use axum::http::{HeaderMap, HeaderName, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::IpAddr;
use std::sync::Arc;

const SEC_FETCH_SITE: HeaderName = HeaderName::from_static("sec-fetch-site");
const SEC_FETCH_MODE: HeaderName = HeaderName::from_static("sec-fetch-mode");

/// The names every local server answers to, on its own port.
const LOOPBACK_NAMES: [&str; 3] = ["127.0.0.1", "localhost", "[::1]"];

/// A name the operator allowed with `--allowed-host NAME[:PORT]`; without a port any port
/// matches, since a proxy in front may forward its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHost {
    pub name: String,
    pub port: Option<u16>,
}

/// A web origin (`scheme://host:port`), with the scheme's default port filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebOrigin {
    pub scheme: String,
    pub host: String,
    pub port: u16,
}

impl WebOrigin {
    /// The port a `Host` header leaves out for this origin's scheme.
    fn port_default(&self) -> u16 {
        if self.scheme == "https" {
            443
        } else {
            80
        }
    }
}

impl std::fmt::Display for WebOrigin {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}://{}:{}", self.scheme, self.host, self.port)
    }
}

/// Reads `NAME[:PORT]` (an IPv6 address in brackets) as given to `--allowed-host`; `None`
/// for a scheme, a path, credentials or a port that is not a number.
pub fn parse_allowed_host(text: &str) -> Option<AllowedHost> {
    let (name, port) = split_authority(text.trim())?;
    Some(AllowedHost { name, port })
}

/// Reads an origin as a browser sends it (`http://localhost:4096`); `None` for `null`,
/// anything with a path, or a scheme other than http and https.
pub fn parse_origin(text: &str) -> Option<WebOrigin> {
    let uri: Uri = text.trim().parse().ok()?;
    let scheme = uri.scheme()?;
    let default_port = if *scheme == Scheme::HTTP {
        80
    } else if *scheme == Scheme::HTTPS {
        443
    } else {
        return None;
    };
    if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
        return None;
    }
    let (host, port) = split_authority(uri.authority()?.as_str())?;
    Some(WebOrigin {
        scheme: scheme.as_str().to_ascii_lowercase(),
        host,
        port: port.unwrap_or(default_port),
    })
}

/// A `Host`-style authority as a lowercase name (IPv6 kept in brackets) and its port, if any;
/// `None` for anything else (credentials, a path, an empty name).
fn split_authority(text: &str) -> Option<(String, Option<u16>)> {
    if text.is_empty() || text.contains(['@', '/', '?', '#']) {
        return None;
    }
    let authority: Authority = text.parse().ok()?;
    let name = authority.host().to_ascii_lowercase();
    // `Authority` lets a port that is not a number (`name:http`) or empty (`name:`) through.
    let port = match authority.as_str().get(authority.host().len()..)? {
        "" => None,
        rest => Some(rest.strip_prefix(':')?.parse::<u16>().ok()?),
    };
    (!name.is_empty()).then_some((name, port))
}

/// What the server trusts, fixed once it knows the port it is bound to.
#[derive(Debug, Clone)]
pub struct OriginPolicy(Arc<PolicyRules>);

#[derive(Debug)]
struct PolicyRules {
    port: u16,
    /// The `--hostname` it is bound to, as it appears in a `Host` header.
    bound_name: String,
    /// Bound to 0.0.0.0 or `::` (only allowed with a password): any IP address on the port is
    /// this server, since an address typed into a browser cannot be rebound the way a name can.
    bound_to_every_address: bool,
    allowed_hosts: Vec<AllowedHost>,
    allowed_origins: Vec<WebOrigin>,
}

/// The parts of a request the rules read, so the decision is a pure function.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestFacts<'request> {
    pub method: &'request str,
    pub path: &'request str,
    pub host: Option<&'request str>,
    /// The authority of an absolute-form request target (`POST http://name/…`), if any.
    pub target_authority: Option<&'request str>,
    pub origin: Option<&'request str>,
    pub fetch_site: Option<&'request str>,
    pub fetch_mode: Option<&'request str>,
    pub content_type: Option<&'request str>,
    pub may_have_body: bool,
}

impl OriginPolicy {
    pub fn new(options: &ServerOptions, port: u16) -> Self {
        let bare = options
            .hostname
            .trim_start_matches('[')
            .trim_end_matches(']');
        let bound_address = bare.parse::<IpAddr>().ok();
        let bound_name = match bound_address {
            Some(IpAddr::V6(address)) => format!("[{address}]"),
            Some(IpAddr::V4(address)) => address.to_string(),
            None => bare.to_ascii_lowercase(),
        };
        Self(Arc::new(PolicyRules {
            port,
            bound_name,
            bound_to_every_address: bound_address.is_some_and(|address| address.is_unspecified()),
            allowed_hosts: options.allowed_hosts.clone(),
            allowed_origins: options.allowed_origins.clone(),
        }))
    }

    /// True when `host` (a `Host` header's value) names this server.
    pub fn is_allowed_host(&self, host: &str) -> bool {
        split_authority(host).is_some_and(|(name, port)| {
            let port = port.unwrap_or(80);
            self.names_this_server(&name, port)
                || (self.0.bound_to_every_address
                    && port == self.0.port
                    && name
                        .trim_start_matches('[')
                        .trim_end_matches(']')
                        .parse::<IpAddr>()
                        .is_ok())
        })
    }

    /// Loopback names and the bound name on the server's port, and the operator's names.
    fn names_this_server(&self, name: &str, port: u16) -> bool {
        let rules = &self.0;
        let own = port == rules.port
            && (LOOPBACK_NAMES.contains(&name)
                || (name == rules.bound_name && !rules.bound_to_every_address));
        own || rules
            .allowed_hosts
            .iter()
            .any(|allowed| allowed.name == name && allowed.port.is_none_or(|only| only == port))
    }

    /// True when `origin` (an `Origin` header's value) is this server's own page — the page
    /// the request's `host` serves, or any name this server answers to — or one the operator
    /// allowed. `null` (sandboxed frames, `file:` pages) is never trusted.
    pub fn is_allowed_origin(&self, origin: &str, host: Option<&str>) -> bool {
        let Some(origin) = parse_origin(origin) else {
            return false;
        };
        if self.0.allowed_origins.contains(&origin) {
            return true;
        }
        let same_as_host = host.and_then(split_authority).is_some_and(|(name, port)| {
            name == origin.host && port.unwrap_or(origin.port_default()) == origin.port
        });
        // Under 0.0.0.0 an IP address only counts when it is the one this request came to:
        // another machine on the network at the same port is someone else's page.
        same_as_host || self.names_this_server(&origin.host, origin.port)
    }

    /// The whole decision for one request: `Ok` to serve it, or the typed refusal.
    pub fn check(&self, request: &RequestFacts<'_>) -> Result<(), ServerError> {
        let host = request
            .host
            .or(request.target_authority)
            .ok_or(ServerError::MissingHost)?;
        for authority in [request.host, request.target_authority]
            .into_iter()
            .flatten()
        {
            if !self.is_allowed_host(authority) {
                return Err(ServerError::MisdirectedHost {
                    host: authority.to_string(),
                });
            }
        }
        if let Some(origin) = request.origin {
            if !self.is_allowed_origin(origin, Some(host)) {
                return Err(ServerError::ForeignOrigin {
                    origin: origin.to_string(),
                });
            }
        }
        // Another page may link to the UI (a top-level navigation), and that is all: its
        // subresource and no-cors GETs carry no `Origin`, so this is what catches them. A
        // request with an `Origin` was decided above (an allowed origin may be another site).
        if let Some(site) = request.fetch_site.filter(|_| request.origin.is_none()) {
            let another_page = ["cross-site", "same-site"]
                .iter()
                .any(|foreign| site.trim().eq_ignore_ascii_case(foreign));
            let navigation = request
                .fetch_mode
                .is_some_and(|mode| mode.trim().eq_ignore_ascii_case("navigate"));
            if another_page && (!navigation || is_guarded(request.method, request.path)) {
                return Err(ServerError::CrossSiteRequest {
                    site: site.to_string(),
                });
            }
        }
        if changes_state(request.method)
            && (request.content_type.is_some() || request.may_have_body)
            && !request.content_type.is_some_and(is_json_media_type)
        {
            return Err(ServerError::UnsupportedMediaType {
                content_type: request.content_type.map(str::to_string),
            });
        }
        Ok(())
    }
}

/// Everything but GET, HEAD, OPTIONS and TRACE may change what is stored (or, for `abort`,
/// stop a reply).
pub fn changes_state(method: &str) -> bool {
    !matches!(method, "GET" | "HEAD" | "OPTIONS" | "TRACE")
}

/// Requests another page must never make, even as a link followed: anything
/// that changes state, the event streams (they carry every message as it is written) and
/// exports (a whole session).
pub fn is_guarded(method: &str, path: &str) -> bool {
    changes_state(method)
        || matches!(path, "/event" | "/global/event")
        || (path.starts_with("/session/") && path.ends_with("/export"))
}

/// `application/json`, with any parameters (`; charset=utf-8`).
pub fn is_json_media_type(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// The middleware: reads the request's facts, asks the policy, refuses or passes on.
pub async fn refuse_foreign_requests(
    State(policy): State<OriginPolicy>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let facts = RequestFacts {
        method: request.method().as_str(),
        path: request.uri().path(),
        host: header_text(headers, &HOST),
        target_authority: request.uri().authority().map(Authority::as_str),
        origin: header_text(headers, &ORIGIN),
        fetch_site: header_text(headers, &SEC_FETCH_SITE),
        fetch_mode: header_text(headers, &SEC_FETCH_MODE),
        content_type: header_text(headers, &CONTENT_TYPE),
        may_have_body: may_have_body(headers),
    };
    match policy.check(&facts) {
        Ok(()) => next.run(request).await,
        Err(refusal) => {
            tracing::warn!(method = %request.method(), path = request.uri().path(), %refusal, "refused a request");
            refusal.into_response()
        }
    }
}

/// A header's text; one that is not visible ASCII reads as empty, which every rule refuses,
/// rather than as absent, which some rules let pass.
fn header_text<'request>(headers: &'request HeaderMap, name: &HeaderName) -> Option<&'request str> {
    headers
        .get(name)
        .map(|value| value.to_str().unwrap_or_default())
}

/// An HTTP/1.1 request has a body only with a non-zero `Content-Length` or a `Transfer-Encoding`.
fn may_have_body(headers: &HeaderMap) -> bool {
    headers.contains_key(TRANSFER_ENCODING)
        || headers.get(CONTENT_LENGTH).is_some_and(|length| {
            length
                .to_str()
                .ok()
                .and_then(|text| text.trim().parse::<u64>().ok())
                != Some(0)
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests;
