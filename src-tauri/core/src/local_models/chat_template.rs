//! A local model's chat template run as the Jinja it is, so a conversation with tools can be
//! written out for the model: llama.cpp's built-in template engine (what the worker uses for a
//! plain conversation) recognises known templates by their text and cannot take tools. The
//! conversation is handed over in the shape Hugging Face's `apply_chat_template` gives templates:
//! OpenAI-style messages (assistant `tool_calls` with arguments as an object, `tool` results),
//! tools in OpenAI's function shape, `add_generation_prompt`, `bos_token` and `eos_token`, with
//! its `tojson` and `raise_exception` and Python's string methods (minijinja-contrib's pycompat).

use crate::local_models::gguf_header::TemplateFacts;
use crate::local_models::local_engine_error::LocalEngineError;
use minijinja::value::{Kwargs, Value};
use minijinja::{Environment, Error, ErrorKind};
use serde::Serialize;

const TEMPLATE_NAME: &str = "chat_template";

/// One model's template, ready to render.
pub struct ChatTemplate {
    model: String,
    facts: TemplateFacts,
    environment: Environment<'static>,
}

impl ChatTemplate {
    /// Compiles the template of `model`; one that is not valid Jinja is a typed error naming it.
    pub fn new(model: &str, facts: TemplateFacts) -> Result<Self, LocalEngineError> {
        let mut environment = Environment::new();
        // Hugging Face renders with these two on; templates are written for them.
        environment.set_trim_blocks(true);
        environment.set_lstrip_blocks(true);
        environment
            .set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        environment.add_filter("tojson", python_json);
        environment.add_function("raise_exception", raise_exception);
        environment
            .add_template_owned(TEMPLATE_NAME, facts.chat_template.clone())
            .map_err(|error| failed(model, &error))?;
        Ok(Self {
            model: model.to_string(),
            facts,
            environment,
        })
    }

    /// The prompt for `messages` (JSON objects in OpenAI's chat shape) with `tools` (OpenAI's
    /// function shape). No tools leaves `tools` undefined, as Hugging Face does: templates such
    /// as Llama 3's test `tools is not none` and would announce an empty tool list.
    pub fn render(
        &self,
        messages: &[serde_json::Value],
        tools: &[serde_json::Value],
        add_generation_prompt: bool,
    ) -> Result<String, LocalEngineError> {
        let template = self
            .environment
            .get_template(TEMPLATE_NAME)
            .map_err(|error| failed(&self.model, &error))?;
        let mut context = serde_json::Map::new();
        context.insert("messages".into(), messages.to_vec().into());
        if !tools.is_empty() {
            context.insert("tools".into(), tools.to_vec().into());
        }
        context.insert("add_generation_prompt".into(), add_generation_prompt.into());
        context.insert("bos_token".into(), self.facts.bos_token.clone().into());
        context.insert("eos_token".into(), self.facts.eos_token.clone().into());
        template
            .render(Value::from_serialize(&context))
            .map_err(|error| failed(&self.model, &error))
    }

    pub fn model(&self) -> &str {
        &self.model
    }
}

fn failed(model: &str, error: &Error) -> LocalEngineError {
    // minijinja's Display adds the template's name and line, which helps whoever reports it.
    let mut reason = error.to_string();
    if let Some(detail) = error.detail() {
        if !reason.contains(detail) {
            reason = format!("{reason}: {detail}");
        }
    }
    LocalEngineError::TemplateRender {
        model: model.to_string(),
        reason,
    }
}

/// `raise_exception(message)`: how Hugging Face templates refuse a conversation they cannot
/// write (for example Llama 3.2's "only supports single tool-calls at once").
fn raise_exception(message: String) -> Result<Value, Error> {
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

/// `tojson` as Hugging Face defines it: Python's `json.dumps` with `ensure_ascii=False`, so the
/// separators are `", "` and `": "` (or an indented layout with `indent=`), keys in their order
/// and nothing HTML-escaped. The model was trained on exactly this text.
fn python_json(value: Value, options: Kwargs) -> Result<String, Error> {
    // Only `indent` changes the text; Python's other options (`ensure_ascii`, `sort_keys`) are
    // not checked, so a template that passes them still renders.
    let indent: Option<usize> = options.get("indent")?;
    let mut out = Vec::new();
    let written = match indent {
        Some(width) => {
            let spaces = vec![b' '; width];
            let mut serializer = serde_json::Serializer::with_formatter(
                &mut out,
                serde_json::ser::PrettyFormatter::with_indent(&spaces),
            );
            value.serialize(&mut serializer)
        }
        None => {
            let mut serializer = serde_json::Serializer::with_formatter(&mut out, PythonSpacing);
            value.serialize(&mut serializer)
        }
    };
    written.map_err(|error| {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("a value cannot be written as JSON: {error}"),
        )
    })?;
    String::from_utf8(out).map_err(|error| {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("JSON that is not UTF-8: {error}"),
        )
    })
}

/// Python's default JSON separators: a space after each comma and colon.
struct PythonSpacing;

impl serde_json::ser::Formatter for PythonSpacing {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

#[cfg(test)]
pub(crate) mod tests;
