//! The one error type of the server crate — start-up failures and request failures — and how a
//! request failure becomes a response: a status from the error's kind and a JSON body
//! `{kind, message, name, data: {message}}`. `kind`/`message` are Dossier's typed body;
//! `name`/`data` is OpenCode's `NamedError` shape, which the official SDK reads to build its
//! `Error.message`. Never an empty body, never a stack trace.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use dossier_core::{ErrorKind, LedgerError};
use serde::Serialize;

use crate::server_options::PASSWORD_VARIABLE;
use crate::tls_configuration::{TlsFileProblem, TlsFileRole};

pub const USAGE: &str = "usage: dossier-server [--hostname 127.0.0.1] [--port 4096] [--ui <folder>]\n\
    \x20      [--allowed-host NAME[:PORT]]... [--allowed-origin ORIGIN]...\n\
    \x20      [--tls-cert CERT.pem --tls-key KEY.pem | --behind-proxy] [--database postgres://…]\n\
    \x20      [--models-dir <folder>]\n\
    port 0 picks a free port; --ui serves a built web UI at / (default: $DOSSIER_UI_DIR or ui/dist);\n\
    --allowed-host adds a name the server answers to besides 127.0.0.1, localhost and [::1] (also\n\
    $DOSSIER_ALLOWED_HOSTS, comma-separated); --allowed-origin trusts another web page's origin\n\
    (also $DOSSIER_ALLOWED_ORIGINS); --tls-cert/--tls-key serve HTTPS (PEM files; also\n\
    $DOSSIER_TLS_CERT/$DOSSIER_TLS_KEY), which any address but loopback needs unless\n\
    --behind-proxy says a proxy in front terminates TLS; --database keeps the ledger in a PostgreSQL\n\
    database instead of the data folder's SQLite file (also $DOSSIER_DATABASE_URL); --models-dir serves\n\
    the GGUF models in a folder as provider `local` (default: the data folder's models/, also\n\
    $DOSSIER_MODELS_DIR or the config's local_models.models_dir)";

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error("The request body is not valid JSON: {0}")]
    MalformedJson(String),
    #[error("Invalid request body: {0}")]
    InvalidBody(String),
    #[error("The request body is larger than this server accepts")]
    BodyTooLarge,
    #[error("Invalid query: {0}")]
    InvalidQuery(String),
    #[error("{method} {path} is not implemented by this Dossier server yet")]
    NotImplemented { method: String, path: String },
    #[error("No route for {method} {path}")]
    NoRoute { method: String, path: String },
    #[error("{method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    #[error("Authentication required: send HTTP Basic (user \"dossier\") or a Bearer token")]
    Unauthorized,
    /// A Bearer credential that is neither the password nor a current access token. The
    /// message never repeats what was sent.
    #[error(
        "The Bearer credential was refused: it is not this server's password nor a current \
         access token (it may have been revoked). Ask whoever runs the server for a new token \
         (dossier-server token create NAME)"
    )]
    CredentialsRefused,
    #[error(
        "This Dossier server does not answer to the name \"{host}\". A web page can point its own \
         name at your computer to reach the servers running there (DNS rebinding), so only \
         127.0.0.1, localhost, [::1] and the address Dossier listens on are served. If you reach \
         Dossier through another name on purpose (a proxy, a name on your network), start it with \
         --allowed-host NAME"
    )]
    MisdirectedHost { host: String },
    #[error(
        "The request has no Host header; this Dossier server only answers requests that name it"
    )]
    MissingHost,
    #[error(
        "Refused a request from the web page at \"{origin}\": only Dossier's own pages may use \
         this server. To trust another page (the public address of a proxy in front of Dossier, \
         say), start Dossier with --allowed-origin ORIGIN"
    )]
    ForeignOrigin { origin: String },
    #[error(
        "Refused a request another web page made (Sec-Fetch-Site: {site}): only Dossier's own \
         pages may use this server; other pages may only link to it"
    )]
    CrossSiteRequest { site: String },
    #[error(
        "Send the request body as JSON with Content-Type: application/json (this request's was {}): \
         forms and plain text are refused so that other web pages cannot send them",
        content_type.as_deref().map_or_else(|| "missing".to_string(), |given| format!("\"{given}\""))
    )]
    UnsupportedMediaType { content_type: Option<String> },
    #[error("A ledger write failed unexpectedly: {0}")]
    WriteFailed(String),
    #[error("{0}\n\n{USAGE}")]
    BadArgument(String),
    #[error(
        "refusing to listen on \"{hostname}\" without a password or an access token: anything \
         that can reach it could read and write your sessions. Set {PASSWORD_VARIABLE}, make a \
         token with `dossier-server token create NAME`, or listen on 127.0.0.1"
    )]
    PasswordRequired { hostname: String },
    #[error(
        "refusing to serve plain HTTP on \"{hostname}\": passwords, tokens and sessions would cross \
         the network readable by anyone on the way. Give --tls-cert CERT.pem --tls-key KEY.pem, \
         or --behind-proxy if a proxy in front of Dossier terminates TLS, or listen on 127.0.0.1"
    )]
    TlsRequired { hostname: String },
    #[error("cannot use the TLS {role} {}: {problem}", path.display())]
    TlsFile {
        role: TlsFileRole,
        path: std::path::PathBuf,
        problem: TlsFileProblem,
    },
    #[error("{USAGE}")]
    HelpRequested,
    #[error("{0}{usage}", usage = crate::token_command::TOKEN_USAGE)]
    TokenUsage(String),
    #[error("cannot write the output: {0}")]
    Output(std::io::Error),
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: String,
        source: std::io::Error,
    },
    #[error("the server stopped with an error: {0}")]
    Serve(std::io::Error),
}

