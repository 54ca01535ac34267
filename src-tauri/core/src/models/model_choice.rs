//! Which model (and variant) a prompt runs under. Pure decisions, table-tested.
//!
//! Model: `input.model ?? agent.model ?? current`, where current is the session's last model,
//! else the newest user message's model, else the configured default, else the first
//! available. Variant: `input.variant`, else the agent's variant *only if* the agent has its
//! own model, the chosen model is that model, and that model offers the variant.

use crate::models::agent::Agent;
use crate::models::model_catalog::ModelCatalog;
use crate::wire::message::ModelRef;
use crate::wire::session::SessionModel;

/// The fallback chain behind "the session's current model".
pub fn current_model(
    session_model: Option<&SessionModel>,
    newest_user_model: Option<&ModelRef>,
    configured_default: Option<&ModelRef>,
    first_available: Option<&ModelRef>,
) -> Option<ModelRef> {
    session_model
        .map(|model| ModelRef::new(&model.provider_id, &model.id))
        .or_else(|| newest_user_model.cloned())
        .or_else(|| configured_default.cloned())
        .or_else(|| first_available.cloned())
}

pub fn choose_model(
    requested: Option<&ModelRef>,
    agent: &Agent,
    current: Option<ModelRef>,
) -> Option<ModelRef> {
    requested
        .cloned()
        .or_else(|| agent.model.clone())
        .or(current)
}

pub fn choose_variant(
    requested: Option<&str>,
    agent: &Agent,
    chosen: &ModelRef,
    catalog: &ModelCatalog,
) -> Option<String> {
    if let Some(variant) = requested {
        return Some(variant.to_string());
    }
    let variant = agent.variant.as_ref()?;
    let agent_model = agent.model.as_ref()?;
    if agent_model != chosen {
        return None;
    }
    catalog
        .find(chosen)
        .filter(|model| model.variants.iter().any(|offered| offered == variant))
        .map(|_| variant.clone())
}

/// A stored `"default"` variant means "no variant" (OpenCode writes it that way).
pub fn meaningful_variant(variant: Option<&str>) -> Option<String> {
    variant
        .filter(|name| *name != "default")
        .map(str::to_string)
}

#[cfg(test)]
mod tests;
