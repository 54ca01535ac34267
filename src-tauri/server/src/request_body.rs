//! Extractors that turn a bad request into a typed 400 with the reason, instead of axum's
//! plain-text rejections: a JSON body (malformed JSON names the line and column) and a query
//! string (a bad `limit` says so). That a body is declared `application/json` at all is checked
//! before any extractor runs, in `request_origin`, for every request that changes state.

use crate::error::ServerError;
use axum::extract::{FromRequest, FromRequestParts, Query, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A request body parsed as JSON; `None` when the body is empty (OpenCode accepts an empty body
/// wherever every field is optional, e.g. `POST /session`).
pub struct JsonBody(pub Option<Value>);

impl<State: Send + Sync> FromRequest<State> for JsonBody {
    type Rejection = ServerError;

    async fn from_request(request: Request, state: &State) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ServerError::BodyTooLarge
                } else {
                    ServerError::InvalidBody(rejection.body_text())
                }
            })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Self(None));
        }
        serde_json::from_slice(&bytes)
            .map(|value| Self(Some(value)))
            .map_err(|error| ServerError::MalformedJson(error.to_string()))
    }
}

impl JsonBody {
    /// The body as `T`, with an empty body read as `{}`.
    pub fn parse_or_default<T: DeserializeOwned>(self) -> Result<T, ServerError> {
        let value = self
            .0
            .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
        serde_json::from_value(value).map_err(|error| ServerError::InvalidBody(error.to_string()))
    }
}

/// A query string deserialised into `T`; unknown keys (OpenCode's `directory`, `workspace`) are
/// ignored by `T`'s serde derive.
pub struct QueryParams<T>(pub T);

impl<T: DeserializeOwned, State: Send + Sync> FromRequestParts<State> for QueryParams<T> {
    type Rejection = ServerError;

    async fn from_request_parts(
        parts: &mut Parts,
        _state: &State,
    ) -> Result<Self, Self::Rejection> {
        Query::<T>::try_from_uri(&parts.uri)
            .map(|Query(value)| Self(value))
            .map_err(|rejection| ServerError::InvalidQuery(rejection.body_text()))
    }
}