/// The adapter's closed set of kinds: the core's, plus the few only HTTP has. Generated for the
/// UI, which tells every one of them from a network failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "snake_case")]
pub enum ResponseKind {
    NotFound,
    Invalid,
    Conflict,
    Busy,
    Unavailable,
    Internal,
    NotImplemented,
    MethodNotAllowed,
    Unauthorized,
    TooLarge,
    /// The `Host` names something other than this server (a DNS-rebinding page).
    Misdirected,
    /// Another web page's request.
    ForbiddenOrigin,
    /// A body that is not JSON, as forms and simple cross-origin requests send.
    UnsupportedMediaType,
    /// A write to a ledger opened read-only.
    ReadOnly,
}

impl From<ErrorKind> for ResponseKind {
    fn from(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::NotFound => Self::NotFound,
            ErrorKind::Invalid => Self::Invalid,
            ErrorKind::Conflict => Self::Conflict,
            ErrorKind::Busy => Self::Busy,
            ErrorKind::Unavailable => Self::Unavailable,
            ErrorKind::Internal => Self::Internal,
            ErrorKind::ReadOnly => Self::ReadOnly,
        }
    }
}

impl ResponseKind {
    pub fn status(self) -> StatusCode {
        match self {
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::Invalid => StatusCode::BAD_REQUEST,
            Self::Conflict | Self::Busy | Self::ReadOnly => StatusCode::CONFLICT,
            Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Self::NotImplemented => StatusCode::NOT_IMPLEMENTED,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Misdirected => StatusCode::MISDIRECTED_REQUEST,
            Self::ForbiddenOrigin => StatusCode::FORBIDDEN,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        }
    }

    /// OpenCode's error names, so SDK callers that branch on `error.name` keep working.
    fn opencode_name(self) -> &'static str {
        match self {
            Self::NotFound => "NotFoundError",
            Self::Invalid => "BadRequest",
            Self::Conflict => "ConflictError",
            Self::Busy => "SessionBusyError",
            Self::Unavailable => "UnavailableError",
            Self::Internal => "UnknownError",
            Self::NotImplemented => "NotImplementedError",
            Self::MethodNotAllowed => "MethodNotAllowedError",
            Self::Unauthorized => "UnauthorizedError",
            Self::TooLarge => "PayloadTooLargeError",
            Self::Misdirected => "MisdirectedRequestError",
            Self::ForbiddenOrigin => "ForbiddenError",
            Self::UnsupportedMediaType => "UnsupportedMediaTypeError",
            Self::ReadOnly => "ReadOnlyError",
        }
    }
}

