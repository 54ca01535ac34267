//! Variants ("thinking effort") and the provider options they stand for, as OpenCode's
//! `ProviderTransform.variants` builds them: a reasoning model offers efforts that depend on
//! the wire protocol (OpenAI-style `reasoningEffort`, OpenRouter's `reasoning.effort`,
//! Anthropic's `thinking` budgets), the config can add or override variants, and the variant
//! recorded on the user message is what the request carries. Pure, table-tested.

use crate::models::config::{Config, ModelConfig, ProviderConfig};
use crate::models::provider::{protocol_of, Protocol};
use crate::wire::message::ModelRef;
use indexmap::IndexMap;
use serde_json::{json, Map, Value};

const WIDELY_SUPPORTED_EFFORTS: [&str; 3] = ["low", "medium", "high"];

/// Families whose reasoning cannot be tuned per request; OpenCode offers them no variants.
const UNTUNABLE_FAMILIES: [&str; 6] = ["deepseek", "minimax", "glm", "mistral", "kimi", "qwen"];

/// Anthropic's `max_tokens` when the model's output limit is unknown.
const DEFAULT_ANTHROPIC_OUTPUT: u64 = 64_000;

/// The variants `model` offers, in order, each with its provider options.
pub fn variants_of(config: &Config, model: &ModelRef) -> IndexMap<String, Value> {
    let provider = config.provider.get(&model.provider_id);
    let configured = provider.and_then(|provider| provider.models.get(&model.model_id));
    let snapshot = crate::models::model_snapshot::lookup(model);
    let reasoning = configured
        .and_then(|configured| configured.reasoning)
        .or(snapshot.map(|entry| entry.reasoning))
        .unwrap_or(false);
    let output_limit = configured
        .and_then(|configured| configured.limit.as_ref())
        .and_then(|limit| limit.get("output"))
        .and_then(Value::as_u64)
        .or(snapshot.map(|entry| entry.limit.output));
    let default_provider = ProviderConfig::default();
    let mut variants = if reasoning {
        built_in(
            &model.provider_id,
            provider.unwrap_or(&default_provider),
            &model.model_id,
            output_limit,
        )
    } else {
        IndexMap::new()
    };
    merge_configured(&mut variants, configured);
    variants
}

/// The provider options of the chosen variant; empty when there is none or it is unknown.
pub fn provider_options(
    config: &Config,
    model: &ModelRef,
    variant: Option<&str>,
) -> Map<String, Value> {
    let Some(variant) = crate::models::model_choice::meaningful_variant(variant) else {
        return Map::new();
    };
    match variants_of(config, model).shift_remove(&variant) {
        Some(Value::Object(options)) => options,
        _ => Map::new(),
    }
}

/// The variants OpenCode derives for a reasoning model from its provider's package.
pub fn built_in(
    provider_id: &str,
    provider: &ProviderConfig,
    model_id: &str,
    output_limit: Option<u64>,
) -> IndexMap<String, Value> {
    let id = model_id.to_ascii_lowercase();
    if UNTUNABLE_FAMILIES.iter().any(|family| id.contains(family)) {
        return IndexMap::new();
    }
    match protocol_of(provider_id, provider) {
        Protocol::Anthropic => {
            let output = output_limit.unwrap_or(DEFAULT_ANTHROPIC_OUTPUT);
            let thinking =
                |budget: u64| json!({"thinking": {"type": "enabled", "budgetTokens": budget}});
            IndexMap::from([
                (
                    "high".to_string(),
                    thinking(16_000.min((output / 2).saturating_sub(1))),
                ),
                (
                    "max".to_string(),
                    thinking(31_999.min(output.saturating_sub(1))),
                ),
            ])
        }
        Protocol::OpenAiCompatible if provider_id == "openrouter" => efforts(
            &WIDELY_SUPPORTED_EFFORTS,
            |effort| json!({"reasoning": {"effort": effort}}),
        ),
        Protocol::OpenAiCompatible => {
            let is_openai =
                provider_id == "openai" || provider.npm.as_deref() == Some("@ai-sdk/openai");
            if is_openai && id == "gpt-5-pro" {
                return IndexMap::new();
            }
            let mut names: Vec<&str> = Vec::new();
            if is_openai && (id == "gpt-5" || id.starts_with("gpt-5-")) {
                names.push("minimal");
            }
            names.extend(WIDELY_SUPPORTED_EFFORTS);
            efforts(&names, |effort| json!({"reasoningEffort": effort}))
        }
    }
}

fn efforts(names: &[&str], options: impl Fn(&str) -> Value) -> IndexMap<String, Value> {
    names
        .iter()
        .map(|name| (name.to_string(), options(name)))
        .collect()
}

/// The config's `variants` deep-merged over the built-in ones; `{"disabled": true}` removes one.
fn merge_configured(variants: &mut IndexMap<String, Value>, configured: Option<&ModelConfig>) {
    let Some(configured) = configured else {
        return;
    };
    for (name, options) in &configured.variants {
        if options.get("disabled").and_then(Value::as_bool) == Some(true) {
            variants.shift_remove(name);
            continue;
        }
        let entry = variants
            .entry(name.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        deep_merge(entry, options);
    }
}

fn deep_merge(target: &mut Value, overlay: &Value) {
    match (target, overlay) {
        (Value::Object(target), Value::Object(overlay)) => {
            for (key, value) in overlay {
                deep_merge(target.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (target, overlay) => *target = overlay.clone(),
    }
}

/// The answer's own share of `max_tokens` when thinking takes a budget beside it, as OpenCode
/// sizes it: the model's output limit capped at 32k, shrunk so budget plus answer still fit
/// the limit. `None` without a thinking budget (the client's default applies).
pub fn answer_tokens_beside_thinking(
    options: &Map<String, Value>,
    output_limit: Option<u64>,
) -> Option<u32> {
    let budget = crate::models::provider::anthropic::thinking_budget(options)?;
    let cap = output_limit.unwrap_or(DEFAULT_ANTHROPIC_OUTPUT);
    let standard = cap.min(32_000);
    let answer = if budget + standard > cap {
        cap.saturating_sub(budget)
    } else {
        standard
    };
    u32::try_from(answer.max(1)).ok()
}

/// `reasoningEffort` → `reasoning_effort`: the AI SDK's option names are camelCase, the wire's
/// are snake_case.
pub fn snake_case(name: &str) -> String {
    let mut snake = String::with_capacity(name.len() + 4);
    for character in name.chars() {
        if character.is_ascii_uppercase() {
            snake.push('_');
            snake.push(character.to_ascii_lowercase());
        } else {
            snake.push(character);
        }
    }
    snake
}

/// An options object with every key (at every depth) in snake_case.
pub fn snake_case_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (snake_case(key), snake_case_keys(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests;
