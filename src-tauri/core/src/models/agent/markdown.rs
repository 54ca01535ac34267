//! Agents written as Markdown files with front matter (`agent/<name>.md` beside the config), as
//! OpenCode reads them: the front matter holds the settings, the body is the prompt.

use crate::models::config::AgentConfig;
use std::path::Path;

/// Reads every `*.md` in `folder` (missing folder: none). A file whose front matter cannot be
/// read is skipped with a warning rather than taking every other agent down with it.
pub fn load_markdown_agents(folder: &Path) -> Vec<(String, AgentConfig)> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let name = path.file_stem()?.to_string_lossy().to_string();
            match std::fs::read_to_string(&path).map_err(AgentMarkdownError::Unreadable).and_then(|text| parse_agent_markdown(&text)) {
                Ok(agent) => Some((name, agent)),
                Err(message) => {
                    tracing::warn!(path = %path.display(), %message, "skipping unreadable agent file");
                    None
                }
            }
        })
        .collect()
}

/// Why an agent file was skipped.
#[derive(Debug, thiserror::Error)]
pub enum AgentMarkdownError {
    #[error("{0}")]
    Unreadable(std::io::Error),
    #[error("the front matter has no closing ---")]
    UnclosedFrontMatter,
    #[error("\"{0}\" is not key: value")]
    NotKeyValue(String),
    #[error("{0} must be a number")]
    NotNumber(String),
    #[error("steps must be a whole number")]
    StepsNotWhole,
}

/// Parses `---\nkey: value\n---\nprompt`. Only flat `key: value` settings are understood.
pub fn parse_agent_markdown(text: &str) -> Result<AgentConfig, AgentMarkdownError> {
    let mut agent = AgentConfig::default();
    let body = match text.strip_prefix("---\n") {
        Some(rest) => {
            let (front, body) = rest
                .split_once("\n---")
                .ok_or(AgentMarkdownError::UnclosedFrontMatter)?;
            for line in front
                .lines()
                .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
            {
                let (key, value) = line
                    .split_once(':')
                    .ok_or_else(|| AgentMarkdownError::NotKeyValue(line.to_string()))?;
                let value = value
                    .trim()
                    .trim_matches('"')
                    .trim_matches('\'')
                    .to_string();
                let number = |value: &str| {
                    value
                        .parse::<f64>()
                        .map_err(|_| AgentMarkdownError::NotNumber(key.to_string()))
                };
                match key.trim() {
                    "description" => agent.description = Some(value),
                    "mode" => agent.mode = Some(value),
                    "model" => agent.model = Some(value),
                    "variant" => agent.variant = Some(value),
                    "color" => agent.color = Some(value),
                    "hidden" => agent.hidden = Some(value == "true"),
                    "disable" => agent.disable = Some(value == "true"),
                    "temperature" => agent.temperature = Some(number(&value)?),
                    "top_p" => agent.top_p = Some(number(&value)?),
                    "steps" => {
                        agent.steps = Some(
                            value
                                .parse()
                                .map_err(|_| AgentMarkdownError::StepsNotWhole)?,
                        )
                    }
                    _ => {}
                }
            }
            body.trim_start_matches('-').trim_start_matches('\n')
        }
        None => text,
    };
    let prompt = body.trim();
    if !prompt.is_empty() {
        agent.prompt = Some(prompt.to_string());
    }
    Ok(agent)
}
