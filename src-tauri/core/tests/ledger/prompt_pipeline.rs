//! Every branch of the prompt pipeline (contract §3) against a real database.

use crate::support::*;
use async_trait::async_trait;
use dossier_core::mcp::mcp_error::McpError;
use dossier_core::pipeline::mcp_resource::{McpResources, ResourceContent};
use dossier_core::store::rows::blob_address;
use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::wire::assistant_error::AssistantError;
use dossier_core::wire::draft::{Draft, FileDraft, PromptInput, SubtaskDraft, TextDraft};
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::message::{Message, ModelRef};
use dossier_core::wire::part::{FilePart, FileSource, PartBody, SourceText, SubtaskPart, TextPart};
use dossier_core::ErrorKind;
use std::sync::Arc;

fn read_call(path: &std::path::Path) -> String {
    format!(
        "text*: Called the Read tool with the following input: {{\"filePath\":\"{}\"}}",
        in_json(path)
    )
}

/// The path as it is written inside a JSON string: a Windows path's `\` escaped.
fn in_json(path: &std::path::Path) -> String {
    let quoted = serde_json::Value::from(path.display().to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

#[tokio::test]
async fn noreply_prompt_with_text_file_gives_opencodes_four_parts() {
    let test = open(FAKE_CONFIG).await;
    let path = test.write("package.json", "{\n  \"name\": \"demo\"\n}\n");
    let session = test.session().await;
    let saved = test
        .no_reply(
            &session,
            vec![file_draft(&path), Draft::text("explain this project")],
        )
        .await;
    assert_eq!(
        describe(&saved.parts),
        [
            read_call(&path),
            format!("text*: <path>{}</path>\n<type>file</type>\n<content>\n1: {{\n2:   \"name\": \"demo\"\n3: }}\n\n(End of file - total 3 lines)\n</content>", path.display()),
            format!("file text/plain {}", file_url(&path)),
            "text: explain this project".into(),
        ]
    );
    let Message::User(user) = &saved.info else {
        panic!("not a user message")
    };
    assert_eq!(
        (
            user.agent.as_str(),
            user.model.provider_id.as_str(),
            user.model.model_id.as_str()
        ),
        ("build", "fake", "fake-model")
    );
    let listed = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(listed.messages, vec![saved]);
}

#[tokio::test]
async fn parts_keep_input_order_while_files_resolve_concurrently() {
    let test = open(FAKE_CONFIG).await;
    let big: String = (0..20_000).map(|line| format!("line {line}\n")).collect();
    let mut drafts = Vec::new();
    for index in 0..12 {
        let contents = if index % 3 == 0 {
            big.clone()
        } else {
            format!("small {index}\n")
        };
        let path = test.write(&format!("file-{index}.txt"), contents);
        drafts.push(file_draft(&path));
        drafts.push(Draft::text(format!("note {index}")));
    }
    let session = test.session().await;
    let saved = test.no_reply(&session, drafts).await;
    let order: Vec<String> = saved
        .parts
        .iter()
        .filter_map(|part| match &part.body {
            PartBody::File(file) => file.filename.clone(),
            PartBody::Text(text) if text.synthetic.is_none() => Some(text.text.clone()),
            _ => None,
        })
        .collect();
    let expected: Vec<String> = (0..12)
        .flat_map(|index| [format!("file-{index}.txt"), format!("note {index}")])
        .collect();
    assert_eq!(order, expected);
    let listed = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(listed.messages[0].parts, saved.parts);
}

#[tokio::test]
async fn missing_file_does_not_fail_the_prompt() {
    let test = open(FAKE_CONFIG).await;
    test.write("notes.txt", "x");
    let missing = test.work().join("notes");
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let saved = test
        .no_reply(
            &session,
            vec![file_draft(&missing), Draft::text("still here")],
        )
        .await;
    assert_eq!(
        describe(&saved.parts),
        [
            // The seed's text branch: the call is recorded first, then its failure.
            read_call(&missing),
            format!(
                "text*: Read tool failed to read {} with the following error: File not found: {}\n\nDid you mean one of these?\n{}",
                missing.display(),
                missing.display(),
                test.work().join("notes.txt").display()
            ),
            "text: still here".into(),
        ]
    );
    let errors: Vec<String> = drain(&test.ledger, &mut events)
        .await
        .into_iter()
        .filter_map(|event| match event.payload {
            EventPayload::SessionError {
                error: Some(AssistantError::UnknownError { message }),
                ..
            } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].starts_with("File not found:"));
}

#[tokio::test]
async fn filenames_with_hash_character_are_read() {
    let test = open(FAKE_CONFIG).await;
    let path = test.write("notes#1.txt", "hash\n");
    let session = test.session().await;
    let encoded = test.no_reply(&session, vec![file_draft(&path)]).await;
    assert!(file_url(&path).contains("%23"));
    assert!(
        describe(&encoded.parts)[1].contains("1: hash"),
        "{:?}",
        describe(&encoded.parts)
    );
    // A client that forgot to escape the '#' still gets the file.
    let raw = format!("file://{}", path.display());
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(raw, "text/plain", Some("notes#1.txt"))],
        )
        .await;
    assert!(
        describe(&saved.parts)[1].contains("1: hash"),
        "{:?}",
        describe(&saved.parts)
    );
}

