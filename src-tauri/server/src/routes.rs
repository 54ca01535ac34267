//! The route table: which OpenCode path goes to which handler, the routes this build answers
//! with 501, and the JSON fallbacks for unknown paths and methods. The declared operations'
//! routes are made from the operation table (`declared_routes.rs`); the handlers here, in
//! `routes/` one file per group, are the routes the table cannot express yet or that have no
//! desktop counterpart (see the list in `dossier_core::operations`). Each deserialises, calls
//! one ledger function and returns.

use crate::authentication::{require_credentials, Credentials};
use crate::error::ServerError;
use crate::event_stream::{self, EventStreamSettings};
use crate::ledger_writes::LedgerWrites;
use crate::request_origin::{refuse_foreign_requests, OriginPolicy};
use crate::server_options::{is_loopback, ServerOptions};
use axum::extract::{DefaultBodyLimit, FromRef};
use axum::http::{Method, Uri};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;
use dossier_core::Ledger;

mod catalog;
mod mcp;
mod messages;
mod prompts;
mod sessions;
mod symbols;
mod transfer;

/// What the handlers share. Each handler extracts only the piece it needs (`State<Ledger>`,
/// `State<LedgerWrites>`, …) through `FromRef`.
#[derive(Clone)]
pub struct ServerState {
    pub ledger: Ledger,
    pub event_stream: EventStreamSettings,
    pub writes: LedgerWrites,
}

impl FromRef<ServerState> for Ledger {
    fn from_ref(state: &ServerState) -> Self {
        state.ledger.clone()
    }
}

impl FromRef<ServerState> for EventStreamSettings {
    fn from_ref(state: &ServerState) -> Self {
        state.event_stream.clone()
    }
}

impl FromRef<ServerState> for LedgerWrites {
    fn from_ref(state: &ServerState) -> Self {
        state.writes.clone()
    }
}

/// `origins` is applied outermost, so a request from another web page is refused before the
/// credentials check (no credentials prompt for it) and before any handler reads its body.
pub fn router(state: ServerState, options: &ServerOptions, origins: OriginPolicy) -> Router {
    let router = Router::new()
        .route("/session", post(sessions::create))
        .route("/session/{session_id}/export", get(transfer::export))
        .route("/session/import", post(transfer::import))
        .route("/dossier/symbols", get(symbols::symbols))
        .route(
            "/session/{session_id}/message",
            get(messages::list).post(prompts::prompt),
        )
        .route(
            "/session/{session_id}/prompt_async",
            post(prompts::prompt_async),
        )
        .route("/event", get(event_stream::subscribe))
        .route("/global/event", get(event_stream::subscribe_global))
        .route("/config", get(catalog::config).patch(not_implemented))
        .route("/config/providers", get(catalog::configured_providers))
        .route("/provider", get(catalog::providers))
        .route("/path", get(catalog::path))
        .route("/project", get(catalog::projects))
        .route("/project/current", get(catalog::current_project))
        .route("/global/health", get(catalog::health))
        .route("/command", get(catalog::empty_list))
        .route("/skill", get(catalog::empty_list))
        .route("/lsp", get(catalog::empty_list))
        .route("/formatter", get(catalog::empty_list))
        .route("/question", get(catalog::empty_list))
        .route(
            "/dossier/mcp/import/claude-desktop",
            post(mcp::import_claude_desktop),
        );
    // The declared operations (`dossier_core::operations`), each its own route; one whose path
    // is also above (`POST /session/:id/message` beside `GET`) joins that path's methods.
    let router = crate::declared_routes::declared_routes(router);
    let router = not_implemented_routes(router)
        .fallback({
            let ui_directory = options.ui_directory.clone();
            move |method: Method, uri: Uri| async move {
                if let Some(directory) = &ui_directory {
                    if let Some(response) =
                        crate::ui_files::serve(directory, &method, uri.path()).await
                    {
                        return response;
                    }
                }
                no_route(method, uri).await.into_response()
            }
        })
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(options.body_limit));
    let credentials = Credentials {
        password: options.password.as_deref().map(Into::into),
        always_required: !is_loopback(&options.hostname),
        store: state.ledger.store().clone(),
    };
    let router = router
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(
            credentials,
            require_credentials,
        ));
    router.layer(axum::middleware::from_fn_with_state(
        origins,
        refuse_foreign_requests,
    ))
}

/// Contract routes the ledger cannot serve yet: a clear 501, never a 404 by accident.
fn not_implemented_routes(router: Router<ServerState>) -> Router<ServerState> {
    router
        .route("/session/{session_id}/command", post(not_implemented))
        .route("/session/{session_id}/shell", post(not_implemented))
        .route("/session/{session_id}/init", post(not_implemented))
        .route(
            "/session/{session_id}/share",
            post(not_implemented).delete(not_implemented),
        )
        .route("/session/{session_id}/todo", get(not_implemented))
        .route("/session/{session_id}/diff", get(not_implemented))
}

async fn not_implemented(method: Method, uri: Uri) -> ServerError {
    ServerError::NotImplemented {
        method: method.to_string(),
        path: uri.path().to_string(),
    }
}

async fn no_route(method: Method, uri: Uri) -> ServerError {
    ServerError::NoRoute {
        method: method.to_string(),
        path: uri.path().to_string(),
    }
}

async fn method_not_allowed(method: Method, uri: Uri) -> ServerError {
    ServerError::MethodNotAllowed {
        method: method.to_string(),
        path: uri.path().to_string(),
    }
}
