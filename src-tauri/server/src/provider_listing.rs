//! The model catalog in OpenCode's `Provider` / `Model` wire shape (`models` keyed by id, and the
//! capability, cost and limit objects the SDK's types require), for `GET /provider` and
//! `GET /config/providers`. Prices and limits come from the catalog (config, else the bundled
//! models.dev snapshot); figures it does not know are reported as zero.

use dossier_core::models::model_catalog::{Model, ModelCatalog, Provider};
use serde_json::{json, Map, Value};

/// `GET /config/providers`: `{providers, default}`.
pub fn configured_providers(catalog: &ModelCatalog) -> Value {
    json!({
        "providers": catalog.providers.iter().map(provider).collect::<Vec<_>>(),
        "default": defaults(catalog),
    })
}

/// `GET /provider`: `{all, default, connected}`; every catalog provider is usable.
pub fn all_providers(catalog: &ModelCatalog) -> Value {
    json!({
        "all": catalog.providers.iter().map(provider).collect::<Vec<_>>(),
        "default": defaults(catalog),
        "connected": catalog.providers.iter().map(|provider| provider.id.clone()).collect::<Vec<_>>(),
    })
}

/// Each provider's default model: the catalog's first choice for its provider, else the
/// provider's first model.
fn defaults(catalog: &ModelCatalog) -> Map<String, Value> {
    let preferred = catalog.first_available();
    catalog
        .providers
        .iter()
        .filter_map(|provider| {
            let model_id = preferred
                .as_ref()
                .filter(|model| model.provider_id == provider.id)
                .map(|model| model.model_id.clone())
                .or_else(|| provider.models.first().map(|model| model.id.clone()))?;
            Some((provider.id.clone(), Value::String(model_id)))
        })
        .collect()
}

fn provider(provider: &Provider) -> Value {
    let models: Map<String, Value> = provider
        .models
        .iter()
        .map(|entry| (entry.id.clone(), model(entry, provider)))
        .collect();
    json!({
        "id": provider.id,
        "name": provider.name,
        "source": if provider.npm.is_some() { "config" } else { "custom" },
        "env": [],
        "options": {},
        "models": models,
    })
}

fn model(model: &Model, provider: &Provider) -> Value {
    let modalities = |attachment: bool| json!({"text": true, "audio": false, "image": attachment, "video": false, "pdf": attachment});
    let variants: Map<String, Value> = model
        .variants
        .iter()
        .map(|name| (name.clone(), json!({})))
        .collect();
    json!({
        "id": model.id,
        "providerID": model.provider_id,
        "api": {"id": model.id, "url": "", "npm": provider.npm.clone().unwrap_or_default()},
        "name": model.name,
        "capabilities": {
            "temperature": true,
            "reasoning": model.reasoning,
            "attachment": model.attachment,
            "toolcall": true,
            "input": modalities(model.attachment),
            "output": modalities(false),
            "interleaved": false,
        },
        "cost": model.cost.map_or_else(
            || json!({"input": 0, "output": 0, "cache": {"read": 0, "write": 0}}),
            |price| json!({
                "input": price.input,
                "output": price.output,
                "cache": {
                    "read": price.cache_read.unwrap_or(0.0),
                    "write": price.cache_write.unwrap_or(0.0),
                },
            }),
        ),
        "limit": model.limit.map_or_else(
            || json!({"context": 0, "output": 0}),
            |limit| json!({"context": limit.context, "output": limit.output}),
        ),
        "status": "active",
        "options": {},
        "headers": {},
        "release_date": "",
        "variants": variants,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;
    use dossier_core::models::config::Config;

    fn catalog() -> ModelCatalog {
        let config = Config::parse(
            r#"{"provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "models": {
                "fake-model": {"name": "Fake"}, "other": {}}}}}"#,
        )
        .unwrap();
        ModelCatalog::from_config(&config)
    }

    #[test]
    fn models_are_keyed_by_id_with_required_fields() {
        let listing = configured_providers(&catalog());
        let fake = &listing["providers"][0];
        assert_eq!(fake["id"], "fake");
        assert_eq!(fake["source"], "config");
        let model = &fake["models"]["fake-model"];
        assert_eq!(model["name"], "Fake");
        assert_eq!(model["providerID"], "fake");
        assert_eq!(model["api"]["npm"], "@ai-sdk/openai-compatible");
        for field in [
            "capabilities",
            "cost",
            "limit",
            "status",
            "options",
            "headers",
            "release_date",
        ] {
            assert!(model.get(field).is_some(), "missing {field}");
        }
    }

    #[test]
    fn every_provider_has_a_default_and_is_connected() {
        let listing = all_providers(&catalog());
        assert_eq!(listing["default"]["dossier"], "offline");
        assert!(listing["default"]["fake"].is_string());
        assert_eq!(listing["connected"], json!(["fake", "dossier"]));
    }

    #[test]
    fn known_models_carry_prices_and_limits() {
        let config = Config::parse(
            r#"{"provider": {"anthropic": {"models": {"claude-sonnet-4-5": {}}},
                "fake": {"models": {"priced": {"cost": {"input": 1, "output": 2}, "limit": {"context": 1000, "output": 100}}}}}}"#,
        )
        .unwrap();
        let listing = all_providers(&ModelCatalog::from_config(&config));
        let sonnet = &listing["all"][0]["models"]["claude-sonnet-4-5"];
        assert_eq!(
            sonnet["cost"],
            json!({"input": 3.0, "output": 15.0, "cache": {"read": 0.3, "write": 3.75}})
        );
        assert_eq!(sonnet["limit"], json!({"context": 200000, "output": 64000}));
        assert_eq!(sonnet["capabilities"]["reasoning"], true);
        assert_eq!(sonnet["variants"], json!({"high": {}, "max": {}}));
        let priced = &listing["all"][1]["models"]["priced"];
        assert_eq!(
            priced["cost"],
            json!({"input": 1.0, "output": 2.0, "cache": {"read": 0.0, "write": 0.0}})
        );
        assert_eq!(priced["limit"], json!({"context": 1000, "output": 100}));
    }
}
