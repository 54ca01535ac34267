//! What a prompt writes on its session, for both engines
//! (`session_store::reserve_sequence_for_prompt`).

use crate::wire::permission::Ruleset;
use crate::wire::session::SessionModel;

/// What a prompt writes on its session besides its sequence numbers
/// (`reserve_sequence_for_prompt`).
#[derive(Debug)]
pub struct PromptSessionChange<'change> {
    pub agent: &'change str,
    pub model: &'change SessionModel,
    /// The rules the deprecated `tools` input replaces the session's with; `None` keeps them.
    pub permission: Option<&'change Ruleset>,
    /// The prompt's time; the session's `updated` never goes back.
    pub updated: i64,
}