impl ServerError {
    pub fn kind(&self) -> ResponseKind {
        match self {
            Self::Ledger(error) => error.kind().into(),
            Self::MalformedJson(_) | Self::InvalidBody(_) | Self::InvalidQuery(_) => {
                ResponseKind::Invalid
            }
            Self::NotImplemented { .. } => ResponseKind::NotImplemented,
            Self::NoRoute { .. } => ResponseKind::NotFound,
            Self::MethodNotAllowed { .. } => ResponseKind::MethodNotAllowed,
            Self::Unauthorized | Self::CredentialsRefused => ResponseKind::Unauthorized,
            Self::BodyTooLarge => ResponseKind::TooLarge,
            Self::MisdirectedHost { .. } | Self::MissingHost => ResponseKind::Misdirected,
            Self::ForeignOrigin { .. } | Self::CrossSiteRequest { .. } => {
                ResponseKind::ForbiddenOrigin
            }
            Self::UnsupportedMediaType { .. } => ResponseKind::UnsupportedMediaType,
            Self::BadArgument(_)
            | Self::PasswordRequired { .. }
            | Self::TlsRequired { .. }
            | Self::TlsFile { .. }
            | Self::HelpRequested
            | Self::TokenUsage(_) => ResponseKind::Invalid,
            Self::Bind { .. } | Self::Serve(_) | Self::WriteFailed(_) | Self::Output(_) => {
                ResponseKind::Internal
            }
        }
    }

    pub fn body(&self) -> ErrorResponseBody {
        let kind = self.kind();
        let message = self.to_string();
        ErrorResponseBody {
            kind,
            name: kind.opencode_name(),
            data: NamedErrorData {
                message: message.clone(),
            },
            message,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ErrorResponseBody {
    pub kind: ResponseKind,
    pub message: String,
    pub name: &'static str,
    pub data: NamedErrorData,
}

#[derive(Debug, Clone, Serialize)]
pub struct NamedErrorData {
    pub message: String,
}

impl IntoResponse for ServerError {
    fn into_response(self) -> Response {
        let kind = self.kind();
        if kind == ResponseKind::Internal {
            // The body says what failed; the log keeps the detail for whoever runs the server.
            tracing::error!(error = %self, "request failed");
        }
        let mut response = (kind.status(), axum::Json(self.body())).into_response();
        if kind == ResponseKind::Unauthorized {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Basic realm=\"dossier\""),
            );
        }
        response
    }
}

pub type ServerResult<T> = Result<T, ServerError>;

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn every_kind_maps_to_its_status() {
        let table = [
            (ResponseKind::NotFound, 404),
            (ResponseKind::Invalid, 400),
            (ResponseKind::Conflict, 409),
            (ResponseKind::Busy, 409),
            (ResponseKind::Unavailable, 503),
            (ResponseKind::Internal, 500),
            (ResponseKind::NotImplemented, 501),
            (ResponseKind::MethodNotAllowed, 405),
            (ResponseKind::Unauthorized, 401),
            (ResponseKind::TooLarge, 413),
            (ResponseKind::Misdirected, 421),
            (ResponseKind::ForbiddenOrigin, 403),
            (ResponseKind::UnsupportedMediaType, 415),
            (ResponseKind::ReadOnly, 409),
        ];
        for (kind, status) in table {
            assert_eq!(kind.status().as_u16(), status, "{kind:?}");
        }
    }

    #[test]
    fn body_carries_both_the_typed_and_the_opencode_shape() {
        let error = ServerError::Ledger(LedgerError::SessionNotFound("ses_x".into()));
        let body = serde_json::to_value(error.body()).unwrap();
        assert_eq!(body["kind"], "not_found");
        assert_eq!(body["name"], "NotFoundError");
        assert_eq!(body["message"], "Session not found: ses_x");
        assert_eq!(body["data"]["message"], "Session not found: ses_x");
    }
}
