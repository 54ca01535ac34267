//! The headline of a failed server, in plain words. A server that dies while starting leaves
//! Dossier with only the SDK's "connection closed: initialize response"; the reason a person can
//! act on ("Error: Cannot find module '/nonexistent/server.js'", "ModuleNotFoundError: No module
//! named 'foo'") is in the last lines it wrote to stderr, among stack frames, echoed source and
//! version banners. `meaningful_line` picks that line; `failure_message` puts it in the status.

use crate::mcp::mcp_error::McpError;

/// A headline stays a line: a server that prints one enormous line still gets a readable status
/// (the whole line stays in the trace below it).
const CAUSE_LIMIT: usize = 300;

/// Lines that frame an error rather than say it, wherever they appear.
const TRAILERS: &[&str] = &[
    "Node.js v",
    "Traceback (most recent call last)",
    "note: run with `RUST_BACKTRACE=1`",
    "(Use `node --trace-",
    "npm error A complete log of this run",
    "npm ERR! A complete log of this run",
];

/// The status message for `failure`, naming the cause from `stderr` (a local server's last
/// lines, oldest first) when the failure is one the server's own words explain.
pub fn failure_message(failure: &McpError, stderr: &[String]) -> String {
    let Some(cause) = meaningful_line(stderr) else {
        return failure.to_string();
    };
    let cause = shortened(cause);
    match failure {
        // The connection ended before the handshake finished: the process exited, or wrote
        // something that is not MCP. Either way the server said why on stderr.
        McpError::Closed | McpError::Protocol(_) => {
            format!("The MCP server could not start: {cause}")
        }
        McpError::Stopped => format!("The MCP server stopped: {cause}"),
        // Dossier's own account comes first here: a server that is still running may have
        // written something unrelated last, so its words are only a hint.
        McpError::StartTimeout { .. } | McpError::Listing { .. } => {
            format!("{failure} (it last wrote: {cause})")
        }
        _ => failure.to_string(),
    }
}

/// The line of `lines` that says what went wrong: the last one that is not blank, a stack
/// frame, a `file:line` header, a caret marker or the source line it points at, a lone bracket,
/// or a known trailer (Node's version banner, Rust's backtrace note, …). Lines at the margin are
/// preferred over indented ones, which are usually echoed source or an error object's fields.
pub fn meaningful_line(lines: &[String]) -> Option<&str> {
    let kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(index, line)| {
            let pointed_at = lines
                .get(index + 1)
                .is_some_and(|next| is_caret_marker(next));
            !pointed_at && !is_noise(line)
        })
        .map(|(_, line)| line.as_str())
        .collect();
    kept.iter()
        .rev()
        .copied()
        .find(|line| !line.starts_with(char::is_whitespace))
        .or_else(|| kept.last().copied())
        .map(str::trim)
}

fn is_noise(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty()
        || is_caret_marker(line)
        || (line.starts_with(char::is_whitespace) && trimmed.starts_with("at "))
        || trimmed.starts_with("node:internal")
        || is_location_header(trimmed)
        || trimmed
            .chars()
            .all(|symbol| matches!(symbol, '{' | '}' | '[' | ']' | '(' | ')' | ',' | ';'))
        || TRAILERS.iter().any(|trailer| trimmed.starts_with(trailer))
}

/// `^^^`, `~~~^~~`: the marker under an echoed source line.
fn is_caret_marker(line: &str) -> bool {
    let trimmed = line.trim();
    !trimmed.is_empty()
        && trimmed.contains('^')
        && trimmed
            .chars()
            .all(|symbol| matches!(symbol, '^' | '~' | ' '))
}

/// `/srv/server.js:12` or `node:internal/modules/cjs/loader:1228`: where an error was thrown,
/// printed by Node above the echoed source line.
fn is_location_header(trimmed: &str) -> bool {
    match trimmed.rsplit_once(':') {
        Some((place, line_number)) => {
            !place.is_empty()
                && !place.contains(char::is_whitespace)
                && !line_number.is_empty()
                && line_number.chars().all(|symbol| symbol.is_ascii_digit())
        }
        None => false,
    }
}

