//! The model catalog in OpenCode's `Provider` / `Model` wire shape (`models` keyed by id, and the
//! capability, cost and limit objects the SDK's types require), for `GET /provider` and
//! `GET /config/providers`. Prices and limits come from the catalog (config, else the bundled
//! models.dev snapshot); figures it does not know are reported as zero.

use dossier_core::models::model_catalog::{Model, ModelCatalog, Provider};
use serde::Serialize;
use serde::Serializer;
use ts_rs::TS;

/// `GET /config/providers`: `{providers, default}`.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ConfiguredProviders {
    pub providers: Vec<ListedProvider>,
    /// Each provider's default model id, by provider id.
    #[serde(serialize_with = "pairs_as_map")]
    #[ts(as = "std::collections::HashMap<String, String>")]
    pub default: ProviderDefaults,
}

/// `GET /provider`: `{all, default, connected}`; every catalog provider is usable.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct AllProviders {
    pub all: Vec<ListedProvider>,
    #[serde(serialize_with = "pairs_as_map")]
    #[ts(as = "std::collections::HashMap<String, String>")]
    pub default: ProviderDefaults,
    pub connected: Vec<String>,
}

/// Provider id → its default model id, in the catalog's provider order.
type ProviderDefaults = Vec<(String, String)>;

/// A provider in OpenCode's shape: `models` keyed by model id.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ListedProvider {
    pub id: String,
    pub name: String,
    /// `config` for a provider with an npm package, else `custom`.
    pub source: &'static str,
    pub env: Vec<String>,
    pub options: Empty,
    /// Keyed by model id, in the catalog's order.
    #[serde(serialize_with = "models_by_id")]
    #[ts(as = "std::collections::HashMap<String, ListedModel>")]
    pub models: Vec<ListedModel>,
}

/// An object OpenCode requires that Dossier has nothing to put in: always `{}`.
#[derive(Debug, Clone, Copy, Default, Serialize, TS)]
#[ts(export)]
pub struct Empty {}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ListedModel {
    pub id: String,
    #[serde(rename = "providerID")]
    pub provider_id: String,
    pub api: ModelApi,
    pub name: String,
    pub capabilities: Capabilities,
    pub cost: ListedCost,
    pub limit: ListedLimit,
    pub status: &'static str,
    pub options: Empty,
    pub headers: Empty,
    #[serde(rename = "release_date")]
    pub release_date: String,
    /// The model's "thinking effort" variants, keyed by name (OpenCode keeps options there;
    /// Dossier's variants have none).
    #[serde(serialize_with = "names_as_empty_objects")]
    #[ts(as = "std::collections::HashMap<String, Empty>")]
    pub variants: Vec<String>,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ModelApi {
    pub id: String,
    pub url: String,
    pub npm: String,
}

#[derive(Debug, Clone, Copy, Serialize, TS)]
#[ts(export)]
pub struct Capabilities {
    pub temperature: bool,
    pub reasoning: bool,
    pub attachment: bool,
    pub toolcall: bool,
    pub input: Modalities,
    pub output: Modalities,
    pub interleaved: bool,
}

#[derive(Debug, Clone, Copy, Serialize, TS)]
#[ts(export)]
pub struct Modalities {
    pub text: bool,
    pub audio: bool,
    pub image: bool,
    pub video: bool,
    pub pdf: bool,
}

impl Modalities {
    /// Text always; images and PDFs when the model takes attachments.
    fn with_attachments(attachment: bool) -> Self {
        Self {
            text: true,
            audio: false,
            image: attachment,
            video: false,
            pdf: attachment,
        }
    }
}

/// Dollars per million tokens; zero where the catalog does not know the price.
#[derive(Debug, Clone, Copy, Serialize, TS)]
#[ts(export)]
pub struct ListedCost {
    pub input: f64,
    pub output: f64,
    pub cache: ListedCacheCost,
}

#[derive(Debug, Clone, Copy, Serialize, TS)]
#[ts(export)]
pub struct ListedCacheCost {
    pub read: f64,
    pub write: f64,
}

/// Tokens; zero where the catalog does not know the limit.
#[derive(Debug, Clone, Copy, Serialize, TS)]
#[ts(export)]
pub struct ListedLimit {
    #[ts(type = "number")]
    pub context: u64,
    #[ts(type = "number")]
    pub output: u64,
}

pub fn configured_providers(catalog: &ModelCatalog) -> ConfiguredProviders {
    ConfiguredProviders {
        providers: catalog.providers.iter().map(provider).collect(),
        default: defaults(catalog),
    }
}

pub fn all_providers(catalog: &ModelCatalog) -> AllProviders {
    AllProviders {
        all: catalog.providers.iter().map(provider).collect(),
        default: defaults(catalog),
        connected: catalog
            .providers
            .iter()
            .map(|provider| provider.id.clone())
            .collect(),
    }
}

/// Each provider's default model: the catalog's first choice for its provider, else the
/// provider's first model.
fn defaults(catalog: &ModelCatalog) -> ProviderDefaults {
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
            Some((provider.id.clone(), model_id))
        })
        .collect()
}

