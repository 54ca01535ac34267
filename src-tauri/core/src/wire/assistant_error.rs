//! The typed error union an assistant message (or a `session.error` event) carries, serialised
//! as OpenCode's `{name, data}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(tag = "name", content = "data")]
pub enum AssistantError {
    ProviderAuthError {
        #[serde(rename = "providerID")]
        provider_id: String,
        message: String,
    },
    UnknownError {
        message: String,
    },
    MessageOutputLengthError {},
    MessageAbortedError {
        message: String,
    },
    StructuredOutputError {
        message: String,
        retries: u32,
    },
    ContextOverflowError {
        message: String,
        #[serde(
            rename = "responseBody",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        response_body: Option<String>,
    },
    #[serde(rename = "APIError")]
    ApiError(ApiErrorData),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ApiErrorData {
    pub message: String,
    #[serde(
        rename = "statusCode",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub status_code: Option<u16>,
    #[serde(rename = "isRetryable")]
    pub is_retryable: bool,
    #[serde(
        rename = "responseHeaders",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub response_headers: Option<Value>,
    #[serde(
        rename = "responseBody",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub response_body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub metadata: Option<Value>,
}

impl AssistantError {
    pub fn unknown(message: impl Into<String>) -> Self {
        Self::UnknownError {
            message: message.into(),
        }
    }
}
