use super::*;

fn config(text: &str) -> Config {
    Config::parse(text).unwrap_or_else(|error| panic!("{error}"))
}

fn names(variants: &IndexMap<String, Value>) -> Vec<&str> {
    variants.keys().map(String::as_str).collect()
}

#[test]
fn built_in_variants_follow_the_provider_and_the_model_family() {
    let openai = r#"{"provider": {"openai": {"models": {"gpt-5": {}, "o3": {}, "gpt-4o": {}, "gpt-5-pro": {"reasoning": true}}}}}"#;
    let table: [(&str, &str, &str, Vec<&str>); 9] = [
        (
            openai,
            "openai",
            "gpt-5",
            vec!["minimal", "low", "medium", "high"],
        ),
        (openai, "openai", "o3", vec!["low", "medium", "high"]),
        // Not a reasoning model in the snapshot: nothing to tune.
        (openai, "openai", "gpt-4o", vec![]),
        (openai, "openai", "gpt-5-pro", vec![]),
        (
            r#"{"provider": {"anthropic": {"models": {"claude-sonnet-4-5": {}}}}}"#,
            "anthropic",
            "claude-sonnet-4-5",
            vec!["high", "max"],
        ),
        (
            r#"{"provider": {"local": {"npm": "@ai-sdk/openai-compatible", "models": {"thinker": {"reasoning": true}}}}}"#,
            "local",
            "thinker",
            vec!["low", "medium", "high"],
        ),
        (
            r#"{"provider": {"local": {"models": {"qwen3-thinker": {"reasoning": true}}}}}"#,
            "local",
            "qwen3-thinker",
            vec![],
        ),
        (
            r#"{"provider": {"deepseek": {"models": {"deepseek-reasoner": {}}}}}"#,
            "deepseek",
            "deepseek-reasoner",
            vec![],
        ),
        (
            r#"{"provider": {"local": {"models": {"plain": {}}}}}"#,
            "local",
            "plain",
            vec![],
        ),
    ];
    for (text, provider, model, expected) in table {
        let variants = variants_of(&config(text), &ModelRef::new(provider, model));
        assert_eq!(names(&variants), expected, "{provider}/{model}");
    }
}

#[test]
fn anthropic_budgets_fit_the_output_limit() {
    let variants = variants_of(
        &config(r#"{"provider": {"anthropic": {"models": {"claude-opus-4-1": {}}}}}"#),
        &ModelRef::new("anthropic", "claude-opus-4-1"),
    );
    // Opus 4.1 may write 32,000 tokens: high is min(16000, 15999), max is min(31999, 31999).
    assert_eq!(
        variants["high"],
        json!({"thinking": {"type": "enabled", "budgetTokens": 15_999}})
    );
    assert_eq!(
        variants["max"],
        json!({"thinking": {"type": "enabled", "budgetTokens": 31_999}})
    );
}

#[test]
fn configured_variants_merge_over_built_in_ones_and_can_be_disabled() {
    let text = r#"{"provider": {"openai": {"models": {"o3": {"variants": {
        "high": {"textVerbosity": "low"},
        "low": {"disabled": true},
        "custom": {"reasoningEffort": "medium", "serviceTier": "flex"}
    }}}}}}"#;
    let variants = variants_of(&config(text), &ModelRef::new("openai", "o3"));
    assert_eq!(names(&variants), ["medium", "high", "custom"]);
    assert_eq!(
        variants["high"],
        json!({"reasoningEffort": "high", "textVerbosity": "low"})
    );
    let options = provider_options(
        &config(text),
        &ModelRef::new("openai", "o3"),
        Some("custom"),
    );
    assert_eq!(
        Value::Object(options),
        json!({"reasoningEffort": "medium", "serviceTier": "flex"})
    );
}

#[test]
fn no_default_or_unknown_variant_means_no_options() {
    let text = r#"{"provider": {"openai": {"models": {"o3": {}}}}}"#;
    let model = ModelRef::new("openai", "o3");
    for variant in [None, Some("default"), Some("turbo")] {
        assert!(
            provider_options(&config(text), &model, variant).is_empty(),
            "{variant:?}"
        );
    }
    assert_eq!(
        Value::Object(provider_options(&config(text), &model, Some("high"))),
        json!({"reasoningEffort": "high"})
    );
}

#[test]
fn option_names_become_snake_case_at_every_depth() {
    assert_eq!(snake_case("reasoningEffort"), "reasoning_effort");
    assert_eq!(snake_case("effort"), "effort");
    assert_eq!(
        snake_case_keys(&json!({"thinking": {"type": "enabled", "budgetTokens": 10}})),
        json!({"thinking": {"type": "enabled", "budget_tokens": 10}})
    );
}

#[test]
fn the_answer_shares_the_output_limit_with_the_thinking_budget() {
    let thinking = |budget: u64| {
        json!({"thinking": {"type": "enabled", "budgetTokens": budget}})
            .as_object()
            .cloned()
            .unwrap_or_default()
    };
    type Case = (Map<String, Value>, Option<u64>, Option<u32>);
    let table: [Case; 5] = [
        (Map::new(), Some(64_000), None),
        (thinking(16_000), Some(64_000), Some(32_000)),
        (thinking(31_999), Some(32_000), Some(1)),
        (thinking(15_999), Some(32_000), Some(16_001)),
        (thinking(16_000), None, Some(32_000)),
    ];
    for (options, limit, expected) in table {
        assert_eq!(
            answer_tokens_beside_thinking(&options, limit),
            expected,
            "{options:?} {limit:?}"
        );
    }
}
