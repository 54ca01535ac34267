//! Downloads of library models, one task each: started, paused, resumed and cancelled by the
//! person, retrying on their own with a doubling wait, verified against the library's SHA-256
//! before the file becomes `<id>.gguf`, and taken up again at the next start when the app quit
//! in the middle. A second start of a download already under way joins it. Every change is
//! published as a `dossier.model.download` event, which both transports carry.

use crate::local_models::download_record::{
    model_path, part_path, read_records, remove_partial, write_record, DownloadRecord,
};
use crate::local_models::download_transfer::{attempt, Attempt, DownloadTiming, ProgressSink};
use crate::local_models::local_model_error::LocalModelError;
use crate::wire::event::{EventBus, EventPayload};
use crate::wire::model_download::{ModelDownloadProgress, ModelDownloadStatus};
use sha2::Digest;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// What the person last asked of a download.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wish {
    Run,
    Pause,
    Cancel,
}

#[derive(Clone)]
pub struct Downloads {
    inner: Arc<DownloadsInner>,
}

struct DownloadsInner {
    folder: PathBuf,
    events: EventBus,
    client: reqwest::Client,
    timing: DownloadTiming,
    running: Mutex<HashMap<String, Running>>,
    /// How many downloads were installed since the library opened: what the model picker's
    /// refresh waits on (`installs`), instead of hearing every event the ledger publishes.
    installed: watch::Sender<u64>,
}

struct Running {
    wish: watch::Sender<Wish>,
    progress: Arc<Mutex<ModelDownloadProgress>>,
    task: tokio::task::JoinHandle<()>,
}

impl Downloads {
    pub fn new(
        folder: PathBuf,
        events: EventBus,
        client: reqwest::Client,
        timing: DownloadTiming,
    ) -> Self {
        Self {
            inner: Arc::new(DownloadsInner {
                folder,
                events,
                client,
                timing,
                running: Mutex::new(HashMap::new()),
                installed: watch::channel(0).0,
            }),
        }
    }

    /// Changes each time a download is installed.
    pub fn installs(&self) -> watch::Receiver<u64> {
        self.inner.installed.subscribe()
    }

    pub fn folder(&self) -> &Path {
        &self.inner.folder
    }

    /// Starts downloading `record`, or joins the download of the same model already under way
    /// (its progress is returned, and nothing new starts). Refused when the model is installed
    /// or the disk lacks the room for the rest of the file.
    pub fn start(&self, record: DownloadRecord) -> Result<ModelDownloadProgress, LocalModelError> {
        let mut running = self.lock();
        if let Some(current) = running.get(&record.model_id) {
            if !current.task.is_finished() {
                let progress = lock(&current.progress).clone();
                // A paused or failed download goes on; one that is moving is joined.
                if matches!(
                    progress.status,
                    ModelDownloadStatus::Paused | ModelDownloadStatus::Failed
                ) {
                    current.wish.send_replace(Wish::Run);
                }
                return Ok(progress);
            }
        }
        let folder = &self.inner.folder;
        if model_path(folder, &record.model_id).exists() {
            return Err(LocalModelError::AlreadyInstalled(record.model_id));
        }
        let received = std::fs::metadata(part_path(folder, &record.model_id))
            .map(|metadata| metadata.len())
            .unwrap_or(0)
            .min(record.total_bytes);
        std::fs::create_dir_all(folder).map_err(|error| LocalModelError::io(folder, &error))?;
        let needed = record.total_bytes - received;
        if let Some(available) =
            crate::store::data_folder::data_folder_move::available_space(folder)
        {
            if available < needed {
                return Err(LocalModelError::NotEnoughDiskSpace {
                    model_id: record.model_id,
                    folder: folder.display().to_string(),
                    needed,
                    available,
                });
            }
        }
        let record = DownloadRecord {
            paused: false,
            ..record
        };
        write_record(folder, &record)?;
        let progress = self.spawn(&mut running, record, received, Wish::Run);
        Ok(progress)
    }

    /// Takes up every download a previous run left in the folder (paused ones stay paused), and
    /// tidies a record whose model was installed just before the app stopped.
    pub fn resume_unfinished(&self) {
        let mut running = self.lock();
        for record in read_records(&self.inner.folder) {
            if running.contains_key(&record.model_id) {
                continue;
            }
            if model_path(&self.inner.folder, &record.model_id).exists() {
                if let Err(error) = remove_partial(&self.inner.folder, &record.model_id) {
                    tracing::warn!("{error}");
                }
                continue;
            }
            let received = std::fs::metadata(part_path(&self.inner.folder, &record.model_id))
                .map(|metadata| metadata.len())
                .unwrap_or(0);
            let wish = if record.paused {
                Wish::Pause
            } else {
                Wish::Run
            };
            tracing::info!(
                "taking up the download of {} at {received} bytes",
                record.model_id
            );
            self.spawn(&mut running, record, received, wish);
        }
    }

