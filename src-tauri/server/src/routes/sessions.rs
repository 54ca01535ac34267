//! Session routes: list (newest first, keyset cursor) and create. Read, update, archive, delete,
//! children, abort and the status map are declared operations (`declared_routes.rs`).

use crate::authentication::AccessTokenName;
use crate::error::ServerResult;
use crate::ledger_writes::LedgerWrites;
use crate::paging_headers::next_page_headers;
use crate::request_body::{JsonBody, QueryParams};
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::{Extension, Json};
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::wire::session::{CreateSession, Session};
use dossier_core::Ledger;
use percent_encoding::percent_decode_str;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct ListQuery {
    limit: Option<u32>,
    cursor: Option<String>,
    search: Option<String>,
    roots: Option<bool>,
    start: Option<i64>,
    archived: Option<bool>,
    /// Dossier's addition: only pinned sessions.
    pinned: Option<bool>,
}

pub async fn list(
    State(ledger): State<Ledger>,
    uri: Uri,
    QueryParams(query): QueryParams<ListQuery>,
) -> ServerResult<(HeaderMap, Json<Vec<Session>>)> {
    let page = ledger
        .sessions()
        .list(&SessionQuery {
            limit: query.limit,
            cursor: query.cursor,
            search: query.search,
            roots_only: query.roots.unwrap_or(false),
            include_archived: query.archived.unwrap_or(false),
            updated_since: query.start,
            pinned_only: query.pinned.unwrap_or(false),
        })
        .await?;
    let headers = next_page_headers(
        uri.path(),
        query.limit,
        "cursor",
        page.next_cursor.as_deref(),
    );
    Ok((headers, Json(page.sessions)))
}

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
