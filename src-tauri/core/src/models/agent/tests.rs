use super::*;
use crate::models::config::Config;

fn registry(config: &str) -> Result<AgentRegistry, LedgerError> {
    let config = Config::parse(config).unwrap_or_else(|error| panic!("{error}"));
    AgentRegistry::from_config(&config, &[])
}

#[test]
fn default_agent_is_build_and_listing_puts_it_first() {
    let agents = registry("{}").unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        agents.default_agent().map(|agent| agent.name.clone()).ok(),
        Some("build".into())
    );
    let names: Vec<&str> = agents
        .list()
        .iter()
        .map(|agent| agent.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "build",
            "compaction",
            "explore",
            "general",
            "plan",
            "summary",
            "title"
        ]
    );
    assert_eq!(
        agents.visible_names(),
        ["build", "explore", "general", "plan"]
    );
}

#[test]
fn configured_default_agent_must_be_a_visible_primary() {
    let plan = registry(r#"{"default_agent": "plan"}"#).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        plan.default_agent().map(|agent| agent.name.clone()).ok(),
        Some("plan".into())
    );
    for (name, reason) in [
        ("explore", "subagent"),
        ("title", "hidden"),
        ("nobody", "no such agent"),
    ] {
        let error = registry(&format!(r#"{{"default_agent": "{name}"}}"#))
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert!(error.contains(reason), "{name}: {error}");
    }
}

#[test]
fn config_overrides_and_adds_agents() {
    let agents = registry(
        r#"{"permission": {"bash": "deny"},
            "agent": {"build": {"model": "fake/fast", "variant": "high"},
                      "reviewer": {"description": "Reviews code", "mode": "subagent", "permission": {"edit": "deny"}},
                      "general": {"disable": true}}}"#,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let build = agents
        .get("build")
        .unwrap_or_else(|| panic!("build missing"));
    assert_eq!(build.model, Some(ModelRef::new("fake", "fast")));
    assert_eq!(build.variant.as_deref(), Some("high"));
    assert_eq!(
        crate::wire::permission::evaluate("bash", "ls", &[&build.permission]),
        Action::Deny
    );
    let reviewer = agents
        .get("reviewer")
        .unwrap_or_else(|| panic!("reviewer missing"));
    assert_eq!(reviewer.mode, AgentMode::Subagent);
    assert!(!reviewer.native);
    assert_eq!(
        crate::wire::permission::evaluate("edit", "a.rs", &[&reviewer.permission]),
        Action::Deny
    );
    assert!(agents.get("general").is_none());
    assert!(registry(r#"{"agent": {"x": {"model": "no-slash"}}}"#).is_err());
}

#[test]
fn plan_denies_edits_and_explore_denies_everything_but_reading() {
    let agents = registry("{}").unwrap_or_else(|error| panic!("{error}"));
    let plan = agents
        .get("plan")
        .map(|agent| agent.permission.clone())
        .unwrap_or_default();
    assert_eq!(
        crate::wire::permission::evaluate("edit", "src/main.rs", &[&plan]),
        Action::Deny
    );
    let explore = agents
        .get("explore")
        .map(|agent| agent.permission.clone())
        .unwrap_or_default();
    assert_eq!(
        crate::wire::permission::evaluate("edit", "x", &[&explore]),
        Action::Deny
    );
    assert_eq!(
        crate::wire::permission::evaluate("grep", "x", &[&explore]),
        Action::Allow
    );
}

#[test]
fn markdown_agent_front_matter_and_prompt_are_read() {
    let agent = markdown::parse_agent_markdown("---\ndescription: \"Writes docs\"\nmode: subagent\ntemperature: 0.2\nmodel: fake/fast\n---\nYou write documentation.\n")
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(agent.description.as_deref(), Some("Writes docs"));
    assert_eq!(agent.mode.as_deref(), Some("subagent"));
    assert_eq!(agent.temperature, Some(0.2));
    assert_eq!(agent.prompt.as_deref(), Some("You write documentation."));
    assert!(markdown::parse_agent_markdown("---\nmode subagent\n---\n").is_err());
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(
        folder.path().join("docs.md"),
        "---\nmode: subagent\n---\nDocs.",
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let loaded = load_markdown_agents(folder.path());
    let registry = AgentRegistry::from_config(&Config::default(), &loaded)
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        registry
            .get("docs")
            .and_then(|agent| agent.prompt.clone())
            .as_deref(),
        Some("Docs.")
    );
}
