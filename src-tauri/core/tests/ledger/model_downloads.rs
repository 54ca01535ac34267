//! Model downloads against a real HTTP server on loopback (`support::model_server`): resume with
//! `Range` after the task is killed, a wrong checksum, a stall, a dropped connection, a full disk
//! (a small tmpfs), pause, cancel, two starts of one model, and too little disk space.

use crate::support::model_server::{Fault, ModelServer};
use dossier_core::local_models::download::{sha256_of, Downloads};
use dossier_core::local_models::download_record::{
    model_path, part_path, record_path, DownloadRecord,
};
use dossier_core::local_models::download_transfer::DownloadTiming;
use dossier_core::models::provider::http_client::http_client;
use dossier_core::wire::event::{EventBus, EventPayload};
use dossier_core::wire::id::IdGenerator;
use dossier_core::wire::model_download::{ModelDownloadProgress, ModelDownloadStatus};
use std::path::Path;
use std::time::Duration;

const MODEL: &str = "tiny-model-q4";

/// Bytes that do not repeat, so a piece in the wrong place changes the hash.
fn model_bytes(size: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(size);
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    while bytes.len() < size {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    bytes.truncate(size);
    bytes
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

fn quick_timing() -> DownloadTiming {
    DownloadTiming {
        quiet_after: Duration::from_millis(200),
        stall_timeout: Duration::from_millis(800),
        first_retry: Duration::from_millis(50),
        longest_retry: Duration::from_millis(200),
        attempts_without_progress: 4,
        progress_interval: Duration::from_millis(20),
    }
}

fn record_for(server: &ModelServer, content: &[u8]) -> DownloadRecord {
    DownloadRecord {
        model_id: MODEL.into(),
        url: format!("{}/org/repo/resolve/0123/{MODEL}.gguf", server.url),
        sha256: sha256_hex(content),
        total_bytes: content.len() as u64,
        paused: false,
    }
}

fn events() -> EventBus {
    EventBus::new(std::sync::Arc::new(IdGenerator::system()))
}

fn downloads(folder: &Path, events: &EventBus) -> Downloads {
    Downloads::new(
        folder.to_path_buf(),
        events.clone(),
        http_client(),
        quick_timing(),
    )
}

/// Collects download events until one has `status` (or 20 s pass).
async fn until_status(
    receiver: &mut tokio::sync::broadcast::Receiver<
        std::sync::Arc<dossier_core::wire::event::Event>,
    >,
    status: ModelDownloadStatus,
) -> Vec<ModelDownloadProgress> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let event = tokio::time::timeout_at(deadline, receiver.recv())
            .await
            .unwrap_or_else(|_| panic!("no {status:?} within 20 s; saw {seen:#?}"))
            .unwrap_or_else(|error| panic!("{error}"));
        if let EventPayload::ModelDownload(progress) = &event.payload {
            seen.push(progress.clone());
            if progress.status == status {
                return seen;
            }
        }
    }
}

fn assert_installed(folder: &Path, content: &[u8]) {
    let model = model_path(folder, MODEL);
    assert_eq!(
        sha256_of(&model).unwrap_or_else(|error| panic!("{error}")),
        sha256_hex(content)
    );
    assert!(!part_path(folder, MODEL).exists(), "the .part file stayed");
    assert!(!record_path(folder, MODEL).exists(), "the record stayed");
}

