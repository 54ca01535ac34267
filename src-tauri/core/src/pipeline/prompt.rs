//! The prompt pipeline (contract §3): load the session, choose agent and model, resolve the
//! drafts, let hooks edit, normalise attachments, validate, save message + parts in ONE
//! transaction, publish events after the commit, then either return (`noReply`) or hand the
//! session to the agent loop.

use crate::models::agent::Agent;
use crate::models::model_choice::{choose_model, choose_variant, current_model};
use crate::pipeline::attachment_storage;
use crate::pipeline::chat_message_hook::{run_hooks, ChatMessage};
use crate::pipeline::draft_resolution::{resolve_all, DraftContext};
use crate::pipeline::Pipeline;
use crate::store::engine::PooledConnection;
use crate::store::rows::prompt_session_change::PromptSessionChange;
use crate::store::tables::message_store;
use crate::store::tables::prompt_in_one_command::{self, PromptWrite};
use crate::store::tables::revert_cleanup;
use crate::store::tables::session_store::{self, ExpectedSession};
use crate::wire::assistant_error::AssistantError;
use crate::wire::draft::{Draft, PromptInput};
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::id::{validate_given, IdKind};
use crate::wire::message::{Message, MessageWithParts, ModelRef, UserMessage, UserModel, UserTime};
use crate::wire::part::{FileSource, Part};
use crate::wire::permission::{Action, Rule};
use crate::wire::session::{Session, SessionModel};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

