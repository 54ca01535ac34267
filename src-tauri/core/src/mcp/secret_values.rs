//! Secret header and environment values of MCP servers. The config file never holds one: it
//! holds a reference, `{keychain:<id>}` for a value kept in the credential store (the OS keychain,
//! like provider keys) or `{env:NAME}` for one in an environment variable (the way to go on a
//! computer without a keychain). A server's references are resolved each time it connects, so the
//! resolved values live only in the connection's own memory: never in the database, a log line,
//! an event or an export.

use crate::mcp::mcp_error::McpError;
use crate::models::credentials::{CredentialError, CredentialStore};
use crate::models::mcp_config::{McpServerConfig, McpTransport};
use indexmap::IndexMap;
use std::sync::Arc;

/// Which map of an entry a value belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Environment,
    Headers,
}

impl Section {
    fn key(self) -> &'static str {
        match self {
            Self::Environment => "environment",
            Self::Headers => "headers",
        }
    }
}

/// The credential store's id of one value. The store's ids are shared with provider keys, so
/// the `mcp:` start keeps them apart from any provider id (which cannot hold a `:`).
pub fn secret_id(server: &str, section: Section, name: &str) -> String {
    format!("mcp:{server}:{}:{name}", section.key())
}

/// What the config file holds in place of a value kept in the credential store.
pub fn keychain_reference(id: &str) -> String {
    format!("{{keychain:{id}}}")
}

/// The id a `{keychain:<id>}` value refers to.
pub fn keychain_id(value: &str) -> Option<&str> {
    value.strip_prefix("{keychain:")?.strip_suffix('}')
}

/// The variable a `{env:NAME}` value refers to.
pub fn environment_variable(value: &str) -> Option<&str> {
    value.strip_prefix("{env:")?.strip_suffix('}')
}

/// Whether a value is already a reference (kept as it is when a form sends it back).
pub fn is_reference(value: &str) -> bool {
    keychain_id(value).is_some() || environment_variable(value).is_some()
}

/// `config` with every reference replaced by its value; a missing value is an error that says
/// which one, so the server is marked failed with a reason a person can act on.
pub async fn resolve(
    config: &McpServerConfig,
    secrets: Arc<dyn CredentialStore>,
) -> Result<McpServerConfig, McpError> {
    let mut resolved = config.clone();
    match &mut resolved.transport {
        McpTransport::Local { environment, .. } => resolve_map(environment, secrets).await?,
        McpTransport::Remote { headers, .. } => resolve_map(headers, secrets).await?,
    }
    Ok(resolved)
}

async fn resolve_map(
    values: &mut IndexMap<String, String>,
    secrets: Arc<dyn CredentialStore>,
) -> Result<(), McpError> {
    for (name, value) in values.iter_mut() {
        if let Some(variable) = environment_variable(value) {
            *value = std::env::var(variable).map_err(|_| McpError::MissingVariable {
                name: name.clone(),
                variable: variable.to_string(),
            })?;
        } else if let Some(id) = keychain_id(value) {
            let id = id.to_string();
            let store = secrets.clone();
            // A keychain read may wait on D-Bus or an unlock prompt: not on the async threads.
            let read = tokio::task::spawn_blocking(move || store.read(&id))
                .await
                .unwrap_or_else(|error| {
                    Err(CredentialError::Failed {
                        reason: format!("the keychain call did not finish: {error}"),
                    })
                })?;
            *value = read.ok_or_else(|| McpError::MissingSecret { name: name.clone() })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::credentials::InMemoryCredentials;
    use serde_json::json;

    #[tokio::test]
    async fn references_resolve_from_the_keychain_and_the_environment() {
        let store = Arc::new(InMemoryCredentials::default());
        let id = secret_id("docs", Section::Environment, "TOKEN");
        assert_eq!(id, "mcp:docs:environment:TOKEN");
        store
            .store(&id, "s3cret")
            .unwrap_or_else(|error| panic!("{error}"));
        let config = McpServerConfig::parse(&json!({
            "type": "local",
            "command": ["server"],
            "environment": {
                "TOKEN": keychain_reference(&id),
                "PATH_AGAIN": "{env:PATH}",
                "PLAIN": "as written"
            }
        }))
        .unwrap_or_else(|error| panic!("{error}"));
        let resolved = resolve(&config, store.clone())
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let McpTransport::Local { environment, .. } = resolved.transport else {
            panic!("local expected")
        };
        assert_eq!(environment["TOKEN"], "s3cret");
        assert_eq!(
            // PATH: set on every system (Windows has no HOME).
            Some(environment["PATH_AGAIN"].clone()),
            std::env::var("PATH").ok()
        );
        assert_eq!(environment["PLAIN"], "as written");

        let missing = McpServerConfig::parse(&json!({
            "type": "remote",
            "url": "http://127.0.0.1:1/mcp",
            "headers": {"Authorization": "{keychain:mcp:docs:headers:Authorization}"}
        }))
        .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            resolve(&missing, store).await.err(),
            Some(McpError::MissingSecret {
                name: "Authorization".into()
            })
        );
    }

    #[test]
    fn references_are_recognised() {
        assert_eq!(
            keychain_id("{keychain:mcp:a:headers:B}"),
            Some("mcp:a:headers:B")
        );
        assert_eq!(environment_variable("{env:TOKEN}"), Some("TOKEN"));
        assert!(is_reference("{env:X}"));
        assert!(!is_reference("Bearer abc"));
    }
}
