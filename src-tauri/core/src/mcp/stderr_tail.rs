//! The last lines a local server wrote to its stderr, kept so a failed status can show the
//! server's own words (a missing module, a bad token) instead of only "connection closed".
//! Memory stays bounded whatever the server prints: at most `KEPT_LINES` lines of at most
//! `LINE_LIMIT` bytes, and a line without an end is cut while it is read, not after.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::Notify;

/// How many lines a status keeps: enough for a Node or Python stack trace to still hold the
/// line that names the error.
pub const KEPT_LINES: usize = 40;
/// Longer lines are cut: a server that prints a megabyte on one line must not fill memory.
const LINE_LIMIT: usize = 2000;

#[derive(Clone, Default)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    followed: Arc<AtomicBool>,
    ended: Arc<AtomicBool>,
    ending: Arc<Notify>,
}

impl StderrTail {
    /// Reads `stream` line by line until it ends, keeping the last `KEPT_LINES`.
    pub fn follow(&self, stream: impl AsyncRead + Unpin + Send + 'static) {
        self.followed.store(true, Ordering::SeqCst);
        let tail = self.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stream);
            let mut line: Vec<u8> = Vec::new();
            loop {
                let chunk = match reader.fill_buf().await {
                    Ok([]) | Err(_) => break,
                    Ok(chunk) => chunk,
                };
                let (piece, complete) = match chunk.iter().position(|byte| *byte == b'\n') {
                    Some(end) => (&chunk[..end], true),
                    None => (chunk, false),
                };
                let room = LINE_LIMIT.saturating_sub(line.len());
                line.extend_from_slice(&piece[..piece.len().min(room)]);
                let used = piece.len() + usize::from(complete);
                reader.consume(used);
                if complete {
                    tail.push(&line);
                    line.clear();
                }
            }
            if !line.is_empty() {
                tail.push(&line);
            }
            tail.ended.store(true, Ordering::SeqCst);
            tail.ending.notify_waiters();
        });
    }

    fn push(&self, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let line = text.trim_end();
        if line.is_empty() {
            return;
        }
        let mut lines = self
            .lines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if lines.len() == KEPT_LINES {
            lines.pop_front();
        }
        lines.push_back(line.to_string());
    }

    /// Waits until the stream ended (a dying child has written its last words) or `limit`
    /// passed (a child that is still running may never close it).
    pub async fn settled(&self, limit: Duration) {
        // Created before the check, so an end announced in between is not missed.
        let ending = self.ending.notified();
        // Nothing to wait for when the stream ended, or none was followed (no program started).
        if self.ended.load(Ordering::SeqCst) || !self.followed.load(Ordering::SeqCst) {
            return;
        }
        if tokio::time::timeout(limit, ending).await.is_err() {
            tracing::debug!(?limit, "an MCP server's stderr is still open");
        }
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn written(text: &[u8]) -> Vec<String> {
        let tail = StderrTail::default();
        let (mut writer, reader) = tokio::io::duplex(64);
        tail.follow(reader);
        tokio::io::AsyncWriteExt::write_all(&mut writer, text)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        drop(writer);
        tail.settled(Duration::from_secs(5)).await;
        tail.lines()
    }

    #[tokio::test]
    async fn keeps_the_last_lines_of_a_stream() {
        let text: String = (1..=50).map(|number| format!("line {number}\n")).collect();
        let lines = written(text.as_bytes()).await;
        assert_eq!(lines.len(), KEPT_LINES);
        assert_eq!(lines[0], "line 11");
        assert_eq!(lines[KEPT_LINES - 1], "line 50");
    }

    #[tokio::test]
    async fn an_endless_line_is_cut_while_it_is_read() {
        let mut text = vec![b'x'; LINE_LIMIT * 50];
        text.extend_from_slice(b"\nlast words");
        let lines = written(&text).await;
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), LINE_LIMIT);
        assert_eq!(lines[1], "last words");
    }
}
