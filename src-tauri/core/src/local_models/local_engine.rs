//! The worker manager: one worker process per loaded model, started on the first reply that
//! needs it, killed on Stop (the quickest way to end a reply), let go after it has been idle so
//! the model's memory goes back to the system, and started again after it died. Files are checked
//! (empty, not GGUF) and memory is weighed before anything is loaded.

use super::computer_memory::{computer_memory, ComputerMemory};
use super::local_engine_error::LocalEngineError;
use super::model_files::find_model_file;
use super::tool_call_format::{tools_template, ToolsTemplate};
use super::worker_location::find_worker;
use super::worker_process::WorkerProcess;
use super::worker_protocol::{Conversation, WorkerEvent, WorkerRequest};
use crate::wire::human_size::human_size;
use futures::stream::{self, BoxStream, StreamExt};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What llama.cpp needs beside the weights for a short context, its buffers and the worker:
/// the low end of the 0.3–0.6 GB people measure.
const OVERHEAD_BYTES: u64 = 300 * 1024 * 1024;
pub const DEFAULT_IDLE_UNLOAD: Duration = Duration::from_secs(5 * 60);

#[derive(Debug, Clone)]
pub struct LocalEngineOptions {
    /// The models folder: `<data folder>/models` for the app, `--models-dir` for the server.
    pub models_dir: PathBuf,
    /// The worker binary; found beside the executable when `None` (`worker_location::find_worker`).
    pub worker_binary: Option<PathBuf>,
    /// How long a loaded model may sit unused before its worker is let go.
    pub idle_unload: Duration,
    /// A ceiling on the context length (the file's own length and the memory cap still apply).
    pub context_length: Option<u32>,
    /// llama.cpp threads; the physical cores when `None`.
    pub threads: Option<u32>,
    /// Replaces what the system reports (tests of the memory refusal).
    pub memory: Option<ComputerMemory>,
}

impl LocalEngineOptions {
    pub fn new(models_dir: PathBuf) -> Self {
        Self {
            models_dir,
            worker_binary: None,
            idle_unload: DEFAULT_IDLE_UNLOAD,
            context_length: None,
            threads: None,
            memory: None,
        }
    }
}

/// What a loaded model reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadedModel {
    pub context_length: u32,
    pub train_context_length: u32,
    pub threads: u32,
    pub chat_template_supports_tools: bool,
}

#[derive(Debug, Clone, Default)]
pub struct GenerationSettings {
    pub max_tokens: Option<u32>,
    /// 0 (or `None`) samples greedily: the same reply every time.
    pub temperature: Option<f32>,
    pub seed: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyEvent {
    Text(String),
    Finished {
        prompt_tokens: u32,
        completion_tokens: u32,
        stop_reason: String,
    },
}

pub type ReplyStream = BoxStream<'static, Result<ReplyEvent, LocalEngineError>>;

struct RunningWorker {
    process: WorkerProcess,
    loaded: LoadedModel,
}

#[derive(Default)]
struct ModelSlot {
    worker: Arc<tokio::sync::Mutex<Option<RunningWorker>>>,
    /// Bumped by every reply; an idle timer lets the worker go only if no reply came since.
    uses: AtomicU64,
    process_id: AtomicU32,
}

pub struct LocalEngine {
    options: LocalEngineOptions,
    slots: Mutex<HashMap<String, Arc<ModelSlot>>>,
    next_reply: AtomicU64,
    /// Each model's template that takes tools (or `None`), read again when its file changes.
    templates: Mutex<HashMap<String, CachedTemplate>>,
}

struct CachedTemplate {
    stamp: FileStamp,
    found: Option<Arc<ToolsTemplate>>,
}

/// A file's size and modification time: a replaced model file is read again.
type FileStamp = (u64, Option<std::time::SystemTime>);

impl LocalEngine {
    pub fn new(options: LocalEngineOptions) -> Arc<Self> {
        Arc::new(Self {
            options,
            slots: Mutex::new(HashMap::new()),
            next_reply: AtomicU64::new(1),
            templates: Mutex::new(HashMap::new()),
        })
    }

