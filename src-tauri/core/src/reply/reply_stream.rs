//! One step of a reply: a provider's event stream becomes stored parts. `step-start` at the
//! first event; text and reasoning parts created empty, grown by `message.part.delta` events and
//! finished with their full text; tool parts pending → running → completed | error; `step-finish`
//! with reason and tokens. Streamed text is checkpointed to the database every 250 ms, so a crash
//! loses at most that much. Abort ends the stream at once and closes what is open.

use crate::models::provider::{EventStream, ProviderFailure, StreamEvent, Usage};
use crate::reply::reply_context::ReplyContext;
use crate::reply::session_runner::RunControl;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::id::IdKind;
use crate::wire::message::AssistantMessage;
use crate::wire::part::{
    Part, PartBody, PartTime, ReasoningPart, StepFinishPart, StepStartPart, TextPart, ToolPart,
    ToolState,
};
use crate::wire::permission::Rule;
use crate::wire::session::{CacheTokens, Tokens};
use futures::StreamExt;
use indexmap::IndexMap;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

/// The longest stretch of streamed text that only lives in memory.
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_millis(250);
pub const TOOL_ABORTED: &str = "Tool execution aborted";

/// How a step ended. The assistant message is updated by the caller, except for `finish` and
/// `tokens`, which a finished step has already recorded.
mod mcp_tool_call;
mod tool_call;

#[derive(Debug, PartialEq)]
pub(crate) enum StepEnd {
    Finished,
    /// Finished, but the person refused a tool call; the loop stops here.
    Refused,
    Aborted,
    /// `produced` tells whether anything reached the ledger, i.e. whether a retry would repeat it.
    Failed {
        failure: ProviderFailure,
        produced: bool,
    },
}

pub(crate) struct Step<'context> {
    pub context: &'context ReplyContext,
    pub control: &'context RunControl,
    pub assistant: &'context mut AssistantMessage,
    pub directory: PathBuf,
    /// The session the reply belongs to: the parent of any task's child session.
    pub session: crate::wire::session::Session,
    /// Agent rules, then session rules: the last match wins.
    pub rules: Vec<Rule>,
    pub price: Option<crate::models::reply_cost::Price>,
    /// Set when the person refused a tool call: the run stops after this step, as in OpenCode.
    pub rejected: bool,
    /// The run's tool calls so far (name, input), for the doom-loop check.
    pub recent_calls: &'context mut Vec<(String, serde_json::Value)>,
}

/// A text or reasoning part being streamed.
struct Growing {
    part: Part,
    /// Text not yet checkpointed.
    dirty: bool,
}

enum Flow {
    Continue,
    Finished,
    Aborted,
}

struct StepState {
    started: bool,
    text: Option<Growing>,
    reasoning: Option<Growing>,
    tools: IndexMap<String, Part>,
}

