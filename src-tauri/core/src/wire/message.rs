//! Messages: one user or assistant turn, recording the agent and model it ran under.

use crate::wire::assistant_error::AssistantError;
use crate::wire::part::Part;
use crate::wire::session::Tokens;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use ts_rs::TS;

// Messages are read and written one at a time, never kept in large arrays of mixed roles where
// boxing would pay off; plain variants keep matching simple.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Deserialize, TS)]
#[ts(export)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    User(UserMessage),
    Assistant(AssistantMessage),
}

impl Message {
    pub fn id(&self) -> &str {
        match self {
            Self::User(message) => &message.id,
            Self::Assistant(message) => &message.id,
        }
    }

    pub fn session_id(&self) -> &str {
        match self {
            Self::User(message) => &message.session_id,
            Self::Assistant(message) => &message.session_id,
        }
    }

    pub fn created(&self) -> i64 {
        match self {
            Self::User(message) => message.time.created,
            Self::Assistant(message) => message.time.created,
        }
    }

    pub fn role(&self) -> &'static str {
        match self {
            Self::User(_) => "user",
            Self::Assistant(_) => "assistant",
        }
    }
}

// Written by hand so `role` comes right after `sessionID`, where OpenCode puts it: listings
// are byte-identical to OpenCode's.
impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let inner = match self {
            Self::User(message) => serde_json::to_value(message),
            Self::Assistant(message) => serde_json::to_value(message),
        }
        .map_err(S::Error::custom)?;
        let serde_json::Value::Object(fields) = inner else {
            return Err(S::Error::custom("a message must serialise to an object"));
        };
        let mut ordered = serde_json::Map::with_capacity(fields.len() + 1);
        for (key, value) in fields {
            let after_session = key == "sessionID";
            ordered.insert(key, value);
            if after_session {
                ordered.insert("role".into(), self.role().into());
            }
        }
        ordered.serialize(serializer)
    }
}

/// `{providerID, modelID, variant?}` as a user message records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ModelRef {
    #[serde(rename = "providerID")]
    pub provider_id: String,
    #[serde(rename = "modelID")]
    pub model_id: String,
}

impl ModelRef {
    pub fn new(provider_id: impl Into<String>, model_id: impl Into<String>) -> Self {
        Self {
            provider_id: provider_id.into(),
            model_id: model_id.into(),
        }
    }

    /// Parses OpenCode's `"provider/model"` form, splitting at the first `/`.
    pub fn parse(text: &str) -> Option<Self> {
        let (provider, model) = text.split_once('/')?;
        (!provider.is_empty() && !model.is_empty()).then(|| Self::new(provider, model))
    }

    pub fn label(&self) -> String {
        format!("{}/{}", self.provider_id, self.model_id)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct UserModel {
    #[serde(rename = "providerID")]
    pub provider_id: String,
    #[serde(rename = "modelID")]
    pub model_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub variant: Option<String>,
}

impl UserModel {
    pub fn model_ref(&self) -> ModelRef {
        ModelRef::new(&self.provider_id, &self.model_id)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct UserMessage {
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub time: UserTime,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub format: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summary: Option<Value>,
    pub agent: String,
    pub model: UserModel,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system: Option<String>,
    /// Deprecated input kept for OpenCode compatibility; it becomes session permission rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tools: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct UserTime {
    #[ts(type = "number")]
    pub created: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AssistantMessage {
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub time: AssistantTime,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<AssistantError>,
    #[serde(rename = "parentID")]
    pub parent_id: String,
    #[serde(rename = "modelID")]
    pub model_id: String,
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// Deprecated in OpenCode and always equal to `agent`; kept for its clients.
    pub mode: String,
    pub agent: String,
    pub path: MessagePath,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summary: Option<bool>,
    /// Cumulative over the reply's steps.
    #[serde(with = "crate::wire::wire_number")]
    #[ts(type = "number")]
    pub cost: f64,
    /// The last step's usage only (used for the context-overflow check).
    pub tokens: Tokens,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub structured: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub variant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub finish: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AssistantTime {
    #[ts(type = "number")]
    pub created: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub completed: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct MessagePath {
    pub cwd: String,
    pub root: String,
}

/// A message with its parts in stored order: OpenCode's `WithParts`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct MessageWithParts {
    pub info: Message,
    pub parts: Vec<Part>,
}
