//! One pass of the agent loop, named step by step: read the history, answer what takes the
//! place of a model step (a subtask, a summary), else ask the model and settle how the step
//! ended. `run_loop::run` repeats it.

use super::{
    close, history, inline_blobs, latest_finished_id, latest_user, new_assistant, offered_tools,
    reply_is_complete, stream_step, system_prompt, StepPlan, ABORTED_MESSAGE,
};
use crate::models::agent::Agent;
use crate::models::model_messages;
use crate::models::provider::{ModelProvider, ModelRequest, ProviderFailure};
use crate::reply::reply_context::ReplyContext;
use crate::reply::reply_stream::StepEnd;
use crate::reply::session_runner::RunControl;
use crate::reply::title;
use crate::wire::assistant_error::AssistantError;
use crate::wire::error::LedgerError;
use crate::wire::message::{AssistantMessage, MessageWithParts, ModelRef, UserMessage};
use crate::wire::permission::Rule;
use crate::wire::session::Session;
use std::sync::Arc;

/// Whether the loop takes another step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    Continue,
    Stop,
}

impl Next {
    /// A summary or subtask that finished lets the loop go on; anything else ends the run.
    fn after(end: &StepEnd) -> Self {
        if *end == StepEnd::Finished {
            Self::Continue
        } else {
            Self::Stop
        }
    }
}

/// What one run carries from step to step.
pub(super) struct RunState {
    step: u32,
    /// Recent tool calls, to notice a model repeating itself.
    recent_calls: Vec<(String, serde_json::Value)>,
    /// A run summarises the history at most once.
    compacted: bool,
    /// `compaction.auto: false` in the config turns automatic summaries off (OpenCode's switch).
    auto_compaction: bool,
}

impl RunState {
    pub(super) fn new(context: &ReplyContext) -> Self {
        Self {
            step: 0,
            recent_calls: Vec::new(),
            compacted: false,
            auto_compaction: context.config().compaction.auto != Some(false),
        }
    }

    /// Takes the run's one automatic summary, if it is still to be had.
    fn take_compaction(&mut self) -> bool {
        let allowed = !self.compacted && self.auto_compaction;
        self.compacted |= allowed;
        allowed
    }
}

/// Who answers whom in one step: the newest user message, its session, agent and model.
struct Turn<'run> {
    context: &'run ReplyContext,
    control: &'run RunControl,
    client: &'run reqwest::Client,
    session: Session,
    user: UserMessage,
    agent: Agent,
    model: ModelRef,
    /// The model's context and output limits, when known.
    limit: Option<serde_json::Value>,
}

/// One pass of the loop: answer what the newest user message still waits for.
pub(super) async fn take_step(
    context: &ReplyContext,
    control: &RunControl,
    client: &reqwest::Client,
    state: &mut RunState,
) -> Result<Next, LedgerError> {
    let history =
        crate::reply::compaction::visible_history(history(context, &control.session_id).await?);
    if reply_is_complete(&history) {
        return Ok(Next::Stop);
    }
    let Some(user) = latest_user(&history).cloned() else {
        return Ok(Next::Stop);
    };
    state.step += 1;
    let session = context.session(&control.session_id).await?;
    if state.step == 1 {
        start_title(context, &session, &history, client);
    }
    let agent = answering_agent(context, &user)?;
    let model = user.model.model_ref();
    let limit = crate::models::model_snapshot::limit_of(&context.config(), &model);
    let turn = Turn {
        context,
        control,
        client,
        session,
        user,
        agent,
        model,
        limit,
    };
    if let Some(next) = answer_before_the_model(&turn, state, &history).await? {
        return Ok(next);
    }
    ask_the_model(&turn, state, history).await
}

/// A new session's title is written beside the first reply, not before it.
fn start_title(
    context: &ReplyContext,
    session: &Session,
    history: &[MessageWithParts],
    client: &reqwest::Client,
) {
    if title::wanted(session, history) {
        tokio::spawn(title::generate(
            context.clone(),
            session.clone(),
            history.to_vec(),
            client.clone(),
        ));
    }
}

/// The agent the user message names, else the default one.
fn answering_agent(context: &ReplyContext, user: &UserMessage) -> Result<Agent, LedgerError> {
    match context.agents().get(&user.agent) {
        Some(agent) => Ok(agent.clone()),
        None => Ok(context.agents().default_agent()?.clone()),
    }
}

/// Work that takes the place of a model step: a subtask part, a summary the person asked for,
/// or an automatic one when the last reply filled the context. `None` when there is none.
async fn answer_before_the_model(
    turn: &Turn<'_>,
    state: &mut RunState,
    history: &[MessageWithParts],
) -> Result<Option<Next>, LedgerError> {
    let Turn {
        context,
        control,
        client,
        session,
        user,
        ..
    } = turn;
    if let Some((_, subtask)) = crate::reply::subtask::pending(history) {
        let handled =
            crate::reply::subtask::run_part(context, control, session, user, subtask).await?;
        return Ok(Some(if handled == StepEnd::Aborted {
            Next::Stop
        } else {
            Next::Continue
        }));
    }
    if let Some((index, request)) = crate::reply::compaction::pending_request(history) {
        // The user asked for a summary: it answers the request instead of a model step.
        let before = &history[..index];
        let end = crate::reply::compaction::summarize_before(
            context, control, session, request, before, client,
        )
        .await?;
        return Ok(Some(Next::after(&end)));
    }
    if crate::reply::compaction::needs_compaction(history, turn.limit.as_ref())
        && state.take_compaction()
    {
        // The last reply filled the context: summarise before asking again.
        let end = crate::reply::compaction::compact(
            context, control, session, user, history, None, client,
        )
        .await?;
        return Ok(Some(Next::after(&end)));
    }
    Ok(None)
}

