//! The requests the relay forwards: exactly the routes the UI's HTTP backend calls for the
//! features offered while attached (sessions, messages, prompts, reshaping, export/import,
//! search, permissions, agents, models). Anything else — the event stream, which the shell holds
//! itself, the server's MCP settings, a path the UI never asks for — is refused before it leaves
//! the computer, so a page that went wrong cannot use the token for more than the UI does.
//! Declared operations marked `relayed` in the operation table (`dossier_core::operations`) are
//! allowed from there; the routes below are the UI's hand-written ones (the messages' listing,
//! creating a session, prompting, export and import, the model listing).

use dossier_core::operations::OPERATIONS;

/// One allowed route: a method and a path whose `{…}` segments are any one id.
struct Route {
    method: &'static str,
    path: &'static str,
}

const fn route(method: &'static str, path: &'static str) -> Route {
    Route { method, path }
}

const ROUTES: &[Route] = &[
    route("POST", "/session"),
    route("GET", "/session/{}/message"),
    route("POST", "/session/{}/message"),
    route("GET", "/session/{}/export"),
    route("POST", "/session/import"),
    route("GET", "/config/providers"),
];

/// Whether the relay forwards `method` to `path_and_query` (a path starting with `/`, maybe a
/// `?query`). Each id segment must be one plain segment: no `.`/`..`, no encoded `/` or `\`,
/// so an id cannot walk the request to another route on the server.
pub fn allows(method: &str, path_and_query: &str) -> bool {
    let path = path_and_query
        .split_once('?')
        .map_or(path_and_query, |(path, _)| path);
    if path_and_query.contains('#') || !path.starts_with('/') {
        return false;
    }
    let segments: Vec<&str> = path[1..].split('/').collect();
    let declared = OPERATIONS
        .iter()
        .filter(|operation| operation.relayed)
        .map(|operation| route(operation.method, operation.path));
    let routes = ROUTES.iter().map(|known| route(known.method, known.path));
    routes.chain(declared).any(|route| {
        route.method == method && {
            let pattern: Vec<&str> = route.path[1..].split('/').collect();
            pattern.len() == segments.len()
                && pattern.iter().zip(&segments).all(|(expected, given)| {
                    if expected.starts_with('{') {
                        is_plain_id(given)
                    } else {
                        expected == given
                    }
                })
        }
    })
}

fn is_plain_id(segment: &str) -> bool {
    let decoded = percent_decoded(segment);
    !decoded.is_empty()
        && decoded != "."
        && decoded != ".."
        && !decoded.contains(['/', '\\', '?', '#'])
}

/// The segment with `%XX` escapes read, enough to see an escaped separator; an escape that is
/// not one (`%zz`) is kept as typed.
fn percent_decoded(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| segment.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                index += 3;
            }
            None => {
                decoded.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ui_s_routes_are_forwarded() {
        let allowed = [
            ("GET", "/session?roots=true&limit=50"),
            ("POST", "/session"),
            ("PATCH", "/session/ses_1"),
            ("DELETE", "/session/ses_1"),
            ("GET", "/session/ses_1/children"),
            ("GET", "/session/ses_1/message?limit=40&before=msg_2"),
            ("POST", "/session/ses_1/message"),
            ("DELETE", "/session/ses_1/message/msg_2"),
            ("POST", "/session/ses_1/message/msg_2/resend"),
            ("POST", "/session/ses_1/message/msg_2/regenerate"),
            ("POST", "/session/ses_1/permissions/per_3"),
            ("POST", "/session/ses_1/abort"),
            ("POST", "/session/ses_1/fork"),
            ("POST", "/session/ses_1/revert"),
            ("POST", "/session/ses_1/unrevert"),
            ("GET", "/session/ses_1/export?format=json"),
            ("POST", "/session/import"),
            ("POST", "/dossier/session/ses_1/archive"),
            ("GET", "/dossier/search?q=hello&limit=20"),
            ("GET", "/agent"),
            ("GET", "/config/providers"),
        ];
        for (method, path) in allowed {
            assert!(allows(method, path), "{method} {path} was refused");
        }
    }

    #[test]
    fn other_routes_methods_and_walking_ids_are_refused() {
        let refused = [
            // The shell holds the event stream itself.
            ("GET", "/event"),
            ("GET", "/global/event"),
            // Routes the attached UI does not use.
            ("GET", "/dossier/mcp/settings"),
            ("POST", "/dossier/mcp/settings"),
            ("POST", "/session/ses_1/shell"),
            ("GET", "/config"),
            // The right path with a method the UI never sends there.
            ("DELETE", "/session"),
            ("PUT", "/session/ses_1"),
            ("GET", "/session/import"),
            // Ids that are not one plain segment.
            ("GET", "/session/../config"),
            ("GET", "/session/%2E%2E/children"),
            ("PATCH", "/session/a%2Fb"),
            ("PATCH", "/session/a%5cb"),
            ("PATCH", "/session/"),
            ("GET", "/session/ses_1/message/"),
            // Not a path on the server.
            ("GET", "session"),
            ("GET", "//evil.example.com/session"),
            ("GET", "/session#x"),
        ];
        for (method, path) in refused {
            assert!(!allows(method, path), "{method} {path} was allowed");
        }
    }
}

#[cfg(test)]
mod declared_tests {
    use super::*;

    /// `path` with each `{…}` segment filled with an id.
    fn filled(path: &str) -> String {
        path.split('/')
            .map(|segment| {
                if segment.starts_with('{') {
                    "ses_1"
                } else {
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    #[test]
    fn declared_operations_are_forwarded_only_when_marked_relayed() {
        for operation in OPERATIONS {
            let path = filled(operation.path);
            assert_eq!(
                allows(operation.method, &path),
                operation.relayed,
                "{} {path}",
                operation.method
            );
        }
    }
}
