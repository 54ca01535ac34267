//! The reply: the session runner and its run loop, one streamed step, retries, compaction,
//! titles, subtasks, asking the person for permission, the tools, recording the reply, and the
//! restart sweep that closes replies a crash left open. It is the top floor under the crate root
//! and may use every floor below it.

pub(crate) mod assistant_step;
pub mod compaction;
pub mod permission_request;
pub mod reply_context;
pub mod reply_lease;
pub(crate) mod reply_record;
pub mod reply_stream;
pub mod restart_sweep;
pub mod retry;
pub mod run_loop;
pub mod session_runner;
pub mod subtask;
pub mod title;
pub mod tools;
