//! The session as the last prompt in it left it, kept for the next prompt so that one need not
//! read it first. Each read is a trip to the connection's thread and back, and a person's
//! prompts mostly follow each other in one session. Nothing here is trusted blindly: the
//! prompt's one command (`prompt_in_one_command`) changes the session only while its sequence
//! counter, agent and model are still what the prompt decided from, and no revert is pending.
//! Whatever else changed it meanwhile (another process, a fork, a rename here) then makes the
//! command change nothing, and the prompt reads the session and decides again.
//!
//! SQLite only, as the one command is. Bounded: at most `CAPACITY` sessions, all forgotten at
//! once when a new one would exceed it (a person types into a few).

use crate::store::Store;
use crate::wire::session::Session;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const CAPACITY: usize = 64;

/// A session as the last prompt's one command returned it, and its sequence counter then.
#[derive(Clone)]
pub(crate) struct RememberedSession {
    pub session: Arc<Session>,
    pub last_seq: i64,
}

#[derive(Default)]
pub(crate) struct PromptSessionMemo {
    sessions: Mutex<HashMap<String, RememberedSession>>,
}

impl Store {
    /// The session as the last prompt in it left it, when one did here (SQLite only).
    pub(crate) fn remembered_prompt_session(&self, session_id: &str) -> Option<RememberedSession> {
        self.upkeep.prompt_sessions.as_ref()?.get(session_id)
    }

    /// Kept for the next prompt in `session`: what a prompt's one command returned.
    pub(crate) fn remember_prompt_session(&self, session: Session, last_seq: i64) {
        if let Some(memo) = &self.upkeep.prompt_sessions {
            memo.keep(session, last_seq);
        }
    }

    pub(crate) fn forget_prompt_session(&self, session_id: &str) {
        if let Some(memo) = &self.upkeep.prompt_sessions {
            memo.forget(session_id);
        }
    }
}

impl PromptSessionMemo {
    pub(crate) fn get(&self, session_id: &str) -> Option<RememberedSession> {
        self.lock().get(session_id).cloned()
    }

    pub(crate) fn keep(&self, session: Session, last_seq: i64) {
        let mut sessions = self.lock();
        if sessions.len() >= CAPACITY && !sessions.contains_key(&session.id) {
            sessions.clear();
        }
        sessions.insert(
            session.id.clone(),
            RememberedSession {
                session: Arc::new(session),
                last_seq,
            },
        );
    }

    pub(crate) fn forget(&self, session_id: &str) {
        self.lock().remove(session_id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, RememberedSession>> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str) -> Session {
        serde_json::from_value(serde_json::json!({
            "id": id, "slug": "s", "projectID": "p", "directory": "/", "path": "/", "title": "t",
            "version": "1", "time": {"created": 1, "updated": 1}
        }))
        .expect("a session")
    }

    #[test]
    fn a_session_is_kept_until_forgotten_and_the_memo_stays_bounded() {
        let memo = PromptSessionMemo::default();
        memo.keep(session("ses_a"), 3);
        let kept = memo.get("ses_a").expect("kept");
        assert_eq!((kept.session.id.as_str(), kept.last_seq), ("ses_a", 3));
        memo.keep(session("ses_a"), 5);
        assert_eq!(memo.get("ses_a").map(|kept| kept.last_seq), Some(5));
        memo.forget("ses_a");
        assert!(memo.get("ses_a").is_none());

        for index in 0..CAPACITY {
            memo.keep(session(&format!("ses_{index}")), 1);
        }
        assert!(memo.get("ses_0").is_some());
        memo.keep(session("ses_one_more"), 1);
        assert!(memo.lock().len() <= CAPACITY);
        assert!(memo.get("ses_one_more").is_some());
    }
}
