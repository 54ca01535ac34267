//! Dossier's built-in offline model (`dossier/offline`): no network, no key, an answer at once.
//! It streams, through the same deltas as any provider, a short honest reply: that it is the
//! offline model, which files it received (size and line count), and the question it was asked.

use super::{EventStream, ModelProvider, ModelRequest, ProviderFailure, StreamEvent, Usage};
use crate::wire::data_url;
use crate::wire::human_size::human_size;
use crate::wire::message::{Message, MessageWithParts};
use crate::wire::part::PartBody;
use async_trait::async_trait;
use futures::StreamExt;

pub struct OfflineModel;

#[async_trait]
impl ModelProvider for OfflineModel {
    async fn stream(&self, request: ModelRequest) -> Result<EventStream, ProviderFailure> {
        let received = Received::from_history(&request.history);
        let reply = reply_text(&received);
        let input = request
            .history
            .iter()
            .flat_map(|message| message.parts.iter())
            .map(|part| match &part.body {
                PartBody::Text(text) => text.text.len() as u64 / 4,
                _ => 0,
            })
            .sum();
        let mut events = vec![StreamEvent::TextStart];
        events.extend(word_chunks(&reply).map(|chunk| StreamEvent::TextDelta(chunk.to_string())));
        events.push(StreamEvent::TextEnd);
        events.push(StreamEvent::Finish {
            reason: "stop".into(),
            usage: Usage {
                input,
                output: reply.split_whitespace().count() as u64,
                ..Usage::default()
            },
        });
        Ok(futures::stream::iter(events.into_iter().map(Ok)).boxed())
    }

    fn is_offline(&self) -> bool {
        true
    }
}

/// What the newest user message carried.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Received {
    pub question: String,
    pub files: Vec<ReceivedFile>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedFile {
    pub name: String,
    pub mime: String,
    pub bytes: Option<u64>,
    pub lines: Option<u64>,
}

impl Received {
    pub fn from_history(history: &[MessageWithParts]) -> Self {
        let Some(user) = history
            .iter()
            .rev()
            .find(|message| matches!(message.info, Message::User(_)))
        else {
            return Self::default();
        };
        let mut received = Self::default();
        let mut question = Vec::new();
        for part in &user.parts {
            match &part.body {
                PartBody::Text(text)
                    if text.synthetic != Some(true) && text.ignored != Some(true) =>
                {
                    question.push(text.text.trim().to_string());
                }
                PartBody::File(file) => {
                    let name = file.filename.clone().unwrap_or_else(|| {
                        file.url.rsplit('/').next().unwrap_or("file").to_string()
                    });
                    let (bytes, lines) = measure(&file.url, &file.mime);
                    received.files.push(ReceivedFile {
                        name,
                        mime: file.mime.clone(),
                        bytes,
                        lines,
                    });
                }
                _ => {}
            }
        }
        received.question = question
            .into_iter()
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        received
    }
}

/// Size and line count of a `file:` or `data:` URL's content; unknown for anything else.
fn measure(url: &str, mime: &str) -> (Option<u64>, Option<u64>) {
    let count_lines = |bytes: &[u8]| -> Option<u64> {
        let textual = mime.starts_with("text/") || mime == "application/json";
        textual.then(|| {
            let newlines = bytes.iter().filter(|byte| **byte == b'\n').count() as u64;
            newlines + u64::from(!bytes.is_empty() && bytes.last() != Some(&b'\n'))
        })
    };
    if let Ok(decoded) = data_url::parse(url) {
        return (
            Some(decoded.bytes.len() as u64),
            count_lines(&decoded.bytes),
        );
    }
    let Some(path) = url::Url::parse(url)
        .ok()
        .filter(|parsed| parsed.scheme() == "file")
        .and_then(|parsed| parsed.to_file_path().ok())
    else {
        return (None, None);
    };
    let Ok(metadata) = std::fs::metadata(&path) else {
        return (None, None);
    };
    if metadata.is_dir() {
        return (None, None);
    }
    let lines = if metadata.len() <= 16 * 1024 * 1024 {
        std::fs::read(&path)
            .ok()
            .and_then(|bytes| count_lines(&bytes))
    } else {
        None
    };
    (Some(metadata.len()), lines)
}