impl Pipeline<'_> {
    pub async fn prompt(
        &self,
        session_id: &str,
        input: PromptInput,
    ) -> Result<MessageWithParts, LedgerError> {
        let checked = check_input(&input);
        let agent = match input.agent.as_deref() {
            Some(name) => self.runtime.agents.require(name),
            None => self.runtime.agents.default_agent(),
        };
        // One connection for the prompt's reads and its one-command write: each connection
        // handed back to the pool costs a spawned task and a round trip to the connection's
        // thread (the driver checks it on return), so the prompt hands back one, not one per use.
        let mut connection = self.store.connection().await?;
        // The session as the last prompt here left it (`prompt_session_memo`), or else read, with
        // its sequence counter, so the write can be tried in one command while the session stays
        // as decided from (`prompt_in_one_command`). Not with hooks: they see the model decided
        // from it, and deciding again after a stale memo must not run them twice.
        let remembered = if self.runtime.hooks.is_empty() {
            self.store.remembered_prompt_session(session_id)
        } else {
            None
        };
        let session_read = async {
            match remembered {
                Some(remembered) => Ok(SessionRead {
                    session: remembered.session,
                    last_seq: Some(remembered.last_seq),
                    remembered: true,
                }),
                None => session_store::get_with_sequence(&mut connection, session_id)
                    .await
                    .map(|(session, last_seq)| SessionRead {
                        session: Arc::new(session),
                        last_seq,
                        remembered: false,
                    }),
            }
        };
        // The drafts need the agent, not the session: they are resolved while the session is
        // read, so a dropped file's trip to a blocking thread and the read's trip to the
        // database overlap instead of following each other. Errors keep their order: the
        // session, the input, the agent.
        let (read, resolution, agent) = match (checked, agent) {
            (Ok(()), Ok(agent)) => {
                let context = DraftContext {
                    agent,
                    mcp: self.runtime.mcp.as_ref(),
                };
                let (read, resolution) =
                    tokio::join!(session_read, resolve_all(&context, input.parts));
                (read, resolution, agent)
            }
            // Refused before any draft is resolved; a missing session is named first.
            (Err(error), _) => {
                session_read.await?;
                return Err(error);
            }
            (Ok(()), Err(error)) => {
                session_read.await?;
                if input.agent.is_some() {
                    self.store.events.publish(EventPayload::session_error(
                        session_id,
                        AssistantError::unknown(error.to_string()),
                    ));
                }
                return Err(error);
            }
        };
        let read = read?;

        let catalog = self.runtime.settings.models();
        if let Some(requested) = &input.model {
            if catalog.find(requested).is_none() {
                let error = LedgerError::ModelNotFound {
                    provider_id: requested.provider_id.clone(),
                    model_id: requested.model_id.clone(),
                    available: catalog.labels(),
                };
                self.store.events.publish(EventPayload::session_error(
                    session_id,
                    AssistantError::unknown(error.to_string()),
                ));
                return Err(error);
            }
        }
        let (model, variant) = self
            .decide_model(
                &mut connection,
                &read.session,
                &input.model,
                &input.variant,
                agent,
            )
            .await?;

        let message_id = input
            .message_id
            .clone()
            .unwrap_or_else(|| self.store.new_id(IdKind::Message));
        let message = UserMessage {
            id: message_id.clone(),
            session_id: session_id.to_string(),
            time: UserTime {
                created: self.store.now(),
            },
            format: input.format.clone(),
            summary: None,
            agent: agent.name.clone(),
            model: UserModel {
                provider_id: model.provider_id.clone(),
                model_id: model.model_id.clone(),
                variant: variant.clone(),
            },
            system: input.system.clone(),
            tools: input.tools.clone(),
        };

        let parts: Vec<Part> = resolution
            .parts
            .into_iter()
            .map(|resolved| Part {
                id: resolved
                    .id
                    .unwrap_or_else(|| self.store.new_id(IdKind::Part)),
                session_id: session_id.to_string(),
                message_id: message_id.clone(),
                body: resolved.body,
            })
            .collect();
        let mut errors = resolution.errors;

        let (edited, hook_errors) =
            run_hooks(&self.runtime.hooks, ChatMessage { message, parts }).await;
        errors.extend(hook_errors);
        let mut prepared = attachment_storage::prepare(edited.parts).await;
        let mut message = edited.message;
        let mut read = read;
        let saved = loop {
            let as_read = read.last_seq.map(|last_seq| SessionAsRead {
                session: &read.session,
                last_seq,
                connection,
                remembered: read.remembered,
            });
            let outcome = self
                .save_prompt_as_decided(message, prepared, input.tools.as_ref(), &errors, as_read)
                .await?;
            match outcome {
                PromptSaved::Saved(saved) => break *saved,
                PromptSaved::DecidedFromAStaleMemo(returned) => {
                    // The session changed since the last prompt here: read it, decide again.
                    (message, prepared) = (returned.message, returned.prepared);
                    connection = self.store.connection().await?;
                    let (session, last_seq) =
                        session_store::get_with_sequence(&mut connection, session_id).await?;
                    read = SessionRead {
                        session: Arc::new(session),
                        last_seq,
                        remembered: false,
                    };
                    let (model, variant) = self
                        .decide_model(
                            &mut connection,
                            &read.session,
                            &input.model,
                            &input.variant,
                            agent,
                        )
                        .await?;
                    message.model = UserModel {
                        provider_id: model.provider_id,
                        model_id: model.model_id,
                        variant,
                    };
                }
            }
        };
        if input.no_reply == Some(true) {
            return Ok(saved);
        }
        self.hand_to_loop(session_id).await
    }

    /// The model and variant a prompt gets in `session`: the one it names, else its agent's, else
    /// the session's current one (the newest prompt's, the configured default, the first
    /// available).
    async fn decide_model(
        &self,
        connection: &mut PooledConnection,
        session: &Session,
        requested_model: &Option<ModelRef>,
        requested_variant: &Option<String>,
        agent: &Agent,
    ) -> Result<(ModelRef, Option<String>), LedgerError> {
        let catalog = self.runtime.settings.models();
        let newest_user_model = if session.model.is_none() {
            message_store::newest_user_message(connection, &session.id)
                .await?
                .map(|user| user.model.model_ref())
        } else {
            None
        };
        let configured = self
            .runtime
            .settings
            .config()
            .model
            .as_deref()
            .and_then(ModelRef::parse);
        let current = current_model(
            session.model.as_ref(),
            newest_user_model.as_ref(),
            configured.as_ref(),
            catalog.first_available().as_ref(),
        );
        let model = choose_model(requested_model.as_ref(), agent, current).ok_or_else(|| {
            LedgerError::ModelNotFound {
                provider_id: String::new(),
                model_id: String::new(),
                available: catalog.labels(),
            }
        })?;
        let variant = choose_variant(requested_variant.as_deref(), agent, &model, &catalog);
        Ok((model, variant))
    }

    /// Hands the session to the agent loop and waits for what it returns (the last reply).
    pub(crate) async fn hand_to_loop(
        &self,
        session_id: &str,
    ) -> Result<MessageWithParts, LedgerError> {
        let (store, runtime) = (self.store.clone(), self.runtime.clone());
        let session_id = session_id.to_string();
        self.runtime
            .agent_loop
            .run(store, runtime, session_id)
            .await
    }

    /// A prompt nobody waits for (OpenCode's `prompt_async`): a failure reaches the person as
    /// exactly one `session.error`. The pipeline publishes its own for an unknown agent and for
    /// an unknown model the caller named, and the session's runner for a reply that failed; any
    /// other failure is published here. The error is still returned, for the caller's log.
    pub async fn prompt_in_background(
        &self,
        session_id: &str,
        input: PromptInput,
    ) -> Result<(), LedgerError> {
        let names_model = input.model.is_some();
        let Err(error) = self.prompt(session_id, input).await else {
            return Ok(());
        };
        if !already_reported(&error, names_model) {
            self.store.events.publish(EventPayload::session_error(
                session_id,
                AssistantError::unknown(error.to_string()),
            ));
        }
        Err(error)
    }

    /// One transaction: revert clean-up, sequence numbers, the message, every part, attachment
    /// bytes, and the session's agent/model/time. Events go out only after the commit.
    pub(crate) async fn save_prompt(
        &self,
        message: UserMessage,
        prepared: Vec<attachment_storage::PreparedPart>,
        tools: Option<&BTreeMap<String, bool>>,
        errors: &[AssistantError],
    ) -> Result<MessageWithParts, LedgerError> {
        match self
            .save_prompt_as_decided(message, prepared, tools, errors, None)
            .await?
        {
            PromptSaved::Saved(saved) => Ok(*saved),
            // Only a remembered session can be stale, and none was given.
            PromptSaved::DecidedFromAStaleMemo(_) => Err(LedgerError::Corrupt(
                "a prompt saved without a session read was refused as stale".into(),
            )),
        }
    }

    /// `save_prompt`, first tried as one command (`prompt_in_one_command`) with the session the
    /// message was decided from (`read`), when no attachment bytes are stored apart. Refused
    /// unsaved when that session was remembered and has changed since: the caller decides again.
    async fn save_prompt_as_decided(
        &self,
        message: UserMessage,
        prepared: Vec<attachment_storage::PreparedPart>,
        tools: Option<&BTreeMap<String, bool>>,
        errors: &[AssistantError],
        read: Option<SessionAsRead<'_>>,
    ) -> Result<PromptSaved, LedgerError> {
        let session_id = message.session_id.clone();
        let now = self.store.now();
        let chosen_model = SessionModel {
            id: message.model.model_id.clone(),
            provider_id: message.model.provider_id.clone(),
            variant: Some(
                message
                    .model
                    .variant
                    .clone()
                    .unwrap_or_else(|| "default".into()),
            ),
        };
        // Deprecated input: OpenCode replaces the session's rules with these.
        let tool_rules: Option<Vec<Rule>> = tools.map(|tools| {
            tools
                .iter()
                .map(|(tool, enabled)| {
                    let action = if *enabled {
                        Action::Allow
                    } else {
                        Action::Deny
                    };
                    Rule::new(tool, "*", action)
                })
                .collect()
        });
        let change = PromptSessionChange {
            agent: &message.agent,
            model: &chosen_model,
            permission: tool_rules.as_ref(),
            updated: now,
        };
        let info = Message::User(message.clone());
        let written = match read {
            // A pending revert's clean-up is the general path's; the command would refuse it.
            Some(read)
                if read.session.revert.is_none()
                    && prepared.iter().all(|prepared| prepared.blob.is_none()) =>
            {
                let parts: Vec<Part> = prepared.into_iter().map(|prepared| prepared.part).collect();
                let count = 1 + parts.len() as i64;
                let in_one_command = prompt_in_one_command::save(
                    read.connection,
                    PromptWrite {
                        session_id: &session_id,
                        expected: ExpectedSession {
                            last_seq: read.last_seq,
                            agent: read.session.agent.as_deref(),
                            model: read.session.model.as_ref(),
                        },
                        change: &change,
                        message: &info,
                        parts: &parts,
                        now,
                    },
                )
                .await?;
                // Every part was inline (checked above): nothing to store apart.
                let inline = |parts: Vec<Part>| {
                    parts
                        .into_iter()
                        .map(|part| attachment_storage::PreparedPart { part, blob: None })
                        .collect()
                };
                match in_one_command {
                    Some(session) => {
                        self.store
                            .remember_prompt_session(session.clone(), read.last_seq + count);
                        let switched = read.session.agent.as_deref() != session.agent.as_deref()
                            || read.session.model != session.model;
                        Written {
                            session,
                            switched,
                            parts,
                            removed: revert_cleanup::Removed::default(),
                        }
                    }
                    None if read.remembered => {
                        self.store.forget_prompt_session(&session_id);
                        return Ok(PromptSaved::DecidedFromAStaleMemo(Box::new(Unsaved {
                            message,
                            prepared: inline(parts),
                        })));
                    }
                    None => {
                        self.store.forget_prompt_session(&session_id);
                        self.save_prompt_in_steps(&info, inline(parts), &change)
                            .await?
                    }
                }
            }
            other => {
                // Handed back before the general path takes a connection of its own.
                drop(other);
                self.store.forget_prompt_session(&session_id);
                self.save_prompt_in_steps(&info, prepared, &change).await?
            }
        };
        let Written {
            session,
            switched,
            parts,
            removed,
        } = written;
        if !removed.messages.is_empty() || !removed.parts.is_empty() {
            self.store.wake_search_purge();
        }

        for (message_id, part_id) in removed.parts {
            self.store.events.publish(EventPayload::PartRemoved {
                session_id: session_id.clone(),
                message_id,
                part_id,
            });
        }
        for message_id in removed.messages {
            self.store.events.publish(EventPayload::MessageRemoved {
                session_id: session_id.clone(),
                message_id,
            });
        }
        if switched {
            self.store.events.publish(EventPayload::SessionUpdated {
                session_id: session_id.clone(),
                info: session.clone(),
            });
        }
        self.store.events.publish(EventPayload::MessageUpdated {
            session_id: session_id.clone(),
            info: info.clone(),
        });
        for part in &parts {
            self.store.events.publish(EventPayload::PartUpdated {
                session_id: session_id.clone(),
                part: part.clone(),
                time: now,
            });
        }
        self.store.events.publish(EventPayload::SessionUpdated {
            session_id: session_id.clone(),
            info: session,
        });
        for error in errors {
            self.store
                .events
                .publish(EventPayload::session_error(&session_id, error.clone()));
        }
        Ok(PromptSaved::Saved(Box::new(MessageWithParts {
            info,
            parts,
        })))
    }

    /// The prompt's transaction in steps, for every case: the sequence reservation with the
    /// session's change, a pending revert's clean-up, attachment bytes stored apart, the rows.
    async fn save_prompt_in_steps(
        &self,
        info: &Message,
        prepared: Vec<attachment_storage::PreparedPart>,
        change: &PromptSessionChange<'_>,
    ) -> Result<Written, LedgerError> {
        let session_id = info.session_id();
        // Its first statement is a write (the sequence reservation), so this transaction holds
        // SQLite's write lock from there on.
        let mut transaction = self.store.begin_with_a_write_first().await?;
        let (first_seq, mut session) = session_store::reserve_sequence_for_prompt(
            &mut transaction,
            session_id,
            1 + prepared.len() as i64,
            change,
        )
        .await?;
        let switched = session.agent.as_deref() != Some(change.agent)
            || session.model.as_ref() != Some(change.model);
        session.agent = Some(change.agent.to_string());
        session.model = Some(change.model.clone());
        if let Some(rules) = change.permission {
            session.permission = Some(rules.clone());
        }
        session.time.updated = change.updated.max(session.time.updated);
        let stored_title = session.title.clone();
        let had_revert = session.revert.is_some();
        let removed = revert_cleanup::apply(&mut transaction, &mut session).await?;

        let parts = attachment_storage::store(&mut transaction, prepared, change.updated).await?;
        message_store::insert_message_with_parts(
            &mut transaction,
            info,
            &parts,
            first_seq,
            change.updated,
        )
        .await?;
        if had_revert {
            // The clean-up cleared the marker (and took the undone steps out of the totals).
            session_store::save_over(&mut transaction, &session, &stored_title).await?;
        }
        transaction.commit().await?;
        Ok(Written {
            session,
            switched,
            parts,
            removed,
        })
    }
}

