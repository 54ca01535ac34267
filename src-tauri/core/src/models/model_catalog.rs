//! The models a ledger can run: the configured providers' models, then Dossier's built-in
//! offline model, so a fresh install with no configuration still has a model to record.

use crate::models::config::Config;
use crate::wire::message::ModelRef;
use serde::Serialize;
use ts_rs::TS;

pub const OFFLINE_PROVIDER_ID: &str = "dossier";
pub const OFFLINE_MODEL_ID: &str = "offline";

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct Provider {
    pub id: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub npm: Option<String>,
    pub models: Vec<Model>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct Model {
    pub id: String,
    #[serde(rename = "providerID")]
    pub provider_id: String,
    pub name: String,
    /// Names of the "thinking effort" variants this model offers.
    pub variants: Vec<String>,
    pub attachment: bool,
    pub reasoning: bool,
    /// Whether tools are offered to the model: the config's `tool_call`, else true. A model on
    /// this computer takes them only when its chat template does.
    pub tool_call: bool,
    /// From the config's `cost`, else the bundled models.dev snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<crate::models::reply_cost::Price>,
    /// From the config's `limit`, else the bundled models.dev snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub limit: Option<crate::models::model_snapshot::Limit>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ModelCatalog {
    pub providers: Vec<Provider>,
}

impl ModelCatalog {
    pub fn from_config(config: &Config) -> Self {
        let mut providers: Vec<Provider> = config
            .provider
            .iter()
            .map(|(provider_id, provider)| Provider {
                id: provider_id.clone(),
                name: provider.name.clone().unwrap_or_else(|| provider_id.clone()),
                npm: provider.npm.clone(),
                models: provider
                    .models
                    .iter()
                    .map(|(model_id, model)| Model {
                        id: model_id.clone(),
                        provider_id: provider_id.clone(),
                        name: model.name.clone().unwrap_or_else(|| model_id.clone()),
                        variants: crate::models::model_variant::variants_of(
                            config,
                            &ModelRef::new(provider_id, model_id),
                        )
                        .into_keys()
                        .collect(),
                        attachment: model.attachment.unwrap_or(false),
                        reasoning: model.reasoning.unwrap_or_else(|| {
                            crate::models::model_snapshot::lookup(&ModelRef::new(
                                provider_id,
                                model_id,
                            ))
                            .is_some_and(|entry| entry.reasoning)
                        }),
                        tool_call: model.tool_call.unwrap_or(true),
                        cost: crate::models::model_snapshot::price_of(
                            config,
                            &ModelRef::new(provider_id, model_id),
                        ),
                        limit: crate::models::model_snapshot::limit_numbers(
                            config,
                            &ModelRef::new(provider_id, model_id),
                        ),
                    })
                    .collect(),
            })
            .collect();
        providers.push(Provider {
            id: OFFLINE_PROVIDER_ID.into(),
            name: "Dossier".into(),
            npm: None,
            models: vec![Model {
                id: OFFLINE_MODEL_ID.into(),
                provider_id: OFFLINE_PROVIDER_ID.into(),
                name: "Offline stand-in (fallback: no model installed)".into(),
                variants: Vec::new(),
                attachment: true,
                reasoning: false,
                tool_call: false,
                cost: None,
                limit: None,
            }],
        });
        Self { providers }
    }

    pub fn find(&self, model: &ModelRef) -> Option<&Model> {
        self.providers
            .iter()
            .find(|provider| provider.id == model.provider_id)?
            .models
            .iter()
            .find(|candidate| candidate.id == model.model_id)
    }

    pub fn labels(&self) -> Vec<String> {
        self.providers
            .iter()
            .flat_map(|provider| provider.models.iter())
            .map(|model| format!("{}/{}", model.provider_id, model.id))
            .collect()
    }

    /// The first provider that has models, and its top model by OpenCode's preference order.
    pub fn first_available(&self) -> Option<ModelRef> {
        self.providers
            .iter()
            .find(|provider| !provider.models.is_empty())
            .and_then(|provider| {
                let mut ids: Vec<&str> = provider
                    .models
                    .iter()
                    .map(|model| model.id.as_str())
                    .collect();
                ids.sort_by(|left, right| {
                    preference(left)
                        .cmp(&preference(right))
                        .then(right.cmp(left))
                });
                ids.first().map(|id| ModelRef::new(&provider.id, *id))
            })
    }
}

/// Lower is preferred: well-known flagship families, then anything "latest", then the rest.
fn preference(model_id: &str) -> usize {
    const PRIORITY: [&str; 4] = ["gpt-5", "claude-sonnet-4", "big-pickle", "gemini-3-pro"];
    PRIORITY
        .iter()
        .position(|fragment| model_id.contains(fragment))
        .unwrap_or(if model_id.contains("latest") {
            PRIORITY.len()
        } else {
            PRIORITY.len() + 1
        })
}
