//! Models and providers: the config file, agents, the model catalog, model and variant choice,
//! the bundled price snapshot, costs, provider keys (credentials), the settings view's provider
//! edits, the providers' streaming clients and how stored parts become model messages. It uses
//! `wire` and `store`, never the pipeline or the loop.

pub mod agent;
pub mod config;
pub mod credentials;
pub mod mcp_config;
pub mod model_catalog;
pub mod model_choice;
pub mod model_messages;
pub mod model_snapshot;
pub mod model_variant;
pub mod provider;
pub mod provider_settings;
pub mod reply_cost;
pub mod settings;
