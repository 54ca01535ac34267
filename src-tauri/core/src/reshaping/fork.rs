//! Forking a session at a message: a new session holding copies of every message before that
//! message (the fork point itself is left out, as OpenCode does, so the client can put its text
//! back in the composer), with new ids, `parentID` and compaction `tail_start_id` remapped — in
//! one transaction. Better than OpenCode: the fork keeps the agent, model and permission.

use crate::reshaping::Reshaping;
use crate::store::rows::message_page::MessageQuery;
use crate::store::tables::message_store;
use crate::store::tables::session_store;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::id::IdKind;
use crate::wire::message::{Message, MessageWithParts};
use crate::wire::part::PartBody;
use crate::wire::session::{Session, SessionTime};
use std::collections::HashMap;

/// `"Title"` → `"Title (fork #1)"`, `"Title (fork #1)"` → `"Title (fork #2)"`.
pub fn forked_title(title: &str) -> String {
    if let Some(stripped) = title.strip_suffix(')') {
        if let Some((base, number)) = stripped.rsplit_once(" (fork #") {
            if let Ok(number) = number.parse::<u32>() {
                return format!("{base} (fork #{})", number + 1);
            }
        }
    }
    format!("{title} (fork #1)")
}

impl Reshaping<'_> {
    /// Forks `session_id` before `message_id` (or copies every message when `None`).
    pub async fn fork_session(
        &self,
        session_id: &str,
        message_id: Option<&str>,
    ) -> Result<Session, LedgerError> {
        let source = self.store.session(session_id).await?;
        let all =
            message_store::list(&self.store.pool, session_id, &MessageQuery::default()).await?;
        let kept: Vec<MessageWithParts> = match message_id {
            Some(cut) => {
                let position = all
                    .messages
                    .iter()
                    .position(|message| message.info.id() == cut)
                    .ok_or_else(|| LedgerError::MessageNotFound {
                        session_id: session_id.to_string(),
                        message_id: cut.to_string(),
                    })?;
                all.messages.into_iter().take(position).collect()
            }
            None => all.messages,
        };
        let now = self.store.now();
        let mut fork = Session {
            id: self.store.new_id(IdKind::Session),
            slug: source.slug.clone(),
            title: forked_title(&source.title),
            parent_id: None,
            revert: None,
            pinned: false,
            // Who forked or imported is not recorded: only `POST /session` with a token is.
            created_by_token: None,
            time: SessionTime {
                created: now,
                updated: now,
                compacting: None,
                archived: None,
            },
            ..source.clone()
        };
        let copies = self.remap(&fork.id, kept);
        // The fork's totals are those of the steps it copies, not the whole source's.
        crate::store::tables::session_usage::total_of_steps(
            &mut fork,
            copies
                .iter()
                .flat_map(|message| message.parts.iter().map(|part| &part.body)),
        );
        let mut transaction = self.store.begin_write().await?;
        session_store::insert(&mut transaction, &fork).await?;
        self.insert_copies(&mut transaction, &fork.id, &copies, now)
            .await?;
        transaction.commit().await?;
        self.store.events.publish(EventPayload::SessionCreated {
            session_id: fork.id.clone(),
            info: fork.clone(),
        });
        self.store.events.publish(EventPayload::SessionUpdated {
            session_id: fork.id.clone(),
            info: fork.clone(),
        });
        Ok(fork)
    }

    /// Gives every message and part a new id in `session_id`, remapping references between them.
    pub(crate) fn remap(
        &self,
        session_id: &str,
        messages: Vec<MessageWithParts>,
    ) -> Vec<MessageWithParts> {
        let new_ids: HashMap<String, String> = messages
            .iter()
            .map(|message| {
                (
                    message.info.id().to_string(),
                    self.store.new_id(IdKind::Message),
                )
            })
            .collect();
        let renamed = |id: &str| new_ids.get(id).cloned().unwrap_or_else(|| id.to_string());
        messages
            .into_iter()
            .map(|MessageWithParts { mut info, parts }| {
                match &mut info {
                    Message::User(user) => {
                        user.id = renamed(&user.id);
                        user.session_id = session_id.to_string();
                    }
                    Message::Assistant(assistant) => {
                        assistant.id = renamed(&assistant.id);
                        assistant.session_id = session_id.to_string();
                        assistant.parent_id = renamed(&assistant.parent_id);
                    }
                }
                let message_id = info.id().to_string();
                let parts = parts
                    .into_iter()
                    .map(|mut part| {
                        part.id = self.store.new_id(IdKind::Part);
                        part.session_id = session_id.to_string();
                        part.message_id.clone_from(&message_id);
                        if let PartBody::Compaction(compaction) = &mut part.body {
                            compaction.tail_start_id =
                                compaction.tail_start_id.as_deref().map(renamed);
                        }
                        part
                    })
                    .collect();
                MessageWithParts { info, parts }
            })
            .collect()
    }

    pub(crate) async fn insert_copies(
        &self,
        connection: &mut impl crate::store::Connect,
        session_id: &str,
        messages: &[MessageWithParts],
        now: i64,
    ) -> Result<(), LedgerError> {
        let count: usize = messages.iter().map(|message| 1 + message.parts.len()).sum();
        if count == 0 {
            return Ok(());
        }
        let mut seq = session_store::reserve_sequence(connection, session_id, count as i64).await?;
        for message in messages {
            message_store::insert_message(connection, &message.info, seq, now).await?;
            seq += 1;
            for part in &message.parts {
                message_store::insert_part(connection, part, seq, now).await?;
                seq += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::forked_title;

    #[test]
    fn fork_titles_count_up() {
        assert_eq!(forked_title("Taxes"), "Taxes (fork #1)");
        assert_eq!(forked_title("Taxes (fork #1)"), "Taxes (fork #2)");
        assert_eq!(forked_title("Taxes (fork #x)"), "Taxes (fork #x) (fork #1)");
    }
}