async fn wait_for_part(folder: &Path, at_least: u64) {
    for _ in 0..400 {
        if std::fs::metadata(part_path(folder, MODEL))
            .is_ok_and(|metadata| metadata.len() >= at_least)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the .part file never reached {at_least} bytes");
}

#[tokio::test]
async fn a_download_is_verified_then_installed_with_progress_on_the_way() {
    let content = model_bytes(1_000_000);
    let server = ModelServer::start(content.clone(), Duration::from_millis(5), vec![]).await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = downloads(folder.path(), &events);
    downloads
        .start(record_for(&server, &content))
        .unwrap_or_else(|error| panic!("{error}"));
    let seen = until_status(&mut receiver, ModelDownloadStatus::Installed).await;
    assert_installed(folder.path(), &content);
    let moving: Vec<_> = seen
        .iter()
        .filter(|progress| progress.status == ModelDownloadStatus::Downloading)
        .collect();
    assert!(
        !moving.is_empty(),
        "no progress while downloading: {seen:#?}"
    );
    assert!(moving
        .iter()
        .all(|progress| progress.bytes_per_second.is_some_and(|speed| speed > 0)));
    assert!(seen
        .iter()
        .any(|progress| progress.status == ModelDownloadStatus::Verifying));
    assert_eq!(server.ranges(), vec![None]);
}

#[test]
fn a_download_resumes_with_a_range_after_its_task_is_killed() {
    let content = model_bytes(2_000_000);
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    // The first run: its own runtime, dropped mid-download as quitting the app would.
    let first = tokio::runtime::Runtime::new().unwrap_or_else(|error| panic!("{error}"));
    let server = first.block_on(async {
        let server = ModelServer::start(
            content.clone(),
            Duration::from_millis(10),
            vec![Fault::SilentAfter(700_000)],
        )
        .await;
        let events = events();
        let downloads = downloads(folder.path(), &events);
        downloads
            .start(record_for(&server, &content))
            .unwrap_or_else(|error| panic!("{error}"));
        wait_for_part(folder.path(), 700_000).await;
        server
    });
    drop(first);
    let kept = std::fs::metadata(part_path(folder.path(), MODEL))
        .map(|metadata| metadata.len())
        .unwrap_or(0);
    assert!(kept >= 700_000, "kept {kept}");
    assert!(record_path(folder.path(), MODEL).exists());
    // The next start: a new server on another port serves the same file; the record's URL is
    // the old one, so rewrite it as the library would when its address is the same.
    let second = tokio::runtime::Runtime::new().unwrap_or_else(|error| panic!("{error}"));
    second.block_on(async {
        let server_again = ModelServer::start(content.clone(), Duration::ZERO, vec![]).await;
        let mut record = record_for(&server_again, &content);
        record.paused = false;
        dossier_core::local_models::download_record::write_record(folder.path(), &record)
            .unwrap_or_else(|error| panic!("{error}"));
        let events = events();
        let mut receiver = events.subscribe();
        let downloads = downloads(folder.path(), &events);
        downloads.resume_unfinished();
        until_status(&mut receiver, ModelDownloadStatus::Installed).await;
        assert_installed(folder.path(), &content);
        assert_eq!(server_again.ranges(), vec![Some(format!("bytes={kept}-"))]);
    });
    assert_eq!(server.ranges(), vec![None]);
}

/// Checking the file comes after every byte arrived: its progress counts all of them, however long
/// ago the last periodic report was (here never: the interval is an hour).
#[tokio::test]
async fn checking_the_file_counts_every_byte_received() {
    let content = model_bytes(300_000);
    let server = ModelServer::start(content.clone(), Duration::ZERO, vec![]).await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = Downloads::new(
        folder.path().to_path_buf(),
        events.clone(),
        http_client(),
        DownloadTiming {
            progress_interval: Duration::from_secs(3600),
            ..quick_timing()
        },
    );
    downloads
        .start(record_for(&server, &content))
        .unwrap_or_else(|error| panic!("{error}"));
    let seen = until_status(&mut receiver, ModelDownloadStatus::Installed).await;
    let checking: Vec<_> = seen
        .iter()
        .filter(|progress| progress.status == ModelDownloadStatus::Verifying)
        .collect();
    assert!(!checking.is_empty(), "{seen:#?}");
    assert!(
        checking
            .iter()
            .all(|progress| progress.received_bytes == content.len() as u64),
        "{seen:#?}"
    );
    assert_installed(folder.path(), &content);
}

#[tokio::test]
async fn a_wrong_checksum_deletes_the_file_and_installs_nothing() {
    let content = model_bytes(300_000);
    let server = ModelServer::start(content.clone(), Duration::ZERO, vec![]).await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = downloads(folder.path(), &events);
    let mut record = record_for(&server, &content);
    record.sha256 = sha256_hex(b"another file");
    downloads
        .start(record)
        .unwrap_or_else(|error| panic!("{error}"));
    let seen = until_status(&mut receiver, ModelDownloadStatus::Failed).await;
    let message = seen
        .last()
        .and_then(|progress| progress.message.clone())
        .unwrap_or_default();
    assert!(message.contains("not the expected one"), "{message}");
    assert!(!model_path(folder.path(), MODEL).exists());
    assert!(!part_path(folder.path(), MODEL).exists());
    assert!(!record_path(folder.path(), MODEL).exists());
}

#[tokio::test]
async fn a_stall_says_waiting_for_the_server_without_a_speed_then_retries_and_finishes() {
    let content = model_bytes(600_000);
    let server = ModelServer::start(
        content.clone(),
        Duration::ZERO,
        vec![Fault::SilentAfter(200_000)],
    )
    .await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = downloads(folder.path(), &events);
    downloads
        .start(record_for(&server, &content))
        .unwrap_or_else(|error| panic!("{error}"));
    let seen = until_status(&mut receiver, ModelDownloadStatus::Installed).await;
    let waiting: Vec<_> = seen
        .iter()
        .filter(|progress| progress.status == ModelDownloadStatus::WaitingForServer)
        .collect();
    assert!(!waiting.is_empty(), "{seen:#?}");
    assert!(waiting
        .iter()
        .all(|progress| progress.bytes_per_second.is_none() && progress.seconds_left.is_none()));
    assert!(waiting
        .iter()
        .any(|progress| progress.received_bytes >= 200_000));
    assert_installed(folder.path(), &content);
    assert_eq!(server.ranges(), vec![None, Some("bytes=200000-".into())]);
}

#[tokio::test]
async fn a_dropped_connection_and_a_server_error_are_retried_from_where_they_stopped() {
    let content = model_bytes(500_000);
    let server = ModelServer::start(
        content.clone(),
        Duration::ZERO,
        vec![
            Fault::CutAfter(131_072),
            Fault::Status(503),
            Fault::CutAfter(65_536),
        ],
    )
    .await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = downloads(folder.path(), &events);
    downloads
        .start(record_for(&server, &content))
        .unwrap_or_else(|error| panic!("{error}"));
    until_status(&mut receiver, ModelDownloadStatus::Installed).await;
    assert_installed(folder.path(), &content);
    assert_eq!(
        server.ranges(),
        vec![
            None,
            Some("bytes=131072-".into()),
            Some("bytes=131072-".into()),
            Some("bytes=196608-".into())
        ]
    );
}

#[tokio::test]
async fn a_missing_file_on_the_server_fails_without_retrying() {
    let content = model_bytes(100_000);
    let server =
        ModelServer::start(content.clone(), Duration::ZERO, vec![Fault::Status(404)]).await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = downloads(folder.path(), &events);
    downloads
        .start(record_for(&server, &content))
        .unwrap_or_else(|error| panic!("{error}"));
    let seen = until_status(&mut receiver, ModelDownloadStatus::Failed).await;
    let message = seen
        .last()
        .and_then(|progress| progress.message.clone())
        .unwrap_or_default();
    assert!(message.contains("404"), "{message}");
    assert_eq!(server.ranges().len(), 1);
}

#[tokio::test]
async fn pause_keeps_the_bytes_and_resume_finishes_from_them() {
    let content = model_bytes(1_500_000);
    let server = ModelServer::start(content.clone(), Duration::from_millis(20), vec![]).await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = downloads(folder.path(), &events);
    downloads
        .start(record_for(&server, &content))
        .unwrap_or_else(|error| panic!("{error}"));
    wait_for_part(folder.path(), 200_000).await;
    downloads
        .pause(MODEL)
        .unwrap_or_else(|error| panic!("{error}"));
    until_status(&mut receiver, ModelDownloadStatus::Paused).await;
    let paused_at = std::fs::metadata(part_path(folder.path(), MODEL))
        .map(|m| m.len())
        .unwrap_or(0);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let still = std::fs::metadata(part_path(folder.path(), MODEL))
        .map(|m| m.len())
        .unwrap_or(0);
    assert_eq!(paused_at, still, "bytes kept arriving while paused");
    assert!(std::fs::read_to_string(record_path(folder.path(), MODEL))
        .unwrap_or_default()
        .contains("\"paused\": true"));
    downloads
        .resume(MODEL)
        .unwrap_or_else(|error| panic!("{error}"));
    until_status(&mut receiver, ModelDownloadStatus::Installed).await;
    assert_installed(folder.path(), &content);
    assert_eq!(server.ranges()[1], Some(format!("bytes={paused_at}-")));
}

#[tokio::test]
async fn cancel_deletes_the_partial_file() {
    let content = model_bytes(1_500_000);
    let server = ModelServer::start(content.clone(), Duration::from_millis(20), vec![]).await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = downloads(folder.path(), &events);
    downloads
        .start(record_for(&server, &content))
        .unwrap_or_else(|error| panic!("{error}"));
    wait_for_part(folder.path(), 100_000).await;
    downloads
        .cancel(MODEL)
        .unwrap_or_else(|error| panic!("{error}"));
    until_status(&mut receiver, ModelDownloadStatus::Cancelled).await;
    assert!(!part_path(folder.path(), MODEL).exists());
    assert!(!record_path(folder.path(), MODEL).exists());
    assert!(!model_path(folder.path(), MODEL).exists());
    assert!(
        downloads.cancel(MODEL).is_err(),
        "a finished download can be cancelled again"
    );
}

#[tokio::test]
async fn two_starts_of_one_model_share_one_download() {
    let content = model_bytes(800_000);
    let server = ModelServer::start(content.clone(), Duration::from_millis(10), vec![]).await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = downloads(folder.path(), &events);
    let first = downloads.start(record_for(&server, &content));
    let second = downloads.start(record_for(&server, &content));
    assert!(first.is_ok() && second.is_ok(), "{first:?} {second:?}");
    until_status(&mut receiver, ModelDownloadStatus::Installed).await;
    assert_installed(folder.path(), &content);
    assert_eq!(
        server.ranges().len(),
        1,
        "two transfers: {:?}",
        server.ranges()
    );
    // Installed now: a third start is refused rather than downloading again.
    let third = downloads.start(record_for(&server, &content));
    assert!(third.is_err());
}

#[tokio::test]
async fn too_little_disk_space_is_refused_before_anything_starts() {
    let content = model_bytes(1000);
    let server = ModelServer::start(content.clone(), Duration::ZERO, vec![]).await;
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let events = events();
    let downloads = downloads(folder.path(), &events);
    let mut record = record_for(&server, &content);
    record.total_bytes = u64::MAX / 4;
    let error = downloads
        .start(record)
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert!(error.contains("Not enough free disk space"), "{error}");
    assert!(server.ranges().is_empty());
    assert!(!part_path(folder.path(), MODEL).exists());
}

/// A real full disk: a 4 MiB tmpfs that a second file fills while the model downloads. Needs
/// root to mount; where it cannot mount, the test says so and passes without running.
#[tokio::test]
async fn a_full_disk_stops_the_download_keeps_its_bytes_and_resume_finishes() {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"])
        .arg(folder.path())
        .status()
        .is_ok_and(|status| status.success());
    if !mounted {
        eprintln!(
            "a_full_disk…: could not mount a tmpfs (not root?); the full-disk test did not run"
        );
        return;
    }
    struct Unmount<'path>(&'path Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            std::process::Command::new("umount")
                .arg(self.0)
                .status()
                .ok();
        }
    }
    let _unmount = Unmount(folder.path());
    let content = model_bytes(3 * 1024 * 1024);
    let server = ModelServer::start(content.clone(), Duration::from_millis(40), vec![]).await;
    let events = events();
    let mut receiver = events.subscribe();
    let downloads = downloads(folder.path(), &events);
    downloads
        .start(record_for(&server, &content))
        .unwrap_or_else(|error| panic!("{error}"));
    wait_for_part(folder.path(), 256 * 1024).await;
    // Another program fills the disk.
    let filler = folder.path().join("filler");
    {
        use std::io::Write;
        let mut file = std::fs::File::create(&filler).unwrap_or_else(|error| panic!("{error}"));
        let block = vec![0_u8; 64 * 1024];
        while file.write_all(&block).is_ok() {}
        file.sync_all().ok();
    }
    let seen = until_status(&mut receiver, ModelDownloadStatus::Failed).await;
    let message = seen
        .last()
        .and_then(|progress| progress.message.clone())
        .unwrap_or_default();
    assert!(message.contains("became full"), "{message}");
    let kept = std::fs::metadata(part_path(folder.path(), MODEL))
        .map(|m| m.len())
        .unwrap_or(0);
    assert!(kept >= 256 * 1024, "kept {kept}");
    std::fs::remove_file(&filler).unwrap_or_else(|error| panic!("{error}"));
    downloads
        .resume(MODEL)
        .unwrap_or_else(|error| panic!("{error}"));
    until_status(&mut receiver, ModelDownloadStatus::Installed).await;
    assert_installed(folder.path(), &content);
}
