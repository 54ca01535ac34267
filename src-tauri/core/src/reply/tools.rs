//! The tools the agent loop offers the model, read-only to start: `read`, `list`, `glob`,
//! `grep`, each confined to the session's directory. Definitions (name, description, JSON
//! schema), the permission pattern a call is checked against, and execution off the async
//! runtime.

use crate::models::provider::ToolDefinition;
use serde_json::{json, Value};
use std::path::{Component, Path, PathBuf};

pub mod glob;
pub mod grep;
pub mod list;
pub mod read;
pub mod tool_error;

pub use tool_error::ToolError;

/// What a finished tool call produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    pub title: String,
    pub output: String,
    pub metadata: Value,
    /// `(mime, bytes)` of images or PDFs the tool read.
    pub attachments: Vec<(String, Vec<u8>)>,
}

/// The most results a listing tool returns before saying it stopped.
pub const RESULT_LIMIT: usize = 100;

/// Folders nobody wants listed or searched.
pub const IGNORED_FOLDERS: [&str; 10] = [
    ".git",
    "node_modules",
    "target",
    "dist",
    "build",
    ".venv",
    "__pycache__",
    ".idea",
    ".vscode",
    ".cache",
];

pub fn definitions() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: "read".into(),
            description: "Reads a file (numbered lines) or lists a directory, inside the session's folder. Use offset and limit for long files.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "filePath": {"type": "string", "description": "Path of the file, absolute or relative to the session folder"},
                    "offset": {"type": "number", "description": "First line to read, 1-based"},
                    "limit": {"type": "number", "description": "How many lines to read (default 2000)"}
                },
                "required": ["filePath"]
            }),
        },
        ToolDefinition {
            name: "list".into(),
            description: "Lists files and folders as a tree, skipping build output and version-control folders.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Folder to list; the session folder when omitted"}
                }
            }),
        },
        ToolDefinition {
            name: "glob".into(),
            description: "Finds files by glob pattern such as \"**/*.md\" or \"*.rs\", newest first.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "The glob pattern"},
                    "path": {"type": "string", "description": "Folder to search; the session folder when omitted"}
                },
                "required": ["pattern"]
            }),
        },
        ToolDefinition {
            name: "grep".into(),
            description: "Searches file contents with a regular expression and returns matching lines with their paths and line numbers.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "The regular expression"},
                    "path": {"type": "string", "description": "Folder to search; the session folder when omitted"},
                    "include": {"type": "string", "description": "Only files matching this glob, e.g. \"*.md\""}
                },
                "required": ["pattern"]
            }),
        },
    ]
}

pub fn is_known(name: &str) -> bool {
    matches!(name, "read" | "list" | "glob" | "grep")
}

/// OpenCode's rule for hiding a tool from the model: the last rule naming it denies every
/// pattern. Rules for particular paths are checked per call instead.
pub fn disabled(name: &str, rules: &[crate::wire::permission::Rule]) -> bool {
    rules
        .iter()
        .rfind(|rule| crate::wire::permission::wildcard_match(&rule.permission, name))
        .is_some_and(|rule| {
            rule.pattern == "*" && rule.action == crate::wire::permission::Action::Deny
        })
}

/// The pattern a call's permission is checked against: the path it touches, relative to the
/// session folder when inside it (so rules like `*.env` match).
pub fn permission_pattern(name: &str, input: &Value, directory: &Path) -> String {
    let key = match name {
        "read" => "filePath",
        _ => "path",
    };
    let Some(requested) = input.get(key).and_then(Value::as_str) else {
        return if name == "glob" || name == "grep" {
            input
                .get("pattern")
                .and_then(Value::as_str)
                .unwrap_or("*")
                .to_string()
        } else {
            "*".into()
        };
    };
    let path = normalize(&directory.join(requested));
    path.strip_prefix(directory)
        .map(slashed)
        .unwrap_or_else(|_| slashed(&path))
}

/// A path with `/` between its parts on every system: permission rules are written once, in
/// OpenCode's shape (`"docs/*": "allow"`), and must match on Windows too, where `display()`
/// would join the parts with `\`.
fn slashed(path: &Path) -> String {
    let mut text = String::new();
    for component in path.components() {
        match component {
            Component::RootDir => {
                if !text.ends_with('/') {
                    text.push('/');
                }
            }
            other => {
                if !text.is_empty() && !text.ends_with('/') {
                    text.push('/');
                }
                text.push_str(&other.as_os_str().to_string_lossy());
            }
        }
    }
    text
}

/// Runs tool `name` on blocking threads; errors are the text the model will see.
pub async fn execute(
    name: &str,
    input: Value,
    directory: PathBuf,
) -> Result<ToolOutcome, ToolError> {
    let name = name.to_string();
    tokio::task::spawn_blocking(move || match name.as_str() {
        "read" => read::run(&input, &directory),
        "list" => list::run(&input, &directory),
        "glob" => glob::run(&input, &directory),
        "grep" => grep::run(&input, &directory),
        other => Err(ToolError::Unavailable {
            name: other.to_string(),
        }),
    })
    .await
    .unwrap_or_else(|error| {
        Err(ToolError::Stopped {
            reason: error.to_string(),
        })
    })
}

/// Removes `.` and resolves `..` without touching the disk.
pub fn normalize(path: &Path) -> PathBuf {
    let mut result = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                result.pop();
            }
            other => result.push(other.as_os_str()),
        }
    }
    result
}

/// Resolves `requested` against the session folder and refuses anything outside it, including
/// through symbolic links.
pub fn confine(directory: &Path, requested: Option<&str>) -> Result<PathBuf, ToolError> {
    let joined = match requested.filter(|text| !text.trim().is_empty()) {
        Some(text) => directory.join(text),
        None => directory.to_path_buf(),
    };
    let path = normalize(&joined);
    let root = normalize(directory);
    let outside = || ToolError::OutsideFolder {
        path: path.display().to_string(),
        root: root.display().to_string(),
    };
    if !path.starts_with(&root) {
        return Err(outside());
    }
    if let (Ok(real), Ok(real_root)) = (path.canonicalize(), root.canonicalize()) {
        if !real.starts_with(&real_root) {
            return Err(outside());
        }
    }
    Ok(path)
}

/// A string field of the tool input, or the error the model sees.
pub fn required_text<'input>(input: &'input Value, key: &str) -> Result<&'input str, ToolError> {
    input
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::MissingParameter {
            key: key.to_string(),
        })
}

#[cfg(test)]
mod tests;
