//! Ledger writes that run to completion. A handler's future is dropped when its client goes
//! away; a write dropped between its commit and its events would leave every event-stream client
//! without them. So writes run as their own tasks, which the handler awaits (or, for
//! `prompt_async`, does not), and shutdown waits for all of them before closing the pool.

use crate::error::{ServerError, ServerResult};
use dossier_core::LedgerError;
use std::future::Future;
use tokio_util::task::TaskTracker;

#[derive(Clone, Default)]
pub struct LedgerWrites {
    tasks: TaskTracker,
}

impl LedgerWrites {
    /// Runs `write` to completion even if the caller stops waiting, and returns its result.
    pub async fn finish<T: Send + 'static>(
        &self,
        write: impl Future<Output = Result<T, LedgerError>> + Send + 'static,
    ) -> ServerResult<T> {
        match self.tasks.spawn(write).await {
            Ok(outcome) => Ok(outcome?),
            Err(error) => Err(ServerError::WriteFailed(error.to_string())),
        }
    }

    /// Runs `work` without anyone waiting for it (`prompt_async`).
    pub fn detach(&self, work: impl Future<Output = ()> + Send + 'static) {
        self.tasks.spawn(work);
    }

    /// Refuses nothing (handlers finish first), then waits for every write still running.
    pub async fn drain(&self) {
        self.tasks.close();
        self.tasks.wait().await;
    }
}
