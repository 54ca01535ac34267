//! One attempt at fetching the rest of a file: an HTTP `Range` request from the bytes already in
//! the `.part` file, appended as they arrive. It reports how the attempt ended — complete, worth
//! trying again (the server stalled, dropped the connection, answered 5xx), or not (the server
//! refused the file, the disk is full) — and leaves retrying, pausing and verifying to
//! `download`.

use crate::local_models::download_progress::SpeedMeter;
use crate::local_models::download_record::{part_path, DownloadRecord};
use crate::local_models::local_model_error::LocalModelError;
use crate::wire::model_download::ModelDownloadStatus;
use futures::StreamExt;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

/// How long things may take before the download says so or gives up on a connection.
#[derive(Debug, Clone, Copy)]
pub struct DownloadTiming {
    /// Nothing for this long: the status becomes "waiting for the server" and the speed goes.
    pub quiet_after: Duration,
    /// Nothing for this long: the connection is dropped and tried again.
    pub stall_timeout: Duration,
    /// The first wait before trying again; doubled each time, up to `longest_retry`.
    pub first_retry: Duration,
    pub longest_retry: Duration,
    /// Failed attempts in a row, without a byte between them, before the download stops as
    /// failed (Resume starts counting again).
    pub attempts_without_progress: u32,
    /// How often a download that is moving publishes its progress.
    pub progress_interval: Duration,
}

impl Default for DownloadTiming {
    fn default() -> Self {
        Self {
            quiet_after: Duration::from_secs(3),
            stall_timeout: Duration::from_secs(30),
            first_retry: Duration::from_secs(1),
            longest_retry: Duration::from_secs(60),
            attempts_without_progress: 10,
            progress_interval: Duration::from_millis(250),
        }
    }
}

/// How one attempt ended.
#[derive(Debug)]
pub enum Attempt {
    /// Every byte is in the `.part` file.
    Complete,
    /// Worth trying again; `progressed` when bytes arrived during the attempt.
    Retry { reason: String, progressed: bool },
    /// Trying again will not help until something changes.
    Stop(LocalModelError),
}

/// What an attempt reports while it runs: (status, bytes so far, speed, time left, message).
pub trait ProgressSink: Send + Sync {
    fn report(
        &self,
        status: ModelDownloadStatus,
        received: u64,
        bytes_per_second: Option<u64>,
        seconds_left: Option<u64>,
        message: Option<String>,
    );
}