fn shortened(cause: &str) -> String {
    if cause.chars().count() <= CAUSE_LIMIT {
        return cause.to_string();
    }
    let mut cut: String = cause.chars().take(CAUSE_LIMIT).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn the_meaningful_line_is_the_one_that_says_what_went_wrong() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            (
                "node with a missing script",
                "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\n\
                 Error: Cannot find module '/nonexistent/server.js'\n\
                 \x20   at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n\
                 \x20   at Module._load (node:internal/modules/cjs/loader:1051:27)\n\
                 \x20   at node:internal/main/run_main_module:28:49 {\n\
                 \x20 code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.20.2",
                Some("Error: Cannot find module '/nonexistent/server.js'"),
            ),
            (
                "node with a syntax error echoes the source line unindented",
                "/tmp/server.js:1\nthis is bad\n     ^^\n\n\
                 SyntaxError: Unexpected identifier 'is'\n    at wrapSafe (node:internal/modules/cjs/loader:1378:20)\n\nNode.js v20.20.2",
                Some("SyntaxError: Unexpected identifier 'is'"),
            ),
            (
                "python traceback",
                "Traceback (most recent call last):\n  File \"/srv/server.py\", line 1, in <module>\n    import missing\n\
                 ModuleNotFoundError: No module named 'missing'",
                Some("ModuleNotFoundError: No module named 'missing'"),
            ),
            (
                "python 3.11 markers under the source",
                "Traceback (most recent call last):\n  File \"/srv/a.py\", line 2, in <module>\n    x = 1 / 0\n        ~~^~~\n\
                 ZeroDivisionError: division by zero",
                Some("ZeroDivisionError: division by zero"),
            ),
            (
                "rust panic",
                "thread 'main' panicked at src/main.rs:2:5:\nthe token is missing\n\
                 note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
                Some("the token is missing"),
            ),
            (
                "a shell that cannot find the program",
                "sh: 1: my-server: not found",
                Some("sh: 1: my-server: not found"),
            ),
            (
                "node deprecation advice after the warning",
                "(node:123) Warning: something is deprecated\n(Use `node --trace-warnings ...` to show where the warning was created)",
                Some("(node:123) Warning: something is deprecated"),
            ),
            (
                "only indented lines: the last of them, trimmed",
                "  first detail\n  second detail",
                Some("second detail"),
            ),
            ("nothing but blanks", "\n   \n", None),
            ("nothing at all", "", None),
        ];
        for (case, text, wanted) in cases {
            assert_eq!(meaningful_line(&lines(text)), *wanted, "{case}");
        }
    }

    #[test]
    fn the_status_names_the_cause_where_the_server_explains_the_failure() {
        let node =
            lines("Error: Cannot find module '/x.js'\n    at Module._load (node:internal/x:1:2)");
        let cases: Vec<(&str, McpError, &[String], String)> = vec![
            (
                "closed while starting",
                McpError::Protocol("connection closed: initialize response".into()),
                node.as_slice(),
                "The MCP server could not start: Error: Cannot find module '/x.js'".into(),
            ),
            (
                "stopped after working",
                McpError::Stopped,
                node.as_slice(),
                "The MCP server stopped: Error: Cannot find module '/x.js'".into(),
            ),
            (
                "timed out: Dossier's account first",
                McpError::StartTimeout { milliseconds: 800 },
                node.as_slice(),
                "The MCP server did not finish starting within 800 ms (it last wrote: Error: Cannot find module '/x.js')".into(),
            ),
            (
                "nothing on stderr keeps the error's own words",
                McpError::Protocol("connection closed: initialize response".into()),
                &[][..],
                "connection closed: initialize response".into(),
            ),
            (
                "a missing command needs no stderr",
                McpError::CommandNotFound { program: "nope".into() },
                node.as_slice(),
                "Could not start nope: the command was not found".into(),
            ),
        ];
        for (case, failure, stderr, wanted) in cases {
            assert_eq!(failure_message(&failure, stderr), wanted, "{case}");
        }
    }

    #[test]
    fn an_enormous_cause_is_cut_in_the_headline() {
        let long = vec!["x".repeat(5000)];
        let message = failure_message(&McpError::Stopped, &long);
        assert_eq!(
            message.chars().count(),
            "The MCP server stopped: ".len() + CAUSE_LIMIT + 1
        );
        assert!(message.ends_with('…'));
    }
}