/// The session a prompt decides from: read before its drafts were resolved, or remembered from
/// the last prompt in it (`prompt_session_memo`); with its sequence counter (SQLite's only).
struct SessionRead {
    session: Arc<Session>,
    last_seq: Option<i64>,
    remembered: bool,
}

/// The session as the prompt decided from it, with its sequence counter, and the connection for
/// the write (the one it was read on).
pub(crate) struct SessionAsRead<'read> {
    pub session: &'read Session,
    pub last_seq: i64,
    pub connection: PooledConnection,
    /// Remembered, not read: it may have changed since (`prompt_session_memo`).
    pub remembered: bool,
}

/// A prompt saved, or refused unsaved because the remembered session it was decided from
/// changed (the message and its parts are handed back for the next try).
enum PromptSaved {
    Saved(Box<MessageWithParts>),
    DecidedFromAStaleMemo(Box<Unsaved>),
}

struct Unsaved {
    message: UserMessage,
    prepared: Vec<attachment_storage::PreparedPart>,
}

/// What the prompt's transaction wrote: the session as changed, whether its agent or model
/// switched, the stored parts, and what a pending revert's clean-up removed.
struct Written {
    session: Session,
    switched: bool,
    parts: Vec<Part>,
    removed: revert_cleanup::Removed,
}

