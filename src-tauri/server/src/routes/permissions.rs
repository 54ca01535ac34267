//! Permission requests a running tool waits on, on every server sharing the database. The
//! answer (OpenCode's `POST /session/:id/permissions/:permissionID`) is a declared operation
//! (`declared_routes.rs`).

use crate::error::ServerResult;
use axum::extract::State;
use axum::Json;
use dossier_core::wire::permission::PermissionRequest;
use dossier_core::Ledger;

pub async fn list(State(ledger): State<Ledger>) -> ServerResult<Json<Vec<PermissionRequest>>> {
    Ok(Json(
        ledger
            .replies()
            .permission_requests_on_every_server()
            .await?,
    ))
}