impl Step<'_> {
    pub(crate) async fn run(&mut self, mut stream: EventStream) -> Result<StepEnd, LedgerError> {
        let mut state = StepState {
            started: false,
            text: None,
            reasoning: None,
            tools: IndexMap::new(),
        };
        let mut checkpoint = tokio::time::interval(CHECKPOINT_INTERVAL);
        checkpoint.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        checkpoint.tick().await;
        let control = self.control;
        let end = loop {
            if control.is_aborted() {
                break StepEnd::Aborted;
            }
            tokio::select! {
                biased;
                () = control.aborted() => break StepEnd::Aborted,
                _ = checkpoint.tick() => self.checkpoint(&mut state).await?,
                item = stream.next() => match item {
                    Some(Ok(event)) => match self.handle(&mut state, event).await? {
                        Flow::Continue => {}
                        Flow::Finished => break StepEnd::Finished,
                        Flow::Aborted => break StepEnd::Aborted,
                    },
                    Some(Err(failure)) => break StepEnd::Failed { failure, produced: state.started },
                    None => break StepEnd::Failed {
                        failure: crate::models::provider::stream_cut(),
                        produced: state.started,
                    },
                },
            }
        };
        // Dropping the stream closes the connection: an aborted reply stops costing tokens.
        drop(stream);
        self.close_open(&mut state).await?;
        Ok(end)
    }

    fn new_part(&self, body: PartBody) -> Part {
        Part {
            id: self.context.new_id(IdKind::Part),
            session_id: self.assistant.session_id.clone(),
            message_id: self.assistant.id.clone(),
            body,
        }
    }

    async fn handle(
        &mut self,
        state: &mut StepState,
        event: StreamEvent,
    ) -> Result<Flow, LedgerError> {
        if !state.started {
            state.started = true;
            let part = self.new_part(PartBody::StepStart(StepStartPart { snapshot: None }));
            self.context.insert_reply_part(&part).await?;
        }
        match event {
            StreamEvent::TextStart => self.open_text(state, false).await?,
            StreamEvent::ReasoningStart => self.open_text(state, true).await?,
            StreamEvent::TextDelta(delta) => self.grow(state, false, delta).await?,
            StreamEvent::ReasoningDelta(delta) => self.grow(state, true, delta).await?,
            StreamEvent::TextEnd => self.finish_text(state, false).await?,
            StreamEvent::ReasoningEnd => self.finish_text(state, true).await?,
            StreamEvent::ReasoningSignature(signature) => sign_reasoning(state, &signature),
            StreamEvent::RedactedReasoning(data) => {
                // A part of its own with no text, so the encrypted thinking is kept in order.
                self.open_text(state, true).await?;
                if let Some(growing) = state.reasoning.as_mut() {
                    if let PartBody::Reasoning(reasoning) = &mut growing.part.body {
                        reasoning.metadata = Some(json!({"anthropic": {"redactedData": data}}));
                    }
                }
                self.finish_text(state, true).await?;
            }
            StreamEvent::ToolInputStart { call_id, name } => {
                self.pending_tool(state, &call_id, &name).await?;
            }
            StreamEvent::ToolCall {
                call_id,
                name,
                input,
            } => return self.call_tool(state, call_id, name, input).await,
            StreamEvent::Finish { reason, usage } => {
                self.finish_text(state, true).await?;
                self.finish_text(state, false).await?;
                let tokens = tokens_of(usage);
                let cost = crate::models::reply_cost::step_cost(usage, self.price);
                let part = self.new_part(PartBody::StepFinish(StepFinishPart {
                    reason: reason.clone(),
                    snapshot: None,
                    cost,
                    tokens: tokens.clone(),
                }));
                self.context.insert_reply_part(&part).await?;
                self.context
                    .add_session_usage(&self.assistant.session_id, cost, &tokens)
                    .await?;
                self.assistant.finish = Some(reason);
                self.assistant.cost += cost;
                self.assistant.tokens = tokens;
                self.context.store_reply_message(self.assistant).await?;
                return Ok(Flow::Finished);
            }
        }
        Ok(Flow::Continue)
    }

    async fn open_text(
        &mut self,
        state: &mut StepState,
        reasoning: bool,
    ) -> Result<(), LedgerError> {
        self.finish_text(state, reasoning).await?;
        let time = PartTime {
            start: self.context.now(),
            end: None,
        };
        let body = if reasoning {
            PartBody::Reasoning(ReasoningPart {
                text: String::new(),
                metadata: None,
                time,
            })
        } else {
            PartBody::Text(TextPart {
                time: Some(time),
                ..TextPart::default()
            })
        };
        let part = self.new_part(body);
        self.context.insert_reply_part(&part).await?;
        let slot = if reasoning {
            &mut state.reasoning
        } else {
            &mut state.text
        };
        *slot = Some(Growing { part, dirty: false });
        Ok(())
    }

    async fn grow(
        &mut self,
        state: &mut StepState,
        reasoning: bool,
        delta: String,
    ) -> Result<(), LedgerError> {
        let open = if reasoning {
            &state.reasoning
        } else {
            &state.text
        };
        if open.is_none() {
            self.open_text(state, reasoning).await?;
        }
        let slot = if reasoning {
            &mut state.reasoning
        } else {
            &mut state.text
        };
        let Some(growing) = slot.as_mut() else {
            return Ok(());
        };
        match &mut growing.part.body {
            PartBody::Text(text) => text.text.push_str(&delta),
            PartBody::Reasoning(text) => text.text.push_str(&delta),
            _ => {}
        }
        growing.dirty = true;
        self.context.store.events.publish(EventPayload::PartDelta {
            session_id: growing.part.session_id.clone(),
            message_id: growing.part.message_id.clone(),
            part_id: growing.part.id.clone(),
            field: "text".into(),
            delta,
        });
        Ok(())
    }

    async fn finish_text(
        &mut self,
        state: &mut StepState,
        reasoning: bool,
    ) -> Result<(), LedgerError> {
        let slot = if reasoning {
            &mut state.reasoning
        } else {
            &mut state.text
        };
        let Some(mut growing) = slot.take() else {
            return Ok(());
        };
        let now = self.context.now();
        match &mut growing.part.body {
            PartBody::Text(text) => {
                if let Some(time) = text.time.as_mut() {
                    time.end = Some(now);
                }
            }
            PartBody::Reasoning(text) => text.time.end = Some(now),
            _ => {}
        }
        self.context.store_reply_part(&growing.part, true).await
    }

    async fn checkpoint(&mut self, state: &mut StepState) -> Result<(), LedgerError> {
        for growing in [state.text.as_mut(), state.reasoning.as_mut()]
            .into_iter()
            .flatten()
        {
            if growing.dirty {
                self.context.store_reply_part(&growing.part, false).await?;
                growing.dirty = false;
            }
        }
        Ok(())
    }

    /// Keeps the text streamed so far (with an end time) and closes tools still open as aborted.
    async fn close_open(&mut self, state: &mut StepState) -> Result<(), LedgerError> {
        self.finish_text(state, true).await?;
        self.finish_text(state, false).await?;
        let open: Vec<(String, Value, i64)> = state
            .tools
            .iter()
            .filter_map(|(call_id, part)| match &part.body {
                PartBody::Tool(ToolPart {
                    state: ToolState::Pending { input, .. },
                    ..
                }) => Some((call_id.clone(), input.clone(), self.context.now())),
                PartBody::Tool(ToolPart {
                    state: ToolState::Running { input, time, .. },
                    ..
                }) => Some((call_id.clone(), input.clone(), time.start)),
                _ => None,
            })
            .collect();
        for (call_id, input, start) in open {
            self.settle_tool(
                state,
                &call_id,
                Err((
                    input,
                    TOOL_ABORTED.into(),
                    Some(json!({"interrupted": true})),
                )),
                start,
            )
            .await?;
        }
        Ok(())
    }
}

pub fn tokens_of(usage: Usage) -> Tokens {
    Tokens {
        total: Some(usage.input + usage.output + usage.cache_read + usage.cache_write),
        input: usage.input,
        output: usage.output,
        reasoning: usage.reasoning,
        cache: CacheTokens {
            read: usage.cache_read,
            write: usage.cache_write,
        },
    }
}

/// Keeps Anthropic's signature on the open reasoning part, where the AI SDK's provider metadata
/// puts it (`metadata.anthropic.signature`); it is stored when the part finishes.
fn sign_reasoning(state: &mut StepState, signature: &str) {
    let Some(growing) = state.reasoning.as_mut() else {
        return;
    };
    if let PartBody::Reasoning(reasoning) = &mut growing.part.body {
        let earlier =
            crate::models::model_messages::reasoning_signature(reasoning.metadata.as_ref())
                .unwrap_or_default();
        reasoning.metadata =
            Some(json!({"anthropic": {"signature": format!("{earlier}{signature}")}}));
        growing.dirty = true;
    }
}
