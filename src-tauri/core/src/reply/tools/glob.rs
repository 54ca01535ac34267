//! The `glob` tool: files whose path matches a glob (`**`, `*`, `?`, `{a,b}`), newest first. A
//! pattern without `/` matches file names at any depth, as ripgrep's `--glob` does.

use super::{confine, required_text, ToolError, ToolOutcome, IGNORED_FOLDERS, RESULT_LIMIT};
use regex::Regex;
use serde_json::{json, Value};
use std::path::Path;

/// Compiles a glob into an anchored regular expression over `/`-separated relative paths.
pub fn compile(glob: &str) -> Result<Regex, ToolError> {
    let mut pattern = String::from("^");
    let chars: Vec<char> = glob.chars().collect();
    let mut index = 0;
    let mut braces = 0;
    while index < chars.len() {
        let symbol = chars[index];
        match symbol {
            '*' if chars.get(index + 1) == Some(&'*') => {
                if chars.get(index + 2) == Some(&'/') {
                    pattern.push_str("(?:.*/)?");
                    index += 3;
                } else {
                    pattern.push_str(".*");
                    index += 2;
                }
                continue;
            }
            '*' => pattern.push_str("[^/]*"),
            '?' => pattern.push_str("[^/]"),
            '{' => {
                braces += 1;
                pattern.push_str("(?:");
            }
            '}' if braces > 0 => {
                braces -= 1;
                pattern.push(')');
            }
            ',' if braces > 0 => pattern.push('|'),
            other => pattern.push_str(&regex::escape(&other.to_string())),
        }
        index += 1;
    }
    pattern.push('$');
    Regex::new(&pattern).map_err(|error| ToolError::InvalidGlob {
        pattern: glob.to_string(),
        reason: error.to_string(),
    })
}

/// Whether `relative` (a `/`-separated path) is matched by the compiled glob.
pub fn matches(compiled: &Regex, glob: &str, relative: &str) -> bool {
    if glob.contains('/') {
        compiled.is_match(relative)
    } else {
        compiled.is_match(relative.rsplit('/').next().unwrap_or(relative))
    }
}

/// Every file under `root` (ignored folders skipped) whose relative path matches.
pub fn find(
    root: &Path,
    glob: &str,
) -> Result<Vec<(std::path::PathBuf, std::time::SystemTime)>, ToolError> {
    let compiled = compile(glob)?;
    let walker = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0
                || !IGNORED_FOLDERS.contains(&entry.file_name().to_string_lossy().as_ref())
        });
    let mut found = Vec::new();
    for entry in walker.filter_map(Result::ok) {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let relative = relative.to_string_lossy().replace('\\', "/");
        if matches(&compiled, glob, &relative) {
            let modified = entry
                .metadata()
                .ok()
                .and_then(|metadata| metadata.modified().ok())
                .unwrap_or(std::time::UNIX_EPOCH);
            found.push((entry.path().to_path_buf(), modified));
        }
    }
    Ok(found)
}

pub fn run(input: &Value, directory: &Path) -> Result<ToolOutcome, ToolError> {
    let glob = required_text(input, "pattern")?;
    let root = confine(directory, input.get("path").and_then(Value::as_str))?;
    let mut found = find(&root, glob)?;
    found.sort_by(|left, right| right.1.cmp(&left.1).then(left.0.cmp(&right.0)));
    let truncated = found.len() > RESULT_LIMIT;
    found.truncate(RESULT_LIMIT);
    let mut output = if found.is_empty() {
        "No files found".to_string()
    } else {
        found
            .iter()
            .map(|(path, _)| path.display().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    if truncated {
        output.push_str(
            "\n\n(Results are truncated. Consider using a more specific path or pattern.)",
        );
    }
    Ok(ToolOutcome {
        title: glob.to_string(),
        output,
        metadata: json!({"count": found.len(), "truncated": truncated}),
        attachments: Vec::new(),
    })
}
