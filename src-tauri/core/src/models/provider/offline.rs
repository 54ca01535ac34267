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
    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderFailure> {
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
                output: output_tokens(&reply),
                ..Usage::default()
            },
        });
        Ok(futures::stream::iter(events.into_iter().map(Ok)).boxed())
    }

    fn is_offline(&self) -> bool {
        true
    }
}

/// A rough token count of the reply: its words, and each Chinese character as one (Chinese
/// has no spaces between words, so counting words alone would call a whole sentence one token).
fn output_tokens(reply: &str) -> u64 {
    reply
        .split_whitespace()
        .map(|word| {
            let characters = word
                .chars()
                .filter(
                    |symbol| matches!(symbol, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}'),
                )
                .count() as u64;
            characters.max(1)
        })
        .sum()
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

/// The language the reply is written in. The offline model cannot know the window's language
/// (a server serves windows in several), so it answers in the language the person wrote in:
/// Chinese when the question holds Chinese characters, English otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyLanguage {
    English,
    Chinese,
}

impl ReplyLanguage {
    pub fn of(question: &str) -> Self {
        // The CJK Unified Ideographs block and its common extension A: what Chinese text is
        // written in. Japanese kanji fall in it too; a Japanese question then gets the Chinese
        // reply, which a Japanese reader follows better than the English one.
        let chinese = question
            .chars()
            .any(|symbol| matches!(symbol, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}'));
        if chinese {
            Self::Chinese
        } else {
            Self::English
        }
    }
}

/// The reply, as plain Markdown, in the language of the question. Pure, so its wording is
/// tested directly.
pub fn reply_text(received: &Received) -> String {
    match ReplyLanguage::of(&received.question) {
        ReplyLanguage::English => english_reply(received),
        ReplyLanguage::Chinese => chinese_reply(received),
    }
}

fn english_reply(received: &Received) -> String {
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

fn chinese_reply(received: &Received) -> String {
    let mut reply = String::from(
        "我是 Dossier 的离线模型。我在这台电脑上运行，不连接网络，无法真正阅读或思考你的请求；\
         我只能告诉你我收到了什么。\n",
    );
    if received.files.is_empty() {
        reply.push_str("\n没有附加文件。\n");
    } else {
        reply.push_str(&format!("\n附加的文件（{} 个）：\n", received.files.len()));
        for file in &received.files {
            let mut facts = vec![file.mime.clone()];
            if file.mime == "application/x-directory" {
                facts = vec!["文件夹".into()];
            }
            if let Some(bytes) = file.bytes {
                facts.push(human_size(bytes));
            }
            if let Some(lines) = file.lines {
                facts.push(format!("{lines} 行"));
            }
            reply.push_str(&format!("- {}（{}）\n", file.name, facts.join("，")));
        }
    }
    reply.push_str(&format!("\n你的问题：“{}”\n", received.question));
    reply.push_str(
        "\n要得到真正的回答，请在“设置”中添加模型提供方（例如兼容 OpenAI 的服务器或 API 密钥；\
         桌面应用中按 Ctrl+, 或 Cmd+, 打开），或写入 Dossier 的配置文件（见 README）。",
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
    fn a_question_in_chinese_gets_the_reply_in_chinese() {
        let received = Received {
            question: "这份笔记讲了什么？".into(),
            files: vec![ReceivedFile {
                name: "笔记.txt".into(),
                mime: "text/plain".into(),
                bytes: Some(2048),
                lines: Some(40),
            }],
        };
        let reply = reply_text(&received);
        assert!(reply.starts_with("我是 Dossier 的离线模型。"), "{reply}");
        assert!(
            reply.contains("- 笔记.txt（text/plain，2.0 KB，40 行）"),
            "{reply}"
        );
        assert!(reply.contains("你的问题：“这份笔记讲了什么？”"), "{reply}");
        assert!(!reply.contains("offline model"), "{reply}");
        assert!(output_tokens(&reply) > 60, "{}", output_tokens(&reply));
        // Without a Chinese character the reply stays English, whatever else the text holds.
        assert_eq!(
            ReplyLanguage::of("Was ist das? café ✓"),
            ReplyLanguage::English
        );
        assert_eq!(ReplyLanguage::of(""), ReplyLanguage::English);
        assert_eq!(ReplyLanguage::of("translate 你好"), ReplyLanguage::Chinese);
    }

    #[test]
    fn data_urls_are_measured() {
        let url = data_url::build("text/plain", b"one\ntwo\nthree");
        assert_eq!(measure(&url, "text/plain"), (Some(13), Some(3)));
        assert_eq!(measure("blob:abc", "image/png"), (None, None));
    }
}
