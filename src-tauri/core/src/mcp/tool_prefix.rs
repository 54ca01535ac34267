//! The names a server's tools are offered to the model under, `<prefix>_<tool>`, and the rule
//! for a server's name that follows from it. Providers accept only `[a-zA-Z0-9_-]` in a tool
//! name, so the prefix is a slug of the server's name: OpenCode's rule, every other character
//! becomes `_` ("My files" → `My_files`). Case is kept, as OpenCode keeps it, so the tool names
//! (and the `permission` rules a person wrote for them) stay the same as in OpenCode and as in
//! Dossier before names with spaces were allowed. Two names with one slug ("My files",
//! "My_files") would give their tools the same names, so the second is refused.

use crate::mcp::mcp_error::McpError;

/// A server's name is a key of the config file and a label in Settings; 64 keeps it a label.
pub const NAME_LIMIT: usize = 64;

/// OpenCode's tool-name rule: anything but letters, digits, `_` and `-` becomes `_`.
pub fn slug(name: &str) -> String {
    name.chars()
        .map(|symbol| {
            if symbol.is_ascii_alphanumeric() || symbol == '_' || symbol == '-' {
                symbol
            } else {
                '_'
            }
        })
        .collect()
}

/// The name the model is offered a server's tool under.
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("{}_{}", slug(server.trim()), slug(tool))
}

/// Why `name` cannot name a server, or `None` when it can.
pub fn name_problem(name: &str) -> Option<String> {
    let name = name.trim();
    if name.is_empty() {
        return Some("the server needs a name, for example \"everything\"".into());
    }
    if name.chars().count() > NAME_LIMIT {
        return Some(format!(
            "the server name \"{name}\" is longer than {NAME_LIMIT} characters"
        ));
    }
    if name.chars().any(char::is_control) {
        return Some(format!(
            "the server name \"{name}\" holds a control character"
        ));
    }
    // A name of only other letters ("文件") would offer its tools as `___tool`, which tells
    // the model nothing and clashes with the next such name.
    if !name.chars().any(|symbol| symbol.is_ascii_alphanumeric()) {
        return Some(format!(
            "the server name \"{name}\" needs at least one letter A–Z or digit: its tools are offered to the model as <name>_<tool>, and models accept only those characters"
        ));
    }
    None
}

/// Refuses `name` when one of `others` (the other servers' names) gives the same prefix.
pub fn check_unique<'a>(
    name: &str,
    others: impl IntoIterator<Item = &'a str>,
) -> Result<(), McpError> {
    let prefix = slug(name.trim());
    match others
        .into_iter()
        .find(|other| other.trim() != name.trim() && slug(other.trim()) == prefix)
    {
        Some(other) => Err(McpError::PrefixTaken {
            name: name.trim().to_string(),
            other: other.to_string(),
            prefix,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_keep_what_providers_accept_and_replace_the_rest() {
        let cases = [
            ("everything", "everything"),
            ("My files", "My_files"),
            ("my server.v2", "my_server_v2"),
            ("get-sum_1", "get-sum_1"),
            ("files (work)", "files__work_"),
            ("café", "caf_"),
        ];
        for (name, wanted) in cases {
            assert_eq!(slug(name), wanted, "{name}");
        }
        assert_eq!(tool_name(" My files ", "read file"), "My_files_read_file");
    }

    #[test]
    fn names_with_spaces_are_accepted_and_unusable_ones_say_why() {
        let cases: [(&str, Option<&str>); 6] = [
            ("My files", None),
            ("everything", None),
            ("", Some("needs a name")),
            ("文件", Some("at least one letter A–Z or digit")),
            ("bad\tname", Some("control character")),
            (&"x".repeat(65), Some("longer than 64")),
        ];
        for (name, wanted) in cases {
            let problem = name_problem(name);
            match wanted {
                None => assert_eq!(problem, None, "{name}"),
                Some(part) => assert!(
                    problem.as_deref().is_some_and(|text| text.contains(part)),
                    "{name}: {problem:?}"
                ),
            }
        }
    }

    #[test]
    fn two_names_with_one_slug_are_refused_naming_the_other() {
        assert_eq!(
            check_unique("My_files", ["everything", "My files"]),
            Err(McpError::PrefixTaken {
                name: "My_files".into(),
                other: "My files".into(),
                prefix: "My_files".into(),
            })
        );
        assert_eq!(check_unique("My files", ["My files", "everything"]), Ok(()));
        assert_eq!(check_unique("my files", ["My files"]), Ok(()));
    }
}