    pub fn pause(&self, model_id: &str) -> Result<ModelDownloadProgress, LocalModelError> {
        self.ask(model_id, Wish::Pause)
    }

    /// Resumes a paused download, or one stopped by an error (a full disk, a server that
    /// stayed away): it tries again at once, counting its attempts from zero.
    pub fn resume(&self, model_id: &str) -> Result<ModelDownloadProgress, LocalModelError> {
        self.ask(model_id, Wish::Run)
    }

    /// Stops the download and deletes its partial file.
    pub fn cancel(&self, model_id: &str) -> Result<ModelDownloadProgress, LocalModelError> {
        self.ask(model_id, Wish::Cancel)
    }

    /// The download's progress while it has one (finished ones until the next start).
    pub fn progress(&self, model_id: &str) -> Option<ModelDownloadProgress> {
        self.lock()
            .get(model_id)
            .map(|running| lock(&running.progress).clone())
    }

    /// Whether a download of `model_id` is under way (paused or failed ones count).
    pub fn is_active(&self, model_id: &str) -> bool {
        self.lock()
            .get(model_id)
            .is_some_and(|running| !running.task.is_finished())
    }

    /// Stops every task at once, as quitting the app does: the partial files and records stay
    /// for the next start.
    pub fn stop_all(&self) {
        for running in self.lock().values() {
            running.task.abort();
        }
    }

    fn ask(&self, model_id: &str, wish: Wish) -> Result<ModelDownloadProgress, LocalModelError> {
        let running = self.lock();
        let Some(current) = running
            .get(model_id)
            .filter(|running| !running.task.is_finished())
        else {
            return Err(LocalModelError::NoDownload(model_id.to_string()));
        };
        current.wish.send_replace(wish);
        let progress = lock(&current.progress).clone();
        Ok(progress)
    }

