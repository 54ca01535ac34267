//! One request of the webview's HTTP backend, forwarded to the attached server with the token:
//! only the routes in `relay_paths`, only to the configured origin, and never a prompt that still
//! names a file on this disk (the server would look for it on its own). The answer goes back as
//! it came — status, body and the headers the UI reads — so the HTTP backend's own handling of
//! errors and paging works unchanged. Except a refused token (401, or a proxy's 403): that is no
//! failure of this one request but the connection's state, so it becomes the shell's
//! `ServerTokenNoLongerAccepted`, whatever body came with it (a proxy's is not the server's JSON).

use crate::attached_error::AttachedError;
use crate::connection_check::transport_failure;
use crate::relay_paths;
use crate::server_address::ServerAddress;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What the webview asks to send.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RelayedRequest {
    pub method: String,
    /// The path and query on the server (`/session?limit=50`).
    pub path: String,
    /// A JSON body, as text.
    #[ts(optional)]
    pub body: Option<String>,
}

/// The server's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase")]
pub struct RelayedResponse {
    pub status: u16,
    pub body: String,
    /// The headers the UI reads (`x-next-cursor`, `content-disposition`, `content-type`).
    pub headers: Vec<(String, String)>,
}

const ANSWERED_HEADERS: [&str; 3] = ["x-next-cursor", "content-disposition", "content-type"];

pub async fn relay(
    client: &reqwest::Client,
    address: &ServerAddress,
    token: &str,
    request: RelayedRequest,
) -> Result<RelayedResponse, AttachedError> {
    let method = request.method.to_ascii_uppercase();
    if !relay_paths::allows(&method, &request.path) {
        return Err(AttachedError::RelayRefused {
            method,
            path: request.path,
        });
    }
    if let Some(body) = &request.body {
        refuse_local_files(body)?;
    }
    let method = reqwest::Method::from_bytes(method.as_bytes()).map_err(|_| {
        AttachedError::RelayRefused {
            method: request.method.clone(),
            path: request.path.clone(),
        }
    })?;
    let mut outgoing = client
        .request(method, address.url(&request.path))
        .bearer_auth(token);
    if let Some(body) = request.body {
        outgoing = outgoing
            .header("content-type", "application/json")
            .body(body);
    }
    let response = outgoing
        .send()
        .await
        .map_err(|error| transport_failure(address, &error))?;
    let status = response.status().as_u16();
    if refuses_token(status) {
        return Err(AttachedError::ServerTokenNoLongerAccepted {
            address: address.to_string(),
        });
    }
    let headers = ANSWERED_HEADERS
        .iter()
        .filter_map(|name| {
            let value = response.headers().get(*name)?.to_str().ok()?;
            Some(((*name).to_string(), value.to_string()))
        })
        .collect();
    let body = response
        .text()
        .await
        .map_err(|error| transport_failure(address, &error))?;
    Ok(RelayedResponse {
        status,
        body,
        headers,
    })
}

/// A server that no longer takes the token answers 401; a proxy in front of it may answer 403.
/// Dossier's own 403 (another web page's `Origin`) cannot happen here: the relay sends none.
pub fn refuses_token(status: u16) -> bool {
    status == 401 || status == 403
}

/// Refuses a body whose `parts` carry a `file:` URL: a file attached while the window used this
/// computer's ledger, still in the composer after connecting. Dropped while attached, a file is
/// already its contents (`dropped_contents`).
pub fn refuse_local_files(body: &str) -> Result<(), AttachedError> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(body) else {
        return Ok(());
    };
    let parts = value["parts"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for part in parts {
        let url = part["url"].as_str().unwrap_or_default();
        if url
            .get(..5)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("file:"))
        {
            return Err(AttachedError::LocalFileForServer {
                name: part["filename"].as_str().unwrap_or(url).to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_naming_a_file_on_this_disk_is_refused_with_its_name() {
        let body = r#"{"parts":[{"type":"text","text":"look"},{"type":"file","mime":"text/plain","filename":"notes.txt","url":"file:///home/ada/notes.txt"}]}"#;
        let error = refuse_local_files(body).expect_err("refused");
        assert!(
            matches!(&error, AttachedError::LocalFileForServer { name } if name == "notes.txt"),
            "{error:?}"
        );
        let upper = r#"{"parts":[{"type":"file","url":"FILE:///etc/passwd"}]}"#;
        assert!(refuse_local_files(upper).is_err());
    }

    #[test]
    fn contents_and_other_bodies_pass() {
        for body in [
            r#"{"parts":[{"type":"file","mime":"text/plain","filename":"n.txt","url":"data:text/plain;base64,aGk="}]}"#,
            r#"{"parts":[{"type":"text","text":"file:///etc/passwd is only words"}]}"#,
            r#"{"title":"renamed"}"#,
            "",
        ] {
            assert!(refuse_local_files(body).is_ok(), "{body}");
        }
    }
}