#[tokio::test]
async fn file_range_reads_only_the_requested_lines() {
    let test = open(FAKE_CONFIG).await;
    let path = test.write("five.txt", "one\ntwo\nthree\nfour\nfive\n");
    let session = test.session().await;
    let url = format!("{}?start=2&end=3", file_url(&path));
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(url, "text/plain", Some("five.txt"))],
        )
        .await;
    let described = describe(&saved.parts);
    assert_eq!(described[0], format!("text*: Called the Read tool with the following input: {{\"filePath\":\"{}\",\"offset\":2,\"limit\":2}}", in_json(&path)));
    assert!(
        described[1]
            .contains("\n2: two\n3: three\n\n(Showing lines 2-3 of 5. Use offset=4 to continue.)"),
        "{}",
        described[1]
    );
}

#[tokio::test]
async fn failed_ranged_read_records_its_call_with_the_range_then_the_failure() {
    let test = open(FAKE_CONFIG).await;
    let missing = test.work().join("gone.txt");
    let session = test.session().await;
    let url = format!("{}?start=4&end=9", file_url(&missing));
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(url, "text/plain", Some("gone.txt"))],
        )
        .await;
    assert_eq!(
        describe(&saved.parts),
        [
            format!("text*: Called the Read tool with the following input: {{\"filePath\":\"{}\",\"offset\":4,\"limit\":6}}", in_json(&missing)),
            format!(
                "text*: Read tool failed to read {0} with the following error: File not found: {0}",
                missing.display()
            ),
        ]
    );
}

#[tokio::test]
async fn file_range_ending_at_the_largest_number_reads_to_the_end() {
    // Found by the `file_url` fuzz target: `end + 1` overflowed (a panic in debug builds, a
    // one-line window in release ones).
    let test = open(FAKE_CONFIG).await;
    let path = test.write("five.txt", "one\ntwo\nthree\nfour\nfive\n");
    let session = test.session().await;
    let url = format!("{}?start=2&end={}", file_url(&path), usize::MAX);
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(url, "text/plain", Some("five.txt"))],
        )
        .await;
    let described = describe(&saved.parts);
    assert!(
        described[1].contains("\n2: two\n3: three\n4: four\n5: five\n"),
        "{}",
        described[1]
    );
}

