//! The read-only listings the SDK and OpenCode's app ask for on start-up: config, providers
//! and models, paths, the project, health, and the empty lists of features this
//! build does not have (commands, LSP, …). The agents are a declared operation
//! (`declared_routes.rs`).

use crate::provider_listing;
use crate::request_body::QueryParams;
use axum::extract::State;
use axum::Json;
use dossier_core::Ledger;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The settings OpenCode's clients read from `GET /config`. The core's `Config` is not
/// serialisable (it holds API keys), so only these safe fields are shown.
pub async fn config(State(ledger): State<Ledger>) -> Json<Value> {
    let config = ledger.providers().config();
    let mut shown = Map::new();
    let fields = [
        ("model", config.model.clone()),
        ("small_model", config.small_model.clone()),
        ("default_agent", config.default_agent.clone()),
    ];
    for (name, value) in fields {
        if let Some(value) = value {
            shown.insert(name.into(), Value::String(value));
        }
    }
    if let Some(permission) = &config.permission {
        shown.insert("permission".into(), permission.clone());
    }
    Json(Value::Object(shown))
}

pub async fn configured_providers(
    State(ledger): State<Ledger>,
) -> Json<provider_listing::ConfiguredProviders> {
    Json(provider_listing::configured_providers(
        &ledger.providers().models(),
    ))
}

pub async fn providers(State(ledger): State<Ledger>) -> Json<provider_listing::AllProviders> {
    Json(provider_listing::all_providers(
        &ledger.providers().models(),
    ))
}

#[derive(Deserialize)]
pub struct DirectoryQuery {
    directory: Option<String>,
}

pub async fn path(
    State(ledger): State<Ledger>,
    QueryParams(query): QueryParams<DirectoryQuery>,
) -> Json<Value> {
    let locations = ledger.providers().locations();
    let directory = query
        .directory
        .unwrap_or_else(|| ledger.providers().default_directory().display().to_string());
    let home = std::env::var("HOME").unwrap_or_default();
    let config = locations
        .config_path
        .parent()
        .map(|folder| folder.display().to_string())
        .unwrap_or_default();
    Json(json!({
        "home": home,
        "state": locations.data_dir.display().to_string(),
        "config": config,
        "worktree": directory,
        "directory": directory,
    }))
}

/// Every session belongs to OpenCode's "global" project (no VCS worktree).
fn global_project() -> Value {
    json!({"id": "global", "worktree": "/", "time": {"created": 0, "updated": 0}, "sandboxes": []})
}

pub async fn current_project() -> Json<Value> {
    Json(global_project())
}

pub async fn projects() -> Json<Value> {
    Json(json!([global_project()]))
}

pub async fn health() -> Json<Value> {
    Json(json!({"healthy": true, "version": env!("CARGO_PKG_VERSION")}))
}

pub async fn empty_list() -> Json<Value> {
    Json(json!([]))
}
