use super::*;
use crate::models::config::ProviderOptions;

fn provider(
    npm: Option<&str>,
    base_url: Option<&str>,
    api_key: Option<&str>,
    env: &[&str],
) -> ProviderConfig {
    ProviderConfig {
        npm: npm.map(str::to_string),
        env: env.iter().map(|name| name.to_string()).collect(),
        options: ProviderOptions {
            base_url: base_url.map(str::to_string),
            api_key: api_key.map(str::to_string),
        },
        ..ProviderConfig::default()
    }
}

#[test]
fn api_key_lookup_table() {
    let environment = |name: &str| match name {
        "OPENAI_API_KEY" => Some("from-openai-env".to_string()),
        "MY_KEY" => Some("from-custom-env".to_string()),
        "OPEN_ROUTER_API_KEY" => Some("from-dashed-id".to_string()),
        "EMPTY_KEY" => Some(String::new()),
        _ => None,
    };
    let table: [(&str, ProviderConfig, Option<&str>); 7] = [
        (
            "openai",
            provider(None, None, Some("sk-config"), &[]),
            Some("sk-config"),
        ),
        (
            "openai",
            provider(None, None, None, &[]),
            Some("from-openai-env"),
        ),
        (
            "custom",
            provider(None, None, None, &["MY_KEY"]),
            Some("from-custom-env"),
        ),
        ("custom", provider(None, None, None, &["EMPTY_KEY"]), None),
        (
            "custom",
            provider(None, None, Some("{env:MY_KEY}"), &[]),
            Some("from-custom-env"),
        ),
        (
            "open-router",
            provider(None, None, None, &[]),
            Some("from-dashed-id"),
        ),
        ("local", provider(None, None, None, &[]), None),
    ];
    for (id, config, expected) in table {
        assert_eq!(
            api_key_of(id, &config, environment).as_deref(),
            expected,
            "{id} {config:?}"
        );
    }
}

#[test]
fn base_url_and_protocol_table() {
    let table: [(&str, ProviderConfig, Option<&str>, Protocol); 6] = [
        (
            "fake",
            provider(
                Some("@ai-sdk/openai-compatible"),
                Some("http://127.0.0.1:9/v1/"),
                None,
                &[],
            ),
            Some("http://127.0.0.1:9/v1"),
            Protocol::OpenAiCompatible,
        ),
        (
            "openai",
            provider(None, None, None, &[]),
            Some("https://api.openai.com/v1"),
            Protocol::OpenAiCompatible,
        ),
        (
            "anthropic",
            provider(None, None, None, &[]),
            Some("https://api.anthropic.com/v1"),
            Protocol::Anthropic,
        ),
        (
            "mine",
            provider(Some("@ai-sdk/anthropic"), None, None, &[]),
            Some("https://api.anthropic.com/v1"),
            Protocol::Anthropic,
        ),
        (
            "ollama",
            provider(Some("@ai-sdk/openai-compatible"), None, None, &[]),
            Some("http://127.0.0.1:11434/v1"),
            Protocol::OpenAiCompatible,
        ),
        (
            "fake",
            provider(Some("@ai-sdk/openai-compatible"), None, None, &[]),
            None,
            Protocol::OpenAiCompatible,
        ),
    ];
    for (id, config, url, protocol) in table {
        assert_eq!(base_url_of(id, &config).as_deref(), url, "{id}");
        assert_eq!(protocol_of(id, &config), protocol, "{id}");
    }
}

#[test]
fn http_failures_map_to_the_typed_union() {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        "retry-after",
        reqwest::header::HeaderValue::from_static("3"),
    );
    headers.insert(
        "authorization",
        reqwest::header::HeaderValue::from_static("Bearer secret"),
    );
    let auth = failure_from_response(
        401,
        &headers,
        r#"{"error":{"message":"Invalid API key"}}"#.into(),
    );
    assert_eq!(
        auth,
        ProviderFailure::Auth {
            message: "Invalid API key".into()
        }
    );
    assert!(
        matches!(failure_from_response(403, &headers, String::new()), ProviderFailure::Auth { message } if message == "Forbidden")
    );
    let overflow = failure_from_response(400, &headers, r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#.into());
    assert!(
        matches!(overflow, ProviderFailure::ContextOverflow { .. }),
        "{overflow:?}"
    );
    match failure_from_response(429, &headers, r#"{"error":"slow down"}"#.into()) {
        ProviderFailure::Api {
            message,
            status,
            retryable,
            retry_headers,
            ..
        } => {
            assert_eq!(
                (message.as_str(), status, retryable),
                ("slow down", Some(429), true)
            );
            assert_eq!(
                retry_headers.keys().collect::<Vec<_>>(),
                ["retry-after"],
                "only retry headers are kept"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        failure_from_response(
            529,
            &headers,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#.into()
        ),
        ProviderFailure::Api {
            retryable: true,
            ..
        }
    ));
    assert!(matches!(
        failure_from_response(400, &headers, "{}".into()),
        ProviderFailure::Api {
            retryable: false,
            ..
        }
    ));
    let error = ProviderFailure::Auth {
        message: "bad".into(),
    }
    .to_assistant_error("fake");
    assert_eq!(
        serde_json::to_value(error).unwrap_or_default(),
        serde_json::json!({"name": "ProviderAuthError", "data": {"providerID": "fake", "message": "bad"}})
    );
}

#[test]
fn huge_error_bodies_are_cut() {
    let body = "<html>".to_string() + &"x".repeat(100_000);
    match failure_from_response(502, &reqwest::header::HeaderMap::new(), body) {
        ProviderFailure::Api {
            response_body: Some(kept),
            message,
            ..
        } => {
            assert_eq!(kept.chars().count(), MAX_KEPT_BODY);
            assert_eq!(message, "Bad Gateway");
        }
        other => panic!("{other:?}"),
    }
}
