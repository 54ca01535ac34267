//! A local Ollama (here a fake one on 127.0.0.1) is detected at start-up: its models are listed
//! as provider `ollama` and answer through its OpenAI-compatible `/v1`.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::message::ModelRef;

#[tokio::test]
async fn detected_ollama_models_are_listed_and_answer() {
    let fake = FakeProvider::start(vec![
        status(
            200,
            &[],
            serde_json::json!({"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest"}]}),
        ),
        openai_text(&["Hello ", "from ", "llama."]),
    ])
    .await;
    let root = fake.base_url.trim_end_matches("/v1").to_string();
    let test = open_with("{}", |options| options.detect_ollama = Some(root)).await;
    assert!(test
        .ledger
        .providers()
        .models()
        .find(&ModelRef::new("ollama", "llama3.2:latest"))
        .is_some());
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hi").await;
    assert_eq!(text_of(&reply), "Hello from llama.");
    assert_eq!(assistant_of(&reply).provider_id, "ollama");
    let requests = fake.requests();
    assert_eq!(requests[0].path, "/api/tags");
    assert_eq!(requests[1].path, "/v1/chat/completions");
    assert_eq!(requests[1].body["model"], "llama3.2:latest");
}

#[tokio::test]
async fn no_ollama_leaves_the_offline_model_as_default() {
    // Port 9 (discard) on loopback: nothing listens, the probe fails at once.
    let test = open_with("{}", |options| {
        options.detect_ollama = Some("http://127.0.0.1:9".into())
    })
    .await;
    assert_eq!(
        test.ledger.providers().models().first_available(),
        Some(ModelRef::new("dossier", "offline"))
    );
}
