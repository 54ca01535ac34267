//! Editing the config file in place: only the `provider` entries the settings view changes,
//! keeping every other key (OpenCode's and ours) and every unknown field inside an entry.
//! Comments cannot survive a JSON rewrite, so a file that had any is first copied to
//! `<name>.bak`. Writes go to a temporary file that replaces the old one, so a crash leaves
//! either the old file or the new one.

use super::CheckedProvider;
use crate::models::config::strip_jsonc;
use crate::wire::error::LedgerError;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

pub(crate) struct ConfigFile {
    path: PathBuf,
    root: Map<String, Value>,
    /// The original text, when it held comments or trailing commas that a rewrite drops.
    commented: Option<String>,
}

impl ConfigFile {
    pub(crate) fn read(path: &Path) -> Result<Self, LedgerError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => return Err(LedgerError::io(path, error)),
        };
        let stripped = strip_jsonc(&text);
        let root = if stripped.trim().is_empty() {
            Map::new()
        } else {
            match serde_json::from_str::<Value>(&stripped) {
                Ok(Value::Object(root)) => root,
                Ok(_) => return Err(config_error(path, "the file must hold one JSON object")),
                Err(error) => return Err(config_error(path, &error.to_string())),
            }
        };
        Ok(Self {
            path: path.to_path_buf(),
            root,
            commented: (stripped != text).then_some(text),
        })
    }

    fn providers(&mut self) -> Result<&mut Map<String, Value>, LedgerError> {
        let providers = self
            .root
            .entry("provider")
            .or_insert_with(|| Value::Object(Map::new()));
        match providers {
            Value::Object(providers) => Ok(providers),
            _ => Err(config_error(&self.path, "\"provider\" must be an object")),
        }
    }

    /// A top-level object of the file (`mcp`, `permission`), created empty when absent, for the
    /// other settings sections that edit the same file the same way.
    pub(crate) fn section(&mut self, key: &str) -> Result<&mut Map<String, Value>, LedgerError> {
        let section = self
            .root
            .entry(key)
            .or_insert_with(|| Value::Object(Map::new()));
        match section {
            Value::Object(section) => Ok(section),
            _ => Err(config_error(
                &self.path,
                &format!("\"{key}\" must be an object"),
            )),
        }
    }

    /// Writes `provider` into its entry, creating it if needed.
    pub(super) fn apply(&mut self, provider: &CheckedProvider) -> Result<(), LedgerError> {
        let path = self.path.clone();
        let entry = self
            .providers()?
            .entry(provider.id.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(entry) = entry else {
            return Err(config_error(
                &path,
                &format!("provider \"{}\" must be an object", provider.id),
            ));
        };
        apply_to_entry(entry, provider);
        Ok(())
    }

    /// `false` when the file has no such provider.
    pub(super) fn remove_provider(&mut self, provider_id: &str) -> Result<bool, LedgerError> {
        Ok(self.providers()?.shift_remove(provider_id).is_some())
    }

    pub(crate) fn write(&self) -> Result<(), LedgerError> {
        if let Some(folder) = self.path.parent() {
            std::fs::create_dir_all(folder).map_err(|error| LedgerError::io(folder, error))?;
        }
        if let Some(original) = &self.commented {
            let backup = with_suffix(&self.path, ".bak");
            std::fs::write(&backup, original).map_err(|error| LedgerError::io(&backup, error))?;
        }
        let mut text = serde_json::to_string_pretty(&Value::Object(self.root.clone()))
            .map_err(|error| config_error(&self.path, &error.to_string()))?;
        text.push('\n');
        let temporary = with_suffix(&self.path, &format!(".{}.tmp", std::process::id()));
        std::fs::write(&temporary, text).map_err(|error| LedgerError::io(&temporary, error))?;
        // The file may hold keys a person typed by hand: keep its permissions, not the umask's.
        if let Ok(metadata) = std::fs::metadata(&self.path) {
            std::fs::set_permissions(&temporary, metadata.permissions())
                .map_err(|error| LedgerError::io(&temporary, error))?;
        }
        std::fs::rename(&temporary, &self.path).map_err(|error| {
            // Nothing else refers to the temporary file; leaving it would only confuse.
            if let Err(cleanup) = std::fs::remove_file(&temporary) {
                tracing::debug!(%cleanup, "temporary config file not removed");
            }
            LedgerError::io(&self.path, error)
        })
    }
}

/// Sets the fields the settings view owns; leaves any other field of the entry alone. A key
/// saved through the settings goes to the keychain, so a key in the file (which would win the
/// lookup) is removed.
pub(super) fn apply_to_entry(entry: &mut Map<String, Value>, provider: &CheckedProvider) {
    entry.insert("npm".into(), Value::String(provider.npm.clone()));
    match &provider.name {
        Some(name) => entry.insert("name".into(), Value::String(name.clone())),
        None => entry.shift_remove("name"),
    };
    let mut options = match entry.shift_remove("options") {
        Some(Value::Object(options)) => options,
        _ => Map::new(),
    };
    match &provider.base_url {
        Some(url) => options.insert("baseURL".into(), Value::String(url.clone())),
        None => options.shift_remove("baseURL"),
    };
    if provider.api_key.is_some() {
        options.shift_remove("apiKey");
    }
    if !options.is_empty() {
        entry.insert("options".into(), Value::Object(options));
    }
    let mut previous = match entry.shift_remove("models") {
        Some(Value::Object(models)) => models,
        _ => Map::new(),
    };
    // Models that stay keep what the file said about them (names, prices, variants).
    let models: Map<String, Value> = provider
        .models
        .iter()
        .map(|id| {
            let kept = previous
                .shift_remove(id)
                .unwrap_or_else(|| Value::Object(Map::new()));
            (id.clone(), kept)
        })
        .collect();
    entry.insert("models".into(), Value::Object(models));
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn config_error(path: &Path, message: &str) -> LedgerError {
    LedgerError::Config {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}
