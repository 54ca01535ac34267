//! Which addresses the desktop app may attach to, decided before anything is sent: an `http` or
//! `https` origin (the server's routes live at its root), no user name or password in the URL
//! (the token goes in a header, never a URL that ends up in logs), and plain `http` only to this
//! computer — over a network, plain HTTP would hand the token to anyone on the path.

use std::net::IpAddr;

/// A server's origin as the relay uses it: `scheme://host[:port]`, no trailing slash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerAddress {
    origin: String,
}

/// Why an address was refused, in words the settings form shows under the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressProblem {
    #[error("it is not a web address (for example https://dossier.example.com)")]
    NotAnAddress,
    #[error("only http:// and https:// addresses can be used")]
    UnsupportedScheme,
    #[error("plain http:// is only allowed to this computer; use https:// for a server on the network, so the access token is not sent in the clear")]
    PlainHttpOverNetwork,
    #[error("leave out the user name and password: the access token is entered separately")]
    CredentialsInAddress,
    #[error("give only the server's address, without a path, query or #fragment")]
    PathInAddress,
}

impl ServerAddress {
    pub fn parse(text: &str) -> Result<Self, AddressProblem> {
        let url = url::Url::parse(text.trim()).map_err(|_| AddressProblem::NotAnAddress)?;
        let scheme = url.scheme();
        if scheme != "http" && scheme != "https" {
            return Err(AddressProblem::UnsupportedScheme);
        }
        let host = url.host_str().ok_or(AddressProblem::NotAnAddress)?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(AddressProblem::CredentialsInAddress);
        }
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(AddressProblem::PathInAddress);
        }
        if scheme == "http" && !is_loopback_host(host) {
            return Err(AddressProblem::PlainHttpOverNetwork);
        }
        Ok(Self {
            origin: url.origin().ascii_serialization(),
        })
    }

    /// `scheme://host[:port]`, as the settings file keeps it and the UI shows it.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The full URL of `path_and_query` (which starts with `/`) on this server.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.origin)
    }
}

impl std::fmt::Display for ServerAddress {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.origin)
    }
}

/// `localhost` and loopback addresses (127.0.0.0/8, ::1): traffic that never leaves the computer.
fn is_loopback_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_accepted_or_refused_with_their_reason() {
        let table: [(&str, Result<&str, AddressProblem>); 14] = [
            (
                "https://dossier.example.com",
                Ok("https://dossier.example.com"),
            ),
            (
                "https://dossier.example.com/",
                Ok("https://dossier.example.com"),
            ),
            (" https://10.0.0.5:4096 ", Ok("https://10.0.0.5:4096")),
            ("http://127.0.0.1:4096", Ok("http://127.0.0.1:4096")),
            ("http://localhost:4096/", Ok("http://localhost:4096")),
            ("http://[::1]:4096", Ok("http://[::1]:4096")),
            ("http://127.8.9.10", Ok("http://127.8.9.10")),
            (
                "http://dossier.example.com",
                Err(AddressProblem::PlainHttpOverNetwork),
            ),
            (
                "http://192.168.1.20:4096",
                Err(AddressProblem::PlainHttpOverNetwork),
            ),
            (
                "ftp://dossier.example.com",
                Err(AddressProblem::UnsupportedScheme),
            ),
            ("dossier.example.com", Err(AddressProblem::NotAnAddress)),
            (
                "https://ada:secret@dossier.example.com",
                Err(AddressProblem::CredentialsInAddress),
            ),
            (
                "https://dossier.example.com/api",
                Err(AddressProblem::PathInAddress),
            ),
            (
                "https://dossier.example.com/?token=x",
                Err(AddressProblem::PathInAddress),
            ),
        ];
        for (text, expected) in table {
            let parsed = ServerAddress::parse(text);
            assert_eq!(
                parsed.as_ref().map(ServerAddress::origin),
                expected.as_ref().map(|origin| *origin),
                "{text}"
            );
        }
    }

    #[test]
    fn url_joins_a_path_to_the_origin() {
        let address = ServerAddress::parse("https://dossier.example.com/").expect("valid");
        assert_eq!(
            address.url("/session?limit=5"),
            "https://dossier.example.com/session?limit=5"
        );
    }
}
