//! Exporting a session: lossless JSON (OpenCode's `opencode export` shape, `{info, messages}`,
//! with attachment bytes inlined as `data:` URLs) and readable Markdown (who said what,
//! attachments with names and sizes, tool calls summarised). Exports never carry secrets: the
//! ledger stores none (provider keys live in the config or the OS keychain).

use crate::reshaping::Reshaping;
use crate::store::rows::message_page::MessageQuery;
use crate::store::tables::blob_store;
use crate::store::tables::message_store;
use crate::wire::data_url;
use crate::wire::error::LedgerError;
use crate::wire::human_size::human_size;
use crate::wire::message::{Message, MessageWithParts};
use crate::wire::part::{FilePart, Part, PartBody, ToolState};
use crate::wire::plain_title::plain_title;
use crate::wire::reader_time::{reader_time, ReaderTimeZone};
use crate::wire::reserved_file_name::unreserved_stem;
use crate::wire::session::Session;
use serde::{Deserialize, Serialize};

/// The lossless export: the session and every message with every part, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionExport {
    pub info: Session,
    pub messages: Vec<MessageWithParts>,
}

impl Reshaping<'_> {
    pub async fn export_json(&self, session_id: &str) -> Result<SessionExport, LedgerError> {
        let info = self.store.session(session_id).await?;
        let mut messages =
            message_store::list(&self.store.pool, session_id, &MessageQuery::default())
                .await?
                .messages;
        for message in &mut messages {
            for part in &mut message.parts {
                if let PartBody::File(file) = &mut part.body {
                    file.url = blob_store::inline_url(&self.store.pool, &file.url).await?;
                }
            }
        }
        Ok(SessionExport { info, messages })
    }

    /// The readable export, its times told in `zone`.
    pub async fn export_markdown(
        &self,
        session_id: &str,
        zone: ReaderTimeZone,
    ) -> Result<String, LedgerError> {
        let export = self.export_json(session_id).await?;
        Ok(render_markdown(&export, zone))
    }
}

/// A file name for an export of the session titled `title`, accepted by every platform: the
/// title as plain text (a stored "## Summary" names "Summary.md", not "## Summary.md"), characters
/// Windows or a shell would choke on become `_`, at most 80 characters of title, and never a
/// name Windows keeps for a device (a session titled "CON" exports as `CON_.md`).
pub fn export_file_name(title: &str, extension: &str) -> String {
    let cleaned: String = plain_title(title)
        .chars()
        .map(|character| {
            if character.is_control() || "/\\:*?\"<>|".contains(character) {
                '_'
            } else {
                character
            }
        })
        .take(80)
        .collect();
    let trimmed = cleaned.trim().trim_matches('.');
    let stem = if trimmed.is_empty() {
        "session"
    } else {
        trimmed
    };
    // "CON.md" would be the console on Windows, not a file (`reserved_file_name`).
    let stem = unreserved_stem(stem);
    format!("{stem}.{extension}")
}

fn attachment_line(file: &FilePart) -> String {
    let name = file
        .filename
        .clone()
        .unwrap_or_else(|| file.url.chars().take(80).collect());
    let size = if file.mime == crate::pipeline::draft_resolution::DIRECTORY_MIME {
        "folder".to_string()
    } else if let Ok(decoded) = data_url::parse(&file.url) {
        human_size(decoded.bytes.len() as u64)
    } else if let Some(size) = url::Url::parse(&file.url)
        .ok()
        .and_then(|url| url.to_file_path().ok())
        .and_then(|path| std::fs::metadata(path).ok())
        .map(|metadata| human_size(metadata.len()))
    {
        size
    } else {
        "size unknown".to_string()
    };
    format!("- 📎 {name} ({}, {size})", file.mime)
}

fn tool_line(part: &Part) -> Option<String> {
    let PartBody::Tool(tool) = &part.body else {
        return None;
    };
    let (state, detail) = match &tool.state {
        ToolState::Pending { .. } => ("pending", String::new()),
        ToolState::Running { title, .. } => ("running", title.clone().unwrap_or_default()),
        ToolState::Completed { title, .. } => ("completed", title.clone()),
        ToolState::Error { error, .. } => ("failed", error.clone()),
    };
    Some(format!(
        "- 🔧 `{}` {state}{}",
        tool.tool,
        if detail.is_empty() {
            String::new()
        } else {
            format!(": {detail}")
        }
    ))
}