/// A model step: the assistant message first (persisted before the model is called), then the
/// request, the streamed reply, and how it ended.
async fn ask_the_model(
    turn: &Turn<'_>,
    state: &mut RunState,
    history: Vec<MessageWithParts>,
) -> Result<Next, LedgerError> {
    let context = turn.context;
    let mut assistant = new_assistant(context, &turn.session, &turn.user, &turn.agent);
    context.insert_reply_message(&assistant).await?;
    let provider = match context.model_provider(&turn.model, turn.client).await {
        Ok(provider) => provider,
        Err(failure) => {
            let error = failure.to_assistant_error(&turn.model.provider_id);
            close(context, &mut assistant, Some(error)).await?;
            return Ok(Next::Stop);
        }
    };
    let rules = step_rules(&turn.agent, &turn.session);
    let request = model_request(turn, state.step, history, provider.as_ref(), &rules).await?;
    let plan = StepPlan {
        provider: provider.as_ref(),
        request,
        session: &turn.session,
        rules,
    };
    let end = stream_step(
        context,
        turn.control,
        plan,
        &mut assistant,
        &mut state.recent_calls,
    )
    .await?;
    settle_step(turn, state, &mut assistant, end).await
}

/// The agent's rules, then the session's.
fn step_rules(agent: &Agent, session: &Session) -> Vec<Rule> {
    agent
        .permission
        .iter()
        .chain(session.permission.iter().flatten())
        .cloned()
        .collect()
}

/// What the model is sent: the system prompt, the history in the model's order and form, the
/// tools the rules allow, and the variant's options.
async fn model_request(
    turn: &Turn<'_>,
    step: u32,
    mut history: Vec<MessageWithParts>,
    provider: &dyn ModelProvider,
    rules: &[Rule],
) -> Result<ModelRequest, LedgerError> {
    let Turn {
        context,
        session,
        user,
        agent,
        model,
        limit,
        ..
    } = turn;
    if step > 1 {
        if let Some(finished) = latest_finished_id(&history) {
            model_messages::wrap_late_user_text(&mut history, &finished);
        }
    }
    // A kept tail sits before its compaction in the ledger; the model reads the summary first.
    let history = crate::reply::compaction::tail::model_order(history);
    let mut messages =
        model_messages::to_model_messages_for(&history, model, provider.media_in_tool_results());
    inline_blobs(context, &mut messages).await?;
    let options = crate::models::model_variant::provider_options(
        &context.config(),
        model,
        user.model.variant.as_deref(),
    );
    Ok(ModelRequest {
        model_id: model.model_id.clone(),
        system: system_prompt(agent, session, user, &model.label()),
        messages,
        tools: if !provider.takes_tools()
            || context
                .models()
                .find(model)
                .is_some_and(|listed| !listed.tool_call)
        {
            Vec::new()
        } else {
            offered_tools(context, agent, rules)
        },
        // Held for as long as the reply streams: a long session's whole history for each reply
        // in flight was most of the server's memory on long sessions (docs/benchmarks.md).
        // Only the offline model reads it.
        history: Arc::new(if provider.is_offline() {
            history
        } else {
            Vec::new()
        }),
        max_output_tokens: crate::models::model_variant::answer_tokens_beside_thinking(
            &options,
            limit
                .as_ref()
                .and_then(|limit| limit.get("output"))
                .and_then(serde_json::Value::as_u64),
        ),
        temperature: agent.temperature,
        top_p: agent.top_p,
        options,
    })
}

/// Closes the assistant message as the step ended, and says whether the run goes on.
async fn settle_step(
    turn: &Turn<'_>,
    state: &mut RunState,
    assistant: &mut AssistantMessage,
    end: StepEnd,
) -> Result<Next, LedgerError> {
    let context = turn.context;
    match end {
        StepEnd::Finished => {
            close(context, assistant, None).await?;
            let out_of_steps = turn.agent.steps.is_some_and(|steps| state.step >= steps);
            Ok(if out_of_steps {
                Next::Stop
            } else {
                Next::Continue
            })
        }
        StepEnd::Refused => {
            close(context, assistant, None).await?;
            Ok(Next::Stop)
        }
        StepEnd::Aborted => {
            let error = AssistantError::MessageAbortedError {
                message: ABORTED_MESSAGE.into(),
            };
            close(context, assistant, Some(error)).await?;
            Ok(Next::Stop)
        }
        StepEnd::Failed {
            failure: ProviderFailure::ContextOverflow { .. },
            produced: false,
        } if state.take_compaction() => {
            // The reply that did not fit is closed quietly; a summary takes the history's place.
            close(context, assistant, None).await?;
            compact_after_overflow(turn).await
        }
        StepEnd::Failed { failure, .. } => {
            let error = failure.to_assistant_error(&turn.model.provider_id);
            close(context, assistant, Some(error)).await?;
            Ok(Next::Stop)
        }
    }
}

/// Summarises what came before the unanswered question, which is then asked again.
async fn compact_after_overflow(turn: &Turn<'_>) -> Result<Next, LedgerError> {
    let fitted = history(turn.context, &turn.control.session_id).await?;
    let (before, question) = crate::reply::compaction::replay::split_unanswered(
        crate::reply::compaction::visible_history(fitted),
        &turn.user.id,
    );
    let end = crate::reply::compaction::compact(
        turn.context,
        turn.control,
        &turn.session,
        &turn.user,
        &before,
        question.as_ref(),
        turn.client,
    )
    .await?;
    Ok(Next::after(&end))
}
