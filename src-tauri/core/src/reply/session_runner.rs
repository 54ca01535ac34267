//! One runner per session (reference §5.1): the first caller starts the agent loop, later
//! callers join it and every caller gets the same final result. The runner keeps the in-memory
//! session status (busy / retry; idle means absent) and the abort switch of each run.

use crate::pipeline::agent_loop::AgentLoop;
use crate::pipeline::runtime::Runtime;
use crate::reply::permission_request::PermissionRequests;
use crate::reply::reply_context::ReplyContext;
use crate::reply::reply_lease;
use crate::reply::run_loop;
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::event::{EventBus, EventPayload, SessionStatus};
use crate::wire::message::MessageWithParts;
use async_trait::async_trait;
use futures::FutureExt;
use std::collections::{BTreeMap, HashMap};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::watch;

type RunResult = Result<MessageWithParts, RunFailure>;

/// Why a run ended without a reply, shared with every prompt that waits on it (hence `Clone`).
#[derive(Debug, Clone, thiserror::Error)]
enum RunFailure {
    #[error(transparent)]
    Ledger(Arc<LedgerError>),
    #[error("the agent loop stopped unexpectedly")]
    Stopped,
    /// Another server on the shared database is replying in the session (`reply_lease`).
    #[error("another server is replying in this session")]
    RepliedElsewhere,
}

struct Run {
    abort: watch::Sender<bool>,
    result: watch::Receiver<Option<RunResult>>,
}

#[derive(Default)]
struct Board {
    runs: HashMap<String, Run>,
    statuses: BTreeMap<String, SessionStatus>,
}

/// The default `AgentLoop`: real providers, the offline model, tools, retries and abort.
#[derive(Clone)]
pub struct SessionRunner {
    board: Arc<Mutex<Board>>,
    client: reqwest::Client,
    /// The requests its tool calls wait on; the ledger answers them (`permission_request`).
    permission_requests: Arc<PermissionRequests>,
}

impl Default for SessionRunner {
    fn default() -> Self {
        Self::new()
    }
}

impl SessionRunner {
    pub fn new() -> Self {
        Self {
            board: Arc::new(Mutex::new(Board::default())),
            client: crate::models::provider::http_client::http_client(),
            permission_requests: Arc::default(),
        }
    }

    /// The permission requests its runs open, for the ledger to list and answer.
    pub fn permission_requests(&self) -> Arc<PermissionRequests> {
        self.permission_requests.clone()
    }

    fn join_or_start(
        &self,
        context: &ReplyContext,
        session_id: &str,
    ) -> (watch::Receiver<Option<RunResult>>, bool) {
        let mut board = lock(&self.board);
        if let Some(run) = board.runs.get(session_id) {
            return (run.result.clone(), true);
        }
        let (abort_sender, abort_receiver) = watch::channel(false);
        let (result_sender, result_receiver) = watch::channel(None);
        board.runs.insert(
            session_id.to_string(),
            Run {
                abort: abort_sender,
                result: result_receiver.clone(),
            },
        );
        drop(board);
        let control = RunControl {
            session_id: session_id.to_string(),
            store: context.store.clone(),
            events: context.store.events.clone(),
            board: self.board.clone(),
            abort: abort_receiver,
        };
        let context = context.clone();
        let client = self.client.clone();
        // Spawned, so a caller that goes away (a closed HTTP request) does not stop the reply.
        tokio::spawn(async move {
            // On a shared database, one server replies in a session at a time.
            let may_reply = reply_lease::take(&context.store, &control.session_id).await;
            if !matches!(may_reply, Ok(true)) {
                control.withdraw();
                let result = match may_reply {
                    Err(error) => Err(RunFailure::Ledger(Arc::new(error))),
                    Ok(_) => Err(RunFailure::RepliedElsewhere),
                };
                if result_sender.send(Some(result)).is_err() {
                    tracing::debug!("nobody waited for the reply");
                }
                return;
            }
            let outcome = AssertUnwindSafe(run_loop::run(&context, &control, &client))
                .catch_unwind()
                .await;
            let result = match outcome {
                Ok(Ok(message)) => Ok(message),
                // Deleted mid-reply: nobody is left to tell.
                Ok(Err(error @ LedgerError::SessionNotFound(_))) => {
                    Err(RunFailure::Ledger(Arc::new(error)))
                }
                Ok(Err(error)) => {
                    tracing::error!(%error, session = %control.session_id, "the agent loop failed");
                    Err(control.report_failure(RunFailure::Ledger(Arc::new(error))))
                }
                Err(_) => Err(control.report_failure(RunFailure::Stopped)),
            };
            // Before the idle events: a server woken by them finds the lease free.
            reply_lease::release(&context.store, &control.session_id).await;
            control.finish();
            if result_sender.send(Some(result)).is_err() {
                tracing::debug!("nobody waited for the reply");
            }
        });
        (result_receiver, false)
    }
}