#[tokio::test]
async fn a_comma_in_an_attachments_media_type_keeps_its_bytes_through_storage_and_export() {
    // Found by the `data_url` fuzz target: the media type went into the stored `data:` URL
    // unescaped, so its comma ended the header and the bytes read back were different.
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let small = b"hi".to_vec();
    let large = vec![b'x'; dossier_core::store::rows::blob_address::INLINE_LIMIT + 1];
    let drafts = [&small, &large]
        .iter()
        .map(|bytes| {
            Draft::file(
                dossier_core::wire::data_url::build("text/plain", bytes),
                "text/csv,evil",
                Some("table.csv"),
            )
        })
        .collect();
    test.no_reply(&session, drafts).await;
    let export = test
        .ledger
        .reshaping()
        .export_json(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let bytes: Vec<Vec<u8>> = export.messages[0]
        .parts
        .iter()
        .filter_map(|part| match &part.body {
            PartBody::File(file) => dossier_core::wire::data_url::parse(&file.url)
                .ok()
                .map(|url| url.bytes),
            _ => None,
        })
        .collect();
    // Compared without printing them: the large one is 8 KiB.
    let lengths: Vec<usize> = bytes.iter().map(Vec::len).collect();
    assert!(
        bytes == [small, large],
        "bytes changed; lengths {lengths:?}"
    );
}

#[tokio::test]
async fn directory_becomes_listing_and_directory_part() {
    let test = open(FAKE_CONFIG).await;
    test.write("project/src/main.rs", "fn main() {}");
    test.write("project/README.md", "# hi");
    let folder = test.work().join("project");
    let session = test.session().await;
    // The client says text/plain; the server checks the disk and knows better.
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(file_url(&folder), "text/plain", None)],
        )
        .await;
    assert_eq!(
        describe(&saved.parts),
        [
            read_call(&folder),
            format!("text*: <path>{}</path>\n<type>directory</type>\n<entries>\nREADME.md\nsrc/\n\n(2 entries)\n</entries>", folder.display()),
            format!("file application/x-directory {}", file_url(&folder)),
        ]
    );
}

#[tokio::test]
async fn image_file_becomes_attachment_in_the_blob_store() {
    let test = open(FAKE_CONFIG).await;
    let bytes = png(300, 200);
    assert!(bytes.len() > dossier_core::store::rows::blob_address::INLINE_LIMIT);
    let path = test.write("photo.png", &bytes);
    let session = test.session().await;
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(file_url(&path), "image/png", Some("photo.png"))],
        )
        .await;
    assert_eq!(saved.parts.len(), 2);
    // OpenCode writes a media file's path into this call without JSON escaping, and so does
    // `draft_resolution` (a Windows path keeps single backslashes here).
    assert_eq!(
        describe(&saved.parts)[0],
        format!(
            "text*: Called the Read tool with the following input: {{\"filePath\":\"{}\"}}",
            path.display()
        )
    );
    let PartBody::File(file) = &saved.parts[1].body else {
        panic!("no file part")
    };
    assert_eq!(file.mime, "image/png");
    let hash = blob_address::hash_from_url(&file.url)
        .unwrap_or_else(|| panic!("not a blob reference: {}", file.url));
    let blob = test
        .ledger
        .data()
        .blob(hash)
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|| panic!("blob missing"));
    assert_eq!(blob.bytes, bytes);
    let listing = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let json = serde_json::to_string(&listing.messages).unwrap_or_default();
    assert!(
        json.len() < 2_000,
        "listing carries the bytes: {} bytes",
        json.len()
    );
}

#[tokio::test]
async fn oversized_image_is_normalised_to_2000_pixels() {
    let test = open(FAKE_CONFIG).await;
    let path = test.write("wide.png", png(3000, 100));
    let session = test.session().await;
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(file_url(&path), "image/png", None)],
        )
        .await;
    let PartBody::File(file) = &saved.parts[1].body else {
        panic!("no file part")
    };
    let hash = blob_address::hash_from_url(&file.url).unwrap_or_else(|| panic!("{}", file.url));
    let blob = test
        .ledger
        .data()
        .blob(hash)
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("blob missing"));
    let decoded = image::load_from_memory(&blob.bytes).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!((decoded.width(), decoded.height()), (2000, 66));
    assert_eq!(file.filename.as_deref(), Some("wide.png"));
}

