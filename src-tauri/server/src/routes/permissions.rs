//! Permission requests a running tool waits on: the list, and the answer (OpenCode's
//! `POST /session/:id/permissions/:permissionID` with `{response: "once" | "always" | "reject"}`).

use crate::error::ServerResult;
use crate::request_body::JsonBody;
use axum::extract::{Path, State};
use axum::Json;
use dossier_core::wire::permission::{PermissionReply, PermissionRequest};
use dossier_core::Ledger;
use serde::Deserialize;

pub async fn list(State(ledger): State<Ledger>) -> ServerResult<Json<Vec<PermissionRequest>>> {
    Ok(Json(
        ledger
            .replies()
            .permission_requests_on_every_server()
            .await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyBody {
    response: PermissionReply,
}

pub async fn reply(
    State(ledger): State<Ledger>,
    Path((session_id, permission_id)): Path<(String, String)>,
    body: JsonBody,
) -> ServerResult<Json<bool>> {
    let body: ReplyBody = body.parse_or_default()?;
    ledger
        .replies()
        .reply_permission_on_any_server(&session_id, &permission_id, body.response)
        .await?;
    Ok(Json(true))
}
