//! Creating a session over HTTP: the folder from the body, `?directory=` or the SDK's header,
//! and the access token's name recorded on the session. The listing, read, update, archive,
//! delete, children, abort and the status map are declared operations (`declared_routes.rs`).

use crate::authentication::AccessTokenName;
use crate::error::ServerResult;
use crate::ledger_writes::LedgerWrites;
use crate::request_body::{JsonBody, QueryParams};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::{Extension, Json};
use dossier_core::wire::session::{CreateSession, Session};
use dossier_core::Ledger;
use percent_encoding::percent_decode_str;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct DirectoryQuery {
    directory: Option<String>,
}

/// OpenCode takes the working folder from `?directory=` or the SDK's `x-opencode-directory`
/// header (percent-encoded); a `directory` in the body wins over both. A request that came with
/// an access token records the token's name on the session.
pub async fn create(
    State(ledger): State<Ledger>,
    State(writes): State<LedgerWrites>,
    headers: HeaderMap,
    QueryParams(query): QueryParams<DirectoryQuery>,
    access_token: Option<Extension<AccessTokenName>>,
    body: JsonBody,
) -> ServerResult<Json<Session>> {
    let mut input: CreateSession = body.parse_or_default()?;
    if input.directory.is_none() {
        input.directory = query.directory.or_else(|| {
            headers
                .get("x-opencode-directory")
                .and_then(|value| value.to_str().ok())
                .and_then(|value| percent_decode_str(value).decode_utf8().ok())
                .map(|value| value.into_owned())
        });
    }
    let created_by_token = access_token.map(|Extension(AccessTokenName(name))| name);
    let session = writes
        .finish(async move {
            ledger
                .sessions()
                .create_by_token(input, created_by_token)
                .await
        })
        .await?;
    Ok(Json(session))
}
