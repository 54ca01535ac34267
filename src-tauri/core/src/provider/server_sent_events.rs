//! An incremental Server-Sent Events parser: bytes arrive in arbitrary chunks, whole events
//! come out. Both provider protocols stream SSE; this is the one place that splits it.

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
