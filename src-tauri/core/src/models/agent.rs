//! Agents: the built-in set (`build`, `plan`, `general`, `explore`, hidden `title`, `summary`,
//! `compaction`), overridden or extended by the config and by Markdown agent files.

use crate::models::config::{AgentConfig, Config};
use crate::wire::error::LedgerError;
use crate::wire::message::ModelRef;
use crate::wire::permission::{rules_from_config, Action, Rule, Ruleset};
use serde::Serialize;
use ts_rs::TS;

mod markdown;
pub use markdown::load_markdown_agents;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum AgentMode {
    Primary,
    Subagent,
    All,
}

impl AgentMode {
    fn parse(text: &str) -> Result<Self, AgentSettingError> {
        match text {
            "primary" => Ok(Self::Primary),
            "subagent" => Ok(Self::Subagent),
            "all" => Ok(Self::All),
            other => Err(AgentSettingError::UnknownMode(other.to_string())),
        }
    }
}

/// A setting of one agent that cannot be used; reported as a config error naming the agent.
#[derive(Debug, thiserror::Error)]
pub enum AgentSettingError {
    #[error("model \"{0}\" is not in provider/model form")]
    NotProviderModel(String),
    #[error("mode \"{0}\" is not primary, subagent or all")]
    UnknownMode(String),
    #[error(transparent)]
    Permission(#[from] crate::wire::permission::PermissionConfigError),
}

/// OpenCode's `Agent.Info`, serialised with its field names for `GET /agent`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct Agent {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    pub mode: AgentMode,
    pub native: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    pub permission: Ruleset,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<ModelRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub variant: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub prompt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub temperature: Option<f64>,
    #[serde(rename = "topP")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub color: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub steps: Option<u32>,
    pub options: serde_json::Map<String, serde_json::Value>,
}

impl Agent {
    fn built_in(name: &str, mode: AgentMode, description: &str, permission: Ruleset) -> Self {
        Self {
            name: name.into(),
            description: (!description.is_empty()).then(|| description.into()),
            mode,
            native: true,
            hidden: false,
            permission,
            model: None,
            variant: None,
            prompt: None,
            temperature: None,
            top_p: None,
            color: None,
            steps: None,
            options: serde_json::Map::new(),
        }
    }

    pub fn is_selectable_default(&self) -> bool {
        self.mode != AgentMode::Subagent && !self.hidden
    }
}

/// The rules every agent starts from.
fn default_rules() -> Ruleset {
    vec![
        Rule::new("*", "*", Action::Allow),
        Rule::new("doom_loop", "*", Action::Ask),
        Rule::new("external_directory", "*", Action::Ask),
        Rule::new("question", "*", Action::Deny),
        Rule::new("plan_enter", "*", Action::Deny),
        Rule::new("plan_exit", "*", Action::Deny),
        Rule::new("read", "*", Action::Allow),
        Rule::new("read", "*.env", Action::Ask),
        Rule::new("read", "*.env.*", Action::Ask),
        Rule::new("read", "*.env.example", Action::Allow),
    ]
}

fn with(mut base: Ruleset, extra: &[(&str, &str, Action)]) -> Ruleset {
    base.extend(
        extra
            .iter()
            .map(|(permission, pattern, action)| Rule::new(permission, pattern, *action)),
    );
    base
}

fn built_in_agents() -> Vec<Agent> {
    use Action::{Allow, Deny};
    let mut agents = vec![
        Agent::built_in(
            "build",
            AgentMode::Primary,
            "The default agent. Executes tools based on configured permissions.",
            with(
                default_rules(),
                &[("question", "*", Allow), ("plan_enter", "*", Allow)],
            ),
        ),
        Agent::built_in(
            "plan",
            AgentMode::Primary,
            "Plan mode. Disallows all edit tools.",
            with(
                default_rules(),
                &[
                    ("question", "*", Allow),
                    ("plan_exit", "*", Allow),
                    ("edit", "*", Deny),
                    ("edit", ".opencode/plans/*.md", Allow),
                ],
            ),
        ),
        Agent::built_in(
            "general",
            AgentMode::Subagent,
            "General-purpose agent for researching complex questions and executing multi-step tasks. Use this agent to execute multiple units of work in parallel.",
            with(default_rules(), &[("todowrite", "*", Deny)]),
        ),
        Agent::built_in(
            "explore",
            AgentMode::Subagent,
            "Fast agent specialized for exploring codebases: finding files by patterns, searching code for keywords, and answering questions about the codebase.",
            with(
                default_rules(),
                &[
                    ("*", "*", Deny),
                    ("grep", "*", Allow),
                    ("glob", "*", Allow),
                    ("list", "*", Allow),
                    ("bash", "*", Allow),
                    ("webfetch", "*", Allow),
                    ("websearch", "*", Allow),
                    ("read", "*", Allow),
                ],
            ),
        ),
    ];
    for name in ["compaction", "title", "summary"] {
        let mut agent = Agent::built_in(
            name,
            AgentMode::Primary,
            "",
            with(default_rules(), &[("*", "*", Deny)]),
        );
        agent.hidden = true;
        if name == "title" {
            agent.temperature = Some(0.5);
        }
        agents.push(agent);
    }
    agents
}

/// All agents known to this ledger, in definition order.
#[derive(Debug, Clone)]
pub struct AgentRegistry {
    agents: Vec<Agent>,
    default_agent: Option<String>,
    /// The config's `permission` block as rules, as every agent got it at start; an MCP tool
    /// call swaps this copy for the file as it is now (`mcp::tool_permissions::live_rules`).
    config_rules: Ruleset,
}