#[tokio::test]
async fn pdf_file_becomes_attachment() {
    let test = open(FAKE_CONFIG).await;
    let path = test.write("paper.pdf", b"%PDF-1.4\n% tiny\n");
    let session = test.session().await;
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(
                file_url(&path),
                "application/pdf",
                Some("paper.pdf"),
            )],
        )
        .await;
    let PartBody::File(file) = &saved.parts[1].body else {
        panic!("no file part")
    };
    assert_eq!(file.mime, "application/pdf");
    assert_eq!(
        file.url,
        dossier_core::wire::data_url::build("application/pdf", b"%PDF-1.4\n% tiny\n")
    );
}

#[tokio::test]
async fn binary_non_media_file_is_refused_with_a_clear_note() {
    let test = open(FAKE_CONFIG).await;
    let path = test.write("tool.exe", b"MZ\x90\0\x03\0\0\0");
    let session = test.session().await;
    let labelled = test
        .no_reply(
            &session,
            vec![
                Draft::file(file_url(&path), "application/octet-stream", None),
                Draft::text("what is this"),
            ],
        )
        .await;
    assert_eq!(
        describe(&labelled.parts)[0],
        format!(
            "text*: Read tool failed to read {0} with the following error: {0} is a binary file (application/octet-stream); only text files, folders, images and PDFs can be attached",
            path.display()
        )
    );
    let as_text = test.no_reply(&session, vec![file_draft(&path)]).await;
    assert_eq!(
        describe(&as_text.parts),
        [
            read_call(&path),
            format!("text*: Read tool failed to read {0} with the following error: Cannot read binary file: {0}", path.display()),
        ]
    );
}

#[tokio::test]
async fn data_url_text_becomes_read_call_and_decoded_text() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let url = "data:text/plain;base64,aGVsbG8gZnJvbSBhIHBhc3Rl".to_string();
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(url.clone(), "text/plain", Some("paste.txt"))],
        )
        .await;
    assert_eq!(
        describe(&saved.parts),
        [
            "text*: Called the Read tool with the following input: {\"filePath\":\"paste.txt\"}"
                .to_string(),
            "text*: hello from a paste".into(),
            format!("file text/plain {url}"),
        ]
    );
}

#[tokio::test]
async fn data_url_image_is_normalised_and_stored_by_size() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let small = dossier_core::wire::data_url::build("image/png", &png(8, 8));
    let large = dossier_core::wire::data_url::build("image/png", &png(400, 400));
    let saved = test
        .no_reply(
            &session,
            vec![
                Draft::file(small.clone(), "image/png", Some("s.png")),
                Draft::file(large, "image/png", Some("l.png")),
            ],
        )
        .await;
    let urls: Vec<String> = saved
        .parts
        .iter()
        .filter_map(|part| match &part.body {
            PartBody::File(file) => Some(file.url.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(urls[0], small);
    assert!(
        urls[1].starts_with(dossier_core::store::rows::blob_address::BLOB_URL_PREFIX),
        "{}",
        urls[1]
    );
}

#[tokio::test]
async fn oversized_data_url_is_refused_with_sizes() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let huge =
        dossier_core::wire::data_url::build("application/pdf", &vec![b'a'; 21 * 1024 * 1024]);
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(huge, "application/pdf", Some("big.pdf"))],
        )
        .await;
    assert_eq!(describe(&saved.parts), ["text*: Read tool failed to read big.pdf with the following error: big.pdf is 21.0 MB; attachments are limited to 20.0 MB"]);
}

#[tokio::test]
async fn http_urls_are_stored_as_given() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(
                "https://example.com/cat.png",
                "image/png",
                Some("cat.png"),
            )],
        )
        .await;
    assert_eq!(
        describe(&saved.parts),
        ["file image/png https://example.com/cat.png"]
    );
}