/// Refuses bad input before anything is resolved or stored, naming the offending part.
pub fn check_input(input: &PromptInput) -> Result<(), LedgerError> {
    if input.parts.is_empty() {
        return Err(LedgerError::InvalidPrompt(
            "a prompt needs at least one part".into(),
        ));
    }
    if let Some(id) = &input.message_id {
        validate_given(IdKind::Message, id).map_err(|reason| LedgerError::InvalidId {
            id: id.clone(),
            reason,
        })?;
    }
    let mut seen = HashSet::new();
    for (index, draft) in input.parts.iter().enumerate() {
        if let Some(id) = draft.id() {
            validate_given(IdKind::Part, id).map_err(|reason| LedgerError::InvalidId {
                id: id.to_string(),
                reason,
            })?;
            if !seen.insert(id) {
                return Err(LedgerError::InvalidPrompt(format!(
                    "part {index} repeats the id {id}"
                )));
            }
        }
        if let Draft::File(file) = draft {
            if matches!(file.part.source, Some(FileSource::Resource { .. })) {
                // An MCP resource's url belongs to its server's scheme; the server reads it.
                continue;
            }
            let url = &file.part.url;
            let scheme = url
                .split_once(':')
                .map(|(scheme, _)| scheme.to_ascii_lowercase());
            match scheme.as_deref() {
                Some("data") => {}
                Some("file" | "http" | "https") => {
                    url::Url::parse(url).map_err(|error| {
                        LedgerError::InvalidPrompt(format!("part {index}: \"{url}\" is not a valid URL: {error}"))
                    })?;
                }
                _ => {
                    return Err(LedgerError::InvalidPrompt(format!(
                        "part {index}: a file part's url must be a file:, data:, http: or https: URL, not \"{}\"",
                        url.chars().take(80).collect::<String>()
                    )))
                }
            }
        }
    }
    Ok(())
}
/// Whether `error` was already published as `session.error` by the pipeline or the runner.
fn already_reported(error: &LedgerError, names_model: bool) -> bool {
    match error {
        LedgerError::AgentNotFound { .. } | LedgerError::ReplyFailed(_) => true,
        LedgerError::ModelNotFound { .. } => names_model,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::already_reported;
    use crate::wire::error::LedgerError;

    #[test]
    fn only_errors_nobody_published_are_reported_in_the_background() {
        let unknown_model = || LedgerError::ModelNotFound {
            provider_id: "p".into(),
            model_id: "m".into(),
            available: Vec::new(),
        };
        let cases = [
            (
                LedgerError::AgentNotFound {
                    name: "x".into(),
                    available: Vec::new(),
                },
                false,
                true,
            ),
            (LedgerError::ReplyFailed("boom".into()), false, true),
            // Named by the caller: the pipeline said so; chosen by it: nobody has yet.
            (unknown_model(), true, true),
            (unknown_model(), false, false),
            (LedgerError::RepliesUnavailable, false, false),
            (LedgerError::SessionNotFound("ses_x".into()), true, false),
        ];
        for (error, names_model, expected) in cases {
            assert_eq!(
                already_reported(&error, names_model),
                expected,
                "{error:?} (model named: {names_model})"
            );
        }
    }
}