pub async fn attempt(
    client: &reqwest::Client,
    folder: &Path,
    record: &DownloadRecord,
    timing: DownloadTiming,
    sink: &dyn ProgressSink,
) -> Attempt {
    let part = part_path(folder, &record.model_id);
    let io_stop = |error: std::io::Error| Attempt::Stop(LocalModelError::io(&part, &error));
    let mut file = match tokio::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&part)
        .await
    {
        Ok(file) => file,
        Err(error) => return io_stop(error),
    };
    let mut received = match file.metadata().await {
        Ok(metadata) => metadata.len(),
        Err(error) => return io_stop(error),
    };
    if received > record.total_bytes {
        // More than the file can hold: those bytes are not the file; start over.
        if let Err(error) = file.set_len(0).await {
            return io_stop(error);
        }
        received = 0;
    }
    if received == record.total_bytes {
        return Attempt::Complete;
    }
    sink.report(ModelDownloadStatus::Connecting, received, None, None, None);
    let mut request = client.get(&record.url);
    if received > 0 {
        request = request.header(reqwest::header::RANGE, format!("bytes={received}-"));
    }
    let response = match tokio::time::timeout(timing.stall_timeout, request.send()).await {
        Err(_) => {
            return Attempt::Retry {
                reason: format!(
                    "the server did not answer within {} seconds",
                    timing.stall_timeout.as_secs()
                ),
                progressed: false,
            }
        }
        Ok(Err(error)) => {
            return Attempt::Retry {
                reason: format!("could not reach the server ({})", without_url(&error)),
                progressed: false,
            }
        }
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    match status.as_u16() {
        206 => {
            let starts_at = response
                .headers()
                .get(reqwest::header::CONTENT_RANGE)
                .and_then(|value| value.to_str().ok())
                .and_then(content_range_start);
            if starts_at != Some(received) {
                // The server sent another piece than the one asked for: start over cleanly.
                if let Err(error) = file.set_len(0).await {
                    return io_stop(error);
                }
                return Attempt::Retry {
                    reason: "the server sent another part of the file than asked".into(),
                    progressed: false,
                };
            }
        }
        200 => {
            if received > 0 {
                // The server ignores ranges: it sends the whole file again.
                if let Err(error) = file.set_len(0).await {
                    return io_stop(error);
                }
                received = 0;
            }
        }
        416 => {
            if let Err(error) = file.set_len(0).await {
                return io_stop(error);
            }
            return Attempt::Retry {
                reason: "the server did not accept where the download stopped".into(),
                progressed: false,
            };
        }
        code if code == 429 || status.is_server_error() => {
            return Attempt::Retry {
                reason: format!("the server answered {status}"),
                progressed: false,
            }
        }
        code => {
            return Attempt::Stop(LocalModelError::ServerRefused {
                model_id: record.model_id.clone(),
                url: record.url.clone(),
                status: code,
            })
        }
    }
    let mut meter = SpeedMeter::new(timing.quiet_after);
    let mut stream = response.bytes_stream();
    let mut last_report = Instant::now();
    let mut quiet_for = Duration::ZERO;
    let mut progressed = false;
    loop {
        let remaining = record.total_bytes.saturating_sub(received);
        match tokio::time::timeout(timing.quiet_after, stream.next()).await {
            Ok(Some(Ok(chunk))) => {
                quiet_for = Duration::ZERO;
                if received + chunk.len() as u64 > record.total_bytes {
                    if let Err(error) = file.set_len(0).await {
                        return io_stop(error);
                    }
                    return Attempt::Retry {
                        reason: "the server sent more bytes than the file has".into(),
                        progressed: false,
                    };
                }
                if let Err(error) = file.write_all(&chunk).await {
                    return write_failed(error, folder, record, received);
                }
                received += chunk.len() as u64;
                progressed = true;
                let now = Instant::now();
                meter.record(now, chunk.len() as u64);
                if now.duration_since(last_report) >= timing.progress_interval {
                    last_report = now;
                    sink.report(
                        ModelDownloadStatus::Downloading,
                        received,
                        meter.bytes_per_second(now),
                        meter.seconds_left(now, record.total_bytes - received),
                        None,
                    );
                }
            }
            Ok(Some(Err(error))) => {
                return finish_with(
                    &mut file,
                    folder,
                    record,
                    received,
                    Attempt::Retry {
                        reason: format!("the connection was lost ({})", without_url(&error)),
                        progressed,
                    },
                )
                .await
            }
            Ok(None) => {
                let ending = if remaining == 0 {
                    Attempt::Complete
                } else {
                    Attempt::Retry {
                        reason: "the server closed the connection before the end".into(),
                        progressed,
                    }
                };
                return finish_with(&mut file, folder, record, received, ending).await;
            }
            Err(_quiet) => {
                quiet_for += timing.quiet_after;
                sink.report(
                    ModelDownloadStatus::WaitingForServer,
                    received,
                    None,
                    None,
                    Some(format!(
                        "Nothing has arrived for {} seconds.",
                        quiet_for.as_secs().max(1)
                    )),
                );
                if quiet_for >= timing.stall_timeout {
                    return finish_with(
                        &mut file,
                        folder,
                        record,
                        received,
                        Attempt::Retry {
                            reason: format!(
                                "nothing arrived for {} seconds",
                                quiet_for.as_secs().max(1)
                            ),
                            progressed,
                        },
                    )
                    .await;
                }
            }
        }
    }
}

/// Flushes what arrived before reporting how the attempt ended.
async fn finish_with(
    file: &mut tokio::fs::File,
    folder: &Path,
    record: &DownloadRecord,
    received: u64,
    ending: Attempt,
) -> Attempt {
    match file.flush().await {
        Ok(()) => ending,
        Err(error) => write_failed(error, folder, record, received),
    }
}

fn write_failed(
    error: std::io::Error,
    folder: &Path,
    record: &DownloadRecord,
    received: u64,
) -> Attempt {
    // ENOSPC (and EDQUOT, a full quota) read as a full disk whatever the platform calls them.
    if error.kind() == std::io::ErrorKind::StorageFull
        || matches!(error.raw_os_error(), Some(28) | Some(122))
    {
        return Attempt::Stop(LocalModelError::DiskFull {
            model_id: record.model_id.clone(),
            folder: folder.display().to_string(),
            received,
        });
    }
    Attempt::Stop(LocalModelError::io(
        part_path(folder, &record.model_id),
        &error,
    ))
}

/// `bytes 100-999/1000` → 100.
fn content_range_start(value: &str) -> Option<u64> {
    value
        .strip_prefix("bytes ")?
        .split('-')
        .next()?
        .trim()
        .parse()
        .ok()
}

/// reqwest's message without the URL it appends (the person sees the model's name instead).
fn without_url(error: &reqwest::Error) -> String {
    let mut error = error.to_string();
    if let Some(at) = error.find(" for url (") {
        error.truncate(at);
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_range_start_reads_the_first_byte() {
        assert_eq!(content_range_start("bytes 100-999/1000"), Some(100));
        assert_eq!(content_range_start("bytes */1000"), None);
        assert_eq!(content_range_start("items 1-2/3"), None);
    }
}