fn provider(provider: &Provider) -> ListedProvider {
    ListedProvider {
        id: provider.id.clone(),
        name: provider.name.clone(),
        source: if provider.npm.is_some() {
            "config"
        } else {
            "custom"
        },
        env: Vec::new(),
        options: Empty {},
        models: provider
            .models
            .iter()
            .map(|entry| listed_model(entry, provider))
            .collect(),
    }
}

// Lists serialised as JSON objects: a `BTreeMap` would sort the keys, and OpenCode's clients
// show providers, models and variants in the order they come.
fn pairs_as_map<S: Serializer>(
    pairs: &[(String, String)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(key, value)| (key, value)))
}

fn models_by_id<S: Serializer>(models: &[ListedModel], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(models.iter().map(|model| (&model.id, model)))
}

fn names_as_empty_objects<S: Serializer>(
    names: &[String],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(names.iter().map(|name| (name, Empty {})))
}

fn listed_model(model: &Model, provider: &Provider) -> ListedModel {
    ListedModel {
        id: model.id.clone(),
        provider_id: model.provider_id.clone(),
        api: ModelApi {
            id: model.id.clone(),
            url: String::new(),
            npm: provider.npm.clone().unwrap_or_default(),
        },
        name: model.name.clone(),
        capabilities: Capabilities {
            temperature: true,
            reasoning: model.reasoning,
            attachment: model.attachment,
            toolcall: model.tool_call,
            input: Modalities::with_attachments(model.attachment),
            output: Modalities::with_attachments(false),
            interleaved: false,
        },
        cost: model.cost.map_or(
            ListedCost {
                input: 0.0,
                output: 0.0,
                cache: ListedCacheCost {
                    read: 0.0,
                    write: 0.0,
                },
            },
            |price| ListedCost {
                input: price.input,
                output: price.output,
                cache: ListedCacheCost {
                    read: price.cache_read.unwrap_or(0.0),
                    write: price.cache_write.unwrap_or(0.0),
                },
            },
        ),
        limit: model.limit.map_or(
            ListedLimit {
                context: 0,
                output: 0,
            },
            |limit| ListedLimit {
                context: limit.context,
                output: limit.output,
            },
        ),
        status: "active",
        options: Empty {},
        headers: Empty {},
        release_date: String::new(),
        variants: model.variants.clone(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;
    use dossier_core::models::config::Config;
    use serde_json::json;

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
        let listing = serde_json::to_value(configured_providers(&catalog())).unwrap();
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
        let listing = serde_json::to_value(all_providers(&catalog())).unwrap();
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
        let listing =
            serde_json::to_value(all_providers(&ModelCatalog::from_config(&config))).unwrap();
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
