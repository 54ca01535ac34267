//! The settings view's providers end to end: a provider saved through the settings is written
//! to the config file without its key, the key goes to the (in-memory) keychain, the model
//! catalog changes at once, and the next reply reaches the provider with that key — which shows
//! up nowhere else.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::models::credentials::{CredentialStore, InMemoryCredentials, KeySource};
use dossier_core::models::provider_settings::ProviderInput;
use dossier_core::wire::message::ModelRef;
use dossier_core::{ErrorKind, LedgerOptions};
use std::sync::Arc;

const KEYCHAIN_KEY: &str = "sk-keychain-secret-31415926";

fn with_file(
    config: &'static str,
    store: Arc<InMemoryCredentials>,
) -> impl FnOnce(&mut LedgerOptions) {
    move |options| {
        std::fs::write(&options.locations.config_path, config)
            .unwrap_or_else(|error| panic!("{error}"));
        options.config = None;
        options.credentials = Some(store);
    }
}

fn local(base_url: &str, api_key: Option<&str>) -> ProviderInput {
    serde_json::from_value(serde_json::json!({
        "id": "local",
        "npm": "@ai-sdk/openai-compatible",
        "baseURL": base_url,
        "models": ["fake-model"],
        "apiKey": api_key,
    }))
    .unwrap_or_else(|error| panic!("{error}"))
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[tokio::test]
async fn provider_saved_in_settings_answers_with_its_keychain_key() {
    let fake = FakeProvider::start(vec![openai_text(&["Hello ", "from ", "settings."])]).await;
    let store = Arc::new(InMemoryCredentials::default());
    let test = open_with("{}", with_file("{\"theme\": \"dark\"}", store.clone())).await;
    let mut events = subscribe(&test.ledger).await;
    assert!(test
        .ledger
        .providers()
        .models()
        .find(&ModelRef::new("local", "fake-model"))
        .is_none());

    let settings = test
        .ledger
        .providers()
        .save_provider(local(&fake.base_url, Some(KEYCHAIN_KEY)))
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let listed = &settings.providers[0];
    assert_eq!(listed.id, "local");
    assert_eq!(listed.models, vec!["fake-model"]);
    assert!(listed.editable);
    let key = listed
        .key
        .as_ref()
        .unwrap_or_else(|| panic!("no key status"));
    assert_eq!(key.source, KeySource::Keychain);
    assert_eq!(key.hint, "sk-…5926");
    assert!(settings.keychain.available);
    assert_eq!(
        store.read("local").ok().flatten().as_deref(),
        Some(KEYCHAIN_KEY)
    );

    let config_path = test.folder.path().join("config.json");
    let file = read(&config_path);
    assert!(file.contains("\"theme\": \"dark\""), "{file}");
    assert!(file.contains(&fake.base_url), "{file}");
    assert!(
        !file.contains(KEYCHAIN_KEY),
        "the key was written to the config file"
    );

    // The catalog changed without a restart, and the provider is the first available model.
    assert!(test
        .ledger
        .providers()
        .models()
        .find(&ModelRef::new("local", "fake-model"))
        .is_some());
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hi").await;
    assert_eq!(text_of(&reply), "Hello from settings.");
    assert_eq!(assistant_of(&reply).provider_id, "local");
    let requests = fake.requests();
    assert!(
        requests[0]
            .headers
            .contains(&format!("Bearer {KEYCHAIN_KEY}")),
        "{}",
        requests[0].headers
    );

    let seen = drain(&test.ledger, &mut events).await;
    let all_events =
        serde_json::to_string(&seen.iter().map(|event| &event.payload).collect::<Vec<_>>())
            .unwrap_or_default();
    assert!(
        !all_events.contains(KEYCHAIN_KEY),
        "the key leaked into events"
    );
    let data = test.folder.path().join("data");
    for name in ["dossier.db", "dossier.db-wal"] {
        let bytes = std::fs::read(data.join(name)).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(KEYCHAIN_KEY),
            "the key leaked into {name}"
        );
    }
    let listing = serde_json::to_string(&settings).unwrap_or_default();
    assert!(
        !listing.contains(KEYCHAIN_KEY),
        "the key was sent back to the settings view"
    );
}

