//! "Test connection": before an address and token are saved, the shell asks the server and
//! tells the person in plain words what is wrong — unreachable, a certificate this computer does
//! not trust, a refused token, or something that is not a Dossier server. Two requests, both
//! with the token: `GET /global/health` (OpenCode's, so any OpenCode server answers it) and
//! `GET /dossier/search` (Dossier's own; the UI's search needs it).

use crate::attached_error::AttachedError;
use crate::server_address::ServerAddress;
use reqwest::StatusCode;
use serde::Serialize;
use std::time::Duration;
use ts_rs::TS;

/// How long a test waits for an answer: a server that is there answers health at once.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// A server that passed the test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
pub struct ServerCheck {
    /// The origin the app will use (`https://host:port`).
    pub url: String,
    /// The server's version, from its health answer.
    pub version: String,
}

pub async fn check(
    client: &reqwest::Client,
    address: &ServerAddress,
    token: &str,
) -> Result<ServerCheck, AttachedError> {
    let health = get(client, address, token, "/global/health").await?;
    let version = match health.status {
        StatusCode::OK => serde_json::from_str::<serde_json::Value>(&health.body)
            .ok()
            .filter(|body| body["healthy"] == serde_json::Value::Bool(true))
            .map(|body| body["version"].as_str().unwrap_or_default().to_string())
            .ok_or_else(|| not_dossier(address, "its health check did not say it is healthy"))?,
        status => return Err(refusal(address, status, "/global/health")),
    };
    let search = get(client, address, token, "/dossier/search?q=dossier&limit=1").await?;
    match search.status {
        StatusCode::OK
            if serde_json::from_str::<serde_json::Value>(&search.body)
                .is_ok_and(|body| body.is_array()) =>
        {
            Ok(ServerCheck {
                url: address.origin().to_string(),
                version,
            })
        }
        StatusCode::OK => Err(not_dossier(address, "its search answered something else")),
        StatusCode::NOT_FOUND => Err(not_dossier(
            address,
            "it has no Dossier search (an OpenCode server?)",
        )),
        status => Err(refusal(address, status, "/dossier/search")),
    }
}

struct Answer {
    status: StatusCode,
    body: String,
}

async fn get(
    client: &reqwest::Client,
    address: &ServerAddress,
    token: &str,
    path: &str,
) -> Result<Answer, AttachedError> {
    let response = client
        .get(address.url(path))
        .bearer_auth(token)
        .timeout(CHECK_TIMEOUT)
        .send()
        .await
        .map_err(|error| transport_failure(address, &error))?;
    let status = response.status();
    let body = response
        .text()
        .await
        .map_err(|error| transport_failure(address, &error))?;
    Ok(Answer { status, body })
}

/// A 401 is the token; anything else is a server that is not what we want.
fn refusal(address: &ServerAddress, status: StatusCode, path: &str) -> AttachedError {
    if status == StatusCode::UNAUTHORIZED {
        AttachedError::ServerTokenRefused {
            address: address.to_string(),
        }
    } else {
        not_dossier(address, &format!("it answered {status} to {path}"))
    }
}

fn not_dossier(address: &ServerAddress, reason: &str) -> AttachedError {
    AttachedError::NotADossierServer {
        address: address.to_string(),
        reason: reason.to_string(),
    }
}

/// A request that got no HTTP answer: a refused certificate, or the server not reached at all.
/// Also used by the relay, whose requests fail the same ways.
pub fn transport_failure(address: &ServerAddress, error: &reqwest::Error) -> AttachedError {
    let causes = causes(error);
    if is_certificate_problem(&causes) {
        AttachedError::ServerCertificateRefused {
            address: address.to_string(),
            reason: causes.last().cloned().unwrap_or_default(),
        }
    } else {
        AttachedError::ServerUnreachable {
            address: address.to_string(),
            reason: if error.is_timeout() {
                "it did not answer in time".into()
            } else {
                causes.last().cloned().unwrap_or_else(|| error.to_string())
            },
        }
    }
}

/// The error and its sources, outermost first (reqwest's own text says little: "error sending
/// request"; the cause at the bottom says why).
fn causes(error: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut causes = vec![error.to_string()];
    let mut source = error.source();
    while let Some(cause) = source {
        causes.push(cause.to_string());
        source = cause.source();
    }
    causes
}

/// rustls' and the platform verifier's words for a certificate it would not accept.
pub fn is_certificate_problem(causes: &[String]) -> bool {
    causes.iter().any(|cause| {
        let cause = cause.to_ascii_lowercase();
        cause.contains("certificate") || cause.contains("unknownissuer")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_words_anywhere_in_the_chain_mean_a_refused_certificate() {
        let refused = [
            vec![
                "error sending request".to_string(),
                "invalid peer certificate: UnknownIssuer".to_string(),
            ],
            vec![
                "client error (Connect)".to_string(),
                "invalid peer certificate: Expired".to_string(),
            ],
        ];
        for causes in refused {
            assert!(is_certificate_problem(&causes), "{causes:?}");
        }
        let unreachable = vec![
            "error sending request".to_string(),
            "tcp connect error".to_string(),
            "Connection refused (os error 111)".to_string(),
        ];
        assert!(!is_certificate_problem(&unreachable));
    }
}
