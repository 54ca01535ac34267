//! A tool call's MCP result as the model and the ledger see it, mapped as OpenCode maps it:
//! text joined by blank lines, images as attachments, an embedded resource's text as text and
//! its blob attached by the binary rule, a resource link named. `isError` makes it a failed call.

use crate::mcp::binary_content;
use base64::Engine;
use serde_json::Value;

/// The most text a result keeps: a 50 MB answer must not reach the model or the database whole.
pub const OUTPUT_LIMIT: usize = 50 * 1024;

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub output: String,
    /// `(mime, bytes)`, recorded as file parts on the tool part.
    pub attachments: Vec<(String, Vec<u8>)>,
    pub is_error: bool,
}

pub fn map(result: &Value) -> ToolResult {
    let mut texts: Vec<String> = Vec::new();
    let mut attachments = Vec::new();
    let items = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let text_of =
        |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    for item in &items {
        match item.get("type").and_then(Value::as_str) {
            Some("text") => texts.extend(text_of(item, "text")),
            Some("image") => {
                let mime = text_of(item, "mimeType").unwrap_or_else(|| "image/png".into());
                match text_of(item, "data").map(|data| decode(&data)) {
                    Some(Ok(bytes)) => attachments.push((mime, bytes)),
                    Some(Err(error)) => texts.push(format!("[Image omitted: {error}]")),
                    None => {}
                }
            }
            Some("resource") => {
                let Some(resource) = item.get("resource") else {
                    continue;
                };
                texts.extend(text_of(resource, "text"));
                if let Some(blob) = text_of(resource, "blob") {
                    let uri = text_of(resource, "uri").unwrap_or_default();
                    let mime = text_of(resource, "mimeType")
                        .unwrap_or_else(|| "application/octet-stream".into());
                    match binary_content::check(&uri, &mime, &blob)
                        .map_err(|note| note.to_string())
                        .and_then(|()| decode(&blob))
                    {
                        Ok(bytes) => attachments.push((mime, bytes)),
                        Err(note) => texts.push(note),
                    }
                }
            }
            Some("resource_link") => {
                let uri = text_of(item, "uri").unwrap_or_default();
                let name = text_of(item, "name").unwrap_or_else(|| uri.clone());
                texts.push(format!("Resource link: {name} ({uri})"));
            }
            _ => {}
        }
    }
    let mut output = texts.join("\n\n");
    if output.is_empty() {
        if let Some(structured) = result
            .get("structuredContent")
            .filter(|value| !value.is_null())
        {
            output = structured.to_string();
        }
    }
    ToolResult {
        output: limit(output),
        attachments,
        is_error: result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

fn decode(base64: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(base64.trim())
        .map_err(|error| format!("the data is not valid base64: {error}"))
}

fn limit(output: String) -> String {
    if output.len() <= OUTPUT_LIMIT {
        return output;
    }
    let mut end = OUTPUT_LIMIT;
    while !output.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n\n…the output was cut here: the tool returned {}, more than the {} kept.",
        &output[..end],
        binary_content::format_bytes(output.len() as u64),
        binary_content::format_bytes(OUTPUT_LIMIT as u64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_is_mapped_as_opencode_maps_it() {
        let result = map(&json!({
            "content": [
                {"type": "text", "text": "first"},
                {"type": "image", "data": "YWJjZA==", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "test://a", "text": "embedded text"}},
                {"type": "resource", "resource": {"uri": "test://b", "mimeType": "audio/wav", "blob": "YWJjZA=="}},
                {"type": "resource_link", "uri": "test://c", "name": "Resource C"},
                {"type": "text", "text": "last"}
            ]
        }));
        assert_eq!(
            result.output,
            "first\n\nembedded text\n\n[Binary MCP resource omitted: test://b (audio/wav, 4 B) is not a supported attachment type]\n\nResource link: Resource C (test://c)\n\nlast"
        );
        assert_eq!(
            result.attachments,
            vec![("image/png".to_string(), b"abcd".to_vec())]
        );
        assert!(!result.is_error);
    }

    #[test]
    fn errors_and_huge_outputs() {
        let failed =
            map(&json!({"content": [{"type": "text", "text": "bad input"}], "isError": true}));
        assert!(failed.is_error);
        assert_eq!(failed.output, "bad input");
        let huge =
            map(&json!({"content": [{"type": "text", "text": "é".repeat(30 * 1024 * 1024)}]}));
        assert!(
            huge.output.len() < OUTPUT_LIMIT + 200,
            "{}",
            huge.output.len()
        );
        assert!(
            huge.output
                .ends_with("the tool returned 60 MB, more than the 50 KB kept."),
            "{}",
            &huge.output[huge.output.len() - 100..]
        );
    }
}
