//! The `read` tool for the model: the same Read tool the prompt pipeline uses, confined to the
//! session folder.

use super::{confine, required_text, ToolError, ToolOutcome};
use crate::pipeline::read_tool::{self, ReadRequest};
use serde_json::{json, Value};
use std::path::Path;

pub fn run(input: &Value, directory: &Path) -> Result<ToolOutcome, ToolError> {
    let path = confine(directory, Some(required_text(input, "filePath")?))?;
    let number = |key: &str| {
        input
            .get(key)
            .and_then(Value::as_f64)
            .filter(|value| *value >= 1.0)
            .map(|value| value as usize)
    };
    let request = ReadRequest {
        file_path: path.clone(),
        offset: number("offset"),
        limit: number("limit"),
    };
    let output = read_tool::read(&request)?;
    let title = path
        .strip_prefix(directory)
        .map(|relative| relative.display().to_string())
        .unwrap_or(output.title);
    Ok(ToolOutcome {
        title,
        output: output.output,
        metadata: json!({"preview": output.preview, "truncated": output.truncated}),
        attachments: output
            .attachments
            .into_iter()
            .map(|attachment| (attachment.mime, attachment.bytes))
            .collect(),
    })
}
