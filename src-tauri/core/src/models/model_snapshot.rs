//! Prices and limits of well-known models from a bundled models.dev snapshot
//! (`data/models-dev-prices.json`, its source and date inside), so a step's cost and the
//! context-overflow test work for common models without any config. The config's own `cost`
//! and `limit` for a model always win over the snapshot.

use crate::models::config::Config;
use crate::models::reply_cost::Price;
use crate::wire::message::ModelRef;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use ts_rs::TS;

const SNAPSHOT: &str = include_str!("../../data/models-dev-prices.json");

/// Tokens: the context window and the longest reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Limit {
    #[ts(type = "number")]
    pub context: u64,
    #[ts(type = "number")]
    pub output: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct SnapshotModel {
    /// Whether the model thinks before answering (and so offers "thinking effort" variants).
    pub reasoning: bool,
    pub cost: Price,
    pub limit: Limit,
}

#[derive(Debug, Default, Deserialize)]
struct Snapshot {
    providers: BTreeMap<String, BTreeMap<String, SnapshotModel>>,
}

fn snapshot() -> &'static Snapshot {
    static PARSED: OnceLock<Snapshot> = OnceLock::new();
    PARSED.get_or_init(|| {
        serde_json::from_str(SNAPSHOT).unwrap_or_else(|error| {
            // The file is part of the build and checked by a test; this only guards against
            // a broken edit reaching a release.
            tracing::error!(%error, "the bundled models.dev snapshot does not parse");
            Snapshot::default()
        })
    })
}

/// The snapshot's entry for `model`, looked up by provider id and model id.
pub fn lookup(model: &ModelRef) -> Option<SnapshotModel> {
    snapshot()
        .providers
        .get(&model.provider_id)?
        .get(&model.model_id)
        .copied()
}

/// The price of `model`: the config's `cost`, else the snapshot's.
pub fn price_of(config: &Config, model: &ModelRef) -> Option<Price> {
    crate::models::reply_cost::price_of(config, model)
        .or_else(|| lookup(model).map(|entry| entry.cost))
}

/// The model's `limit` as the overflow test reads it: the config's, else the snapshot's.
pub fn limit_of(config: &Config, model: &ModelRef) -> Option<Value> {
    let configured = config
        .provider
        .get(&model.provider_id)
        .and_then(|provider| provider.models.get(&model.model_id))
        .and_then(|configured| configured.limit.clone());
    configured.or_else(|| {
        lookup(model).map(|entry| {
            serde_json::json!({"context": entry.limit.context, "output": entry.limit.output})
        })
    })
}

/// The model's limits as numbers (a missing figure is 0), from the config or the snapshot.
pub fn limit_numbers(config: &Config, model: &ModelRef) -> Option<Limit> {
    let limit = limit_of(config, model)?;
    let number = |key: &str| limit.get(key).and_then(Value::as_u64).unwrap_or(0);
    Some(Limit {
        context: number("context"),
        output: number("output"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_snapshot_parses_and_covers_the_common_providers() {
        let parsed: Snapshot =
            serde_json::from_str(SNAPSHOT).unwrap_or_else(|error| panic!("{error}"));
        for provider in ["openai", "anthropic", "deepseek", "groq", "openrouter"] {
            let models = &parsed.providers[provider];
            assert!(!models.is_empty(), "{provider}");
            for (id, model) in models {
                assert!(
                    model.cost.input > 0.0 && model.cost.output > 0.0,
                    "{provider}/{id}"
                );
                assert!(
                    model.limit.context > model.limit.output / 2,
                    "{provider}/{id}"
                );
            }
        }
    }

    #[test]
    fn config_cost_overrides_the_snapshot_price() {
        let sonnet = ModelRef::new("anthropic", "claude-sonnet-4-5");
        let empty = Config::default();
        let snapshot_price =
            price_of(&empty, &sonnet).unwrap_or_else(|| panic!("no snapshot price"));
        assert_eq!(
            (
                snapshot_price.input,
                snapshot_price.output,
                snapshot_price.cache_read,
                snapshot_price.cache_write
            ),
            (3.0, 15.0, Some(0.3), Some(3.75))
        );
        let configured = Config::parse(
            r#"{"provider": {"anthropic": {"models": {"claude-sonnet-4-5": {"cost": {"input": 1, "output": 2}}}}}}"#,
        )
        .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            price_of(&configured, &sonnet)
                .unwrap_or_else(|| panic!("no price"))
                .input,
            1.0
        );
        assert_eq!(
            price_of(&empty, &ModelRef::new("anthropic", "unknown")),
            None
        );
        assert_eq!(price_of(&empty, &ModelRef::new("local", "gpt-5")), None);
    }

    #[test]
    fn config_limit_overrides_the_snapshot_limit() {
        let model = ModelRef::new("openai", "gpt-4o");
        let empty = Config::default();
        assert_eq!(
            limit_of(&empty, &model),
            Some(serde_json::json!({"context": 128000, "output": 16384}))
        );
        let configured = Config::parse(
            r#"{"provider": {"openai": {"models": {"gpt-4o": {"limit": {"context": 1000, "output": 10}}}}}}"#,
        )
        .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            limit_of(&configured, &model),
            Some(serde_json::json!({"context": 1000, "output": 10}))
        );
        assert_eq!(limit_of(&empty, &ModelRef::new("openai", "nope")), None);
    }
}
