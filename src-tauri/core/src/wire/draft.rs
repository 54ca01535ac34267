//! Prompt input: what a caller sends. Parts arrive as *drafts* of four types only — a caller can
//! never forge a "tool already ran" record — and unknown fields are refused.

use crate::wire::error::LedgerError;
use crate::wire::message::ModelRef;
use crate::wire::part::{AgentPart, FilePart, SubtaskPart, TextPart};
use crate::wire::permission::Ruleset;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use ts_rs::TS;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct PromptInput {
    /// Accepted for OpenCode compatibility; the session named by the caller's route wins.
    #[serde(rename = "sessionID")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub session_id: Option<String>,
    #[serde(rename = "messageID")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<ModelRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub agent: Option<String>,
    #[serde(rename = "noReply")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub no_reply: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tools: Option<BTreeMap<String, bool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub format: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub variant: Option<String>,
    pub parts: Vec<Draft>,
    /// Dossier's addition for the desktop window: permission is granted per prompt, not per
    /// session, for the ruleset the session already carries. Not part of OpenCode's input.
    #[serde(skip)]
    pub permission: Option<Ruleset>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Draft {
    Text(TextDraft),
    File(FileDraft),
    Agent(AgentDraft),
    Subtask(SubtaskDraft),
}

impl Draft {
    pub fn id(&self) -> Option<&str> {
        match self {
            Self::Text(draft) => draft.id.as_deref(),
            Self::File(draft) => draft.id.as_deref(),
            Self::Agent(draft) => draft.id.as_deref(),
            Self::Subtask(draft) => draft.id.as_deref(),
        }
    }

    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextDraft {
            id: None,
            part: TextPart {
                text: text.into(),
                ..TextPart::default()
            },
        })
    }

    pub fn file(url: impl Into<String>, mime: impl Into<String>, filename: Option<&str>) -> Self {
        Self::File(FileDraft {
            id: None,
            part: FilePart {
                mime: mime.into(),
                filename: filename.map(str::to_string),
                url: url.into(),
                source: None,
            },
        })
    }

    pub fn agent(name: impl Into<String>) -> Self {
        Self::Agent(AgentDraft {
            id: None,
            part: AgentPart {
                name: name.into(),
                source: None,
            },
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct TextDraft {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub id: Option<String>,
    #[serde(flatten)]
    pub part: TextPart,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct FileDraft {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub id: Option<String>,
    #[serde(flatten)]
    pub part: FilePart,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AgentDraft {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub id: Option<String>,
    #[serde(flatten)]
    pub part: AgentPart,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SubtaskDraft {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub id: Option<String>,
    #[serde(flatten)]
    pub part: SubtaskPart,
}

const DRAFT_TYPES: [&str; 4] = ["text", "file", "agent", "subtask"];

impl PromptInput {
    /// Parses a prompt body, turning serde's messages into ones a person (or client author)
    /// can act on: which part is wrong and why.
    pub fn from_json(value: Value) -> Result<Self, LedgerError> {
        if let Some(parts) = value.get("parts").and_then(Value::as_array) {
            for (index, part) in parts.iter().enumerate() {
                check_draft(index, part)?;
            }
        }
        serde_json::from_value(value).map_err(|error| LedgerError::InvalidPrompt(error.to_string()))
    }
}

/// Checks one draft on its own so the error names the part and the offending type or field.
fn check_draft(index: usize, value: &Value) -> Result<(), LedgerError> {
    let Some(kind) = value.get("type").and_then(Value::as_str) else {
        return Err(LedgerError::InvalidPrompt(format!(
            "part {index} has no \"type\"; a prompt part must be one of: {}",
            DRAFT_TYPES.join(", ")
        )));
    };
    if !DRAFT_TYPES.contains(&kind) {
        return Err(LedgerError::InvalidPrompt(format!(
            "part {index} has type \"{kind}\", which a prompt cannot contain; a prompt part must be one of: {}",
            DRAFT_TYPES.join(", ")
        )));
    }
    for forbidden in ["sessionID", "messageID"] {
        if value.get(forbidden).is_some() {
            return Err(LedgerError::InvalidPrompt(format!(
                "part {index} must not carry \"{forbidden}\"; the ledger assigns it"
            )));
        }
    }
    // serde cannot refuse unknown fields through `flatten`, so the field lists live here.
    let allowed: &[&str] = match kind {
        "text" => &[
            "id",
            "type",
            "text",
            "synthetic",
            "ignored",
            "time",
            "metadata",
        ],
        "file" => &["id", "type", "mime", "filename", "url", "source"],
        "agent" => &["id", "type", "name", "source"],
        _ => &[
            "id",
            "type",
            "prompt",
            "description",
            "agent",
            "model",
            "command",
        ],
    };
    if let Some(unknown) = value
        .as_object()
        .and_then(|fields| fields.keys().find(|key| !allowed.contains(&key.as_str())))
    {
        return Err(LedgerError::InvalidPrompt(format!(
            "part {index} ({kind}) has the unknown field \"{unknown}\"; a {kind} part may carry: {}",
            allowed.join(", ")
        )));
    }
    serde_json::from_value::<Draft>(value.clone())
        .map(|_| ())
        .map_err(|error| LedgerError::InvalidPrompt(format!("part {index} ({kind}): {error}")))
}