#[tokio::test]
async fn a_key_in_the_config_file_wins_over_the_keychain() {
    let fake = FakeProvider::start(vec![openai_text(&["From ", "config."])]).await;
    let store = Arc::new(InMemoryCredentials::default());
    store
        .store("fake", KEYCHAIN_KEY)
        .unwrap_or_else(|error| panic!("{error}"));
    let config: &'static str = Box::leak(fake.openai_config().into_boxed_str());
    let test = open_with("{}", with_file(config, store)).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hi").await;
    assert_eq!(text_of(&reply), "From config.");
    let headers = &fake.requests()[0].headers;
    assert!(headers.contains(&format!("Bearer {API_KEY}")), "{headers}");
    let settings = test
        .ledger
        .providers()
        .provider_settings()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        settings.providers[0].key.as_ref().map(|key| key.source),
        Some(KeySource::Config)
    );
}

#[tokio::test]
async fn without_a_keychain_a_key_is_refused_and_nothing_is_written() {
    let store = Arc::new(InMemoryCredentials::unavailable(
        "no Secret Service on the session bus",
    ));
    let test = open_with("{}", with_file("{\"theme\": \"dark\"}", store)).await;
    let settings = test
        .ledger
        .providers()
        .provider_settings()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(!settings.keychain.available);
    assert_eq!(
        settings.keychain.reason.as_deref(),
        Some("no Secret Service on the session bus")
    );

    let error = test
        .ledger
        .providers()
        .save_provider(local("http://127.0.0.1:9/v1", Some(KEYCHAIN_KEY)))
        .await
        .err()
        .unwrap_or_else(|| panic!("saved without a keychain"));
    assert_eq!(error.kind(), ErrorKind::Unavailable);
    assert!(
        error.to_string().starts_with("No keychain is available"),
        "{error}"
    );
    assert!(!error.to_string().contains(KEYCHAIN_KEY));
    assert_eq!(
        read(&test.folder.path().join("config.json")),
        "{\"theme\": \"dark\"}"
    );

    // Without a key the provider saves (a local server often needs none).
    let saved = test
        .ledger
        .providers()
        .save_provider(local("http://127.0.0.1:9/v1", None))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(saved.providers.len(), 1);
    assert!(test
        .ledger
        .providers()
        .models()
        .find(&ModelRef::new("local", "fake-model"))
        .is_some());
}

#[tokio::test]
async fn removing_a_provider_drops_it_from_file_catalog_and_keychain() {
    let store = Arc::new(InMemoryCredentials::default());
    let test = open_with("{}", with_file("{}", store.clone())).await;
    test.ledger
        .providers()
        .save_provider(local("http://127.0.0.1:9/v1", Some(KEYCHAIN_KEY)))
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let without_key = test
        .ledger
        .providers()
        .remove_provider_key("local")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(without_key.providers[0].key, None);
    assert_eq!(store.read("local").ok().flatten(), None);

    store
        .store("local", KEYCHAIN_KEY)
        .unwrap_or_else(|error| panic!("{error}"));
    let settings = test
        .ledger
        .providers()
        .remove_provider("local")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(settings.providers.is_empty());
    assert_eq!(store.read("local").ok().flatten(), None);
    assert!(test
        .ledger
        .providers()
        .models()
        .find(&ModelRef::new("local", "fake-model"))
        .is_none());
    assert!(!read(&test.folder.path().join("config.json")).contains("local"));

    let missing = test.ledger.providers().remove_provider("local").await.err();
    assert_eq!(missing.map(|error| error.kind()), Some(ErrorKind::NotFound));
}
