//! Why a built-in tool call failed. The message is what the model reads in the tool result (and
//! the person sees in the error tool part), so each kind says what was wrong and what the tool
//! accepts — enough for the model to correct its next call.

use crate::pipeline::read_tool::ReadError;

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error(
        "Model tried to call unavailable tool '{name}'. Available tools: read, list, glob, grep."
    )]
    Unavailable { name: String },
    #[error("The \"{key}\" parameter is required and must be a string")]
    MissingParameter { key: String },
    #[error("{path} is outside the session folder {root}; tools can only read inside it")]
    OutsideFolder { path: String, root: String },
    #[error("{path} is not a folder")]
    NotAFolder { path: String },
    #[error("Invalid glob pattern \"{pattern}\": {reason}")]
    InvalidGlob { pattern: String, reason: String },
    #[error("Invalid regular expression \"{pattern}\": {reason}")]
    InvalidRegex { pattern: String, reason: String },
    /// The Read tool's own refusal (missing file, binary, too large), worded by the pipeline.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The blocking task running the tool panicked or was cancelled.
    #[error("The tool stopped unexpectedly: {reason}")]
    Stopped { reason: String },
}
