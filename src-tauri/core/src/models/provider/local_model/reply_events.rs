//! A local model's streamed reply turned into the events every provider gives: text deltas as
//! they come, and — when tools were offered — tool calls read out of the text
//! (`local_models::tool_call_reading`) as `ToolInputStart` + `ToolCall`, as the OpenAI-compatible
//! client gives its streamed calls. A call the reader cannot read ends the reply with a typed
//! error after its raw text, so nothing the model wrote is lost.

use super::failure;
use crate::local_models::local_engine::ReplyEvent;
use crate::local_models::local_engine_error::LocalEngineError;
use crate::local_models::tool_call_format::ToolCallFormat;
use crate::local_models::tool_call_reading::{ReadPiece, ToolCallReader};
use crate::models::provider::{ProviderFailure, StreamEvent, Usage};

pub struct ReplyEvents {
    model: String,
    reader: Option<ToolCallReader>,
    text_open: bool,
    calls: usize,
    /// A malformed call ended the reply; whatever the worker still says is not shown.
    ended: bool,
    /// Tells this reply's calls apart from earlier ones in the session.
    call_prefix: String,
}

impl ReplyEvents {
    /// `format` is `None` when no tools were offered: the text is then passed on as it is.
    pub fn new(model: &str, format: Option<ToolCallFormat>) -> Self {
        Self {
            model: model.to_string(),
            reader: format.map(ToolCallReader::new),
            text_open: false,
            calls: 0,
            ended: false,
            call_prefix: format!("call_{:012x}", rand::random::<u64>() & 0xffff_ffff_ffff),
        }
    }

    pub fn on(
        &mut self,
        event: Result<ReplyEvent, LocalEngineError>,
    ) -> Vec<Result<StreamEvent, ProviderFailure>> {
        let mut events = Vec::new();
        if self.ended {
            return events;
        }
        match event {
            Ok(ReplyEvent::Text(text)) => {
                let pieces = match self.reader.as_mut() {
                    Some(reader) => reader.push(&text),
                    None => vec![ReadPiece::Text(text)],
                };
                self.pieces(pieces, &mut events);
            }
            Ok(ReplyEvent::Finished {
                prompt_tokens,
                completion_tokens,
                stop_reason,
            }) => {
                let pieces = self
                    .reader
                    .as_mut()
                    .map(ToolCallReader::finish)
                    .unwrap_or_default();
                if self.pieces(pieces, &mut events) {
                    return events;
                }
                self.close_text(&mut events);
                let reason = match stop_reason.as_str() {
                    "max_tokens" | "context_full" => "length",
                    _ if self.calls > 0 => "tool-calls",
                    _ => "stop",
                };
                events.push(Ok(StreamEvent::Finish {
                    reason: reason.into(),
                    usage: Usage {
                        input: u64::from(prompt_tokens),
                        output: u64::from(completion_tokens),
                        ..Usage::default()
                    },
                }));
            }
            Err(error) => {
                // Text held back while a call was forming is the model's too: it is kept.
                let held = self
                    .reader
                    .as_mut()
                    .map(ToolCallReader::take_held)
                    .unwrap_or_default();
                if !held.is_empty() {
                    self.pieces(vec![ReadPiece::Text(held)], &mut events);
                }
                events.push(Err(failure(&error)));
            }
        }
        events
    }

    /// Adds the events for `pieces`; true when a malformed call ended the reply.
    fn pieces(
        &mut self,
        pieces: Vec<ReadPiece>,
        events: &mut Vec<Result<StreamEvent, ProviderFailure>>,
    ) -> bool {
        for piece in pieces {
            match piece {
                ReadPiece::Text(text) => {
                    if !self.text_open {
                        self.text_open = true;
                        events.push(Ok(StreamEvent::TextStart));
                    }
                    events.push(Ok(StreamEvent::TextDelta(text)));
                }
                ReadPiece::Call { name, arguments } => {
                    self.close_text(events);
                    self.calls += 1;
                    let call_id = format!("{}_{}", self.call_prefix, self.calls);
                    events.push(Ok(StreamEvent::ToolInputStart {
                        call_id: call_id.clone(),
                        name: name.clone(),
                    }));
                    events.push(Ok(StreamEvent::ToolCall {
                        call_id,
                        name,
                        input: arguments,
                    }));
                }
                ReadPiece::Malformed { reason } => {
                    self.close_text(events);
                    events.push(Err(failure(&LocalEngineError::MalformedToolCall {
                        model: self.model.clone(),
                        reason,
                    })));
                    self.ended = true;
                    return true;
                }
            }
        }
        false
    }

    fn close_text(&mut self, events: &mut Vec<Result<StreamEvent, ProviderFailure>>) {
        if self.text_open {
            self.text_open = false;
            events.push(Ok(StreamEvent::TextEnd));
        }
    }
}

#[cfg(test)]
mod tests;