    /// The template of `model_id` when it takes tools (`tool_call_format`), remembered while
    /// the file stays the same. Reads the file: call it off the async threads.
    pub fn tools_template(&self, model_id: &str) -> Option<Arc<ToolsTemplate>> {
        let installed = find_model_file(&self.options.models_dir, model_id)?;
        let stamp = std::fs::metadata(&installed.path)
            .map(|metadata| (metadata.len(), metadata.modified().ok()))
            .ok()?;
        let remembered = |templates: &HashMap<String, CachedTemplate>| {
            templates
                .get(model_id)
                .filter(|cached| cached.stamp == stamp)
                .map(|cached| cached.found.clone())
        };
        if let Some(found) = remembered(
            &self
                .templates
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        ) {
            return found;
        }
        let found = tools_template(&installed.path, model_id).map(Arc::new);
        self.templates
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(
                model_id.to_string(),
                CachedTemplate {
                    stamp,
                    found: found.clone(),
                },
            );
        found
    }

    pub fn options(&self) -> &LocalEngineOptions {
        &self.options
    }

    fn slot(&self, model_id: &str) -> Arc<ModelSlot> {
        let mut slots = self
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(slots.entry(model_id.to_string()).or_default())
    }

    /// The ids of the models whose worker is running now.
    pub fn loaded_models(&self) -> Vec<String> {
        let slots: Vec<(String, Arc<ModelSlot>)> = {
            let slots = self
                .slots
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            slots
                .iter()
                .map(|(id, slot)| (id.clone(), Arc::clone(slot)))
                .collect()
        };
        let mut loaded = Vec::new();
        for (id, slot) in slots {
            // A reply holds the lock while it runs: its model is loaded.
            let is_loaded = match slot.worker.try_lock() {
                Ok(worker) => worker.is_some(),
                Err(_) => true,
            };
            if is_loaded {
                loaded.push(id);
            }
        }
        loaded.sort();
        loaded
    }

    /// The process id of the worker running `model_id`, even while it is generating.
    pub fn worker_process_id(&self, model_id: &str) -> Option<u32> {
        let id = self.slot(model_id).process_id.load(Ordering::SeqCst);
        (id != 0).then_some(id)
    }

    /// Loads `model_id` if it is not loaded yet, and says what it offers.
    pub async fn load(&self, model_id: &str) -> Result<LoadedModel, LocalEngineError> {
        let slot = self.slot(model_id);
        let mut worker = Arc::clone(&slot.worker).lock_owned().await;
        self.ensure_loaded(model_id, &slot, &mut worker).await
    }

