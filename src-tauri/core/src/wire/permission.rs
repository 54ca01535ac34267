//! Permission rules `{permission, pattern, action}` and their evaluation: the last matching rule
//! wins, and nothing matching means `ask` — OpenCode's semantics.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Allow,
    Deny,
    Ask,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub permission: String,
    pub pattern: String,
    pub action: Action,
}

impl Rule {
    pub fn new(permission: &str, pattern: &str, action: Action) -> Self {
        Self {
            permission: permission.into(),
            pattern: pattern.into(),
            action,
        }
    }
}

pub type Ruleset = Vec<Rule>;

/// Evaluates `permission` on `pattern` against rulesets applied in order (later ones override).
pub fn evaluate(permission: &str, pattern: &str, rulesets: &[&[Rule]]) -> Action {
    rulesets
        .iter()
        .flat_map(|rules| rules.iter())
        .rfind(|rule| {
            wildcard_match(&rule.permission, permission) && wildcard_match(&rule.pattern, pattern)
        })
        .map_or(Action::Ask, |rule| rule.action)
}

/// Glob-style matching where `*` matches any run of characters and `?` one character.
pub fn wildcard_match(glob: &str, text: &str) -> bool {
    let glob: Vec<char> = glob.chars().collect();
    let text: Vec<char> = text.chars().collect();
    let (mut glob_index, mut text_index) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while text_index < text.len() {
        match glob.get(glob_index) {
            Some('*') => {
                backtrack = Some((glob_index, text_index));
                glob_index += 1;
            }
            Some(&symbol) if symbol == '?' || symbol == text[text_index] => {
                glob_index += 1;
                text_index += 1;
            }
            _ => match backtrack {
                Some((star, matched)) => {
                    glob_index = star + 1;
                    text_index = matched + 1;
                    backtrack = Some((star, matched + 1));
                }
                None => return false,
            },
        }
    }
    glob[glob_index..].iter().all(|symbol| *symbol == '*')
}

/// Converts OpenCode's config form — `{"edit": "deny", "read": {"*.env": "ask"}}` — into rules.
pub fn rules_from_config(value: &Value) -> Result<Ruleset, PermissionConfigError> {
    let Some(object) = value.as_object() else {
        return Err(PermissionConfigError::NotAnObject);
    };
    let mut rules = Vec::new();
    for (permission, setting) in object {
        match setting {
            Value::String(action) => {
                rules.push(Rule::new(permission, "*", parse_action(action)?));
            }
            Value::Object(patterns) => {
                for (pattern, action) in patterns {
                    let action =
                        action
                            .as_str()
                            .ok_or_else(|| PermissionConfigError::PatternNotText {
                                permission: permission.clone(),
                                pattern: pattern.clone(),
                            })?;
                    rules.push(Rule::new(permission, pattern, parse_action(action)?));
                }
            }
            _ => {
                return Err(PermissionConfigError::WrongShape {
                    permission: permission.clone(),
                })
            }
        }
    }
    Ok(rules)
}

fn parse_action(text: &str) -> Result<Action, PermissionConfigError> {
    match text {
        "allow" => Ok(Action::Allow),
        "deny" => Ok(Action::Deny),
        "ask" => Ok(Action::Ask),
        other => Err(PermissionConfigError::UnknownAction(other.to_string())),
    }
}

/// What is wrong with a config's `permission` block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PermissionConfigError {
    #[error("a permission block must be an object")]
    NotAnObject,
    #[error("permission {permission}.{pattern} must be a string")]
    PatternNotText { permission: String, pattern: String },
    #[error("permission {permission} must be a string or an object")]
    WrongShape { permission: String },
    #[error("\"{0}\" is not allow, deny or ask")]
    UnknownAction(String),
}

/// OpenCode's `PermissionRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PermissionRequest {
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub permission: String,
    pub patterns: Vec<String>,
    pub metadata: Value,
    /// The patterns an `always` answer allows from now on.
    pub always: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool: Option<PermissionTool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PermissionTool {
    #[serde(rename = "messageID")]
    pub message_id: String,
    #[serde(rename = "callID")]
    pub call_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum PermissionReply {
    Once,
    Always,
    Reject,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_matching_table() {
        let table = [
            ("*", "anything", true),
            ("*", "", true),
            ("*.env", "secrets.env", true),
            ("*.env", "secrets.env.example", false),
            ("*.env.*", "secrets.env.local", true),
            ("read", "read", true),
            ("read", "reads", false),
            ("r?ad", "road", true),
            ("a*b*c", "a-x-b-y-c", true),
            ("a*b*c", "a-x-c-y-b", false),
        ];
        for (glob, text, expected) in table {
            assert_eq!(wildcard_match(glob, text), expected, "{glob} vs {text}");
        }
    }

    #[test]
    fn last_matching_rule_wins_and_nothing_means_ask() {
        let base = vec![
            Rule::new("*", "*", Action::Allow),
            Rule::new("read", "*.env", Action::Ask),
        ];
        let agent = vec![Rule::new("read", "*.env.example", Action::Allow)];
        assert_eq!(evaluate("read", "a.env", &[&base, &agent]), Action::Ask);
        assert_eq!(
            evaluate("read", "a.env.example", &[&base, &agent]),
            Action::Allow
        );
        assert_eq!(evaluate("edit", "x", &[&base]), Action::Allow);
        assert_eq!(evaluate("edit", "x", &[]), Action::Ask);
    }

    #[test]
    fn config_permission_block_becomes_rules() {
        let value = serde_json::json!({"edit": "deny", "read": {"*": "allow", "*.env": "ask"}});
        let rules = rules_from_config(&value).unwrap_or_default();
        assert_eq!(
            rules,
            vec![
                Rule::new("edit", "*", Action::Deny),
                Rule::new("read", "*", Action::Allow),
                Rule::new("read", "*.env", Action::Ask),
            ]
        );
        assert!(rules_from_config(&serde_json::json!({"edit": "maybe"})).is_err());
    }
}