/// The reply, as plain Markdown. Pure, so its wording is tested directly.
pub fn reply_text(received: &Received) -> String {
    let mut reply = String::from(
        "I am Dossier's offline model. I run on this computer without a network connection and \
         cannot really read or reason about your request; I can only tell you what I received.\n",
    );
    if received.files.is_empty() {
        reply.push_str("\nNo files were attached.\n");
    } else {
        reply.push_str(&format!(
            "\nAttached {}:\n",
            if received.files.len() == 1 {
                "file".to_string()
            } else {
                format!("files ({})", received.files.len())
            }
        ));
        for file in &received.files {
            let mut facts = vec![file.mime.clone()];
            if file.mime == "application/x-directory" {
                facts = vec!["folder".into()];
            }
            if let Some(bytes) = file.bytes {
                facts.push(human_size(bytes));
            }
            if let Some(lines) = file.lines {
                facts.push(format!("{lines} line{}", if lines == 1 { "" } else { "s" }));
            }
            reply.push_str(&format!("- {} ({})\n", file.name, facts.join(", ")));
        }
    }
    if received.question.is_empty() {
        reply.push_str("\nThere was no question in your message.\n");
    } else {
        reply.push_str(&format!("\nYour question: \"{}\"\n", received.question));
    }
    reply.push_str(
        "\nTo get real answers, add a model provider (for example an OpenAI-compatible server or \
         an API key) in Settings (Ctrl+, or Cmd+, in the desktop app), or in Dossier's config \
         file (see the README).",
    );
    reply
}

/// Splits text into word-sized deltas that keep their trailing whitespace, so the pieces
/// concatenate back to the original exactly.
pub fn word_chunks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let word_end = rest
            .char_indices()
            .find(|(index, symbol)| *index > 0 && symbol.is_whitespace())
            .map_or(rest.len(), |(index, _)| index);
        let end = rest[word_end..]
            .char_indices()
            .find(|(_, symbol)| !symbol.is_whitespace())
            .map_or(rest.len(), |(index, _)| word_end + index);
        let (chunk, remainder) = rest.split_at(end);
        rest = remainder;
        Some(chunk)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_chunks_rebuild_the_text() {
        for text in [
            "Hello from the offline model.",
            "  lead",
            "a\n\nb  c ",
            "",
            "ünïcode wörds",
        ] {
            assert_eq!(word_chunks(text).collect::<String>(), text);
        }
        assert_eq!(
            word_chunks("one two\nthree").collect::<Vec<_>>(),
            vec!["one ", "two\n", "three"]
        );
    }

    #[test]
    fn reply_names_the_model_the_files_and_the_question() {
        let received = Received {
            question: "What is in these notes?".into(),
            files: vec![
                ReceivedFile {
                    name: "notes.txt".into(),
                    mime: "text/plain".into(),
                    bytes: Some(2048),
                    lines: Some(40),
                },
                ReceivedFile {
                    name: "photo.png".into(),
                    mime: "image/png".into(),
                    bytes: Some(300),
                    lines: None,
                },
            ],
        };
        let reply = reply_text(&received);
        assert!(
            reply.starts_with("I am Dossier's offline model."),
            "{reply}"
        );
        assert!(
            reply.contains("- notes.txt (text/plain, 2.0 KB, 40 lines)"),
            "{reply}"
        );
        assert!(
            reply.contains("- photo.png (image/png, 300 bytes)"),
            "{reply}"
        );
        assert!(
            reply.contains("Your question: \"What is in these notes?\""),
            "{reply}"
        );
        let empty = reply_text(&Received::default());
        assert!(empty.contains("No files were attached."), "{empty}");
        assert!(empty.contains("There was no question"), "{empty}");
    }

    #[test]
    fn data_urls_are_measured() {
        let url = data_url::build("text/plain", b"one\ntwo\nthree");
        assert_eq!(measure(&url, "text/plain"), (Some(13), Some(3)));
        assert_eq!(measure("blob:abc", "image/png"), (None, None));
    }
}
