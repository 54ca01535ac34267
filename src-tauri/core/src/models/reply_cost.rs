//! What a step cost: token usage times the model's prices (US dollars per million tokens, from
//! the model's `cost` in the config, else the bundled models.dev snapshot in `model_snapshot`).
//! Without prices the cost is 0, as OpenCode records for models it has no price for.

use crate::models::config::Config;
use crate::models::provider::Usage;
use crate::wire::message::ModelRef;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// US dollars per million tokens, in the config's and models.dev's field names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Price {
    #[serde(default)]
    pub input: f64,
    #[serde(default)]
    pub output: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cache_read: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cache_write: Option<f64>,
}

/// The configured price of `model`, if any (`model_snapshot::price_of` adds the snapshot).
pub fn price_of(config: &Config, model: &ModelRef) -> Option<Price> {
    config
        .provider
        .get(&model.provider_id)?
        .models
        .get(&model.model_id)?
        .cost
}

/// Dollars for one step. Cached input is billed at its own price (the input price when none is
/// given); reasoning tokens are part of the output.
pub fn step_cost(usage: Usage, price: Option<Price>) -> f64 {
    let Some(price) = price else {
        return 0.0;
    };
    let per_token =
        |tokens: u64, dollars_per_million: f64| tokens as f64 * dollars_per_million / 1e6;
    per_token(usage.input, price.input)
        + per_token(usage.output, price.output)
        + per_token(usage.cache_read, price.cache_read.unwrap_or(price.input))
        + per_token(usage.cache_write, price.cache_write.unwrap_or(price.input))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_table() {
        let usage = Usage {
            input: 1_000_000,
            output: 500_000,
            reasoning: 100_000,
            cache_read: 2_000_000,
            cache_write: 0,
        };
        let price = |input, output, cache_read| Price {
            input,
            output,
            cache_read,
            cache_write: None,
        };
        let table: [(Option<Price>, f64); 4] = [
            (None, 0.0),
            (Some(price(3.0, 15.0, Some(0.3))), 3.0 + 7.5 + 0.6),
            (Some(price(1.0, 2.0, None)), 1.0 + 1.0 + 2.0),
            (Some(Price::default()), 0.0),
        ];
        for (price, expected) in table {
            assert!(
                (step_cost(usage, price) - expected).abs() < 1e-9,
                "{price:?}"
            );
        }
    }

    #[test]
    fn price_comes_from_the_model_config() {
        let config = Config::parse(
            r#"{"provider": {"p": {"models": {"m": {"cost": {"input": 2.5, "output": 10, "cache_read": 1.25}}, "free": {}}}}}"#,
        )
        .unwrap_or_default();
        assert_eq!(
            price_of(&config, &ModelRef::new("p", "m")),
            Some(Price {
                input: 2.5,
                output: 10.0,
                cache_read: Some(1.25),
                cache_write: None
            })
        );
        assert_eq!(price_of(&config, &ModelRef::new("p", "free")), None);
        assert_eq!(price_of(&config, &ModelRef::new("q", "m")), None);
    }
}
