//! The configuration file, in OpenCode's `opencode.json` shape (`model`, `small_model`,
//! `default_agent`, `agent`, `provider`, `permission`) so an OpenCode user's config works, plus
//! Dossier's `hooks`. Unknown keys are ignored: an OpenCode config has many we do not use.

use crate::wire::error::LedgerError;
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Config {
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub small_model: Option<String>,
    #[serde(default)]
    pub default_agent: Option<String>,
    #[serde(default)]
    pub agent: IndexMap<String, AgentConfig>,
    #[serde(default)]
    pub provider: IndexMap<String, ProviderConfig>,
    #[serde(default)]
    pub permission: Option<Value>,
    #[serde(default)]
    pub hooks: HooksConfig,
    #[serde(default)]
    pub compaction: CompactionConfig,
    /// OpenCode's `mcp` servers by name, each entry read on its own
    /// (`models::mcp_config::McpServerConfig::parse`) so one bad entry does not refuse the file.
    #[serde(default)]
    pub mcp: IndexMap<String, Value>,
    #[serde(default)]
    pub backups: BackupsConfig,
    #[serde(default)]
    pub local_models: LocalModelsConfig,
}

/// Dossier's `local_models` section, for models run on this computer (`local_models/`):
/// `models_dir` (the models folder; the data folder's `models/` when absent),
/// `idle_unload_seconds` (300 when absent), `context_length` (a ceiling) and `threads` (the
/// physical cores when absent).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct LocalModelsConfig {
    #[serde(default)]
    pub models_dir: Option<PathBuf>,
    #[serde(default)]
    pub idle_unload_seconds: Option<f64>,
    #[serde(default)]
    pub context_length: Option<u32>,
    #[serde(default)]
    pub threads: Option<u32>,
}

/// Dossier's `backups` section: how many copies written before a schema update are kept
/// (`keep`, five when absent; the newest is never deleted, so 0 keeps one).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BackupsConfig {
    #[serde(default)]
    pub keep: Option<usize>,
}

/// OpenCode's `compaction` section. `auto: false` turns automatic summaries off; `prune: true`
/// clears old tool outputs from what the model sees after each reply (they stay in the ledger).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CompactionConfig {
    #[serde(default)]
    pub auto: Option<bool>,
    #[serde(default)]
    pub prune: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct AgentConfig {
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub hidden: Option<bool>,
    #[serde(default)]
    pub disable: Option<bool>,
    #[serde(default)]
    pub permission: Option<Value>,
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub top_p: Option<f64>,
    #[serde(default)]
    pub steps: Option<u32>,
    #[serde(default)]
    pub color: Option<String>,
}

#[derive(Clone, Default, Deserialize)]
pub struct ProviderConfig {
    #[serde(default)]
    pub npm: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub env: Vec<String>,
    #[serde(default)]
    pub options: ProviderOptions,
    #[serde(default)]
    pub models: IndexMap<String, ModelConfig>,
}

// Hand-written so an API key never reaches a log line through `{:?}`.
impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ProviderConfig")
            .field("npm", &self.npm)
            .field("name", &self.name)
            .field("env", &self.env)
            .field("options", &self.options)
            .field("models", &self.models.keys().collect::<Vec<_>>())
            .finish()
    }
}

#[derive(Clone, Default, Deserialize)]
pub struct ProviderOptions {
    #[serde(rename = "baseURL", default)]
    pub base_url: Option<String>,
    #[serde(rename = "apiKey", default)]
    pub api_key: Option<String>,
}

impl std::fmt::Debug for ProviderOptions {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ProviderOptions")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModelConfig {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub variants: IndexMap<String, Value>,
    #[serde(default)]
    pub attachment: Option<bool>,
    #[serde(default)]
    pub reasoning: Option<bool>,
    /// Whether the model takes tools (OpenCode's `tool_call`); unset means it does. Set for each
    /// model on this computer from its chat template (`provider::local_model`).
    #[serde(default)]
    pub tool_call: Option<bool>,
    #[serde(default)]
    pub limit: Option<Value>,
    /// Prices in US dollars per million tokens, as models.dev and OpenCode's config give them.
    #[serde(default)]
    pub cost: Option<crate::models::reply_cost::Price>,
}

/// Dossier's hook section: `"hooks": {"chat.message": [{"command": ["prog", "arg"], "timeout": 5000}]}`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HooksConfig {
    #[serde(rename = "chat.message", default)]
    pub chat_message: Vec<CommandHookConfig>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CommandHookConfig {
    pub command: Vec<String>,
    /// Milliseconds; 5 s when absent.
    #[serde(default)]
    pub timeout: Option<u64>,
}

impl Config {
    /// Reads the config at `path`. A missing file is an empty config (zero configuration must
    /// work); a file that exists but cannot be parsed is an error naming the file and the line.
    pub fn load(path: &Path) -> Result<Self, LedgerError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::default())
            }
            Err(error) => {
                return Err(LedgerError::Config {
                    path: path.display().to_string(),
                    message: error.to_string(),
                })
            }
        };
        Self::parse(&text).map_err(|error| LedgerError::Config {
            path: path.display().to_string(),
            message: error.to_string(),
        })
    }

    /// Parses JSON or JSONC (OpenCode accepts comments and trailing commas in `opencode.jsonc`).
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(&strip_jsonc(text))
    }
}

