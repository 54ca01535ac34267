//! Creating, reading, listing, updating and deleting sessions, with their events.

use crate::store::tables::session_store;
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::id::IdKind;
use crate::wire::session::{
    default_title, CreateSession, Session, SessionPatch, SessionTime, SessionTimePatch, Tokens,
};

const ADJECTIVES: [&str; 16] = [
    "brave", "calm", "clever", "eager", "gentle", "happy", "keen", "lucky", "mighty", "nimble",
    "proud", "quiet", "swift", "tidy", "witty", "young",
];
const NOUNS: [&str; 16] = [
    "badger", "cactus", "comet", "falcon", "garden", "harbor", "island", "lantern", "meadow",
    "otter", "panda", "river", "rocket", "tiger", "violet", "willow",
];

fn slug() -> String {
    use rand::seq::SliceRandom;
    let mut rng = rand::thread_rng();
    format!(
        "{}-{}",
        ADJECTIVES.choose(&mut rng).unwrap_or(&"quiet"),
        NOUNS.choose(&mut rng).unwrap_or(&"river")
    )
}

impl Store {
    /// A new session. The caller has checked its agent; `default_directory` is where it works
    /// when neither the input nor a parent names a folder; `created_by_token` is the name of
    /// the access token the request came with, on a shared server.
    pub async fn create_session(
        &self,
        input: CreateSession,
        default_directory: &std::path::Path,
        created_by_token: Option<String>,
    ) -> Result<Session, LedgerError> {
        let now = self.now();
        let mut connection = self.pool.acquire().await?;
        let parent = match &input.parent_id {
            Some(parent_id) => Some(session_store::get(&mut connection, parent_id).await?),
            None => None,
        };
        let directory = input
            .directory
            .clone()
            .or_else(|| parent.as_ref().map(|parent| parent.directory.clone()))
            .unwrap_or_else(|| default_directory.display().to_string());
        let session = Session {
            id: self.new_id(IdKind::Session),
            slug: slug(),
            project_id: "global".into(),
            directory,
            path: String::new(),
            parent_id: input.parent_id.clone(),
            summary: None,
            cost: 0.0,
            tokens: Tokens::default(),
            title: input
                .title
                .clone()
                .filter(|title| !title.trim().is_empty())
                .unwrap_or_else(|| default_title(input.parent_id.is_some(), now)),
            agent: input.agent.clone(),
            model: input.model.clone(),
            version: env!("CARGO_PKG_VERSION").into(),
            time: SessionTime {
                created: now,
                updated: now,
                compacting: None,
                archived: None,
            },
            permission: input.permission.clone(),
            revert: None,
            pinned: false,
            created_by_token,
        };
        session_store::insert(&mut connection, &session).await?;
        drop(connection);
        // OpenCode publishes both, in this order; its clients expect it.
        self.events.publish(EventPayload::SessionCreated {
            session_id: session.id.clone(),
            info: session.clone(),
        });
        self.events.publish(EventPayload::SessionUpdated {
            session_id: session.id.clone(),
            info: session.clone(),
        });
        Ok(session)
    }

    pub async fn session(&self, id: &str) -> Result<Session, LedgerError> {
        let mut connection = self.pool.acquire().await?;
        session_store::get(&mut connection, id).await
    }

    pub async fn children(&self, id: &str) -> Result<Vec<Session>, LedgerError> {
        self.session(id).await?;
        session_store::children(&self.pool, id).await
    }

    pub async fn update_session(
        &self,
        id: &str,
        patch: SessionPatch,
    ) -> Result<Session, LedgerError> {
        // IMMEDIATE: this reads then writes, and a reply streaming into the session writes
        // meanwhile; a deferred transaction would fail with SQLITE_BUSY_SNAPSHOT.
        let mut transaction = self.begin_write().await?;
        let mut session = session_store::get_to_change(&mut transaction, id).await?;
        let old_title = session.title.clone();
        if let Some(title) = patch.title {
            let title = title.trim().to_string();
            if title.is_empty() {
                return Err(LedgerError::InvalidRequest(
                    "a session title cannot be empty".into(),
                ));
            }
            session.title = title;
        }
        if let Some(rules) = patch.permission {
            session
                .permission
                .get_or_insert_with(Vec::new)
                .extend(rules);
        }
        if let Some(time) = patch.time {
            if let Some(archived) = time.archived {
                session.time.archived = archived;
            }
        }
        if let Some(pinned) = patch.pinned {
            session.pinned = pinned;
        }
        session.time.updated = self.now().max(session.time.updated);
        session_store::save(&mut transaction, &session).await?;
        transaction.commit().await?;
        if session.title != old_title {
            self.wake_search_purge();
        }
        self.events.publish(EventPayload::SessionUpdated {
            session_id: session.id.clone(),
            info: session.clone(),
        });
        Ok(session)
    }

    /// Archives the session now — by the store's clock, so every adapter stamps it the same way
    /// — or brings it back.
    pub async fn archive_session(&self, id: &str, archived: bool) -> Result<Session, LedgerError> {
        let patch = SessionPatch {
            time: Some(SessionTimePatch {
                archived: Some(archived.then(|| self.now())),
            }),
            ..SessionPatch::default()
        };
        self.update_session(id, patch).await
    }

    /// Deletes the session with its children, messages and parts, in one transaction; returns
    /// the sessions removed. The caller stops their replies, then calls `announce_deleted`.
    pub async fn delete_session(&self, id: &str) -> Result<Vec<Session>, LedgerError> {
        let mut transaction = self.begin_write().await?;
        let removed = session_store::with_descendants(&mut transaction, id).await?;
        if removed.is_empty() {
            return Err(LedgerError::SessionNotFound(id.to_string()));
        }
        session_store::delete(&mut transaction, id).await?;
        transaction.commit().await?;
        Ok(removed)
    }

    /// Tells clients of the deleted sessions, and gives their words and disk space back.
    pub async fn announce_deleted(&self, removed: Vec<Session>) {
        for session in removed.into_iter().rev() {
            self.events.publish(EventPayload::SessionDeleted {
                session_id: session.id.clone(),
                info: session,
            });
        }
        self.wake_search_purge();
        if let Err(error) = self.give_back_free_pages().await {
            tracing::warn!("the deleted session's disk space stays reserved for now: {error}");
        }
    }
}
