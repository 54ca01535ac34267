//! A variant chosen with the prompt reaches the provider as request options, the way OpenCode
//! maps it: OpenAI's `reasoning_effort`, Anthropic's `thinking` with a token budget.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::draft::Draft;
use serde_json::json;

async fn ask_with_variant(test: &TestLedger, session_id: &str, variant: Option<&str>) {
    let mut input = reply_input(vec![Draft::text("think hard")]);
    input.variant = variant.map(str::to_string);
    test.ledger
        .sessions()
        .prompt(session_id, input)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
}

#[tokio::test]
async fn an_openai_effort_variant_is_sent_as_reasoning_effort() {
    let fake = FakeProvider::start(vec![openai_text(&["Done."]), openai_text(&["Done."])]).await;
    let config = format!(
        r#"{{"model": "openai/o3", "provider": {{"openai": {{"options": {{"baseURL": "{}", "apiKey": "{API_KEY}"}}, "models": {{"o3": {{}}}}}}}}}}"#,
        fake.base_url
    );
    let test = open(&config).await;
    let session = test.session().await;
    ask_with_variant(&test, &session.id, Some("high")).await;
    ask_with_variant(&test, &session.id, None).await;
    let requests = fake.requests();
    assert_eq!(requests[0].body["reasoning_effort"], "high");
    assert!(
        requests[1].body.get("reasoning_effort").is_none(),
        "{}",
        requests[1].body
    );
}

#[tokio::test]
async fn an_anthropic_thinking_variant_is_sent_with_its_budget() {
    let fake = FakeProvider::start(vec![anthropic_text(&["Done."])]).await;
    let config = format!(
        r#"{{"model": "anthropic/claude-sonnet-4-5", "agent": {{"build": {{"temperature": 0.2}}}}, "provider": {{"anthropic": {{"options": {{"baseURL": "{}", "apiKey": "{API_KEY}"}}, "models": {{"claude-sonnet-4-5": {{}}}}}}}}}}"#,
        fake.base_url
    );
    let test = open(&config).await;
    let session = test.session().await;
    ask_with_variant(&test, &session.id, Some("high")).await;
    let body = &fake.requests()[0].body;
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 16_000})
    );
    // Sonnet 4.5 may write 64k: 32k for the answer plus the 16k budget.
    assert_eq!(body["max_tokens"], 48_000);
    assert!(body.get("temperature").is_none(), "{body}");
}
