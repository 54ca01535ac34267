//! One reply per session across every server on a shared database (issue 16, item 2). A run
//! takes the session's lease before it starts and gives it back when it ends; its server renews
//! its leases while it lives. A prompt that reaches another server meanwhile is saved there and
//! waits until the lease is given back, as a second prompt on the same server joins the running
//! reply. A lease that runs out belongs to a server that died: another server takes it over,
//! closes the reply as interrupted (keeping what was streamed, as the restart sweep does) and
//! tells every client. On SQLite one process has the ledger, and none of this is needed.

use crate::reply::restart_sweep::close_open_replies;
use crate::store::tables::message_store;
use crate::store::tables::reply_lease;
pub(crate) use crate::store::tables::reply_lease::{
    held_elsewhere, release, replying_elsewhere, share_status, take,
};
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::event::{EventPayload, SessionStatus};
use std::time::Duration;

pub use crate::store::tables::reply_lease::DEFAULT_LEASE;

/// How often a waiting prompt looks again without having heard the session go idle.
const LOOK_AGAIN: Duration = Duration::from_secs(1);

/// Returns once no other server holds the session's lease: when it went idle (heard through the
/// shared events) or, at the latest, a second after.
pub(crate) async fn wait_while_held_elsewhere(
    store: &Store,
    session_id: &str,
) -> Result<(), LedgerError> {
    let mut events = store.events.subscribe();
    while held_elsewhere(store, session_id).await? {
        let deadline = tokio::time::sleep(LOOK_AGAIN);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                () = &mut deadline => break,
                event = events.recv() => match event {
                    Ok(event) => {
                        if matches!(&event.payload, EventPayload::SessionIdle { session_id: idle } if idle == session_id) {
                            break;
                        }
                    }
                    // Fell behind or closed: look at the lease itself.
                    Err(_) => break,
                },
            }
        }
    }
    Ok(())
}

/// Renews this server's leases and closes the replies of servers that died, every third of the
/// lease, for as long as the store is open. `running_here` says whether this process is replying
/// in a session (its own replies are never swept).
pub fn keep_leases(store: Store, running_here: impl Fn(&str) -> bool + Send + Sync + 'static) {
    let Some(duration) = store.shared().map(|shared| shared.reply_lease) else {
        return;
    };
    tokio::spawn(async move {
        let every = duration / 3;
        loop {
            if store.pool.is_closed() {
                return;
            }
            if let Err(error) = renew_and_sweep(&store, &running_here).await {
                if store.pool.is_closed() {
                    return;
                }
                tracing::warn!(%error, "could not renew reply leases or sweep expired ones");
            }
            tokio::time::sleep(every).await;
        }
    });
}

/// One round of `keep_leases`; returns how many replies it closed.
pub async fn renew_and_sweep(
    store: &Store,
    running_here: &impl Fn(&str) -> bool,
) -> Result<usize, LedgerError> {
    if store.shared().is_none() {
        return Ok(0);
    }
    reply_lease::renew(store).await?;
    let mut closed = 0;
    // Leases of servers that stopped renewing: taken over in one statement, so only one server
    // closes each.
    for session_id in reply_lease::take_expired(store).await? {
        closed += close_and_release(store, &session_id).await?;
    }
    // Replies open with no lease at all (their server died before leases existed, or the
    // lease went with a failed release): taking the lease first means nobody is replying there.
    let open = message_store::open_replies(&store.pool).await?;
    let mut sessions: Vec<&String> = open.iter().map(|(session_id, _)| session_id).collect();
    sessions.dedup();
    for session_id in sessions {
        if running_here(session_id) {
            continue;
        }
        if reply_lease::take(store, session_id).await? {
            closed += close_and_release(store, session_id).await?;
        }
    }
    if closed > 0 {
        tracing::info!(
            count = closed,
            "closed replies of a server that stopped before they finished"
        );
    }
    Ok(closed)
}

/// Closes the session's open replies as interrupted, tells every client, and gives the lease
/// (taken by the caller) back.
async fn close_and_release(store: &Store, session_id: &str) -> Result<usize, LedgerError> {
    let closed = close_interrupted_in(store, session_id).await;
    release(store, session_id).await;
    let closed = closed?;
    store.events.publish(EventPayload::SessionStatus {
        session_id: session_id.to_string(),
        status: SessionStatus::Idle,
    });
    store.events.publish(EventPayload::SessionIdle {
        session_id: session_id.to_string(),
    });
    Ok(closed)
}

async fn close_interrupted_in(store: &Store, session_id: &str) -> Result<usize, LedgerError> {
    let open: Vec<(String, String)> = message_store::open_replies(&store.pool)
        .await?
        .into_iter()
        .filter(|(session, _)| session == session_id)
        .collect();
    if open.is_empty() {
        return Ok(0);
    }
    let now = store.now();
    let closed = close_open_replies(store, &open, now).await?;
    for (reply, changed) in closed {
        for index in changed {
            store.events.publish(EventPayload::PartUpdated {
                session_id: session_id.to_string(),
                part: reply.parts[index].clone(),
                time: now,
            });
        }
        store.events.publish(EventPayload::MessageUpdated {
            session_id: session_id.to_string(),
            info: reply.info,
        });
    }
    Ok(open.len())
}

/// Stops this server's replies that another server was asked to stop (`Store::abort_requests`),
/// for as long as the store is open. Nothing to listen for on SQLite.
pub fn stop_when_other_servers_ask(
    store: &Store,
    agent_loop: std::sync::Arc<dyn crate::pipeline::agent_loop::AgentLoop>,
) {
    let Some(mut requests) = store.abort_requests() else {
        return;
    };
    tokio::spawn(async move {
        loop {
            match requests.recv().await {
                Ok(session_id) => {
                    if agent_loop.abort(&session_id) {
                        tracing::info!(session = %session_id, "reply stopped at another server's request");
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
        }
    });
}
