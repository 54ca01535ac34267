//! Whether a local model can be offered tools, decided from its own chat template: the template
//! must take the tool list (rendering with a probe tool changes the prompt), and it must write
//! an assistant's tool call in a form `tool_call_reading` reads — the form the model was trained
//! to answer in. Anything else (most small models' templates, SmolLM2's) gets no tools.

use crate::local_models::chat_template::ChatTemplate;
use crate::local_models::gguf_header::read_template_facts;
use serde_json::{json, Value};
use std::path::Path;

/// How a model writes its tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolCallFormat {
    /// Hermes, Qwen2.5: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, one or
    /// several, possibly after some text.
    Hermes,
    /// Llama 3.x: the whole reply is `{"name": …, "parameters": {…}}`, maybe after
    /// `<|python_tag|>`.
    LlamaJson,
}

/// A model's template that takes tools, and the form its calls take.
pub struct ToolsTemplate {
    pub template: ChatTemplate,
    pub format: ToolCallFormat,
}

/// The template of the model file at `path` when it takes tools in a form Dossier reads; `None`
/// for any other template, or none, or a file whose header cannot be read.
pub fn tools_template(path: &Path, model_id: &str) -> Option<ToolsTemplate> {
    let facts = read_template_facts(path).ok()??;
    let template = ChatTemplate::new(model_id, facts).ok()?;
    let format = tool_call_format(&template)?;
    Some(ToolsTemplate { template, format })
}

const PROBE_TOOL: &str = "dossier_probe_tool";
const PROBE_ARGUMENT: &str = "dossier_probe_argument";

fn probe_tool() -> Value {
    json!({
        "type": "function",
        "function": {
            "name": PROBE_TOOL,
            "description": "Looks something up.",
            "parameters": {
                "type": "object",
                "properties": {PROBE_ARGUMENT: {"type": "string"}},
                "required": [PROBE_ARGUMENT],
            },
        },
    })
}

fn probe_arguments() -> Value {
    json!({PROBE_ARGUMENT: "probe value"})
}

/// The format the template writes tool calls in, or `None` when tools should not be offered.
pub fn tool_call_format(template: &ChatTemplate) -> Option<ToolCallFormat> {
    let question = vec![json!({"role": "user", "content": "What is the probe value?"})];
    let tools = vec![probe_tool()];
    let without = template.render(&question, &[], true).ok()?;
    let with = template.render(&question, &tools, true).ok()?;
    if with == without {
        return None;
    }
    let mut answered = question;
    answered.push(json!({
        "role": "assistant",
        "content": "",
        "tool_calls": [{
            "id": "call_probe",
            "type": "function",
            "function": {"name": PROBE_TOOL, "arguments": probe_arguments()},
        }],
    }));
    let written = template.render(&answered, &tools, false).ok()?;
    written_format(&written)
}

/// Which known form the probe call takes in `written`, the conversation as the template wrote it.
fn written_format(written: &str) -> Option<ToolCallFormat> {
    let is_probe_call = |value: &Value, arguments_key: &str| {
        value.get("name").and_then(Value::as_str) == Some(PROBE_TOOL)
            && value.get(arguments_key) == Some(&probe_arguments())
    };
    // Qwen's instructions show the form with placeholders first; the probe's call comes later.
    for (start, tag) in written.match_indices("<tool_call>") {
        let inside = &written[start + tag.len()..];
        let Some(end) = inside.find("</tool_call>") else {
            continue;
        };
        if serde_json::from_str::<Value>(inside[..end].trim())
            .is_ok_and(|call| is_probe_call(&call, "arguments"))
        {
            return Some(ToolCallFormat::Hermes);
        }
    }
    // A bare JSON object anywhere: the tool's own definition also names the probe, but with a
    // schema, not the probe's arguments, so it does not match.
    for (offset, _) in written.match_indices('{') {
        let mut values =
            serde_json::Deserializer::from_str(&written[offset..]).into_iter::<Value>();
        if let Some(Ok(value)) = values.next() {
            if is_probe_call(&value, "parameters") || is_probe_call(&value, "arguments") {
                return Some(ToolCallFormat::LlamaJson);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
