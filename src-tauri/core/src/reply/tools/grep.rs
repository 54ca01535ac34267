//! The `grep` tool: lines matching a regular expression, grouped by file, newest files first,
//! at most `RESULT_LIMIT` matches; binary files are skipped.

use super::{confine, required_text, ToolError, ToolOutcome, RESULT_LIMIT};
use serde_json::{json, Value};
use std::path::Path;

const MAX_LINE: usize = 2000;

pub fn run(input: &Value, directory: &Path) -> Result<ToolOutcome, ToolError> {
    let pattern = required_text(input, "pattern")?;
    let expression = regex::Regex::new(pattern).map_err(|error| ToolError::InvalidRegex {
        pattern: pattern.to_string(),
        reason: error.to_string(),
    })?;
    let root = confine(directory, input.get("path").and_then(Value::as_str))?;
    let include = input
        .get("include")
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
        .unwrap_or("**");
    let mut files = super::glob::find(&root, include)?;
    files.sort_by(|left, right| right.1.cmp(&left.1).then(left.0.cmp(&right.0)));
    let mut matches: Vec<(String, Vec<(usize, String)>)> = Vec::new();
    let mut total = 0;
    let mut truncated = false;
    'files: for (path, _) in files {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if bytes.iter().take(4096).any(|byte| *byte == 0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let mut lines = Vec::new();
        for (number, line) in text.lines().enumerate() {
            if expression.is_match(line) {
                if total == RESULT_LIMIT {
                    truncated = true;
                    if !lines.is_empty() {
                        matches.push((path.display().to_string(), lines));
                    }
                    break 'files;
                }
                total += 1;
                let shown: String = line.chars().take(MAX_LINE).collect();
                lines.push((number + 1, shown));
            }
        }
        if !lines.is_empty() {
            matches.push((path.display().to_string(), lines));
        }
    }
    let output = if total == 0 {
        "No files found".to_string()
    } else {
        let mut output = format!("Found {total} matches\n");
        for (path, lines) in &matches {
            output.push_str(&format!("\n{path}:\n"));
            for (number, line) in lines {
                output.push_str(&format!("  Line {number}: {line}\n"));
            }
        }
        if truncated {
            output.push_str(
                "\n(Results are truncated. Consider using a more specific path or pattern.)\n",
            );
        }
        output
    };
    Ok(ToolOutcome {
        title: pattern.to_string(),
        output,
        metadata: json!({"matches": total, "truncated": truncated}),
        attachments: Vec::new(),
    })
}