#[tokio::test]
async fn unsupported_url_schemes_are_refused_before_saving() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let error = test
        .ledger
        .sessions()
        .prompt(
            &session.id,
            no_reply(vec![Draft::file("ftp://host/x", "text/plain", None)]),
        )
        .await
        .err();
    assert_eq!(error.map(|error| error.kind()), Some(ErrorKind::Invalid));
    let listed = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(listed.messages.is_empty());
}

#[tokio::test]
async fn agent_part_adds_the_task_tool_hint() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let saved = test
        .no_reply(
            &session,
            vec![Draft::text("look around"), Draft::agent("explore")],
        )
        .await;
    assert_eq!(
        describe(&saved.parts),
        ["text: look around", "agent", "text*:  Use the above message and context to generate a prompt and call the task tool with subagent: explore"]
    );
}

#[tokio::test]
async fn agent_part_denied_by_permission_is_marked_as_user_invoked() {
    let test = open(r#"{"agent": {"build": {"permission": {"task": {"explore": "deny"}}}}}"#).await;
    let session = test.session().await;
    let saved = test.no_reply(&session, vec![Draft::agent("explore")]).await;
    assert_eq!(
        describe(&saved.parts)[1],
        "text*:  Use the above message and context to generate a prompt and call the task tool with subagent: explore . Invoked by user; guaranteed to exist."
    );
}

#[tokio::test]
async fn subtask_part_is_stored_as_is() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let subtask = SubtaskPart {
        prompt: "find the bug".into(),
        description: "bug hunt".into(),
        agent: "general".into(),
        model: Some(ModelRef::new("fake", "smart")),
        command: None,
    };
    let saved = test
        .no_reply(
            &session,
            vec![Draft::Subtask(SubtaskDraft {
                id: None,
                part: subtask.clone(),
            })],
        )
        .await;
    assert_eq!(saved.parts[0].body, PartBody::Subtask(subtask));
}

fn resource_draft(client: &str) -> Draft {
    Draft::File(FileDraft {
        id: None,
        part: FilePart {
            mime: "text/plain".into(),
            filename: Some("schema".into()),
            url: "postgres://db/schema".into(),
            source: Some(FileSource::Resource {
                text: SourceText {
                    value: "@schema".into(),
                    start: 0,
                    end: 7,
                },
                client_name: client.into(),
                uri: "postgres://db/schema".into(),
            }),
        },
    })
}

#[tokio::test]
async fn mcp_resource_from_an_unconfigured_server_names_it() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let saved = test
        .no_reply(
            &session,
            vec![resource_draft("database"), Draft::text("and this")],
        )
        .await;
    assert_eq!(
        describe(&saved.parts),
        [
            "text*: Reading MCP resource: schema (postgres://db/schema)",
            "text*: Failed to read MCP resource schema: MCP server \"database\" is not configured",
            "text: and this",
        ]
    );
}

struct FakeMcp;

#[async_trait]
impl McpResources for FakeMcp {
    async fn read(&self, client_name: &str, uri: &str) -> Result<Vec<ResourceContent>, McpError> {
        Ok(vec![
            ResourceContent::Text(format!("{client_name} says {uri}")),
            ResourceContent::Blob {
                uri: Some(format!("{uri}/report")),
                mime: Some("application/pdf".into()),
                base64: "JVBERi0=".into(),
            },
            ResourceContent::Blob {
                uri: None,
                mime: Some("audio/wav".into()),
                base64: "UklGRg==".into(),
            },
        ])
    }
}

#[tokio::test]
async fn mcp_resource_contents_become_synthetic_text() {
    let test = open_with(FAKE_CONFIG, |options| options.mcp = Some(Arc::new(FakeMcp))).await;
    let session = test.session().await;
    let saved = test
        .no_reply(&session, vec![resource_draft("database")])
        .await;
    assert_eq!(
        describe(&saved.parts),
        [
            "text*: Reading MCP resource: schema (postgres://db/schema)",
            "text*: database says postgres://db/schema",
            "text*: [Binary MCP resource attached: postgres://db/schema/report (application/pdf)]",
            "file application/pdf data:application/pdf;base64,JVBERi0=",
            "text*: [Binary MCP resource omitted: schema (audio/wav, 4 B) is not a supported attachment type]",
            "file text/plain postgres://db/schema",
        ]
    );
}