/// Renders an export as Markdown a person can read, with times in the reader's `zone`.
pub fn render_markdown(export: &SessionExport, zone: ReaderTimeZone) -> String {
    let session = &export.info;
    let mut output = format!("# {}\n\n", session.title);
    output.push_str(&format!(
        "Created {} · {} messages",
        reader_time(session.time.created, zone),
        export.messages.len()
    ));
    if let (Some(agent), Some(model)) = (&session.agent, &session.model) {
        output.push_str(&format!(
            " · agent {agent} · model {}/{}",
            model.provider_id, model.id
        ));
    }
    output.push('\n');
    for message in &export.messages {
        match &message.info {
            Message::User(user) => output.push_str(&format!(
                "\n## You · {}\n\n",
                reader_time(user.time.created, zone)
            )),
            Message::Assistant(assistant) => output.push_str(&format!(
                "\n## Assistant ({} · {}/{}) · {}\n\n",
                assistant.agent,
                assistant.provider_id,
                assistant.model_id,
                reader_time(assistant.time.created, zone)
            )),
        }
        let mut attachments = Vec::new();
        let mut tools = Vec::new();
        for part in &message.parts {
            match &part.body {
                PartBody::Text(text)
                    if text.synthetic != Some(true) && text.ignored != Some(true) =>
                {
                    output.push_str(text.text.trim_end());
                    output.push_str("\n\n");
                }
                PartBody::Reasoning(reasoning) if !reasoning.text.trim().is_empty() => {
                    let quoted: Vec<String> = reasoning
                        .text
                        .lines()
                        .map(|line| format!("> {line}"))
                        .collect();
                    output.push_str(&format!("> **Thinking**\n{}\n\n", quoted.join("\n")));
                }
                PartBody::File(file) => attachments.push(attachment_line(file)),
                PartBody::Agent(agent) => output.push_str(&format!("@{}\n\n", agent.name)),
                PartBody::Subtask(subtask) => output.push_str(&format!(
                    "- 🧩 subtask for @{}: {}\n\n",
                    subtask.agent, subtask.description
                )),
                _ => {
                    if let Some(line) = tool_line(part) {
                        tools.push(line);
                    }
                }
            }
        }
        if !attachments.is_empty() {
            output.push_str(&format!("Attachments:\n{}\n\n", attachments.join("\n")));
        }
        if !tools.is_empty() {
            output.push_str(&format!("Tools:\n{}\n\n", tools.join("\n")));
        }
        if let Message::Assistant(assistant) = &message.info {
            if let Some(error) = &assistant.error {
                let text = serde_json::to_value(error)
                    .ok()
                    .and_then(|value| value["data"]["message"].as_str().map(str::to_string))
                    .unwrap_or_default();
                output.push_str(&format!("⚠️ Error: {text}\n\n"));
            }
            output.push_str(&format!(
                "_{} tokens in, {} out · ${:.4}_\n",
                assistant.tokens.input, assistant.tokens.output, assistant.cost
            ));
        }
    }
    output
}

#[cfg(test)]
mod tests {
    use super::export_file_name;

    #[test]
    fn export_file_names_are_plain_text_and_safe() {
        let table = [
            ("## Summary of your file", "md", "Summary of your file.md"),
            ("**Tax** return 2025", "json", "Tax return 2025.json"),
            ("`src/main.rs` review", "md", "src_main.rs review.md"),
            ("Plan: a/b <draft>?", "md", "Plan_ a_b _draft__.md"),
            ("##", "md", "##.md"),
            ("  ..  ", "json", "session.json"),
            ("CON", "md", "CON_.md"),
            ("aux", "json", "aux_.json"),
            ("Nul.", "md", "Nul_.md"),
            ("CONSOLE", "md", "CONSOLE.md"),
        ];
        for (title, extension, expected) in table {
            assert_eq!(export_file_name(title, extension), expected, "{title:?}");
        }
    }
}
