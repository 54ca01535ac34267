//! Dossier's own routes for moving sessions: export (JSON or Markdown, a download) and import
//! (Dossier's or `opencode export`'s JSON). Search is a declared operation (`declared_routes.rs`).

use crate::error::{ServerError, ServerResult};
use crate::ledger_writes::LedgerWrites;
use crate::request_body::{JsonBody, QueryParams};
use axum::extract::{Path, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use axum::Json;
use dossier_core::wire::reader_time::ReaderTimeZone;
use dossier_core::wire::session::Session;
use dossier_core::Ledger;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct ExportParams {
    format: Option<String>,
    /// Dossier's addition: the reader's offset from UTC in minutes east (a browser's
    /// `-new Date().getTimezoneOffset()`), so the readable export tells the times by the
    /// reader's clock rather than the server's.
    #[serde(rename = "utcOffset")]
    utc_offset: Option<i32>,
}

/// `GET /session/:id/export?format=json|markdown` — a download of the whole session.
pub async fn export(
    State(ledger): State<Ledger>,
    Path(session_id): Path<String>,
    QueryParams(params): QueryParams<ExportParams>,
) -> ServerResult<Response> {
    match params.format.as_deref().unwrap_or("json") {
        "json" => {
            let export = ledger.reshaping().export_json(&session_id).await?;
            let disposition = attachment_disposition(&session_id, &export.info.title, "json");
            Ok(([(CONTENT_DISPOSITION, disposition)], Json(export)).into_response())
        }
        "markdown" | "md" => {
            let title = ledger.sessions().get(&session_id).await?.title;
            let zone = match params.utc_offset {
                None => ReaderTimeZone::ThisComputer,
                Some(minutes) => ReaderTimeZone::from_offset_minutes(minutes).ok_or_else(|| {
                    ServerError::InvalidQuery(format!(
                        "utcOffset {minutes} is not an offset from UTC in minutes (-1080 to 1080)"
                    ))
                })?,
            };
            let markdown = ledger
                .reshaping()
                .export_markdown(&session_id, zone)
                .await?;
            let disposition = attachment_disposition(&session_id, &title, "md");
            Ok((
                [
                    (CONTENT_TYPE, "text/markdown; charset=utf-8".to_string()),
                    (CONTENT_DISPOSITION, disposition),
                ],
                markdown,
            )
                .into_response())
        }
        other => Err(ServerError::InvalidQuery(format!(
            "format \"{other}\" is not json or markdown"
        ))),
    }
}

/// Names the download after the session's title (RFC 6266 `filename*`, UTF-8), with the id as
/// the plain-ASCII fallback for clients that only read `filename`.
fn attachment_disposition(session_id: &str, title: &str, extension: &str) -> String {
    let name = dossier_core::reshaping::export::export_file_name(title, extension);
    let encoded = percent_encoding::utf8_percent_encode(&name, percent_encoding::NON_ALPHANUMERIC);
    format!("attachment; filename=\"{session_id}.{extension}\"; filename*=UTF-8''{encoded}")
}

/// `POST /session/import` — a new session from an exported JSON document.
pub async fn import(
    State(ledger): State<Ledger>,
    State(writes): State<LedgerWrites>,
    body: JsonBody,
) -> ServerResult<Json<Session>> {
    let document = body.0.ok_or_else(|| {
        ServerError::InvalidBody("send the exported session JSON as the body".into())
    })?;
    let session = writes
        .finish(async move { ledger.reshaping().import_session(document).await })
        .await?;
    Ok(Json(session))
}
