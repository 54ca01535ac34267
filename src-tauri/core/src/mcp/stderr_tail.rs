//! The last lines a local server wrote to its stderr, kept so a failed status can show the
//! server's own words (a missing module, a bad token) instead of only "connection closed".

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// How many lines a status shows.
pub const KEPT_LINES: usize = 20;
/// Longer lines are cut: a server that prints a megabyte on one line must not fill memory.
const LINE_LIMIT: usize = 2000;

#[derive(Clone, Default)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl StderrTail {
    /// Reads `stream` line by line until it ends, keeping the last `KEPT_LINES`.
    pub fn follow(&self, stream: impl AsyncRead + Unpin + Send + 'static) {
        let tail = self.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stream);
            let mut line = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => tail.push(&String::from_utf8_lossy(&line)),
                }
            }
        });
    }

    fn push(&self, line: &str) {
        let line = line.trim_end();
        if line.is_empty() {
            return;
        }
        let line: String = line.chars().take(LINE_LIMIT).collect();
        let mut lines = self
            .lines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if lines.len() == KEPT_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
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

    #[tokio::test]
    async fn keeps_the_last_lines_of_a_stream() {
        let tail = StderrTail::default();
        let text: String = (1..=30).map(|number| format!("line {number}\n")).collect();
        let (mut writer, reader) = tokio::io::duplex(64);
        tail.follow(reader);
        tokio::io::AsyncWriteExt::write_all(&mut writer, text.as_bytes())
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        drop(writer);
        for _ in 0..100 {
            if tail.lines().last().map(String::as_str) == Some("line 30") {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let lines = tail.lines();
        assert_eq!(lines.len(), KEPT_LINES);
        assert_eq!(lines[0], "line 11");
        assert_eq!(lines[KEPT_LINES - 1], "line 30");
    }
}
