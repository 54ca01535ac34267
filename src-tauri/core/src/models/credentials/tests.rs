use super::*;
use crate::models::config::ProviderOptions;

fn provider(api_key: Option<&str>, env: &[&str]) -> ProviderConfig {
    ProviderConfig {
        env: env.iter().map(|name| name.to_string()).collect(),
        options: ProviderOptions {
            base_url: None,
            api_key: api_key.map(str::to_string),
        },
        ..ProviderConfig::default()
    }
}

fn environment(name: &str) -> Option<String> {
    match name {
        "OPENAI_API_KEY" => Some("sk-from-environment".into()),
        "MY_KEY" => Some("from-my-key".into()),
        _ => None,
    }
}

fn keychain_with(key: &str) -> impl FnOnce() -> Result<Option<String>, CredentialError> + '_ {
    move || Ok(Some(key.to_string()))
}

/// Provider id, its config, and the key and source expected.
type LookupCase = (
    &'static str,
    ProviderConfig,
    Option<(&'static str, KeySource)>,
);

#[test]
fn lookup_order_is_config_then_environment_then_keychain() {
    let table: [LookupCase; 6] = [
        (
            "openai",
            provider(Some("sk-in-config"), &[]),
            Some(("sk-in-config", KeySource::Config)),
        ),
        (
            "openai",
            provider(None, &[]),
            Some(("sk-from-environment", KeySource::Environment)),
        ),
        (
            "custom",
            provider(Some("{env:MY_KEY}"), &[]),
            Some(("from-my-key", KeySource::Environment)),
        ),
        (
            "custom",
            provider(None, &["MY_KEY"]),
            Some(("from-my-key", KeySource::Environment)),
        ),
        (
            "custom",
            provider(None, &[]),
            Some(("sk-in-keychain", KeySource::Keychain)),
        ),
        // `{env:…}` names a variable that is not set: the keychain is the next place to look.
        (
            "custom",
            provider(Some("{env:UNSET}"), &[]),
            Some(("sk-in-keychain", KeySource::Keychain)),
        ),
    ];
    for (id, config, expected) in table {
        let found = find_key(id, &config, environment, keychain_with("sk-in-keychain"));
        assert_eq!(
            found.map(|found| (found.key, found.source)),
            expected.map(|(key, source)| (key.to_string(), source)),
            "{id} {config:?}"
        );
    }
}

#[test]
fn keychain_is_not_asked_when_config_or_environment_has_a_key() {
    let asked = std::cell::Cell::new(false);
    let found = find_key("openai", &provider(None, &[]), environment, || {
        asked.set(true);
        Ok(Some("sk-in-keychain".into()))
    });
    assert_eq!(
        found.map(|found| found.source),
        Some(KeySource::Environment)
    );
    assert!(!asked.get());
}

#[test]
fn unavailable_or_empty_keychain_means_no_key() {
    let unavailable = find_key("custom", &provider(None, &[]), environment, || {
        Err(CredentialError::Unavailable {
            reason: "no Secret Service".into(),
        })
    });
    assert!(unavailable.is_none());
    let empty = find_key(
        "custom",
        &provider(None, &[]),
        environment,
        keychain_with(""),
    );
    assert!(empty.is_none());
}

#[test]
fn key_hints_show_a_known_prefix_and_the_last_four_only() {
    let table = [
        ("sk-proj-abcdefghijklmnop1234", "sk-…1234"),
        ("sk-ant-api03-aaaaaaaaaaaaaaaaaaaaWXYZ", "sk-…WXYZ"),
        ("gsk_0123456789abcdefghij", "gsk_…ghij"),
        ("0123456789abcdefwxyz", "…wxyz"),
        // Too short to show any of it and still keep most of it hidden.
        ("short-key-1234", "…"),
        ("", "…"),
    ];
    for (key, hint) in table {
        assert_eq!(key_hint(key), hint, "{key}");
    }
}

#[test]
fn a_hint_never_contains_the_hidden_middle_of_the_key() {
    let key = "sk-SECRETSECRETSECRET9876";
    let hint = key_hint(key);
    assert!(!hint.contains("SECRET"), "{hint}");
}

#[test]
fn keys_with_spaces_or_line_breaks_are_refused() {
    assert_eq!(
        check_key("  sk-abc  ").map_err(|error| error.to_string()),
        Ok("sk-abc")
    );
    for bad in ["", "   ", "sk-abc def", "sk-abc\nsk-def"] {
        let error = check_key(bad).err().map(|error| error.kind());
        assert_eq!(error, Some(crate::ErrorKind::Invalid), "{bad:?}");
    }
}

#[test]
fn in_memory_store_keeps_reads_and_removes_keys() -> Result<(), CredentialError> {
    let store = InMemoryCredentials::default();
    assert_eq!(store.read("openai")?, None);
    store.store("openai", "sk-one")?;
    store.store("openai", "sk-two")?;
    assert_eq!(store.read("openai")?.as_deref(), Some("sk-two"));
    assert!(store.remove("openai")?);
    assert!(!store.remove("openai")?);
    assert_eq!(store.read("openai")?, None);
    Ok(())
}

#[test]
fn an_unavailable_store_is_a_typed_unavailable_error() {
    let store = InMemoryCredentials::unavailable("no Secret Service on the session bus");
    let error = store.store("openai", "sk-secret-key-value").err();
    let ledger_error = error.map(LedgerError::from);
    assert_eq!(
        ledger_error.as_ref().map(LedgerError::kind),
        Some(crate::ErrorKind::Unavailable)
    );
    let message = ledger_error
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert!(message.starts_with("No keychain is available"), "{message}");
    assert!(message.contains("no Secret Service"), "{message}");
    assert!(!message.contains("sk-secret"), "{message}");
}

/// The real keychain on this machine: whatever it is, the answer is a key, no key, or a typed
/// error, never a panic. (On CI there is usually no Secret Service, so this checks the
/// "no keychain" path; on a desktop it reads an entry that does not exist.)
#[test]
fn os_keychain_answers_without_panicking() {
    match OsKeychain::PROVIDER_KEYS.read("dossier-test-provider-that-does-not-exist") {
        Ok(key) => assert_eq!(key, None),
        Err(CredentialError::Unavailable { reason }) => assert!(!reason.is_empty()),
        Err(CredentialError::Failed { reason }) => panic!("unexpected failure: {reason}"),
    }
}