    async fn ensure_loaded(
        &self,
        model_id: &str,
        slot: &ModelSlot,
        worker: &mut Option<RunningWorker>,
    ) -> Result<LoadedModel, LocalEngineError> {
        if let Some(running) = worker.as_ref() {
            return Ok(running.loaded);
        }
        let installed = find_model_file(&self.options.models_dir, model_id).ok_or_else(|| {
            LocalEngineError::NotInstalled {
                model: model_id.to_string(),
                folder: self.options.models_dir.display().to_string(),
            }
        })?;
        check_file(&installed.path)?;
        let memory = self.options.memory.or_else(computer_memory);
        let budget = match memory {
            Some(memory) => {
                let needed = installed.bytes + OVERHEAD_BYTES;
                if needed > memory.total_bytes {
                    return Err(LocalEngineError::NotEnoughMemory {
                        model: model_id.to_string(),
                        needed: human_size(needed),
                        total: human_size(memory.total_bytes),
                    });
                }
                // The context's cache gets what is free after the weights, and at least a little
                // (the worker never cuts below 512 tokens).
                Some(memory.available_bytes.saturating_sub(needed))
            }
            None => None,
        };
        let binary = find_worker(self.options.worker_binary.as_deref())?;
        let mut process = WorkerProcess::start(&binary)?;
        match process.next_event().await {
            Some(WorkerEvent::Ready { .. }) => {}
            Some(WorkerEvent::Error { kind, message, .. }) if kind == "unsupported_processor" => {
                return Err(LocalEngineError::UnsupportedProcessor { reason: message });
            }
            Some(other) => {
                return Err(LocalEngineError::WorkerStart {
                    reason: format!("it said {other:?} instead of being ready"),
                });
            }
            None => {
                return Err(LocalEngineError::WorkerStart {
                    reason: format!("it ended at once{}", process.exit_detail().await),
                });
            }
        }
        let request = WorkerRequest::Load {
            path: installed.path.to_string_lossy().into_owned(),
            context_length: self.options.context_length,
            memory_budget_bytes: budget,
            threads: self.options.threads,
        };
        if process.send(&request).await.is_err() {
            return Err(LocalEngineError::WorkerDied {
                detail: process.exit_detail().await,
            });
        }
        let loaded = match process.next_event().await {
            Some(WorkerEvent::Loaded {
                context_length,
                train_context_length,
                threads,
                chat_template_supports_tools,
                ..
            }) => LoadedModel {
                context_length,
                train_context_length,
                threads,
                chat_template_supports_tools,
            },
            Some(WorkerEvent::Error { message, .. }) => {
                let detail = process
                    .last_log_error()
                    .map(|line| format!(" llama.cpp said: {line}"))
                    .unwrap_or_default();
                return Err(LocalEngineError::LoadFailed {
                    message: format!("{message}{detail}"),
                });
            }
            Some(other) => {
                return Err(LocalEngineError::WorkerStart {
                    reason: format!("it said {other:?} instead of loading the model"),
                });
            }
            None => {
                return Err(LocalEngineError::LoadFailed {
                    message: format!(
                        "The engine stopped while loading the model {model_id}{}.",
                        process.exit_detail().await
                    ),
                });
            }
        };
        tracing::info!(
            model = model_id,
            context = loaded.context_length,
            threads = loaded.threads,
            "local model loaded"
        );
        slot.process_id
            .store(process.process_id().unwrap_or(0), Ordering::SeqCst);
        *worker = Some(RunningWorker { process, loaded });
        Ok(loaded)
    }

    /// Starts a reply from `model_id`: loads the model when needed, then streams its text. Dropping
    /// the stream before it finished (Stop) kills the worker at once.
    pub async fn generate(
        self: &Arc<Self>,
        model_id: &str,
        conversation: impl Into<Conversation>,
        settings: GenerationSettings,
    ) -> Result<ReplyStream, LocalEngineError> {
        let slot = self.slot(model_id);
        slot.uses.fetch_add(1, Ordering::SeqCst);
        let mut worker = Arc::clone(&slot.worker).lock_owned().await;
        self.ensure_loaded(model_id, &slot, &mut worker).await?;
        let id = format!("reply-{}", self.next_reply.fetch_add(1, Ordering::SeqCst));
        let (messages, prompt) = match conversation.into() {
            Conversation::Messages(messages) => (messages, None),
            Conversation::Prompt(prompt) => (Vec::new(), Some(prompt)),
        };
        let request = WorkerRequest::Generate {
            id: id.clone(),
            messages,
            prompt,
            max_tokens: settings.max_tokens,
            temperature: settings.temperature,
            seed: settings.seed,
        };
        let sent = match worker.as_mut() {
            Some(running) => running.process.send(&request).await.is_ok(),
            None => false,
        };
        if !sent {
            let detail = match worker.take() {
                Some(mut running) => running.process.exit_detail().await,
                None => String::new(),
            };
            slot.process_id.store(0, Ordering::SeqCst);
            return Err(LocalEngineError::WorkerDied { detail });
        }
        let state = ReplyState {
            worker,
            slot,
            engine: Arc::clone(self),
            model_id: model_id.to_string(),
            finished: false,
        };
        Ok(stream::unfold(state, |mut state| async move {
            if state.finished {
                return None;
            }
            let item = state.next().await;
            Some((item, state))
        })
        .boxed())
    }

