//! Shared set-up: a ledger in a temporary folder with a given config, and small helpers.

use dossier_core::models::config::{Config, Locations};
use dossier_core::wire::draft::{Draft, PromptInput};
use dossier_core::wire::event::Event;
use dossier_core::wire::message::MessageWithParts;
use dossier_core::wire::part::PartBody;
use dossier_core::wire::session::{CreateSession, Session};
use dossier_core::{Ledger, LedgerOptions};
use std::path::{Path, PathBuf};
use tokio::sync::broadcast;

pub mod crash_rounds;
pub mod postgres_server;

/// A provider named like the one in OpenCode's wire samples.
pub const FAKE_CONFIG: &str = r#"{
  "model": "fake/fake-model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "models": {"fake-model": {"name": "Fake"}, "smart": {"variants": {"high": {}}}}}}
}"#;

pub struct TestLedger {
    pub ledger: Ledger,
    pub folder: tempfile::TempDir,
}

pub fn options(folder: &Path, config: &str) -> LedgerOptions {
    let mut options = LedgerOptions::at(Locations {
        data_dir: folder.join("data"),
        config_path: folder.join("config.json"),
    });
    options.config = Some(Config::parse(config).unwrap_or_else(|error| panic!("{error}")));
    options.default_directory = Some(folder.join("work"));
    options
}

pub async fn open(config: &str) -> TestLedger {
    open_with(config, |_| {}).await
}

pub async fn open_with(config: &str, adjust: impl FnOnce(&mut LedgerOptions)) -> TestLedger {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    std::fs::create_dir_all(folder.path().join("work")).unwrap_or_else(|error| panic!("{error}"));
    let mut options = options(folder.path(), config);
    adjust(&mut options);
    let ledger = dossier_core::start_up::open(options)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    TestLedger { ledger, folder }
}

impl TestLedger {
    /// Every message of the session with its parts, oldest first, as the ledger lists them.
    pub async fn history(&self, session_id: &str) -> Vec<MessageWithParts> {
        self.ledger
            .messages(session_id, &Default::default())
            .await
            .unwrap_or_else(|error| panic!("{error}"))
            .messages
    }

    pub fn work(&self) -> PathBuf {
        self.folder.path().join("work")
    }

    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.work().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|error| panic!("{error}"));
        }
        std::fs::write(&path, bytes).unwrap_or_else(|error| panic!("{error}"));
        path
    }

    pub async fn session(&self) -> Session {
        self.ledger
            .create_session(CreateSession::default())
            .await
            .unwrap_or_else(|error| panic!("{error}"))
    }

    pub async fn no_reply(&self, session: &Session, parts: Vec<Draft>) -> MessageWithParts {
        self.ledger
            .prompt(&session.id, no_reply(parts))
            .await
            .unwrap_or_else(|error| panic!("{error}"))
    }
}

pub fn no_reply(parts: Vec<Draft>) -> PromptInput {
    PromptInput {
        no_reply: Some(true),
        parts,
        ..PromptInput::default()
    }
}

pub fn file_url(path: &Path) -> String {
    url::Url::from_file_path(path)
        .unwrap_or_else(|()| panic!("{}", path.display()))
        .to_string()
}

pub fn file_draft(path: &Path) -> Draft {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().to_string());
    Draft::file(file_url(path), "text/plain", name.as_deref())
}

/// Each part as a short readable line: `text: …` (with `*` when synthetic), `file mime url`, …
pub fn describe(parts: &[dossier_core::wire::part::Part]) -> Vec<String> {
    parts
        .iter()
        .map(|part| match &part.body {
            PartBody::Text(text) => format!(
                "text{}: {}",
                if text.synthetic == Some(true) {
                    "*"
                } else {
                    ""
                },
                text.text
            ),
            PartBody::File(file) => format!("file {} {}", file.mime, file.url),
            other => other.type_name().to_string(),
        })
        .collect()
}

pub fn drain(receiver: &mut broadcast::Receiver<std::sync::Arc<Event>>) -> Vec<Event> {
    let mut events = Vec::new();
    while let Ok(event) = receiver.try_recv() {
        events.push(Event::clone(&event));
    }
    events
}

pub fn types(events: &[Event]) -> Vec<&'static str> {
    events
        .iter()
        .map(|event| event.payload.type_name())
        .collect()
}

/// A PNG of `width`×`height` with enough detail that it does not compress to nothing.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let buffer = image::ImageBuffer::from_fn(width, height, |x, y| {
        image::Rgb([
            (x * 7 % 256) as u8,
            (y * 13 % 256) as u8,
            ((x ^ y) % 256) as u8,
        ])
    });
    let mut bytes = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(buffer)
        .write_to(&mut bytes, image::ImageFormat::Png)
        .unwrap_or_else(|error| panic!("{error}"));
    bytes.into_inner()
}

/// What a search for `text` over every session finds.
pub async fn search(
    test: &TestLedger,
    text: &str,
) -> Vec<dossier_core::store::search::SearchResult> {
    test.ledger
        .search(&dossier_core::store::search::SearchQuery {
            text: text.into(),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

pub fn session_ids(results: &[dossier_core::store::search::SearchResult]) -> Vec<String> {
    results
        .iter()
        .map(|result| result.session.id.clone())
        .collect()
}

/// The message's first text part.
pub fn text_part_of(message: &MessageWithParts) -> &dossier_core::wire::part::Part {
    message
        .parts
        .iter()
        .find(|part| matches!(part.body, PartBody::Text(_)))
        .unwrap_or_else(|| panic!("no text in {:?}", message.parts))
}
