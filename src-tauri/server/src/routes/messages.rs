//! Message routes: a session's messages a page at a time (`limit`, `before`, with `Link` and
//! `X-Next-Cursor` pointing at older ones). One message, deleteMessage, deletePart and
//! updatePart are declared operations (`declared_routes.rs`).

use crate::error::{ServerError, ServerResult};
use crate::paging_headers::next_page_headers;
use crate::request_body::QueryParams;
use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderName, Uri};
use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::Ledger;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct ListQuery {
    limit: Option<u32>,
    before: Option<String>,
}

/// The body is the core's ready-made JSON listing (byte-identical to serialising the typed
/// page), so a thousand messages are not parsed into structs only to be encoded again.
pub async fn list(
    State(ledger): State<Ledger>,
    Path(session_id): Path<String>,
    uri: Uri,
    QueryParams(query): QueryParams<ListQuery>,
) -> ServerResult<(HeaderMap, ([(HeaderName, &'static str); 1], String))> {
    if query.before.is_some() && query.limit.is_none() {
        // OpenCode refuses this too: a cursor without a page size is ambiguous.
        return Err(ServerError::InvalidQuery(
            "\"before\" needs \"limit\": ask for a page size with the cursor".into(),
        ));
    }
    let page = ledger
        .sessions()
        .messages_json(
            &session_id,
            &MessageQuery {
                limit: query.limit,
                before: query.before,
            },
        )
        .await?;
    let headers = next_page_headers(
        uri.path(),
        query.limit,
        "before",
        page.next_cursor.as_deref(),
    );
    Ok((headers, ([(CONTENT_TYPE, "application/json")], page.json)))
}
