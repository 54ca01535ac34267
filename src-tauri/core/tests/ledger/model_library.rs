//! The model library through the ledger's handle, as both adapters reach it: the view with the
//! recommended model, a download from a loopback server until installed, deleting it (with the
//! space it gave back), and adding a model file by path (its header checked first).

use crate::support::model_server::ModelServer;
use crate::support::*;
use dossier_core::local_models::download_transfer::DownloadTiming;
use dossier_core::local_models::installed_models::AddModelFile;
use dossier_core::local_models::library::LibraryEntry;
use dossier_core::local_models::local_engine::LocalEngineOptions;
use dossier_core::wire::error::ErrorKind;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::message::ModelRef;
use dossier_core::wire::model_download::ModelDownloadStatus;
use std::time::Duration;

fn tiny_entry(content: &[u8]) -> LibraryEntry {
    use sha2::Digest;
    LibraryEntry {
        id: "tiny-test-model".into(),
        display_name: "Tiny Test Model".into(),
        repository: "dossier/tiny".into(),
        revision: "0".repeat(40),
        file_name: "tiny-test-model.gguf".into(),
        quantization: "Q4_K_M".into(),
        size_bytes: content.len() as u64,
        sha256: sha2::Sha256::digest(content)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect(),
        licence: "Apache-2.0".into(),
        memory_bytes: content.len() as u64 + 1000,
        checked: String::new(),
    }
}

/// A minimal GGUF v3 file of architecture `llama`, padded to `size` bytes.
fn gguf_file(size: usize) -> Vec<u8> {
    let mut bytes = b"GGUF".to_vec();
    bytes.extend(3_u32.to_le_bytes());
    bytes.extend(0_u64.to_le_bytes());
    bytes.extend(1_u64.to_le_bytes());
    let key = "general.architecture";
    bytes.extend((key.len() as u64).to_le_bytes());
    bytes.extend(key.as_bytes());
    bytes.extend(8_u32.to_le_bytes());
    bytes.extend(5_u64.to_le_bytes());
    bytes.extend(b"llama");
    bytes.resize(size.max(bytes.len()), 7);
    bytes
}

#[tokio::test]
async fn the_library_downloads_installs_and_deletes_a_model_through_the_handle() {
    let content = gguf_file(400_000);
    let server = ModelServer::start(content.clone(), Duration::ZERO, vec![]).await;
    let entry = tiny_entry(&content);
    let url = server.url.clone();
    let test = open_with(FAKE_CONFIG, move |options| {
        options.model_library_entries = Some(vec![entry]);
        options.model_library_url = Some(url);
        options.model_download_timing = Some(DownloadTiming {
            first_retry: Duration::from_millis(50),
            ..DownloadTiming::default()
        });
        // The engine on, as in the apps: its models are the library's folder.
        options.local_models = Some(LocalEngineOptions::new(
            options.locations.data_dir.join("models"),
        ));
    })
    .await;
    let offered = |test: &TestLedger| {
        let model = ModelRef::parse("local/tiny-test-model").expect("a model reference");
        test.ledger.providers().models().find(&model).is_some()
    };
    assert!(!offered(&test), "nothing is installed yet");
    let handle = test.ledger.local_models();
    let view = handle
        .library()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(view.library.len(), 1);
    assert!(!view.library[0].installed);
    assert!(
        view.library[0].recommended,
        "a tiny model fits any computer"
    );
    assert_eq!(
        view.recommended_model_id.as_deref(),
        Some("tiny-test-model")
    );
    assert!(view.models_folder.ends_with("models"));
    // An absent value is left out, not `null`: the UI's generated type says optional.
    let json = serde_json::to_value(&view).unwrap_or_else(|error| panic!("{error}"));
    assert!(json["library"][0].get("download").is_none(), "{json}");

    let mut events = test.ledger.events().subscribe();
    handle
        .start_download("tiny-test-model")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .unwrap_or_else(|_| panic!("no Installed event"))
            .unwrap_or_else(|error| panic!("{error}"));
        if let EventPayload::ModelDownload(progress) = &event.payload {
            if progress.status == ModelDownloadStatus::Installed {
                break;
            }
        }
    }
    // The model picker offers the new model without a restart.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !offered(&test) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the installed model never reached the model catalog"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let view = handle
        .library()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(view.library[0].installed);
    assert_eq!(
        view.library[0]
            .download
            .as_ref()
            .map(|download| download.status),
        Some(ModelDownloadStatus::Installed)
    );

    let deleted = handle
        .delete_model("tiny-test-model")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(deleted.freed_bytes, 400_000);
    assert!(
        !offered(&test),
        "a deleted model leaves the model picker at once"
    );
    let again = handle.delete_model("tiny-test-model").await.err();
    assert_eq!(again.map(|error| error.kind()), Some(ErrorKind::NotFound));
    let unknown = handle.start_download("no-such-model").await.err();
    assert_eq!(unknown.map(|error| error.kind()), Some(ErrorKind::NotFound));
}

#[tokio::test]
async fn adding_a_model_file_checks_its_header_and_lists_it() {
    let test = open(FAKE_CONFIG).await;
    let handle = test.ledger.local_models();
    let chosen = test.folder.path().join("My-Model.gguf");
    std::fs::write(&chosen, gguf_file(10_000)).unwrap_or_else(|error| panic!("{error}"));
    let added = handle
        .add_model_file(AddModelFile {
            path: chosen.display().to_string(),
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(added.model_id, "My-Model");
    assert_eq!(added.architecture.as_deref(), Some("llama"));
    let view = handle
        .library()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        view.other_installed
            .iter()
            .map(|model| model.model_id.as_str())
            .collect::<Vec<_>>(),
        ["My-Model"]
    );
    // The same file again is refused; so are a zip and an empty file, with their reason.
    let twice = handle
        .add_model_file(AddModelFile {
            path: chosen.display().to_string(),
        })
        .await
        .err();
    assert_eq!(twice.map(|error| error.kind()), Some(ErrorKind::Conflict));
    let zip = test.folder.path().join("archive.gguf");
    std::fs::write(&zip, b"PK\x03\x04 not a model").unwrap_or_else(|error| panic!("{error}"));
    let refused = handle
        .add_model_file(AddModelFile {
            path: zip.display().to_string(),
        })
        .await
        .err()
        .map(|error| (error.kind(), error.to_string()));
    assert!(
        matches!(&refused, Some((ErrorKind::Invalid, message)) if message.contains("not a GGUF")),
        "{refused:?}"
    );
    let empty = test.folder.path().join("empty.gguf");
    std::fs::write(&empty, b"").unwrap_or_else(|error| panic!("{error}"));
    let refused = handle
        .add_model_file(AddModelFile {
            path: empty.display().to_string(),
        })
        .await
        .err()
        .map(|error| error.to_string());
    assert!(refused.is_some_and(|message| message.contains("empty")));
    assert!(!test.folder.path().join("data/models/archive.gguf").exists());
}
