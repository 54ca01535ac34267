//! The session: a durable task dossier, with OpenCode's `Session.Info` wire shape.

use crate::wire::permission::Ruleset;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Session {
    pub id: String,
    pub slug: String,
    #[serde(rename = "projectID")]
    pub project_id: String,
    pub directory: String,
    pub path: String,
    #[serde(rename = "parentID")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub parent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summary: Option<Value>,
    #[serde(with = "crate::wire::wire_number", default)]
    #[ts(type = "number")]
    pub cost: f64,
    #[serde(default)]
    pub tokens: Tokens,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<SessionModel>,
    pub version: String,
    pub time: SessionTime,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub permission: Option<Ruleset>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub revert: Option<RevertMarker>,
    /// Dossier's addition: pinned sessions are listed first by the UI. Omitted when false so the
    /// JSON stays identical to OpenCode's for everything else.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(optional, as = "Option<bool>")]
    pub pinned: bool,
    /// Dossier's addition: on a shared server, the name of the access token whose holder
    /// created the session (the name, never the token). Omitted when none did, so OpenCode's
    /// clients see the JSON they know.
    #[serde(rename = "dossierCreatedByToken")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub created_by_token: Option<String>,
}

/// The last model a session used. Note the key is `id`, not `modelID`, as in OpenCode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SessionModel {
    pub id: String,
    #[serde(rename = "providerID")]
    pub provider_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub variant: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Tokens {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub total: Option<u64>,
    #[ts(type = "number")]
    pub input: u64,
    #[ts(type = "number")]
    pub output: u64,
    #[ts(type = "number")]
    pub reasoning: u64,
    pub cache: CacheTokens,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct CacheTokens {
    #[ts(type = "number")]
    pub read: u64,
    #[ts(type = "number")]
    pub write: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SessionTime {
    #[ts(type = "number")]
    pub created: i64,
    #[ts(type = "number")]
    pub updated: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub compacting: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub archived: Option<i64>,
}

/// The soft "undo" marker: messages from here on are hidden and removed for good by the next
/// prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct RevertMarker {
    #[serde(rename = "messageID")]
    pub message_id: String,
    #[serde(rename = "partID")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub part_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub snapshot: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub diff: Option<String>,
}

/// What a caller may set when creating a session (OpenCode's `CreateInput`, plus `directory`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    #[serde(rename = "parentID")]
    #[serde(default)]
    #[ts(optional = nullable)]
    pub parent_id: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub title: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub agent: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub model: Option<SessionModel>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub permission: Option<Ruleset>,
    #[serde(rename = "workspaceID")]
    #[serde(default)]
    #[ts(optional = nullable)]
    pub workspace_id: Option<String>,
    /// Sent by OpenCode's v2 SDK; accepted for compatibility and not stored.
    #[serde(default, skip_serializing)]
    #[ts(skip)]
    pub metadata: Option<Value>,
    /// The folder the session works in; the ledger's default directory when absent.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub directory: Option<String>,
}

/// A partial update (`PATCH /session/:id`). `permission` rules are appended to the existing
/// ruleset, as OpenCode does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct SessionPatch {
    #[serde(default)]
    #[ts(optional = nullable)]
    pub title: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub permission: Option<Ruleset>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub time: Option<SessionTimePatch>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub pinned: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct SessionTimePatch {
    /// `Some(None)` (JSON `null`) un-archives; a number archives at that instant.
    #[serde(default, with = "double_option")]
    #[ts(optional, type = "number | null")]
    pub archived: Option<Option<i64>>,
}

mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(
        value: &Option<Option<i64>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<i64>>, D::Error> {
        Option::<f64>::deserialize(deserializer).map(|value| {
            // Legacy clients send fractional or negative times; keep the instant, drop the noise.
            #[allow(clippy::cast_possible_truncation)]
            Some(value.map(|number| number as i64))
        })
    }
}

/// The default title OpenCode gives a new session, which also tells title generation that the
/// session still needs a real title.
pub fn default_title(is_child: bool, created_millis: i64) -> String {
    let prefix = if is_child {
        "Child session - "
    } else {
        "New session - "
    };
    format!("{prefix}{}", iso_time(created_millis))
}

pub fn is_default_title(title: &str) -> bool {
    ["New session - ", "Child session - "].iter().any(|prefix| {
        title
            .strip_prefix(prefix)
            .is_some_and(|rest| chrono::DateTime::parse_from_rfc3339(rest).is_ok())
    })
}

/// JavaScript's `Date.toISOString()`: UTC with milliseconds and a `Z`.
pub fn iso_time(millis: i64) -> String {
    chrono::DateTime::from_timestamp_millis(millis)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}
