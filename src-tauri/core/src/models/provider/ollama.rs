//! Detecting a local Ollama: its `/api/tags` lists the pulled models, which then become provider
//! `ollama`, spoken to through Ollama's OpenAI-compatible `/v1`. A quick probe with a short
//! timeout; no Ollama simply means no such provider.

use crate::models::config::{ModelConfig, ProviderConfig, ProviderOptions};
use serde_json::Value;
use std::time::Duration;

pub const DEFAULT_URL: &str = "http://127.0.0.1:11434";
pub const PROVIDER_ID: &str = "ollama";
const PROBE_TIMEOUT: Duration = Duration::from_millis(400);

/// The names of the models a running Ollama at `base_url` offers; `None` when none answers.
pub async fn detect(client: &reqwest::Client, base_url: &str) -> Option<Vec<String>> {
    let url = format!("{}/api/tags", base_url.trim_end_matches('/'));
    let response = client.get(url).timeout(PROBE_TIMEOUT).send().await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    let body: Value = response.json().await.ok()?;
    Some(model_names(&body))
}

/// `{"models": [{"name": "llama3.2:latest", …}]}` → the names, in Ollama's order.
pub fn model_names(body: &Value) -> Vec<String> {
    body.get("models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|model| model.get("name").or_else(|| model.get("model")))
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// Adds provider `ollama` to `config` when one answers at `base_url` with at least one model and
/// the config does not define `ollama` itself.
pub async fn add_detected(config: &mut crate::models::config::Config, base_url: &str) {
    if config.provider.contains_key(PROVIDER_ID) {
        return;
    }
    let client = super::http_client::http_client();
    match detect(&client, base_url).await {
        Some(models) if !models.is_empty() => {
            tracing::info!(count = models.len(), base_url, "local Ollama detected");
            config
                .provider
                .insert(PROVIDER_ID.into(), provider_config(base_url, &models));
        }
        _ => tracing::debug!(base_url, "no local Ollama"),
    }
}

/// The provider section an Ollama with these models amounts to.
pub fn provider_config(base_url: &str, models: &[String]) -> ProviderConfig {
    ProviderConfig {
        npm: Some("@ai-sdk/openai-compatible".into()),
        name: Some("Ollama (local)".into()),
        options: ProviderOptions {
            base_url: Some(format!("{}/v1", base_url.trim_end_matches('/'))),
            api_key: None,
        },
        models: models
            .iter()
            .map(|name| (name.clone(), ModelConfig::default()))
            .collect(),
        ..ProviderConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_become_models() {
        let body = serde_json::json!({"models": [
            {"name": "llama3.2:latest", "model": "llama3.2:latest", "size": 2019393189},
            {"model": "qwen2.5:7b"},
            {"size": 1}
        ]});
        assert_eq!(model_names(&body), ["llama3.2:latest", "qwen2.5:7b"]);
        assert!(model_names(&serde_json::json!({})).is_empty());
        let provider = provider_config("http://127.0.0.1:11434/", &model_names(&body));
        assert_eq!(
            provider.options.base_url.as_deref(),
            Some("http://127.0.0.1:11434/v1")
        );
        assert_eq!(
            provider.models.keys().collect::<Vec<_>>(),
            ["llama3.2:latest", "qwen2.5:7b"]
        );
    }
}