#[tokio::test]
async fn unknown_agent_error_lists_available_agents() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let mut input = no_reply(vec![Draft::text("hi")]);
    input.agent = Some("wizard".into());
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, input)
        .await
        .err()
        .unwrap_or_else(|| panic!("accepted"));
    let expected = "Agent not found: \"wizard\". Available agents: build, explore, general, plan";
    assert_eq!(error.to_string(), expected);
    assert_eq!(error.kind(), ErrorKind::NotFound);
    let published = drain(&test.ledger, &mut events).await;
    assert_eq!(types(&published), ["session.error"]);
    assert!(
        matches!(&published[0].payload, EventPayload::SessionError { error: Some(AssistantError::UnknownError { message }), .. } if message == expected)
    );
    let listed = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(listed.messages.is_empty());
}

#[tokio::test]
async fn unknown_model_is_refused_naming_the_models() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let mut input = no_reply(vec![Draft::text("hi")]);
    input.model = Some(ModelRef::new("fake", "gone"));
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, input)
        .await
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert_eq!(error, "Model not found: fake/gone. Available models: fake/fake-model, fake/smart, dossier/offline");
}

#[tokio::test]
async fn variant_applies_only_when_using_the_agents_model() {
    let test = open(r#"{"model": "fake/fake-model", "agent": {"build": {"model": "fake/smart", "variant": "high"}}, "provider": {"fake": {"models": {"fake-model": {}, "smart": {"variants": {"high": {}}}}}}}"#).await;
    let session = test.session().await;
    let own = test.no_reply(&session, vec![Draft::text("a")]).await;
    let mut other = no_reply(vec![Draft::text("b")]);
    other.model = Some(ModelRef::new("fake", "fake-model"));
    let other = test
        .ledger
        .sessions()
        .prompt(&session.id, other)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let variant = |saved: &dossier_core::wire::message::MessageWithParts| match &saved.info {
        Message::User(user) => (user.model.model_id.clone(), user.model.variant.clone()),
        Message::Assistant(_) => panic!("assistant"),
    };
    assert_eq!(variant(&own), ("smart".into(), Some("high".into())));
    assert_eq!(variant(&other), ("fake-model".into(), None));
}

#[tokio::test]
async fn agent_and_model_switch_is_recorded_on_the_session() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    test.no_reply(&session, vec![Draft::text("first")]).await;
    let first = drain(&test.ledger, &mut events).await;
    assert_eq!(
        types(&first),
        [
            "session.updated",
            "message.updated",
            "message.part.updated",
            "session.updated"
        ]
    );
    let stored = test
        .ledger
        .sessions()
        .get(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(stored.agent.as_deref(), Some("build"));
    assert_eq!(
        stored.model.as_ref().map(|model| (
            model.provider_id.as_str(),
            model.id.as_str(),
            model.variant.as_deref()
        )),
        Some(("fake", "fake-model", Some("default")))
    );

    test.no_reply(&session, vec![Draft::text("same again")])
        .await;
    assert_eq!(
        types(&drain(&test.ledger, &mut events).await),
        ["message.updated", "message.part.updated", "session.updated"]
    );

    let mut switch = no_reply(vec![Draft::text("now plan")]);
    switch.agent = Some("plan".into());
    test.ledger
        .sessions()
        .prompt(&session.id, switch)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        types(&drain(&test.ledger, &mut events).await)[0],
        "session.updated"
    );
    let stored = test
        .ledger
        .sessions()
        .get(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(stored.agent.as_deref(), Some("plan"));
    assert!(stored.time.updated >= session.time.updated);
}

#[tokio::test]
async fn session_model_is_remembered_for_the_next_prompt() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let mut first = no_reply(vec![Draft::text("a")]);
    first.model = Some(ModelRef::new("fake", "smart"));
    test.ledger
        .sessions()
        .prompt(&session.id, first)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let second = test.no_reply(&session, vec![Draft::text("b")]).await;
    let Message::User(user) = &second.info else {
        panic!()
    };
    assert_eq!(user.model.model_id, "smart");
}

