//! Table-driven tests of the host, origin, fetch-metadata and media-type decisions.

use super::*;

fn policy(hostname: &str, hosts: &[&str], origins: &[&str]) -> OriginPolicy {
    let options = ServerOptions {
        hostname: hostname.into(),
        allowed_hosts: hosts
            .iter()
            .map(|host| parse_allowed_host(host).unwrap())
            .collect(),
        allowed_origins: origins
            .iter()
            .map(|origin| parse_origin(origin).unwrap())
            .collect(),
        ..ServerOptions::default()
    };
    OriginPolicy::new(&options, 4096)
}

#[test]
fn loopback_names_on_the_port_are_served_and_other_names_are_not() {
    let local = policy("127.0.0.1", &[], &[]);
    for (host, allowed) in [
        ("127.0.0.1:4096", true),
        ("localhost:4096", true),
        ("LOCALHOST:4096", true),
        ("[::1]:4096", true),
        ("127.0.0.1:4097", false),
        ("localhost", false),
        ("127.0.0.2:4096", false),
        ("evil.example:4096", false),
        ("localhost.:4096", false),
        ("sub.localhost:4096", false),
        ("localhost:4096@evil.example", false),
        ("user@localhost:4096", false),
        ("localhost:", false),
        ("", false),
        ("::1:4096", false),
    ] {
        assert_eq!(local.is_allowed_host(host), allowed, "{host}");
    }
}

#[test]
fn the_bound_address_and_the_operators_names_are_served() {
    let lan = policy("192.168.1.4", &["dossier.example.org", "box.lan:8080"], &[]);
    for (host, allowed) in [
        ("192.168.1.4:4096", true),
        ("192.168.1.5:4096", false),
        ("dossier.example.org", true),
        ("dossier.example.org:443", true),
        ("box.lan:8080", true),
        ("box.lan:4096", false),
        ("localhost:4096", true),
    ] {
        assert_eq!(lan.is_allowed_host(host), allowed, "{host}");
    }
    let named = policy("localhost", &[], &[]);
    assert!(named.is_allowed_host("localhost:4096"));
    let other_loopback = policy("127.0.0.2", &[], &[]);
    assert!(other_loopback.is_allowed_host("127.0.0.2:4096"));
    let ipv6 = policy("::1", &[], &[]);
    assert!(ipv6.is_allowed_host("[::1]:4096"));
}

#[test]
fn every_address_binding_serves_ip_addresses_on_its_port_but_no_other_names() {
    for hostname in ["0.0.0.0", "::", "[::]"] {
        let everywhere = policy(hostname, &[], &[]);
        for (host, allowed) in [
            ("192.168.1.4:4096", true),
            ("[fe80::1]:4096", true),
            ("192.168.1.4:80", false),
            ("0.0.0.0:4096", true),
            ("box.lan:4096", false),
            ("localhost:4096", true),
        ] {
            assert_eq!(
                everywhere.is_allowed_host(host),
                allowed,
                "{hostname} {host}"
            );
        }
    }
}

#[test]
fn only_the_servers_own_pages_and_configured_origins_are_trusted() {
    let local = policy("127.0.0.1", &["box.lan"], &["https://ui.example.org"]);
    let host = Some("127.0.0.1:4096");
    for (origin, allowed) in [
        ("http://127.0.0.1:4096", true),
        ("http://localhost:4096", true),
        ("http://[::1]:4096", true),
        ("http://box.lan", true),
        ("https://box.lan:8443", true),
        ("https://ui.example.org", true),
        ("https://ui.example.org:443", true),
        ("http://ui.example.org", false),
        ("http://127.0.0.1:4097", false),
        ("http://localhost:5173", false),
        ("http://evil.example", false),
        ("http://evil.example:4096", false),
        ("null", false),
        ("", false),
        ("file://", false),
        ("chrome-extension://abcdef", false),
        ("http://127.0.0.1:4096/path", false),
    ] {
        assert_eq!(local.is_allowed_origin(origin, host), allowed, "{origin}");
    }
}

#[test]
fn under_every_address_an_ip_origin_counts_only_when_it_is_the_requests_host() {
    let everywhere = policy("0.0.0.0", &[], &[]);
    let host = Some("192.168.1.4:4096");
    assert!(everywhere.is_allowed_origin("http://192.168.1.4:4096", host));
    assert!(!everywhere.is_allowed_origin("http://192.168.1.99:4096", host));
    assert!(!everywhere.is_allowed_origin("http://192.168.1.4:4097", host));
}

