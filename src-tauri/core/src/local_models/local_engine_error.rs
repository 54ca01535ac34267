//! Everything that can go wrong with a local model, in words a person can act on. Each becomes
//! the reply's typed error (`models::provider::local_model`); nothing already streamed is lost.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocalEngineError {
    #[error("The model {model} is not installed in {folder}.")]
    NotInstalled { model: String, folder: String },
    #[error(
        "The model file {file} is empty (0 bytes): it was not downloaded or copied completely."
    )]
    EmptyFile { file: String },
    #[error("The file {file} is not a GGUF model file.")]
    NotGguf { file: String },
    #[error("The model file {file} cannot be read: {reason}.")]
    Unreadable { file: String, reason: String },
    #[error(
        "The model {model} needs about {needed} of memory, but this computer has {total} in all."
    )]
    NotEnoughMemory {
        model: String,
        needed: String,
        total: String,
    },
    #[error("The local model engine is not installed beside Dossier (looked for {looked_for}).")]
    WorkerMissing { looked_for: String },
    #[error("The local model engine could not start: {reason}")]
    WorkerStart { reason: String },
    #[error("The local model engine cannot run on this computer: {reason}")]
    UnsupportedProcessor { reason: String },
    #[error("{message}")]
    LoadFailed { message: String },
    #[error("{message}")]
    ChatTemplate { message: String },
    #[error("{message}")]
    PromptTooLong { message: String },
    #[error("The chat template of the model {model} cannot be applied: {reason}.")]
    TemplateRender { model: String, reason: String },
    /// What the model wrote as a tool call is not one Dossier can read; its text is kept.
    #[error("The model {model} tried to call a tool but wrote the call in a form Dossier cannot read ({reason}). Its words are kept above; asking again often works.")]
    MalformedToolCall { model: String, reason: String },
    #[error("{message}")]
    Generation { message: String },
    /// The worker ended (killed, out of memory, a crash inside llama.cpp) before the reply did.
    #[error("The local model engine stopped before the reply was finished{detail}. The text so far is kept; the next message starts the engine again.")]
    WorkerDied { detail: String },
}
