use super::config_file::apply_to_entry;
use super::*;
use serde_json::json;

fn input(id: &str, npm: &str, base_url: Option<&str>, models: &[&str]) -> ProviderInput {
    ProviderInput {
        id: id.into(),
        name: None,
        npm: npm.into(),
        base_url: base_url.map(str::to_string),
        models: models.iter().map(|model| model.to_string()).collect(),
        api_key: None,
    }
}

const COMPATIBLE: &str = "@ai-sdk/openai-compatible";

#[test]
fn valid_inputs_are_trimmed_and_deduplicated() -> Result<(), LedgerError> {
    let mut given = input(
        " lmstudio ",
        COMPATIBLE,
        Some(" http://127.0.0.1:1234/v1/ "),
        &["qwen3", " qwen3 ", "", "llama-3.1"],
    );
    given.name = Some("  ".into());
    given.api_key = Some("  sk-local-key  ".into());
    let checked = check_input(&given)?;
    assert_eq!(checked.id, "lmstudio");
    assert_eq!(checked.name, None);
    assert_eq!(
        checked.base_url.as_deref(),
        Some("http://127.0.0.1:1234/v1")
    );
    assert_eq!(checked.models, vec!["qwen3", "llama-3.1"]);
    assert_eq!(checked.api_key.as_deref(), Some("sk-local-key"));
    // A well-known provider needs no base URL.
    let openai = check_input(&input("openai", "@ai-sdk/openai", None, &["gpt-4o-mini"]))?;
    assert_eq!(openai.base_url, None);
    Ok(())
}

#[test]
fn invalid_inputs_say_what_to_fix() {
    let table: [(ProviderInput, &str); 8] = [
        (
            input("", COMPATIBLE, Some("http://h/v1"), &["m"]),
            "needs an id",
        ),
        (
            input("my provider", COMPATIBLE, Some("http://h/v1"), &["m"]),
            "may only use",
        ),
        (
            input("dossier", COMPATIBLE, Some("http://h/v1"), &["m"]),
            "offline model",
        ),
        (
            input("x", "@ai-sdk/google", Some("http://h/v1"), &["m"]),
            "unknown provider package",
        ),
        (
            input("x", COMPATIBLE, Some("ftp://h/v1"), &["m"]),
            "not an http",
        ),
        (input("x", COMPATIBLE, None, &["m"]), "needs a base URL"),
        (
            input("x", COMPATIBLE, Some("http://h/v1"), &[" ", ""]),
            "at least one model",
        ),
        (
            input("x", COMPATIBLE, Some("http://h/v1"), &["two words"]),
            "contains a space",
        ),
    ];
    for (given, expected) in table {
        let error = check_input(&given).err();
        assert_eq!(
            error.as_ref().map(LedgerError::kind),
            Some(crate::ErrorKind::Invalid)
        );
        let message = error.map(|error| error.to_string()).unwrap_or_default();
        assert!(message.contains(expected), "{given:?}: {message}");
    }
}

#[test]
fn debug_of_an_input_hides_the_key() {
    let mut given = input("openai", "@ai-sdk/openai", None, &["gpt-4o"]);
    given.api_key = Some("sk-very-secret-value".into());
    let shown = format!("{given:?}");
    assert!(!shown.contains("sk-very-secret"), "{shown}");
    assert!(shown.contains("<redacted>"), "{shown}");
}

#[test]
fn applying_keeps_unknown_fields_and_what_the_file_said_about_kept_models(
) -> Result<(), LedgerError> {
    let mut entry = match json!({
        "npm": "@ai-sdk/openai-compatible",
        "name": "Old name",
        "options": {"baseURL": "http://old/v1", "apiKey": "sk-in-file", "headers": {"X-Team": "a"}},
        "models": {"kept": {"name": "Kept model", "cost": {"input": 1, "output": 2}}, "dropped": {}},
        "whitelist": ["kept"]
    }) {
        serde_json::Value::Object(entry) => entry,
        _ => unreachable!(),
    };
    let mut given = input("local", COMPATIBLE, Some("http://new/v1"), &["new", "kept"]);
    given.api_key = Some("sk-now-in-keychain".into());
    apply_to_entry(&mut entry, &check_input(&given)?);
    assert_eq!(
        serde_json::Value::Object(entry),
        json!({
            "npm": "@ai-sdk/openai-compatible",
            "whitelist": ["kept"],
            "options": {"headers": {"X-Team": "a"}, "baseURL": "http://new/v1"},
            "models": {"new": {}, "kept": {"name": "Kept model", "cost": {"input": 1, "output": 2}}}
        })
    );
    Ok(())
}

#[test]
fn applying_without_a_new_key_leaves_a_key_in_the_file_alone() -> Result<(), LedgerError> {
    let mut entry = match json!({"options": {"apiKey": "{env:MY_KEY}"}}) {
        serde_json::Value::Object(entry) => entry,
        _ => unreachable!(),
    };
    apply_to_entry(
        &mut entry,
        &check_input(&input("openai", "@ai-sdk/openai", None, &["gpt-4o"]))?,
    );
    assert_eq!(entry["options"], json!({"apiKey": "{env:MY_KEY}"}));
    Ok(())
}

#[test]
fn a_commented_file_is_backed_up_and_rewritten_with_its_other_keys() -> Result<(), LedgerError> {
    let folder = tempfile::tempdir().map_err(|error| LedgerError::io("tempdir", error))?;
    let path = folder.path().join("dossier.json");
    let original =
        "{\n  // my theme\n  \"theme\": \"dark\",\n  \"model\": \"dossier/offline\",\n}\n";
    std::fs::write(&path, original).map_err(|error| LedgerError::io(&path, error))?;
    let mut file = ConfigFile::read(&path)?;
    file.apply(&check_input(&input(
        "openai",
        "@ai-sdk/openai",
        None,
        &["gpt-4o"],
    ))?)?;
    file.write()?;
    let backup = std::fs::read_to_string(folder.path().join("dossier.json.bak"))
        .map_err(|error| LedgerError::io("backup", error))?;
    assert_eq!(backup, original);
    let written: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&path).map_err(|error| LedgerError::io(&path, error))?,
    )
    .map_err(|error| LedgerError::InvalidRequest(error.to_string()))?;
    assert_eq!(
        written,
        json!({
            "theme": "dark",
            "model": "dossier/offline",
            "provider": {"openai": {"npm": "@ai-sdk/openai", "models": {"gpt-4o": {}}}}
        })
    );
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(folder.path())
        .map_err(|error| LedgerError::io("dir", error))?
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    Ok(())
}

#[test]
fn a_file_that_is_not_an_object_is_refused_untouched() -> Result<(), LedgerError> {
    let folder = tempfile::tempdir().map_err(|error| LedgerError::io("tempdir", error))?;
    let path = folder.path().join("dossier.json");
    std::fs::write(&path, "[1, 2]").map_err(|error| LedgerError::io(&path, error))?;
    let error = ConfigFile::read(&path).err().map(|error| error.to_string());
    assert!(error.is_some_and(|message| message.contains("one JSON object")));
    let kept = std::fs::read_to_string(&path).map_err(|error| LedgerError::io(&path, error))?;
    assert_eq!(kept, "[1, 2]");
    Ok(())
}
