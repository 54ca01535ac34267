//! What a reply runs with: the store, the runtime (settings, agents, hooks, MCP, the loop) and the
//! permission requests its tool calls wait on. The session runner makes one per run from what
//! the pipeline hands it; cheap to clone.

use crate::models::agent::AgentRegistry;
use crate::models::config::Config;
use crate::models::model_catalog::ModelCatalog;
use crate::models::provider::{ModelProvider, ProviderFailure};
use crate::pipeline::runtime::Runtime;
use crate::pipeline::Pipeline;
use crate::reply::permission_request::PermissionRequests;
use crate::store::Store;
use crate::wire::draft::PromptInput;
use crate::wire::error::LedgerError;
use crate::wire::id::IdKind;
use crate::wire::message::{MessageWithParts, ModelRef};
use crate::wire::session::{CreateSession, Session, SessionPatch};
use std::sync::Arc;

#[derive(Clone)]
pub struct ReplyContext {
    pub(crate) store: Store,
    pub(crate) runtime: Arc<Runtime>,
    pub(crate) permission_requests: Arc<PermissionRequests>,
}

impl ReplyContext {
    pub fn new(
        store: Store,
        runtime: Arc<Runtime>,
        permission_requests: Arc<PermissionRequests>,
    ) -> Self {
        Self {
            store,
            runtime,
            permission_requests,
        }
    }

    pub(crate) fn now(&self) -> i64 {
        self.store.now()
    }

    pub(crate) fn new_id(&self, kind: IdKind) -> String {
        self.store.new_id(kind)
    }

    pub(crate) fn agents(&self) -> &AgentRegistry {
        &self.runtime.agents
    }

    pub(crate) fn config(&self) -> Arc<Config> {
        self.runtime.settings.config()
    }

    pub(crate) fn models(&self) -> Arc<ModelCatalog> {
        self.runtime.settings.models()
    }

    pub(crate) async fn session(&self, id: &str) -> Result<Session, LedgerError> {
        self.store.session(id).await
    }

    pub(crate) async fn update_session(
        &self,
        id: &str,
        patch: SessionPatch,
    ) -> Result<Session, LedgerError> {
        self.store.update_session(id, patch).await
    }

    /// A session (a subagent's child) made as an adapter's request would make it.
    pub(crate) async fn create_session(
        &self,
        input: CreateSession,
    ) -> Result<Session, LedgerError> {
        if let Some(agent) = &input.agent {
            self.runtime.agents.require(agent)?;
        }
        // A subagent's child session: made by the model, not by a token's holder.
        self.store
            .create_session(input, &self.runtime.default_directory, None)
            .await
    }

    /// A prompt through the whole pipeline, as an adapter's would go (a subagent's task).
    pub(crate) async fn prompt(
        &self,
        session_id: &str,
        input: PromptInput,
    ) -> Result<MessageWithParts, LedgerError> {
        self.pipeline().prompt(session_id, input).await
    }

    pub(crate) fn pipeline(&self) -> Pipeline<'_> {
        Pipeline {
            store: &self.store,
            runtime: &self.runtime,
        }
    }

    pub(crate) fn abort(&self, session_id: &str) -> bool {
        self.runtime.agent_loop.abort(session_id)
    }

    pub(crate) async fn model_provider(
        &self,
        model: &ModelRef,
        client: &reqwest::Client,
    ) -> Result<Arc<dyn ModelProvider>, ProviderFailure> {
        self.runtime.settings.model_provider(model, client).await
    }
}