#[test]
fn json_media_types_are_recognised_with_parameters() {
    for (content_type, json) in [
        ("application/json", true),
        ("Application/JSON; charset=utf-8", true),
        (" application/json ;charset=UTF-8", true),
        ("text/plain", false),
        ("text/plain;charset=UTF-8", false),
        ("application/x-www-form-urlencoded", false),
        ("multipart/form-data; boundary=x", false),
        ("application/jsonp", false),
        ("application/ld+json", false),
        ("", false),
    ] {
        assert_eq!(is_json_media_type(content_type), json, "{content_type}");
    }
}

fn facts<'request>(method: &'request str, path: &'request str) -> RequestFacts<'request> {
    RequestFacts {
        method,
        path,
        host: Some("127.0.0.1:4096"),
        ..RequestFacts::default()
    }
}

/// The kind a request is refused with, or `None` when it is served.
fn refusal(request: RequestFacts<'_>) -> Option<&'static str> {
    policy("127.0.0.1", &[], &[])
        .check(&request)
        .err()
        .map(|error| match error.kind() {
            crate::error::ResponseKind::Misdirected => "misdirected",
            crate::error::ResponseKind::ForbiddenOrigin => "forbidden_origin",
            crate::error::ResponseKind::UnsupportedMediaType => "unsupported_media_type",
            other => panic!("unexpected kind {other:?}"),
        })
}

#[test]
fn each_request_is_decided_by_host_then_origin_then_site_then_media_type() {
    let json = Some("application/json");
    let foreign = Some("http://evil.example");
    let own = Some("http://127.0.0.1:4096");
    let table: Vec<(&str, RequestFacts<'_>, Option<&str>)> = vec![
        ("plain listing", facts("GET", "/session"), None),
        (
            "listing for a foreign name",
            RequestFacts {
                host: Some("evil.example:4096"),
                ..facts("GET", "/session")
            },
            Some("misdirected"),
        ),
        (
            "no host at all",
            RequestFacts {
                host: None,
                ..facts("GET", "/session")
            },
            Some("misdirected"),
        ),
        (
            "absolute target naming another host",
            RequestFacts {
                target_authority: Some("evil.example"),
                ..facts("GET", "/session")
            },
            Some("misdirected"),
        ),
        (
            "foreign name with a matching origin",
            RequestFacts {
                host: Some("evil.example:4096"),
                origin: Some("http://evil.example:4096"),
                ..facts("GET", "/session")
            },
            Some("misdirected"),
        ),
        (
            "JSON post from the servers own page",
            RequestFacts {
                origin: own,
                content_type: json,
                may_have_body: true,
                ..facts("POST", "/session")
            },
            None,
        ),
        (
            "JSON post from a tool without Origin",
            RequestFacts {
                content_type: json,
                may_have_body: true,
                ..facts("POST", "/session")
            },
            None,
        ),
        (
            "empty post without a type (abort)",
            facts("POST", "/session/s/abort"),
            None,
        ),
        ("delete without a body", facts("DELETE", "/session/s"), None),
        (
            "JSON post from another page",
            RequestFacts {
                origin: foreign,
                content_type: json,
                may_have_body: true,
                ..facts("POST", "/session")
            },
            Some("forbidden_origin"),
        ),
        (
            "listing read by another page",
            RequestFacts {
                origin: foreign,
                ..facts("GET", "/session")
            },
            Some("forbidden_origin"),
        ),
        (
            "preflight from another page",
            RequestFacts {
                origin: foreign,
                ..facts("OPTIONS", "/session")
            },
            Some("forbidden_origin"),
        ),
        (
            "sandboxed page",
            RequestFacts {
                origin: Some("null"),
                content_type: json,
                ..facts("POST", "/session")
            },
            Some("forbidden_origin"),
        ),
        (
            "cross-site export navigation",
            RequestFacts {
                fetch_site: Some("cross-site"),
                fetch_mode: Some("navigate"),
                ..facts("GET", "/session/s/export")
            },
            Some("forbidden_origin"),
        ),
        (
            "cross-site event stream",
            RequestFacts {
                fetch_site: Some("cross-site"),
                ..facts("GET", "/event")
            },
            Some("forbidden_origin"),
        ),
        (
            "cross-site post without Origin",
            RequestFacts {
                fetch_site: Some("cross-site"),
                content_type: json,
                ..facts("POST", "/session")
            },
            Some("forbidden_origin"),
        ),
        (
            "a link from another site to the UI",
            RequestFacts {
                fetch_site: Some("cross-site"),
                fetch_mode: Some("navigate"),
                ..facts("GET", "/")
            },
            None,
        ),
        (
            "another site's no-cors read of the listing",
            RequestFacts {
                fetch_site: Some("cross-site"),
                fetch_mode: Some("no-cors"),
                ..facts("GET", "/session")
            },
            Some("forbidden_origin"),
        ),
        (
            "same-site page on another port, no Origin",
            RequestFacts {
                fetch_site: Some("same-site"),
                fetch_mode: Some("no-cors"),
                ..facts("GET", "/session")
            },
            Some("forbidden_origin"),
        ),
        (
            "the servers page under another loopback name",
            RequestFacts {
                origin: Some("http://localhost:4096"),
                fetch_site: Some("cross-site"),
                fetch_mode: Some("cors"),
                content_type: json,
                may_have_body: true,
                ..facts("POST", "/session")
            },
            None,
        ),
        (
            "a link from another local port to the UI",
            RequestFacts {
                fetch_site: Some("same-site"),
                fetch_mode: Some("navigate"),
                ..facts("GET", "/")
            },
            None,
        ),
        (
            "the UI's own request",
            RequestFacts {
                fetch_site: Some("same-origin"),
                fetch_mode: Some("cors"),
                ..facts("GET", "/session")
            },
            None,
        ),
        (
            "typed into the address bar",
            RequestFacts {
                fetch_site: Some("none"),
                fetch_mode: Some("navigate"),
                ..facts("GET", "/session/s/export")
            },
            None,
        ),
        (
            "same-origin event stream",
            RequestFacts {
                fetch_site: Some("same-origin"),
                ..facts("GET", "/event")
            },
            None,
        ),
        (
            "text/plain post",
            RequestFacts {
                content_type: Some("text/plain;charset=UTF-8"),
                may_have_body: true,
                ..facts("POST", "/session")
            },
            Some("unsupported_media_type"),
        ),
        (
            "empty form post",
            RequestFacts {
                content_type: Some("application/x-www-form-urlencoded"),
                ..facts("POST", "/session")
            },
            Some("unsupported_media_type"),
        ),
        (
            "beacon of an untyped blob",
            RequestFacts {
                may_have_body: true,
                ..facts("POST", "/session")
            },
            Some("unsupported_media_type"),
        ),
        (
            "multipart patch",
            RequestFacts {
                content_type: Some("multipart/form-data; boundary=x"),
                may_have_body: true,
                ..facts("PATCH", "/session/s")
            },
            Some("unsupported_media_type"),
        ),
        (
            "text/plain GET is no concern",
            RequestFacts {
                content_type: Some("text/plain"),
                ..facts("GET", "/session")
            },
            None,
        ),
    ];
    for (name, request, expected) in table {
        assert_eq!(refusal(request), expected, "{name}");
    }
}

#[test]
fn an_unreadable_header_counts_as_present_and_wrong() {
    let mut headers = HeaderMap::new();
    headers.insert(
        ORIGIN,
        axum::http::HeaderValue::from_bytes(b"http://\xffevil").unwrap(),
    );
    assert_eq!(header_text(&headers, &ORIGIN), Some(""));
    assert_eq!(header_text(&headers, &HOST), None);
}

#[test]
fn a_body_is_expected_from_its_length_or_transfer_encoding() {
    let with = |pairs: &[(HeaderName, &str)]| {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(name, value.parse().unwrap());
        }
        may_have_body(&headers)
    };
    assert!(!with(&[]));
    assert!(!with(&[(CONTENT_LENGTH, "0")]));
    assert!(with(&[(CONTENT_LENGTH, "12")]));
    assert!(with(&[(CONTENT_LENGTH, "twelve")]));
    assert!(with(&[(TRANSFER_ENCODING, "chunked")]));
}