impl AgentRegistry {
    /// Built-ins, then config overrides and additions (config `permission` applies to every
    /// agent, the agent's own `permission` after it), then Markdown agents.
    pub fn from_config(
        config: &Config,
        markdown: &[(String, AgentConfig)],
    ) -> Result<Self, LedgerError> {
        let global_rules = match &config.permission {
            Some(value) => {
                rules_from_config(value).map_err(|message| invalid_agent("permission", message))?
            }
            None => Vec::new(),
        };
        let mut agents = built_in_agents();
        let overrides = config
            .agent
            .iter()
            .map(|(name, agent)| (name.clone(), agent.clone()))
            .chain(markdown.iter().cloned());
        let mut disabled = Vec::new();
        for agent in &mut agents {
            agent.permission.extend(global_rules.iter().cloned());
        }
        for (name, settings) in overrides {
            if settings.disable == Some(true) {
                disabled.push(name);
                continue;
            }
            let position = agents.iter().position(|agent| agent.name == name);
            let agent = match position {
                Some(index) => &mut agents[index],
                None => {
                    let mut created = Agent::built_in(&name, AgentMode::All, "", default_rules());
                    created.native = false;
                    created.permission.extend(global_rules.iter().cloned());
                    agents.push(created);
                    let last = agents.len() - 1;
                    &mut agents[last]
                }
            };
            apply_settings(agent, &settings).map_err(|message| invalid_agent(&name, message))?;
        }
        agents.retain(|agent| !disabled.contains(&agent.name));
        let registry = Self {
            agents,
            default_agent: config.default_agent.clone(),
            config_rules: global_rules,
        };
        registry.default_agent()?;
        Ok(registry)
    }

    /// The config's `permission` rules the agents were built with.
    pub fn config_rules(&self) -> &[Rule] {
        &self.config_rules
    }

    /// The agent called `name`, or an error that lists the ones there are.
    pub fn require(&self, name: &str) -> Result<&Agent, LedgerError> {
        self.get(name).ok_or_else(|| LedgerError::AgentNotFound {
            name: name.to_string(),
            available: self.visible_names(),
        })
    }

    pub fn get(&self, name: &str) -> Option<&Agent> {
        self.agents.iter().find(|agent| agent.name == name)
    }

    /// The configured default agent (which must exist, be primary-capable and visible), else
    /// the first primary, non-hidden agent: `build`.
    pub fn default_agent(&self) -> Result<&Agent, LedgerError> {
        if let Some(name) = &self.default_agent {
            let unusable = |reason: &str| LedgerError::DefaultAgentUnusable {
                name: name.clone(),
                reason: reason.into(),
            };
            let agent = self.get(name).ok_or_else(|| unusable("no such agent"))?;
            if agent.mode == AgentMode::Subagent {
                return Err(unusable("it is a subagent"));
            }
            if agent.hidden {
                return Err(unusable("it is hidden"));
            }
            return Ok(agent);
        }
        self.agents
            .iter()
            .find(|agent| agent.is_selectable_default())
            .ok_or_else(|| LedgerError::DefaultAgentUnusable {
                name: "(none)".into(),
                reason: "every agent is a subagent or hidden".into(),
            })
    }

    /// The default agent first, then the rest by name — OpenCode's listing order.
    pub fn list(&self) -> Vec<&Agent> {
        let default_name = self.default_agent().map(|agent| agent.name.clone()).ok();
        let mut listed: Vec<&Agent> = self.agents.iter().collect();
        listed.sort_by_key(|agent| {
            (
                Some(&agent.name) != default_name.as_ref(),
                agent.name.clone(),
            )
        });
        listed
    }

    /// Names offered in "Available agents: …": every agent that is not hidden.
    pub fn visible_names(&self) -> Vec<String> {
        self.list()
            .into_iter()
            .filter(|agent| !agent.hidden)
            .map(|agent| agent.name.clone())
            .collect()
    }
}

fn invalid_agent(name: &str, error: impl std::fmt::Display) -> LedgerError {
    LedgerError::Config {
        path: format!("agent \"{name}\""),
        message: error.to_string(),
    }
}

fn apply_settings(agent: &mut Agent, settings: &AgentConfig) -> Result<(), AgentSettingError> {
    if let Some(model) = &settings.model {
        agent.model = Some(
            ModelRef::parse(model)
                .ok_or_else(|| AgentSettingError::NotProviderModel(model.clone()))?,
        );
    }
    if let Some(mode) = &settings.mode {
        agent.mode = AgentMode::parse(mode)?;
    }
    if let Some(permission) = &settings.permission {
        agent.permission.extend(rules_from_config(permission)?);
    }
    let copy = |target: &mut Option<String>, source: &Option<String>| {
        if source.is_some() {
            target.clone_from(source);
        }
    };
    copy(&mut agent.variant, &settings.variant);
    copy(&mut agent.prompt, &settings.prompt);
    copy(&mut agent.description, &settings.description);
    copy(&mut agent.color, &settings.color);
    if let Some(hidden) = settings.hidden {
        agent.hidden = hidden;
    }
    agent.temperature = settings.temperature.or(agent.temperature);
    agent.top_p = settings.top_p.or(agent.top_p);
    agent.steps = settings.steps.or(agent.steps);
    Ok(())
}

#[cfg(test)]
mod tests;
