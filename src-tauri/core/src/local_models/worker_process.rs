//! One running worker: the child process, its stdin for requests, its stdout read into a channel
//! of events, and the last lines of llama.cpp's log (stderr) to explain a failure. The child is
//! killed when this is dropped, and it exits by itself when its stdin closes, so a worker never
//! outlives the app — not even when the app is killed.

use super::local_engine_error::LocalEngineError;
use super::worker_protocol::{WorkerEvent, WorkerRequest};
use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

const KEPT_LOG_LINES: usize = 40;

pub struct WorkerProcess {
    child: Child,
    stdin: ChildStdin,
    events: mpsc::UnboundedReceiver<WorkerEvent>,
    log_tail: Arc<Mutex<VecDeque<String>>>,
}

impl WorkerProcess {
    pub fn start(binary: &Path) -> Result<Self, LocalEngineError> {
        let mut command = Command::new(binary);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .map_err(|error| LocalEngineError::WorkerStart {
                reason: format!("{} ({error})", binary.display()),
            })?;
        let missing = || LocalEngineError::WorkerStart {
            reason: "its input and output could not be connected".into(),
        };
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        let (sender, events) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match serde_json::from_str::<WorkerEvent>(&line) {
                    Ok(event) => {
                        if sender.send(event).is_err() {
                            break;
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%error, "unreadable line from the local model worker")
                    }
                }
            }
        });
        let log_tail = Arc::new(Mutex::new(VecDeque::with_capacity(KEPT_LOG_LINES)));
        let tail = Arc::clone(&log_tail);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::trace!(target: "local_model_worker", "{line}");
                if let Ok(mut tail) = tail.lock() {
                    if tail.len() == KEPT_LOG_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            }
        });
        Ok(Self {
            child,
            stdin,
            events,
            log_tail,
        })
    }

    pub fn process_id(&self) -> Option<u32> {
        self.child.id()
    }

    /// `Err` when the worker is gone (its stdin closed).
    pub async fn send(&mut self, request: &WorkerRequest) -> Result<(), ()> {
        let mut line = serde_json::to_vec(request).map_err(|_| ())?;
        line.push(b'\n');
        self.stdin.write_all(&line).await.map_err(|_| ())?;
        self.stdin.flush().await.map_err(|_| ())
    }

    /// The next event; `None` once the worker's stdout has closed (it exited or was killed).
    pub async fn next_event(&mut self) -> Option<WorkerEvent> {
        self.events.recv().await
    }

    /// Ends the worker at once (Stop): the kill is the quickest way to end a reply mid-token.
    pub fn kill(&mut self) {
        let _ = self.child.start_kill();
    }

    /// Why the worker ended, for the error: its exit code or signal, and llama.cpp's last words.
    pub async fn exit_detail(&mut self) -> String {
        let status = tokio::time::timeout(std::time::Duration::from_secs(2), self.child.wait())
            .await
            .ok()
            .and_then(Result::ok);
        let mut detail = match status {
            Some(status) => describe_exit(status),
            None => String::new(),
        };
        if let Some(line) = self.last_log_error() {
            detail.push_str(&format!(" (llama.cpp: {line})"));
        }
        detail
    }

    /// The last line of llama.cpp's log that reports an error, if any.
    pub fn last_log_error(&self) -> Option<String> {
        let tail = self.log_tail.lock().ok()?;
        tail.iter()
            .rev()
            .find(|line| {
                let lowered = line.to_ascii_lowercase();
                lowered.contains("error") || lowered.contains("failed") || lowered.contains("abort")
            })
            .map(|line| line.trim().chars().take(300).collect())
    }
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                9 => " (SIGKILL: killed, often by the system when memory runs out)",
                6 => " (SIGABRT: llama.cpp stopped on a failed check)",
                11 => " (SIGSEGV: a crash)",
                4 => " (SIGILL: an instruction this processor lacks)",
                _ => "",
            };
            return format!(": the process ended on signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!(": the process exited with code {code}"),
        None => String::new(),
    }
}