    /// Lets the model's worker go after `idle_unload` unless another reply came meanwhile.
    fn schedule_unload(self: &Arc<Self>, model_id: String, slot: Arc<ModelSlot>) {
        let uses = slot.uses.load(Ordering::SeqCst);
        let idle = self.options.idle_unload;
        tokio::spawn(async move {
            tokio::time::sleep(idle).await;
            if slot.uses.load(Ordering::SeqCst) != uses {
                return;
            }
            // A reply holding the worker is not idle; its own end schedules another check.
            let Ok(mut worker) = slot.worker.try_lock() else {
                return;
            };
            if slot.uses.load(Ordering::SeqCst) == uses {
                if let Some(mut running) = worker.take() {
                    // Closing stdin ends the worker; the kill makes sure of it.
                    running.process.kill();
                    slot.process_id.store(0, Ordering::SeqCst);
                    tracing::info!(model = model_id, "local model unloaded after being idle");
                }
            }
        });
    }
}

/// One reply in progress: it holds the model's worker for its whole length, so replies to the
/// same model take turns.
struct ReplyState {
    worker: tokio::sync::OwnedMutexGuard<Option<RunningWorker>>,
    slot: Arc<ModelSlot>,
    engine: Arc<LocalEngine>,
    model_id: String,
    finished: bool,
}

impl ReplyState {
    async fn next(&mut self) -> Result<ReplyEvent, LocalEngineError> {
        let event = match self.worker.as_mut() {
            Some(running) => running.process.next_event().await,
            None => None,
        };
        match event {
            Some(WorkerEvent::Delta { text, .. }) => Ok(ReplyEvent::Text(text)),
            Some(WorkerEvent::Done {
                prompt_tokens,
                completion_tokens,
                stop_reason,
                ..
            }) => {
                self.finished = true;
                self.engine
                    .schedule_unload(self.model_id.clone(), Arc::clone(&self.slot));
                Ok(ReplyEvent::Finished {
                    prompt_tokens,
                    completion_tokens,
                    stop_reason,
                })
            }
            Some(WorkerEvent::Error { kind, message, .. }) => {
                self.finished = true;
                self.engine
                    .schedule_unload(self.model_id.clone(), Arc::clone(&self.slot));
                Err(match kind.as_str() {
                    "chat_template" => LocalEngineError::ChatTemplate { message },
                    "prompt_too_long" => LocalEngineError::PromptTooLong { message },
                    _ => LocalEngineError::Generation { message },
                })
            }
            Some(other) => {
                self.finished = true;
                self.end_worker();
                Err(LocalEngineError::Generation {
                    message: format!(
                        "The local model engine said {other:?} in the middle of a reply."
                    ),
                })
            }
            None => {
                self.finished = true;
                let detail = match self.worker.take() {
                    Some(mut running) => running.process.exit_detail().await,
                    None => String::new(),
                };
                self.slot.process_id.store(0, Ordering::SeqCst);
                Err(LocalEngineError::WorkerDied { detail })
            }
        }
    }

    fn end_worker(&mut self) {
        if let Some(mut running) = self.worker.take() {
            running.process.kill();
        }
        self.slot.process_id.store(0, Ordering::SeqCst);
    }
}

impl Drop for ReplyState {
    fn drop(&mut self) {
        // Dropped before the worker said it was done: the reply was stopped. Killing the worker
        // ends generation now instead of after the current token; the next reply starts another.
        if !self.finished {
            self.end_worker();
            tracing::info!(model = self.model_id, "local reply stopped: worker ended");
        }
    }
}

/// Refuses files that cannot be models before a worker is started for them.
fn check_file(path: &Path) -> Result<(), LocalEngineError> {
    let file = path.display().to_string();
    let unreadable = |error: std::io::Error| LocalEngineError::Unreadable {
        file: file.clone(),
        reason: error.to_string(),
    };
    let mut opened = std::fs::File::open(path).map_err(unreadable)?;
    let mut magic = [0u8; 4];
    let mut read = 0;
    while read < magic.len() {
        match opened.read(&mut magic[read..]).map_err(unreadable)? {
            0 => break,
            count => read += count,
        }
    }
    if read == 0 {
        return Err(LocalEngineError::EmptyFile { file });
    }
    if read < magic.len() || &magic != b"GGUF" {
        return Err(LocalEngineError::NotGguf { file });
    }
    Ok(())
}