    fn spawn(
        &self,
        running: &mut HashMap<String, Running>,
        record: DownloadRecord,
        received: u64,
        wish: Wish,
    ) -> ModelDownloadProgress {
        let progress = ModelDownloadProgress {
            model_id: record.model_id.clone(),
            status: if wish == Wish::Pause {
                ModelDownloadStatus::Paused
            } else {
                ModelDownloadStatus::Connecting
            },
            received_bytes: received,
            total_bytes: record.total_bytes,
            bytes_per_second: None,
            seconds_left: None,
            message: None,
        };
        let shared = Arc::new(Mutex::new(progress.clone()));
        let (sender, receiver) = watch::channel(wish);
        let reporter = Reporter {
            events: self.inner.events.clone(),
            progress: shared.clone(),
        };
        reporter.publish(progress.clone());
        let task = tokio::spawn(run(self.inner.clone(), record.clone(), receiver, reporter));
        running.insert(
            record.model_id,
            Running {
                wish: sender,
                progress: shared,
                task,
            },
        );
        progress
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        lock(&self.inner.running)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves plain data behind; use it.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Keeps the shared progress and publishes each change.
struct Reporter {
    events: EventBus,
    progress: Arc<Mutex<ModelDownloadProgress>>,
}

impl Reporter {
    fn publish(&self, progress: ModelDownloadProgress) {
        *lock(&self.progress) = progress.clone();
        self.events.publish(EventPayload::ModelDownload(progress));
    }

    fn status(&self, status: ModelDownloadStatus, message: Option<String>) {
        let mut progress = lock(&self.progress).clone();
        progress.status = status;
        progress.bytes_per_second = None;
        progress.seconds_left = None;
        progress.message = message;
        self.publish(progress);
    }
}

impl ProgressSink for Reporter {
    fn report(
        &self,
        status: ModelDownloadStatus,
        received: u64,
        bytes_per_second: Option<u64>,
        seconds_left: Option<u64>,
        message: Option<String>,
    ) {
        let mut progress = lock(&self.progress).clone();
        progress.status = status;
        progress.received_bytes = received;
        progress.bytes_per_second = bytes_per_second;
        progress.seconds_left = seconds_left;
        progress.message = message;
        self.publish(progress);
    }
}

/// Resolves once the person asks for something other than running.
async fn until_not_running(wish: &mut watch::Receiver<Wish>) {
    while *wish.borrow_and_update() == Wish::Run {
        if wish.changed().await.is_err() {
            // The library is gone: nothing will ever ask again.
            std::future::pending::<()>().await;
        }
    }
}

/// The download's life, from start to installed, cancelled or the app quitting.
async fn run(
    inner: Arc<DownloadsInner>,
    mut record: DownloadRecord,
    mut wish: watch::Receiver<Wish>,
    reporter: Reporter,
) {
    let folder = inner.folder.clone();
    let mut failures: u32 = 0;
    loop {
        let current = *wish.borrow_and_update();
        match current {
            Wish::Cancel => {
                let message = remove_partial(&folder, &record.model_id)
                    .err()
                    .map(|error| error.to_string());
                reporter.status(ModelDownloadStatus::Cancelled, message);
                return;
            }
            Wish::Pause => {
                if !record.paused {
                    record.paused = true;
                    remember(&folder, &record);
                }
                reporter.status(ModelDownloadStatus::Paused, None);
                if wish.changed().await.is_err() {
                    return;
                }
                failures = 0;
                continue;
            }
            Wish::Run => {}
        }
        if record.paused {
            record.paused = false;
            remember(&folder, &record);
        }
        let outcome = tokio::select! {
            outcome = attempt(&inner.client, &folder, &record, inner.timing, &reporter) => Some(outcome),
            () = until_not_running(&mut wish) => None,
        };
        let Some(outcome) = outcome else {
            continue;
        };
        match outcome {
            Attempt::Complete => {
                // Every byte is here: the line says so while the file is checked, not the count
                // of the last periodic report (up to `progress_interval` old; seen in the window
                // as "80.1 MB of 93.8 MB · Checking the file…").
                reporter.report(
                    ModelDownloadStatus::Verifying,
                    record.total_bytes,
                    None,
                    None,
                    None,
                );
                match verify_and_install(&folder, &record).await {
                    Ok(()) => {
                        inner.installed.send_modify(|count| *count += 1);
                        reporter.status(ModelDownloadStatus::Installed, None);
                    }
                    Err(error) => {
                        reporter.status(ModelDownloadStatus::Failed, Some(error.to_string()));
                    }
                }
                return;
            }
            Attempt::Retry { reason, progressed } => {
                failures = if progressed { 1 } else { failures + 1 };
                if failures > inner.timing.attempts_without_progress {
                    let error = LocalModelError::ServerUnreachable {
                        model_id: record.model_id.clone(),
                        attempts: failures,
                        reason,
                    };
                    reporter.status(ModelDownloadStatus::Failed, Some(error.to_string()));
                    if wish.changed().await.is_err() {
                        return;
                    }
                    failures = 0;
                    continue;
                }
                let wait = backoff(inner.timing, failures);
                reporter.status(
                    ModelDownloadStatus::WaitingForServer,
                    Some(format!(
                        "Trying again in {} s: {reason}.",
                        wait.as_secs_f64().ceil() as u64
                    )),
                );
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = until_not_running(&mut wish) => {}
                }
            }
            Attempt::Stop(error) => {
                reporter.status(ModelDownloadStatus::Failed, Some(error.to_string()));
                if wish.changed().await.is_err() {
                    return;
                }
                failures = 0;
            }
        }
    }
}

fn remember(folder: &Path, record: &DownloadRecord) {
    if let Err(error) = write_record(folder, record) {
        tracing::warn!("{error}");
    }
}

/// The wait before attempt `failures + 1`: the first wait, doubled each time, capped.
fn backoff(timing: DownloadTiming, failures: u32) -> std::time::Duration {
    let doubled = timing
        .first_retry
        .saturating_mul(1_u32 << failures.saturating_sub(1).min(16));
    doubled.min(timing.longest_retry)
}

/// Hashes the finished `.part`; on a match renames it to `<id>.gguf` (atomic, same folder) and
/// drops the record; on a mismatch deletes both, so a wrong file is never a model.
async fn verify_and_install(folder: &Path, record: &DownloadRecord) -> Result<(), LocalModelError> {
    let part = part_path(folder, &record.model_id);
    let hashed = part.clone();
    let actual = tokio::task::spawn_blocking(move || sha256_of(&hashed))
        .await
        .map_err(|error| LocalModelError::Io {
            path: part.display().to_string(),
            reason: error.to_string(),
        })??;
    if actual != record.sha256.to_ascii_lowercase() {
        remove_partial(folder, &record.model_id)?;
        return Err(LocalModelError::ChecksumMismatch {
            model_id: record.model_id.clone(),
            expected: record.sha256.clone(),
            actual,
        });
    }
    let model = model_path(folder, &record.model_id);
    std::fs::rename(&part, &model).map_err(|error| LocalModelError::io(&model, &error))?;
    remove_partial(folder, &record.model_id)
}

/// The file's SHA-256 in lower-case hex.
pub fn sha256_of(path: &Path) -> Result<String, LocalModelError> {
    let mut file = std::fs::File::open(path).map_err(|error| LocalModelError::io(path, &error))?;
    let mut hasher = sha2::Sha256::new();
    let mut buffer = vec![0_u8; 1024 * 1024];
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|error| LocalModelError::io(path, &error))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_wait_doubles_up_to_the_longest() {
        let timing = DownloadTiming {
            first_retry: Duration::from_secs(1),
            longest_retry: Duration::from_secs(60),
            ..DownloadTiming::default()
        };
        let waits: Vec<u64> = (1..=8)
            .map(|failures| backoff(timing, failures).as_secs())
            .collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
    }
}