#[tokio::test]
async fn zero_configuration_uses_the_offline_model() {
    let test = open("{}").await;
    let session = test.session().await;
    let saved = test.no_reply(&session, vec![Draft::text("hello")]).await;
    let Message::User(user) = &saved.info else {
        panic!()
    };
    assert_eq!(
        (
            user.model.provider_id.as_str(),
            user.model.model_id.as_str()
        ),
        ("dossier", "offline")
    );
}

#[tokio::test]
async fn client_ids_are_accepted_but_never_decide_order() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let first = test.no_reply(&session, vec![Draft::text("first")]).await;
    // Ids that sort *before* everything already stored, and parts whose ids sort backwards.
    let mut input = no_reply(vec![
        Draft::Text(TextDraft {
            id: Some("prt_zzzz".into()),
            part: TextPart {
                text: "one".into(),
                ..TextPart::default()
            },
        }),
        Draft::Text(TextDraft {
            id: Some("prt_aaaa".into()),
            part: TextPart {
                text: "two".into(),
                ..TextPart::default()
            },
        }),
    ]);
    input.message_id = Some("msg_0000".into());
    let second = test
        .ledger
        .sessions()
        .prompt(&session.id, input)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(second.info.id(), "msg_0000");
    let listed = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let ids: Vec<&str> = listed
        .messages
        .iter()
        .map(|message| message.info.id())
        .collect();
    assert_eq!(ids, [first.info.id(), "msg_0000"]);
    assert_eq!(
        describe(&listed.messages[1].parts),
        ["text: one", "text: two"]
    );
}

#[tokio::test]
async fn malformed_or_repeated_client_ids_are_refused() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let mut wrong_prefix = no_reply(vec![Draft::text("x")]);
    wrong_prefix.message_id = Some("prt_123".into());
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, wrong_prefix)
        .await
        .err();
    assert_eq!(error.map(|error| error.kind()), Some(ErrorKind::Invalid));
    let repeated = no_reply(vec![
        Draft::Text(TextDraft {
            id: Some("prt_same".into()),
            part: TextPart {
                text: "a".into(),
                ..TextPart::default()
            },
        }),
        Draft::Text(TextDraft {
            id: Some("prt_same".into()),
            part: TextPart {
                text: "b".into(),
                ..TextPart::default()
            },
        }),
    ]);
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, repeated)
        .await
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert_eq!(error, "Invalid prompt: part 1 repeats the id prt_same");
}

#[tokio::test]
async fn reused_message_id_is_a_conflict_and_saves_nothing() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let mut first = no_reply(vec![Draft::text("a")]);
    first.message_id = Some("msg_taken".into());
    test.ledger
        .sessions()
        .prompt(&session.id, first.clone())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, first)
        .await
        .err();
    assert_eq!(error.map(|error| error.kind()), Some(ErrorKind::Conflict));
    let listed = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(listed.messages.len(), 1);
    assert_eq!(listed.messages[0].parts.len(), 1);
}

#[tokio::test]
async fn deprecated_tools_map_becomes_session_permission_rules() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let mut input = no_reply(vec![Draft::text("x")]);
    input.tools = Some(
        [("bash".to_string(), false), ("read".to_string(), true)]
            .into_iter()
            .collect(),
    );
    test.ledger
        .sessions()
        .prompt(&session.id, input)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let stored = test
        .ledger
        .sessions()
        .get(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let rules = serde_json::to_value(stored.permission).unwrap_or_default();
    assert_eq!(
        rules,
        serde_json::json!([{"permission": "bash", "pattern": "*", "action": "deny"}, {"permission": "read", "pattern": "*", "action": "allow"}])
    );
}

