//! Server-Sent Events for both provider protocols: an incremental parser (bytes arrive in
//! arbitrary chunks, whole events come out) and the one loop that turns a response body into
//! `StreamEvent`s through a protocol's `EventDecoding`. The protocols differ only in how an
//! event's data is read and in what an ending means, so that is all a decoder says.

use super::{EventStream, ProviderFailure, StreamEvent};
use futures::StreamExt;
use std::collections::VecDeque;

/// One event: its `event:` name (if any) and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSentEvent {
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct EventParser {
    pending: Vec<u8>,
    event: Option<String>,
    data: Vec<String>,
}

impl EventParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk and returns the events it completed. A line split across chunks (even in
    /// the middle of a UTF-8 character) waits for the rest.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<ServerSentEvent> {
        self.pending.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.pending.iter().position(|byte| *byte == b'\n') {
            let mut line: Vec<u8> = self.pending.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line).into_owned();
            if let Some(event) = self.line(&line) {
                events.push(event);
            }
        }
        events
    }

    /// The event left open when the stream ends without a blank line.
    pub fn finish(&mut self) -> Option<ServerSentEvent> {
        if !self.pending.is_empty() {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
            if let Some(event) = self.line(&line) {
                return Some(event);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<ServerSentEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => self.data.push(value.to_string()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<ServerSentEvent> {
        if self.data.is_empty() {
            self.event = None;
            return None;
        }
        Some(ServerSentEvent {
            event: self.event.take(),
            data: std::mem::take(&mut self.data).join("\n"),
        })
    }
}

/// What one event said: the events it produced, and whether the reply is complete (so nothing
/// after it is read).
#[derive(Debug, Default, PartialEq)]
pub struct Decoded {
    pub events: Vec<StreamEvent>,
    pub complete: bool,
}

/// A protocol's event-by-event reading of one streamed reply.
pub trait EventDecoding: Send + 'static {
    /// Reads one whole event. A failure ends the stream with it.
    fn decode(&mut self, event: &ServerSentEvent) -> Result<Decoded, ProviderFailure>;

    /// The body ended before an event said the reply was complete: whatever closes the reply,
    /// or the failure that says the connection was cut.
    fn body_ended(&mut self) -> Vec<Result<StreamEvent, ProviderFailure>>;
}

/// Sends a streaming request and decodes its body with `decoder`. A refused request becomes the
/// typed failure (status, `retry-after`, the provider's message) with `api_key` redacted from
/// anything the provider echoed back.
pub async fn open_stream<Decoder: EventDecoding>(
    request: reqwest::RequestBuilder,
    base_url: &str,
    api_key: Option<&str>,
    decoder: Decoder,
) -> Result<EventStream, ProviderFailure> {
    let response = request
        .send()
        .await
        .map_err(|error| super::connection_failure(base_url, error))?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        let headers = response.headers().clone();
        let body = response.text().await.unwrap_or_default();
        return Err(super::failure_from_response(status, &headers, body).redact(api_key));
    }
    Ok(decode_body(response.bytes_stream().boxed(), decoder))
}

/// The body's bytes decoded into a stream of events, ending after the first failure.
pub fn decode_body<Decoder: EventDecoding>(
    bytes: futures::stream::BoxStream<'static, Result<bytes::Bytes, reqwest::Error>>,
    decoder: Decoder,
) -> EventStream {
    let state = DecodeState {
        bytes,
        parser: EventParser::new(),
        decoder,
        queue: VecDeque::new(),
        finished: false,
    };
    futures::stream::unfold(state, next_event).boxed()
}

struct DecodeState<Decoder> {
    bytes: futures::stream::BoxStream<'static, Result<bytes::Bytes, reqwest::Error>>,
    parser: EventParser,
    decoder: Decoder,
    queue: VecDeque<Result<StreamEvent, ProviderFailure>>,
    finished: bool,
}

async fn next_event<Decoder: EventDecoding>(
    mut state: DecodeState<Decoder>,
) -> Option<(Result<StreamEvent, ProviderFailure>, DecodeState<Decoder>)> {
    loop {
        if let Some(item) = state.queue.pop_front() {
            return Some((item, state));
        }
        if state.finished {
            return None;
        }
        match state.bytes.next().await {
            Some(Ok(chunk)) => {
                for event in state.parser.feed(&chunk) {
                    state.decode(&event);
                    if state.finished {
                        break;
                    }
                }
            }
            Some(Err(error)) => {
                tracing::warn!(error = %error.without_url(), "provider stream failed");
                state.queue.push_back(Err(super::stream_cut()));
                state.finished = true;
            }
            None => {
                // An event the body ended in the middle of may be cut short; if it does not
                // decode, the ending below says what happened rather than a parse error.
                if let Some(event) = state.parser.finish() {
                    if let Ok(decoded) = state.decoder.decode(&event) {
                        state.queue.extend(decoded.events.into_iter().map(Ok));
                        state.finished = decoded.complete;
                    }
                }
                if !state.finished {
                    let ending = state.decoder.body_ended();
                    state.queue.extend(ending);
                    state.finished = true;
                }
            }
        }
    }
}

impl<Decoder: EventDecoding> DecodeState<Decoder> {
    fn decode(&mut self, event: &ServerSentEvent) {
        match self.decoder.decode(event) {
            Ok(decoded) => {
                self.queue.extend(decoded.events.into_iter().map(Ok));
                self.finished = decoded.complete;
            }
            Err(failure) => {
                self.queue.push_back(Err(failure));
                self.finished = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_chunks(text: &str, chunk: usize) -> Vec<ServerSentEvent> {
        let mut parser = EventParser::new();
        let mut events = Vec::new();
        for piece in text.as_bytes().chunks(chunk) {
            events.extend(parser.feed(piece));
        }
        events.extend(parser.finish());
        events
    }

    fn event(name: Option<&str>, data: &str) -> ServerSentEvent {
        ServerSentEvent {
            event: name.map(str::to_string),
            data: data.to_string(),
        }
    }

    async fn decode_all<Decoder: EventDecoding>(
        body: &str,
        chunk: usize,
        decoder: Decoder,
    ) -> Vec<Result<StreamEvent, ProviderFailure>> {
        let chunks: Vec<Result<bytes::Bytes, reqwest::Error>> = body
            .as_bytes()
            .chunks(chunk)
            .map(|piece| Ok(bytes::Bytes::copy_from_slice(piece)))
            .collect();
        decode_body(futures::stream::iter(chunks).boxed(), decoder)
            .collect()
            .await
    }

    fn is_cut(item: Option<&Result<StreamEvent, ProviderFailure>>) -> bool {
        matches!(item, Some(Err(ProviderFailure::StreamCut { .. })))
    }

    #[tokio::test]
    async fn one_loop_serves_both_protocols_whatever_the_chunking() {
        use crate::models::provider::{anthropic::EventDecoder, openai_compatible::ChunkDecoder};
        let openai = concat!(
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"after the end\"}}]}\n\n",
        );
        let anthropic = concat!(
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
            "event: ping\ndata: {\"type\":\"ping\"}\n\n",
        );
        for chunk in [1, 5, 64, 10_000] {
            let events = decode_all(openai, chunk, ChunkDecoder::default()).await;
            assert_eq!(events.len(), 4, "chunks of {chunk}: {events:?}");
            assert_eq!(events[1], Ok(StreamEvent::TextDelta("Hi".into())));
            assert!(
                matches!(events[3], Ok(StreamEvent::Finish { ref reason, .. }) if reason == "stop")
            );
            let events = decode_all(anthropic, chunk, EventDecoder::default()).await;
            assert_eq!(events.len(), 4, "chunks of {chunk}: {events:?}");
            assert!(matches!(events[3], Ok(StreamEvent::Finish { .. })));
        }
    }

    #[tokio::test]
    async fn endings_without_the_protocols_last_word() {
        use crate::models::provider::{anthropic::EventDecoder, openai_compatible::ChunkDecoder};
        // `[DONE]` with no blank line after it still ends the reply cleanly.
        let events = decode_all(
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]",
            3,
            ChunkDecoder::default(),
        )
        .await;
        assert!(
            matches!(events.last(), Some(Ok(StreamEvent::Finish { .. }))),
            "{events:?}"
        );
        // Cut in the middle of a chunk: the connection was cut, not "not JSON".
        let events = decode_all(
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choi",
            4,
            ChunkDecoder::default(),
        )
        .await;
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(is_cut(events.last()), "{events:?}");
        // Anthropic without `message_stop`.
        let events = decode_all(
            "event: ping\ndata: {\"type\":\"ping\"}\n\n",
            2,
            EventDecoder::default(),
        )
        .await;
        assert_eq!(events.len(), 1);
        assert!(is_cut(events.last()));
        // A malformed whole event ends the stream with that failure; nothing after it is read.
        let events = decode_all(
            "data: nope\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n",
            7,
            ChunkDecoder::default(),
        )
        .await;
        assert_eq!(events.len(), 1, "{events:?}");
        assert!(matches!(events[0], Err(ProviderFailure::Api { .. })));
    }

    #[test]
    fn events_survive_any_chunking() {
        let table: [(&str, Vec<ServerSentEvent>); 6] = [
            ("data: {\"a\":1}\n\n", vec![event(None, "{\"a\":1}")]),
            (
                "data: one\r\n\r\ndata: [DONE]\r\n\r\n",
                vec![event(None, "one"), event(None, "[DONE]")],
            ),
            (
                "event: message_start\ndata: {}\n\n",
                vec![event(Some("message_start"), "{}")],
            ),
            ("data: a\ndata: b\n\n", vec![event(None, "a\nb")]),
            (": keep-alive\n\ndata:x\n\n", vec![event(None, "x")]),
            (
                "data: héllo wörld\n\ndata: tail",
                vec![event(None, "héllo wörld"), event(None, "tail")],
            ),
        ];
        for (text, expected) in table {
            for chunk in [1, 2, 3, 7, 1000] {
                assert_eq!(
                    parse_in_chunks(text, chunk),
                    expected,
                    "{text:?} in chunks of {chunk}"
                );
            }
        }
    }
}
