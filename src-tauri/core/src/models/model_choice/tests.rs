use super::*;
use crate::models::agent::AgentRegistry;
use crate::models::config::Config;

fn setup(config: &str) -> (AgentRegistry, ModelCatalog) {
    let config = Config::parse(config).unwrap_or_else(|error| panic!("{error}"));
    (
        AgentRegistry::from_config(&config, &[]).unwrap_or_else(|error| panic!("{error}")),
        ModelCatalog::from_config(&config),
    )
}

const CONFIG: &str = r#"{
  "agent": {"build": {"model": "fake/smart", "variant": "high"}},
  "provider": {"fake": {"models": {"smart": {"variants": {"high": {}, "low": {}}}, "fast": {}}}}
}"#;

fn model(text: &str) -> ModelRef {
    ModelRef::parse(text).unwrap_or_else(|| panic!("{text}"))
}

#[test]
fn model_priority_is_input_then_agent_then_current() {
    let (agents, _) = setup(CONFIG);
    let build = agents.get("build").unwrap_or_else(|| panic!());
    let plan = agents.get("plan").unwrap_or_else(|| panic!());
    let current = Some(model("fake/fast"));
    let table = [
        (
            Some(model("other/x")),
            build,
            current.clone(),
            Some(model("other/x")),
        ),
        (None, build, current.clone(), Some(model("fake/smart"))),
        (None, plan, current.clone(), Some(model("fake/fast"))),
        (None, plan, None, None),
    ];
    for (requested, agent, current, expected) in table {
        assert_eq!(
            choose_model(requested.as_ref(), agent, current),
            expected,
            "{}",
            agent.name
        );
    }
}

#[test]
fn current_model_falls_back_in_order() {
    let session = SessionModel {
        id: "s".into(),
        provider_id: "p".into(),
        variant: None,
    };
    let user = model("p/user");
    let configured = model("p/config");
    let first = model("p/first");
    assert_eq!(
        current_model(Some(&session), Some(&user), Some(&configured), Some(&first)),
        Some(model("p/s"))
    );
    assert_eq!(
        current_model(None, Some(&user), Some(&configured), Some(&first)),
        Some(user.clone())
    );
    assert_eq!(
        current_model(None, None, Some(&configured), Some(&first)),
        Some(configured.clone())
    );
    assert_eq!(
        current_model(None, None, None, Some(&first)),
        Some(first.clone())
    );
    assert_eq!(current_model(None, None, None, None), None);
}

#[test]
fn variant_applies_only_with_the_agents_own_model() {
    let (agents, catalog) = setup(CONFIG);
    let build = agents.get("build").unwrap_or_else(|| panic!());
    let plan = agents.get("plan").unwrap_or_else(|| panic!());
    assert_eq!(
        choose_variant(None, build, &model("fake/smart"), &catalog).as_deref(),
        Some("high")
    );
    assert_eq!(
        choose_variant(None, build, &model("fake/fast"), &catalog),
        None
    );
    assert_eq!(
        choose_variant(None, plan, &model("fake/smart"), &catalog),
        None
    );
    assert_eq!(
        choose_variant(Some("low"), plan, &model("fake/fast"), &catalog).as_deref(),
        Some("low")
    );
}

#[test]
fn variant_needs_the_model_to_offer_it() {
    let (agents, catalog) = setup(
        r#"{"agent": {"build": {"model": "fake/fast", "variant": "high"}}, "provider": {"fake": {"models": {"fast": {}}}}}"#,
    );
    let build = agents.get("build").unwrap_or_else(|| panic!());
    assert_eq!(
        choose_variant(None, build, &model("fake/fast"), &catalog),
        None
    );
}

#[test]
fn default_variant_means_none() {
    assert_eq!(meaningful_variant(Some("default")), None);
    assert_eq!(meaningful_variant(Some("high")).as_deref(), Some("high"));
}

#[test]
fn first_available_prefers_configured_providers_then_offline() {
    let (_, catalog) = setup(
        r#"{"provider": {"p": {"models": {"a-model": {}, "gpt-5-mini": {}, "z-latest": {}}}}}"#,
    );
    assert_eq!(catalog.first_available(), Some(model("p/gpt-5-mini")));
    let (_, empty) = setup("{}");
    assert_eq!(empty.first_available(), Some(model("dossier/offline")));
}