#[tokio::test]
async fn prompt_wanting_a_reply_is_saved_and_says_replies_are_unavailable() {
    // Without an agent loop installed (the default now answers with the loop).
    let test = open_with(FAKE_CONFIG, |options| {
        options.agent_loop = Some(std::sync::Arc::new(
            dossier_core::pipeline::agent_loop::NoAgentLoop,
        ));
    })
    .await;
    let session = test.session().await;
    let input = PromptInput {
        parts: vec![Draft::text("answer me")],
        ..PromptInput::default()
    };
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, input)
        .await
        .err()
        .unwrap_or_else(|| panic!("a reply appeared"));
    assert_eq!(error.kind(), ErrorKind::Unavailable);
    let listed = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(describe(&listed.messages[0].parts), ["text: answer me"]);
}

#[tokio::test]
async fn prompt_to_a_missing_session_is_not_found() {
    let test = open(FAKE_CONFIG).await;
    let error = test
        .ledger
        .sessions()
        .prompt("ses_missing", no_reply(vec![Draft::text("x")]))
        .await
        .err();
    assert_eq!(
        error.map(|error| (error.kind(), error.to_string())),
        Some((ErrorKind::NotFound, "Session not found: ses_missing".into()))
    );
}

#[tokio::test]
async fn empty_prompt_is_refused() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, no_reply(vec![]))
        .await
        .err()
        .map(|error| error.to_string());
    assert_eq!(
        error.as_deref(),
        Some("Invalid prompt: a prompt needs at least one part")
    );
}

#[tokio::test]
async fn revert_marker_is_cleaned_up_by_the_next_prompt() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let kept = test.no_reply(&session, vec![Draft::text("keep")]).await;
    let undone = test.no_reply(&session, vec![Draft::text("undo me")]).await;
    test.no_reply(&session, vec![Draft::text("undo me too")])
        .await;
    let mut stored = test
        .ledger
        .sessions()
        .get(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    stored.revert = Some(dossier_core::wire::session::RevertMarker {
        message_id: undone.info.id().into(),
        part_id: None,
        snapshot: None,
        diff: None,
    });
    let mut connection = test
        .ledger
        .store()
        .connection()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    dossier_core::store::tables::session_store::save(&mut connection, &stored)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    drop(connection);
    let mut events = subscribe(&test.ledger).await;
    let fresh = test
        .no_reply(&session, vec![Draft::text("fresh start")])
        .await;
    let published = drain(&test.ledger, &mut events).await;
    assert_eq!(
        types(&published)[..2],
        ["message.removed", "message.removed"]
    );
    let listed = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let ids: Vec<&str> = listed
        .messages
        .iter()
        .map(|message| message.info.id())
        .collect();
    assert_eq!(ids, [kept.info.id(), fresh.info.id()]);
    let after = test
        .ledger
        .sessions()
        .get(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(after.revert.is_none());
}

#[tokio::test]
async fn events_follow_the_commit_in_opencodes_order() {
    let test = open(FAKE_CONFIG).await;
    let path = test.write("a.txt", "a\n");
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let saved = test
        .no_reply(&session, vec![file_draft(&path), Draft::text("x")])
        .await;
    let published = drain(&test.ledger, &mut events).await;
    assert_eq!(
        types(&published),
        [
            "session.updated",
            "message.updated",
            "message.part.updated",
            "message.part.updated",
            "message.part.updated",
            "message.part.updated",
            "session.updated"
        ]
    );
    let part_ids: Vec<String> = published
        .iter()
        .filter_map(|event| match &event.payload {
            EventPayload::PartUpdated { part, .. } => Some(part.id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        part_ids,
        saved
            .parts
            .iter()
            .map(|part| part.id.clone())
            .collect::<Vec<_>>()
    );
    assert!(published
        .windows(2)
        .all(|pair| pair[1].sequence == pair[0].sequence + 1));
}
