//! Reads tool calls out of a local model's streamed text, in the form its template taught it
//! (`tool_call_format`). Text streams on as it comes; from the point a call may begin
//! (`<tool_call>`, or a reply opening with `{"name"`) it is held back until the call is whole.
//! A call that is not valid JSON gives its raw text back as text (nothing the model said is
//! lost) and a reason, which the provider turns into a typed error.

use crate::local_models::tool_call_format::ToolCallFormat;
use serde_json::Value;

const CALL_OPEN: &str = "<tool_call>";
const CALL_CLOSE: &str = "</tool_call>";
const PYTHON_TAG: &str = "<|python_tag|>";

/// What the reader gives back, in the order the model wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadPiece {
    Text(String),
    /// `arguments` is the JSON text of the arguments object.
    Call {
        name: String,
        arguments: String,
    },
    /// A call that could not be read; its raw text has already come back as `Text`.
    Malformed {
        reason: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing but whitespace read yet (Llama's form decides here whether the reply is a call).
    Opening,
    Text,
    /// Inside `<tool_call>` … `</tool_call>`.
    InCall,
    /// Llama's form: the whole reply is the call, read when it ends.
    WholeReplyCall,
}

pub struct ToolCallReader {
    format: ToolCallFormat,
    state: State,
    held: String,
    /// Whitespace right after a call (or at the start) is dropped, not shown as a text part.
    trim_next_text: bool,
    /// The white space before the call being read: dropped if the call is read, given back
    /// with the call's raw text if it is not.
    gap: String,
}

impl ToolCallReader {
    pub fn new(format: ToolCallFormat) -> Self {
        Self {
            format,
            state: State::Opening,
            held: String::new(),
            trim_next_text: true,
            gap: String::new(),
        }
    }

    /// Takes the next piece of streamed text.
    pub fn push(&mut self, text: &str) -> Vec<ReadPiece> {
        self.held.push_str(text);
        let mut pieces = Vec::new();
        self.advance(&mut pieces, false);
        pieces
    }

    /// The reply ended: whatever is held is settled.
    pub fn finish(&mut self) -> Vec<ReadPiece> {
        let mut pieces = Vec::new();
        self.advance(&mut pieces, true);
        pieces
    }

    /// What is held back, as the raw text the model wrote (the reply was cut short).
    pub fn take_held(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        if self.state == State::InCall {
            format!("{}{CALL_OPEN}{held}", std::mem::take(&mut self.gap))
        } else {
            held
        }
    }

    fn advance(&mut self, pieces: &mut Vec<ReadPiece>, ended: bool) {
        loop {
            let before = (self.state, self.held.len());
            match self.state {
                State::Opening => self.opening(ended),
                State::Text => self.text(pieces, ended),
                State::InCall => self.in_call(pieces, ended),
                State::WholeReplyCall => {
                    if ended {
                        let raw = std::mem::take(&mut self.held);
                        whole_reply_calls(&raw, pieces);
                    }
                }
            }
            if (self.state, self.held.len()) == before {
                return;
            }
        }
    }

    fn opening(&mut self, ended: bool) {
        let start = self.held.trim_start();
        if start.is_empty() {
            if ended {
                self.held.clear();
            }
            return;
        }
        if self.format == ToolCallFormat::LlamaJson {
            if let Some(rest) = start.strip_prefix(PYTHON_TAG) {
                self.held = rest.to_string();
                return;
            }
            if PYTHON_TAG.starts_with(start) && !ended {
                return;
            }
            match opens_a_call(start) {
                Some(true) => {
                    self.held = start.to_string();
                    self.state = State::WholeReplyCall;
                    return;
                }
                None if !ended => return,
                _ => {}
            }
        }
        self.state = State::Text;
    }

    fn text(&mut self, pieces: &mut Vec<ReadPiece>, ended: bool) {
        if self.format == ToolCallFormat::Hermes {
            if let Some(at) = self.held.find(CALL_OPEN) {
                // The space before a call is the template's, not the model's words: a call
                // written back into the next prompt puts its own line break there.
                let before = self.held[..at].trim_end().to_string();
                self.gap = self.held[before.len()..at].to_string();
                self.held.drain(..at + CALL_OPEN.len());
                self.emit_text(pieces, &before);
                self.state = State::InCall;
                return;
            }
        }
        // Keep back a tail that could still become `<tool_call>`, and the white space before
        // it, which is dropped if a call follows.
        let ready = if ended || self.format != ToolCallFormat::Hermes {
            self.held.len()
        } else {
            let keep = partial_tag_length(&self.held, CALL_OPEN);
            self.held[..self.held.len() - keep].trim_end().len()
        };
        if ready > 0 {
            let text: String = self.held.drain(..ready).collect();
            self.emit_text(pieces, &text);
        }
    }

    fn in_call(&mut self, pieces: &mut Vec<ReadPiece>, ended: bool) {
        let (body, raw_length) = match self.held.find(CALL_CLOSE) {
            Some(at) => (self.held[..at].to_string(), at + CALL_CLOSE.len()),
            // A reply that ends inside a call: Qwen sometimes stops before the closing tag.
            None if ended => (self.held.clone(), self.held.len()),
            None => return,
        };
        let raw: String = self.held.drain(..raw_length).collect();
        let gap = std::mem::take(&mut self.gap);
        match read_call(body.trim(), &["arguments", "parameters"]) {
            Ok(call) => pieces.push(call),
            Err(reason) => {
                let raw = format!("{gap}{CALL_OPEN}{raw}");
                pieces.push(ReadPiece::Text(raw));
                pieces.push(ReadPiece::Malformed { reason });
            }
        }
        self.trim_next_text = true;
        self.state = State::Text;
    }

    fn emit_text(&mut self, pieces: &mut Vec<ReadPiece>, text: &str) {
        let text = if self.trim_next_text {
            text.trim_start()
        } else {
            text
        };
        if text.is_empty() {
            return;
        }
        self.trim_next_text = false;
        pieces.push(ReadPiece::Text(text.to_string()));
    }
}

/// Whether text that starts a reply opens a Llama-style call: `Some(true)` for `{"name"`,
/// `Some(false)` for anything else, `None` while too little has come to tell.
fn opens_a_call(start: &str) -> Option<bool> {
    let Some(after_brace) = start.strip_prefix('{') else {
        return Some(false);
    };
    let key = after_brace.trim_start();
    if key.starts_with("\"name\"") {
        Some(true)
    } else if "\"name\"".starts_with(key) {
        None
    } else {
        Some(false)
    }
}

/// The longest end of `text` that is the start of `tag` (so the tag may be arriving in pieces).
fn partial_tag_length(text: &str, tag: &str) -> usize {
    (1..tag.len().min(text.len() + 1))
        .rev()
        .find(|length| {
            text.is_char_boundary(text.len() - length) && text.ends_with(&tag[..*length])
        })
        .unwrap_or(0)
}

/// Llama's form: one call, or several separated by `;` or new lines, as the whole reply. Words
/// after the calls stay words.
fn whole_reply_calls(raw: &str, pieces: &mut Vec<ReadPiece>) {
    let mut calls = Vec::new();
    let mut offset = 0;
    let outcome = loop {
        let rest = raw[offset..]
            .trim_start_matches(|character: char| character.is_whitespace() || character == ';');
        if rest.is_empty() {
            break Ok(None);
        }
        if !calls.is_empty() && !rest.starts_with('{') {
            break Ok(Some(rest));
        }
        let start = raw.len() - rest.len();
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match values.next() {
            Some(Ok(value)) => match call_from_value(&value, &["parameters", "arguments"]) {
                Ok(call) => calls.push(call),
                Err(reason) => break Err(reason),
            },
            Some(Err(error)) => break Err(format!("not valid JSON: {error}")),
            None => break Ok(None),
        }
        offset = start + values.byte_offset();
    };
    match outcome {
        Ok(after) => {
            pieces.extend(calls);
            if let Some(after) = after {
                pieces.push(ReadPiece::Text(after.to_string()));
            }
        }
        Err(reason) => {
            pieces.push(ReadPiece::Text(raw.to_string()));
            pieces.push(ReadPiece::Malformed { reason });
        }
    }
}

fn read_call(body: &str, argument_keys: &[&str]) -> Result<ReadPiece, String> {
    let value: Value =
        serde_json::from_str(body).map_err(|error| format!("not valid JSON: {error}"))?;
    call_from_value(&value, argument_keys)
}

/// A call from its JSON: a `name` and an arguments object (some models write the object as a
/// JSON string; that is read too).
fn call_from_value(value: &Value, argument_keys: &[&str]) -> Result<ReadPiece, String> {
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .filter(|name| !name.trim().is_empty())
        .ok_or_else(|| "the call has no tool name".to_string())?;
    let arguments = argument_keys
        .iter()
        .find_map(|key| value.get(*key))
        .cloned()
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    let arguments = match arguments {
        Value::String(text) => serde_json::from_str::<Value>(&text)
            .ok()
            .filter(Value::is_object)
            .ok_or_else(|| format!("the arguments of {name} are not a JSON object"))?,
        Value::Object(_) => arguments,
        Value::Null => Value::Object(serde_json::Map::new()),
        _ => return Err(format!("the arguments of {name} are not a JSON object")),
    };
    Ok(ReadPiece::Call {
        name: name.to_string(),
        arguments: arguments.to_string(),
    })
}

#[cfg(test)]
mod tests;
