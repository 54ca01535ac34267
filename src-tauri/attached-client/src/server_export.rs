//! Export while attached: the server makes the file (`GET /session/:id/export`, through the
//! relay), the shell's save dialog decides where it goes — the webview cannot save a download
//! itself, and the local `export_session` command would export from this computer's ledger.

use crate::attached_error::AttachedError;
use crate::export_format::ExportFormat;
use crate::request_relay::{RelayedRequest, RelayedResponse};

/// What an id may not carry unescaped in a path segment (ids are plain words; this is for safety).
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'_')
    .remove(b'-')
    .remove(b'.')
    .remove(b'~');

/// The request for the session's export in `format`.
pub fn export_request(session_id: &str, format: ExportFormat) -> RelayedRequest {
    let id = percent_encoding::utf8_percent_encode(session_id, SEGMENT);
    RelayedRequest {
        method: "GET".into(),
        path: format!("/session/{id}/export?format={}", format.query_value()),
        body: None,
    }
}

/// The file's contents and the name the server offers, or the server's refusal in its words.
pub fn exported_file(
    response: RelayedResponse,
    session_id: &str,
    format: ExportFormat,
) -> Result<(String, String), AttachedError> {
    if response.status != 200 {
        let message = serde_json::from_str::<serde_json::Value>(&response.body)
            .ok()
            .and_then(|body| body["message"].as_str().map(str::to_string))
            .unwrap_or_else(|| format!("HTTP {}", response.status));
        return Err(AttachedError::ServerRefused {
            status: response.status,
            message,
        });
    }
    let offered = response
        .headers
        .iter()
        .find(|(name, _)| name == "content-disposition")
        .and_then(|(_, value)| offered_name(value));
    let name = offered.unwrap_or_else(|| format!("{session_id}.{}", format.extension()));
    Ok((name, response.body))
}

/// The name in a `Content-Disposition` header: its UTF-8 `filename*`, else `filename`, without
/// anything that would make it a path.
pub fn offered_name(disposition: &str) -> Option<String> {
    let parameters: Vec<&str> = disposition.split(';').map(str::trim).collect();
    let encoded = parameters.iter().find_map(|parameter| {
        let value = parameter.strip_prefix("filename*=")?;
        let value = value
            .get(..7)
            .filter(|prefix| prefix.eq_ignore_ascii_case("utf-8''"))?;
        let rest = &parameter["filename*=".len() + value.len()..];
        percent_encoding::percent_decode_str(rest)
            .decode_utf8()
            .ok()
            .map(|name| name.into_owned())
    });
    let plain = || {
        parameters.iter().find_map(|parameter| {
            parameter
                .strip_prefix("filename=")
                .map(|value| value.trim_matches('"').to_string())
        })
    };
    encoded
        .or_else(plain)
        .map(|name| name.replace(['/', '\\'], "-"))
        .filter(|name| !name.trim().is_empty() && name != "." && name != "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offered_name_prefers_the_utf8_title_and_never_makes_a_path() {
        let table = [
            (
                "attachment; filename=\"ses_1.json\"; filename*=UTF-8''Caf%C3%A9%20plans.json",
                Some("Café plans.json"),
            ),
            ("attachment; filename=\"ses_1.md\"", Some("ses_1.md")),
            (
                "attachment; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd",
                Some("..-..-etc-passwd"),
            ),
            ("attachment", None),
        ];
        for (header, expected) in table {
            assert_eq!(offered_name(header).as_deref(), expected, "{header}");
        }
    }

    #[test]
    fn a_refused_export_carries_the_server_s_words_and_kind() {
        let refused = RelayedResponse {
            status: 404,
            body: r#"{"kind":"not_found","message":"Session not found: ses_x"}"#.into(),
            headers: Vec::new(),
        };
        let error = exported_file(refused, "ses_x", ExportFormat::Json).expect_err("refused");
        assert_eq!(
            error.to_string(),
            "The server refused: Session not found: ses_x"
        );
        assert_eq!(error.kind(), dossier_core::ErrorKind::NotFound);
        let saved = RelayedResponse {
            status: 200,
            body: "# Notes".into(),
            headers: Vec::new(),
        };
        assert_eq!(
            exported_file(saved, "ses_1", ExportFormat::Markdown).expect("saved"),
            ("ses_1.md".to_string(), "# Notes".to_string())
        );
        assert_eq!(
            export_request("a/b", ExportFormat::Json).path,
            "/session/a%2Fb/export?format=json"
        );
        assert_eq!(
            export_request("ses_1", ExportFormat::Markdown).path,
            "/session/ses_1/export?format=markdown"
        );
    }
}
