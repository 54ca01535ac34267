//! Reshaping history: fork, revert and unrevert, resend and regenerate, editing and deleting
//! messages and parts, export and import. It uses `wire`, `store`, `models` and `pipeline`
//! (the runtime's loop, to refuse while a reply runs), never `reply`.

pub mod export;
pub mod export_file;
pub(crate) mod fork;
pub(crate) mod import;
pub(crate) mod message_editing;
pub(crate) mod resend;
pub(crate) mod revert;

use crate::pipeline::runtime::Runtime;
use crate::pipeline::Pipeline;
use crate::store::Store;
use std::sync::Arc;

/// What reshaping works with: the store, and the runtime — for its loop (reshaping waits for a
/// reply to end) and, in resend, the pipeline.
pub struct Reshaping<'a> {
    pub(crate) store: &'a Store,
    pub(crate) runtime: &'a Arc<Runtime>,
}

impl Reshaping<'_> {
    fn pipeline(&self) -> Pipeline<'_> {
        Pipeline {
            store: self.store,
            runtime: self.runtime,
        }
    }
}
