//! A session's history for the benches, written straight through the store in one transaction:
//! what a bench measures comes after it, so the pipeline's per-prompt work is skipped here.
//! Shared by the `ledger` and `backup` benches (`#[path]` modules: benches are separate crates).

use dossier_core::models::config::{Config, Locations};
use dossier_core::store::tables::{message_store, session_store};
use dossier_core::wire::id::IdKind;
use dossier_core::wire::message::{Message, UserMessage, UserModel, UserTime};
use dossier_core::wire::part::{Part, PartBody, TextPart};
use dossier_core::{Ledger, LedgerOptions};
use std::path::Path;

/// The shape of the history: how many user messages, parts each, how long each part's text is
/// (repeats of a 27-character phrase) and how many of each message's first parts are synthetic.
#[derive(Clone, Copy)]
pub struct History {
    pub messages: usize,
    pub parts_per_message: usize,
    pub phrase_repeats: usize,
    pub synthetic_parts: usize,
}

pub async fn fill(ledger: &Ledger, session_id: &str, history: &History) {
    let History {
        messages: count,
        parts_per_message,
        phrase_repeats,
        synthetic_parts,
    } = *history;
    let now = ledger.now();
    let mut transaction = ledger
        .pool()
        .sqlite()
        .expect("a SQLite ledger")
        .begin()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let first = session_store::reserve_sequence(
        &mut transaction,
        session_id,
        (count * (1 + parts_per_message)) as i64,
    )
    .await
    .unwrap_or_else(|error| panic!("{error}"));
    let mut seq = first;
    for index in 0..count {
        let message_id = ledger.new_id(IdKind::Message);
        let message = Message::User(UserMessage {
            id: message_id.clone(),
            session_id: session_id.into(),
            time: UserTime { created: now },
            format: None,
            summary: None,
            agent: "build".into(),
            model: UserModel {
                provider_id: "fake".into(),
                model_id: "fake-model".into(),
                variant: None,
            },
            system: None,
            tools: None,
        });
        message_store::insert_message(&mut transaction, &message, seq, now)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        seq += 1;
        for part_index in 0..parts_per_message {
            let part = Part {
                id: ledger.new_id(IdKind::Part),
                session_id: session_id.into(),
                message_id: message_id.clone(),
                body: PartBody::Text(TextPart {
                    text: format!(
                        "message {index} part {part_index}: {}",
                        "lorem ipsum dolor sit amet ".repeat(phrase_repeats)
                    ),
                    synthetic: (part_index < synthetic_parts).then_some(true),
                    ..TextPart::default()
                }),
            };
            message_store::insert_part(&mut transaction, &part, seq, now)
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            seq += 1;
        }
    }
    transaction
        .commit()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
}

/// A ledger in `folder` with one fake model configured and no config file.
pub async fn open_ledger(folder: &Path) -> Ledger {
    let mut options = LedgerOptions::at(Locations {
        data_dir: folder.join("data"),
        config_path: folder.join("none.json"),
    });
    options.config = Some(
        Config::parse(
            r#"{"model": "fake/fake-model", "provider": {"fake": {"models": {"fake-model": {}}}}}"#,
        )
        .unwrap_or_default(),
    );
    options.default_directory = Some(folder.to_path_buf());
    dossier_core::start_up::open(options)
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}
