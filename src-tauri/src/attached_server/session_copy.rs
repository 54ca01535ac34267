//! "Copy my local sessions to the server": each of this computer's sessions (archived ones too)
//! exported by the core as its lossless JSON and imported by the server (`POST /session/import`,
//! through the relay), one at a time and oldest first, so they keep their order on the server.
//! A session the server refuses (too large, say) is named with its reason and the rest still go.
//! Sub-sessions are not copied on their own: the server's import takes one session per file.
//! Copying twice makes second copies: the server gives every import new ids.

use super::request_relay::RelayedRequest;
use super::AttachedServer;
use crate::attached_server::AttachedError;
use crate::error::ShellError;
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::Ledger;
use serde::Serialize;
use ts_rs::TS;

/// Sessions read from the local ledger per page.
const PAGE: u32 = 200;

/// What the copy did, for Settings to say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
pub struct CopyReport {
    pub copied: u32,
    pub failed: Vec<CopyFailure>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
pub struct CopyFailure {
    pub title: String,
    pub reason: String,
}

pub async fn copy_local_sessions(
    ledger: &Ledger,
    attached: &AttachedServer,
) -> Result<CopyReport, ShellError> {
    if !attached.is_attached() {
        return Err(ShellError::NotAttached);
    }
    let mut sessions = Vec::new();
    let mut cursor = None;
    loop {
        let page = ledger
            .sessions()
            .list(&SessionQuery {
                limit: Some(PAGE),
                cursor,
                search: None,
                roots_only: true,
                include_archived: true,
                updated_since: None,
                pinned_only: false,
            })
            .await?;
        sessions.extend(page.sessions);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let mut report = CopyReport {
        copied: 0,
        failed: Vec::new(),
    };
    // Listed newest first; the oldest goes first so the server's list reads the same.
    for session in sessions.into_iter().rev() {
        let failure = |reason: String| CopyFailure {
            title: session.title.clone(),
            reason,
        };
        let document = match ledger.reshaping().export_json(&session.id).await {
            Ok(document) => document,
            Err(error) => {
                report.failed.push(failure(error.to_string()));
                continue;
            }
        };
        let body = match serde_json::to_string(&document) {
            Ok(body) => body,
            Err(error) => {
                report.failed.push(failure(error.to_string()));
                continue;
            }
        };
        let answer = attached
            .relay(RelayedRequest {
                method: "POST".into(),
                path: "/session/import".into(),
                body: Some(body),
            })
            .await;
        match answer {
            Ok(response) if response.status == 200 => report.copied += 1,
            Ok(response) => report.failed.push(failure(
                serde_json::from_str::<serde_json::Value>(&response.body)
                    .ok()
                    .and_then(|body| body["message"].as_str().map(str::to_string))
                    .unwrap_or_else(|| format!("HTTP {}", response.status)),
            )),
            // The server went away, or no longer takes the token: the rest would fail the same way.
            Err(
                error @ ShellError::Attached(
                    AttachedError::ServerUnreachable { .. }
                    | AttachedError::ServerTokenNoLongerAccepted { .. },
                ),
            ) => return Err(error),
            Err(error) => report.failed.push(failure(error.to_string())),
        }
    }
    Ok(report)
}