#[async_trait]
impl AgentLoop for SessionRunner {
    async fn run(
        &self,
        store: Store,
        runtime: Arc<Runtime>,
        session_id: String,
    ) -> Result<MessageWithParts, LedgerError> {
        let context = ReplyContext::new(store, runtime, self.permission_requests.clone());
        loop {
            let (mut receiver, joined) = self.join_or_start(&context, &session_id);
            let result = match receiver.wait_for(Option::is_some).await {
                Ok(value) => value.clone(),
                Err(_) => None,
            }
            .unwrap_or(Err(RunFailure::Stopped));
            // Another server replies in the session: wait for it as a joined prompt waits here,
            // then answer what is still unanswered, or return the reply it gave.
            if matches!(result, Err(RunFailure::RepliedElsewhere)) {
                reply_lease::wait_while_held_elsewhere(&context.store, &session_id).await?;
                if !run_loop::awaiting_reply(&context, &session_id).await? {
                    return run_loop::latest_reply(&context, &session_id).await;
                }
                continue;
            }
            // A prompt that joined a run in its last moments may not have been seen by it.
            if joined && result.is_ok() && run_loop::awaiting_reply(&context, &session_id).await? {
                continue;
            }
            return match result {
                Ok(message) => Ok(message),
                // Deleted while it was answering: say so rather than how the writes failed.
                Err(_)
                    if matches!(
                        context.session(&session_id).await,
                        Err(LedgerError::SessionNotFound(_))
                    ) =>
                {
                    Err(LedgerError::SessionNotFound(session_id))
                }
                Err(failure) => Err(LedgerError::ReplyFailed(failure.to_string())),
            };
        }
    }

    fn abort(&self, session_id: &str) -> bool {
        let board = lock(&self.board);
        match board.runs.get(session_id) {
            Some(run) => {
                run.abort.send_replace(true);
                true
            }
            None => false,
        }
    }

    fn status(&self) -> BTreeMap<String, SessionStatus> {
        lock(&self.board).statuses.clone()
    }

    fn is_busy(&self, session_id: &str) -> bool {
        lock(&self.board).runs.contains_key(session_id)
    }
}

fn lock(board: &Mutex<Board>) -> MutexGuard<'_, Board> {
    // Only plain maps live behind this lock; a panic elsewhere leaves them usable.
    board.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the loop of one run sees of its runner: its status and its abort switch.
pub(crate) struct RunControl {
    pub session_id: String,
    /// For telling other servers on a shared database how the run goes.
    store: Store,
    events: EventBus,
    board: Arc<Mutex<Board>>,
    abort: watch::Receiver<bool>,
}

impl RunControl {
    /// Sets the run's status: on a shared database on the session's lease, where other servers
    /// read it for their status listing (first, so a client that hears of it finds it listed
    /// whichever server it asks), then on the board and to every client.
    pub async fn set_status(&self, status: SessionStatus) {
        // A lease starts out busy (its `status` is NULL): the run's first "busy" would rewrite
        // what is already there, a statement on every reply's start, so only a change is shared.
        let unchanged = {
            let board = lock(&self.board);
            let before = board.statuses.get(&self.session_id);
            status == SessionStatus::Busy && matches!(before, None | Some(SessionStatus::Busy))
        };
        if !unchanged {
            reply_lease::share_status(&self.store, &self.session_id, &status).await;
        }
        let mut board = lock(&self.board);
        board
            .statuses
            .insert(self.session_id.clone(), status.clone());
        self.events.publish(EventPayload::SessionStatus {
            session_id: self.session_id.clone(),
            status,
        });
    }

    pub fn is_aborted(&self) -> bool {
        *self.abort.borrow()
    }

    /// Resolves when the run is aborted (or its runner is gone).
    pub async fn aborted(&self) {
        let mut receiver = self.abort.clone();
        if receiver.wait_for(|aborted| *aborted).await.is_err() {
            tracing::debug!("abort switch dropped");
        }
    }

    /// A loop that failed outside the reply itself (the ledger could not be written, a bug) has
    /// no assistant message left to carry the error, so the person learns of it from a
    /// `session.error` event instead of a reply that silently stops. Returns the message.
    fn report_failure(&self, failure: RunFailure) -> RunFailure {
        self.events.publish(EventPayload::session_error(
            &self.session_id,
            crate::wire::assistant_error::AssistantError::unknown(failure.to_string()),
        ));
        failure
    }

    /// The run never started (another server replies in the session): it leaves the board
    /// without a word, since the session is not idle.
    fn withdraw(&self) {
        let mut board = lock(&self.board);
        board.runs.remove(&self.session_id);
        board.statuses.remove(&self.session_id);
    }

    /// Idle: the run leaves the board and `session.status` idle + `session.idle` go out, all
    /// under the board's lock so a new run cannot start in between and be reported idle.
    fn finish(&self) {
        let mut board = lock(&self.board);
        board.runs.remove(&self.session_id);
        board.statuses.remove(&self.session_id);
        self.events.publish(EventPayload::SessionStatus {
            session_id: self.session_id.clone(),
            status: SessionStatus::Idle,
        });
        self.events.publish(EventPayload::SessionIdle {
            session_id: self.session_id.clone(),
        });
    }
}
