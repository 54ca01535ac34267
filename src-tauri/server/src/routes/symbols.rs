//! Dossier's own route for the composer chip's outline picker: the symbols of a file on the
//! server's machine (docs/symbols.md), so a chip can be narrowed to one. A client that may send
//! a prompt with a `file:` draft may already have the server read that file; this lists only
//! the names and lines of its symbols.

use crate::error::{ServerError, ServerResult};
use crate::request_body::QueryParams;
use axum::Json;
use dossier_core::pipeline::symbols::symbols_of_file;
use dossier_core::wire::document_symbol::DocumentSymbol;
use dossier_core::LedgerError;
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Deserialize)]
pub struct SymbolsParams {
    path: PathBuf,
}

/// `GET /dossier/symbols?path=…` — the file's outline; `[]` when Dossier has no grammar for it.
pub async fn symbols(
    QueryParams(params): QueryParams<SymbolsParams>,
) -> ServerResult<Json<Vec<DocumentSymbol>>> {
    let shown = params.path.display().to_string();
    let symbols = tokio::task::spawn_blocking(move || symbols_of_file(&params.path))
        .await
        .map_err(|error| {
            ServerError::Ledger(LedgerError::File {
                path: shown,
                reason: format!("its outline was interrupted: {error}"),
            })
        })??;
    Ok(Json(symbols))
}