/// Where the ledger keeps its data and reads its config, overridable by `DOSSIER_DATA_DIR` and
/// `DOSSIER_CONFIG` (tests and benchmarks rely on both). Without the variable, the data folder is
/// the one "Move data folder…" recorded, else the system's default (`store::data_folder::data_location`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    pub data_dir: PathBuf,
    pub config_path: PathBuf,
}

impl Locations {
    pub fn from_env() -> Self {
        Self::from_values(
            std::env::var_os("DOSSIER_DATA_DIR").map(PathBuf::from),
            std::env::var_os("DOSSIER_CONFIG").map(PathBuf::from),
        )
    }

    pub fn from_values(data_dir: Option<PathBuf>, config_path: Option<PathBuf>) -> Self {
        use crate::store::data_folder::data_location;
        // Without a named folder: the one a move recorded, else the system's default.
        let (data_dir, _) = data_location::resolve(
            data_dir,
            &data_location::pointer_file(),
            &data_location::default_folder(),
            &data_location::former_default_folder(),
        );
        let config_path = config_path
            .filter(|path| !path.as_os_str().is_empty())
            .unwrap_or_else(|| {
                dirs::config_dir()
                    .unwrap_or_else(|| data_dir.clone())
                    .join("dossier")
                    .join("dossier.json")
            });
        Self {
            data_dir,
            config_path,
        }
    }
}

/// Removes `//` and `/* */` comments and trailing commas outside strings.
pub(crate) fn strip_jsonc(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut output = String::with_capacity(text.len());
    let mut index = 0;
    let mut in_string = false;
    while index < chars.len() {
        let current = chars[index];
        let next = chars.get(index + 1).copied();
        if in_string {
            output.push(current);
            if current == '\\' {
                if let Some(escaped) = next {
                    output.push(escaped);
                    index += 1;
                }
            } else if current == '"' {
                in_string = false;
            }
        } else if current == '"' {
            in_string = true;
            output.push(current);
        } else if current == '/' && next == Some('/') {
            while index < chars.len() && chars[index] != '\n' {
                index += 1;
            }
            continue;
        } else if current == '/' && next == Some('*') {
            index += 2;
            while index < chars.len()
                && !(chars[index] == '*' && chars.get(index + 1) == Some(&'/'))
            {
                index += 1;
            }
            index += 2;
            continue;
        } else if current == ',' {
            let rest = chars[index + 1..]
                .iter()
                .find(|symbol| !symbol.is_whitespace());
            if !matches!(rest, Some('}') | Some(']')) {
                output.push(current);
            }
        } else {
            output.push(current);
        }
        index += 1;
    }
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencode_config_with_comments_and_unknown_keys_parses() {
        let text = r#"{
          "$schema": "https://opencode.ai/config.json", // OpenCode writes this
          "theme": "dark",
          /* a block comment */
          "model": "fake/fake-model",
          "small_model": "fake/small",
          "default_agent": "plan",
          "agent": {"reviewer": {"description": "Reviews // not a comment", "mode": "subagent"}},
          "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:1/v1", "apiKey": "sk-secret"}, "models": {"fake-model": {"name": "Fake"},},},},
        }"#;
        let config = Config::parse(text).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(config.model.as_deref(), Some("fake/fake-model"));
        assert_eq!(config.default_agent.as_deref(), Some("plan"));
        assert_eq!(
            config.agent["reviewer"].description.as_deref(),
            Some("Reviews // not a comment")
        );
        assert!(config.provider["fake"].models.contains_key("fake-model"));
        let debug = format!("{config:?}");
        assert!(!debug.contains("sk-secret"), "{debug}");
    }

    #[test]
    fn missing_config_is_empty_and_broken_config_names_the_file() {
        let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let missing = Config::load(&folder.path().join("none.json"));
        assert!(missing.is_ok_and(|config| config.model.is_none()));
        let broken = folder.path().join("broken.json");
        std::fs::write(&broken, "{ \"model\": ").unwrap_or_else(|error| panic!("{error}"));
        let error = Config::load(&broken).err().map(|error| error.to_string());
        assert!(error.is_some_and(|message| message.contains("broken.json")));
    }

    #[test]
    fn locations_honour_overrides() {
        // The system's temporary folder, so the paths are ones this system can have.
        let data = std::env::temp_dir().join("data");
        let config = std::env::temp_dir().join("c.json");
        let locations = Locations::from_values(Some(data.clone()), Some(config.clone()));
        assert_eq!(locations.data_dir, data);
        assert_eq!(locations.config_path, config);
        let defaults = Locations::from_values(None, None);
        let (settled, _) = crate::store::data_folder::data_location::resolve(
            None,
            &crate::store::data_folder::data_location::pointer_file(),
            &crate::store::data_folder::data_location::default_folder(),
            &crate::store::data_folder::data_location::former_default_folder(),
        );
        assert_eq!(defaults.data_dir, settled);
    }
}
