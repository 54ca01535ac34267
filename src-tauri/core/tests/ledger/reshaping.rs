//! Fork, undo/redo (revert/unrevert), export and import.

use crate::support::*;
use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::store::tables::message_store;
use dossier_core::store::tables::session_store;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::message::{
    AssistantMessage, AssistantTime, Message, MessagePath, MessageWithParts,
};
use dossier_core::wire::part::{Part, PartBody};
use dossier_core::wire::session::Tokens;
use dossier_core::ErrorKind;
use serde_json::Value;

/// Stores an assistant reply with the given parts straight through the store, as the loop does.
async fn store_reply(
    test: &TestLedger,
    session_id: &str,
    parent_id: &str,
    bodies: Vec<PartBody>,
) -> MessageWithParts {
    let ledger = &test.ledger;
    let info = Message::Assistant(AssistantMessage {
        id: ledger.new_id(dossier_core::wire::id::IdKind::Message),
        session_id: session_id.into(),
        time: AssistantTime {
            created: ledger.now(),
            completed: Some(ledger.now()),
        },
        error: None,
        parent_id: parent_id.into(),
        model_id: "fake-model".into(),
        provider_id: "fake".into(),
        mode: "build".into(),
        agent: "build".into(),
        path: MessagePath {
            cwd: "/w".into(),
            root: "/w".into(),
        },
        summary: None,
        cost: 0.0125,
        tokens: Tokens {
            total: Some(53),
            input: 42,
            output: 11,
            ..Tokens::default()
        },
        structured: None,
        variant: None,
        finish: Some("stop".into()),
    });
    let parts: Vec<Part> = bodies
        .into_iter()
        .map(|body| Part {
            id: ledger.new_id(dossier_core::wire::id::IdKind::Part),
            session_id: session_id.into(),
            message_id: info.id().into(),
            body,
        })
        .collect();
    let mut transaction = ledger
        .store()
        .begin_write()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut seq =
        session_store::reserve_sequence(&mut transaction, session_id, 1 + parts.len() as i64)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
    message_store::insert_message(&mut transaction, &info, seq, ledger.now())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    for part in &parts {
        seq += 1;
        message_store::insert_part(&mut transaction, part, seq, ledger.now())
            .await
            .unwrap_or_else(|error| panic!("{error}"));
    }
    transaction
        .commit()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    MessageWithParts { info, parts }
}

fn every_assistant_part() -> Vec<PartBody> {
    let value = serde_json::json!([
        {"type": "step-start", "snapshot": "abc"},
        {"type": "reasoning", "text": "think", "metadata": {"signature": "x"}, "time": {"start": 1, "end": 2}},
        {"type": "text", "text": "Here is **the answer**.", "time": {"start": 1, "end": 2}},
        {"type": "tool", "callID": "call_1", "tool": "read", "state": {"status": "completed", "input": {"filePath": "/a"}, "output": "x", "title": "a", "metadata": {}, "time": {"start": 1, "end": 2}}},
        {"type": "tool", "callID": "call_2", "tool": "grep", "state": {"status": "error", "input": {}, "error": "Tool execution aborted", "metadata": {"interrupted": true}, "time": {"start": 1, "end": 2}}},
        {"type": "subtask", "prompt": "p", "description": "d", "agent": "general"},
        {"type": "snapshot", "snapshot": "abc"},
        {"type": "patch", "hash": "abc", "files": ["a.txt"]},
        {"type": "agent", "name": "explore"},
        {"type": "retry", "attempt": 2, "error": {"name": "APIError", "data": {"message": "overloaded", "statusCode": 529, "isRetryable": true}}, "time": {"created": 5}},
        {"type": "compaction", "auto": true, "tail_start_id": "msg_placeholder"},
        {"type": "step-finish", "reason": "stop", "cost": 0.0125, "tokens": {"input": 42, "output": 11, "reasoning": 0, "cache": {"read": 0, "write": 0}}}
    ]);
    serde_json::from_value(value).unwrap_or_else(|error| panic!("{error}"))
}

/// A message or part as JSON with its ids blanked, for "equal apart from ids".
fn without_ids(messages: &[MessageWithParts]) -> Value {
    let mut value = serde_json::to_value(messages).unwrap_or_default();
    for message in value.as_array_mut().into_iter().flatten() {
        for key in ["id", "sessionID", "parentID"] {
            if let Some(field) = message["info"].get_mut(key) {
                *field = Value::Null;
            }
        }
        for part in message["parts"].as_array_mut().into_iter().flatten() {
            for key in ["id", "sessionID", "messageID", "tail_start_id"] {
                if let Some(field) = part.get_mut(key) {
                    *field = Value::Null;
                }
            }
        }
    }
    value
}

#[tokio::test]
async fn fork_copies_messages_before_the_point_with_new_ids_and_keeps_agent_model_permission() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let first = test.no_reply(&session, vec![Draft::text("one")]).await;
    let reply = store_reply(
        &test,
        &session.id,
        first.info.id(),
        vec![PartBody::synthetic_text("answer")],
    )
    .await;
    let second = test.no_reply(&session, vec![Draft::text("two")]).await;
    let mut tools = no_reply(vec![Draft::text("three")]);
    tools.tools = Some([("bash".to_string(), false)].into_iter().collect());
    test.ledger
        .sessions()
        .prompt(&session.id, tools)
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let fork = test
        .ledger
        .reshaping()
        .fork_session(&session.id, Some(second.info.id()))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(fork.title, format!("{} (fork #1)", session.title));
    let original = test
        .ledger
        .sessions()
        .get(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        (
            fork.agent.clone(),
            fork.model.clone(),
            fork.permission.clone()
        ),
        (original.agent, original.model, original.permission)
    );
    let copied = test
        .ledger
        .sessions()
        .messages(&fork.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .messages;
    assert_eq!(copied.len(), 2);
    assert_eq!(
        without_ids(&copied),
        without_ids(&[first.clone(), reply.clone()])
    );
    assert_ne!(copied[0].info.id(), first.info.id());
    let Message::Assistant(copied_reply) = &copied[1].info else {
        panic!("not an assistant")
    };
    assert_eq!(
        copied_reply.parent_id,
        copied[0].info.id(),
        "parentID remapped to the copy"
    );
    let everything = test
        .ledger
        .reshaping()
        .fork_session(&fork.id, None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(everything.title, format!("{} (fork #2)", session.title));
    let missing = test
        .ledger
        .reshaping()
        .fork_session(&session.id, Some("msg_nope"))
        .await
        .err();
    assert_eq!(missing.map(|error| error.kind()), Some(ErrorKind::NotFound));
}

#[tokio::test]
async fn revert_hides_nothing_until_the_next_prompt_and_unrevert_brings_all_back() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let first = test.no_reply(&session, vec![Draft::text("keep")]).await;
    let second = test.no_reply(&session, vec![Draft::text("undo")]).await;
    let reverted = test
        .ledger
        .reshaping()
        .revert(&session.id, second.info.id(), None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        reverted
            .revert
            .as_ref()
            .map(|marker| marker.message_id.clone()),
        Some(second.info.id().to_string())
    );
    let restored = test
        .ledger
        .reshaping()
        .unrevert(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(restored.revert.is_none());
    assert_eq!(
        test.ledger
            .sessions()
            .messages(&session.id, &MessageQuery::default())
            .await
            .map(|page| page.messages.len())
            .unwrap_or(0),
        2
    );
    test.ledger
        .reshaping()
        .revert(&session.id, second.info.id(), None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    test.no_reply(&session, vec![Draft::text("edited")]).await;
    let page = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let texts: Vec<String> = page
        .messages
        .iter()
        .flat_map(|message| describe(&message.parts))
        .collect();
    assert_eq!(texts, ["text: keep", "text: edited"]);
    assert_eq!(page.messages[0].info.id(), first.info.id());
    let missing = test
        .ledger
        .reshaping()
        .revert(&session.id, "msg_missing", None)
        .await
        .err();
    assert_eq!(missing.map(|error| error.kind()), Some(ErrorKind::NotFound));
}

#[tokio::test]
async fn revert_at_an_assistants_first_part_moves_to_its_user_message() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let asked = test.no_reply(&session, vec![Draft::text("question")]).await;
    let reply = store_reply(
        &test,
        &session.id,
        asked.info.id(),
        vec![
            serde_json::from_value(serde_json::json!({"type": "step-start"}))
                .unwrap_or_else(|error| panic!("{error}")),
            PartBody::synthetic_text("answer"),
        ],
    )
    .await;
    let reverted = test
        .ledger
        .reshaping()
        .revert(&session.id, reply.info.id(), Some(&reply.parts[1].id))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        reverted
            .revert
            .map(|marker| (marker.message_id, marker.part_id)),
        Some((asked.info.id().to_string(), None))
    );
}

#[tokio::test]
async fn export_then_import_round_trips_every_part_type_apart_from_ids() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let path = test.write("notes.txt", "hello\n");
    let big_image = dossier_core::wire::data_url::build(
        "image/png",
        &[
            vec![0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'],
            vec![7u8; 20_000],
        ]
        .concat(),
    );
    let asked = test
        .no_reply(
            &session,
            vec![
                file_draft(&path),
                Draft::file(big_image.clone(), "image/png", Some("big.png")),
                Draft::text("question"),
                Draft::agent("explore"),
            ],
        )
        .await;
    store_reply(&test, &session.id, asked.info.id(), every_assistant_part()).await;

    let exported = test
        .ledger
        .reshaping()
        .export_json(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let json = serde_json::to_value(&exported).unwrap_or_default();
    assert!(
        json.to_string().contains(&big_image),
        "attachment bytes are inlined in the export"
    );
    let imported = test
        .ledger
        .reshaping()
        .import_session(json)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_ne!(imported.id, session.id);
    assert_eq!(imported.title, session.title);
    let again = test
        .ledger
        .reshaping()
        .export_json(&imported.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        serde_json::to_string(&without_ids(&again.messages)).unwrap_or_default(),
        serde_json::to_string(&without_ids(&exported.messages)).unwrap_or_default()
    );
    let stored = test
        .ledger
        .sessions()
        .messages(&imported.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let urls: Vec<String> = stored.messages[0]
        .parts
        .iter()
        .filter_map(|part| match &part.body {
            PartBody::File(file) => Some(file.url.clone()),
            _ => None,
        })
        .collect();
    assert!(
        urls.iter()
            .any(|url| url.starts_with(dossier_core::store::rows::blob_address::BLOB_URL_PREFIX)),
        "{urls:?}"
    );
}

#[tokio::test]
async fn an_export_repeating_a_message_id_is_refused_as_invalid() {
    // Found by the `session_import` fuzz target: both copies got the same new id, and the
    // import failed as a conflict over an id the file never held.
    let test = open(FAKE_CONFIG).await;
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/reference/opencode-wire/16-opencode-export.json"),
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let mut document: Value = serde_json::from_str(&text).unwrap_or_default();
    let first = document["messages"][0].clone();
    if let Some(messages) = document["messages"].as_array_mut() {
        messages.push(first);
    }
    let error = test
        .ledger
        .reshaping()
        .import_session(document)
        .await
        .map(|session| session.id)
        .err();
    assert_eq!(
        error.map(|error| (error.kind(), error.to_string())),
        Some((
            ErrorKind::Invalid,
            "Invalid request: this session export holds the message msg_22a00980c001OtSKj3Nt0Sc8jw twice".to_string()
        ))
    );
}

#[tokio::test]
async fn opencode_export_imports_as_a_new_session_in_order() {
    let test = open(FAKE_CONFIG).await;
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/reference/opencode-wire/16-opencode-export.json"),
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let document: Value = serde_json::from_str(&text).unwrap_or_default();
    let imported = test
        .ledger
        .reshaping()
        .import_session(document.clone())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let page = test
        .ledger
        .sessions()
        .messages(&imported.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let roles: Vec<&str> = page
        .messages
        .iter()
        .map(|message| message.info.role())
        .collect();
    let expected: Vec<String> = document["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|message| {
            message["info"]["role"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(roles, expected);
    assert_eq!(
        page.messages
            .iter()
            .map(|message| message.parts.len())
            .sum::<usize>(),
        document["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|message| message["parts"].as_array().map_or(0, Vec::len))
            .sum::<usize>()
    );
    if let Some(Message::Assistant(reply)) = page
        .messages
        .iter()
        .map(|message| &message.info)
        .find(|info| info.role() == "assistant")
    {
        assert!(
            page.messages
                .iter()
                .any(|message| message.info.id() == reply.parent_id),
            "parentID remapped inside the import"
        );
    }
    let garbage = test
        .ledger
        .reshaping()
        .import_session(serde_json::json!({"hello": 1}))
        .await
        .err();
    assert_eq!(garbage.map(|error| error.kind()), Some(ErrorKind::Invalid));
}

#[tokio::test]
async fn markdown_export_reads_like_a_conversation() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let path = test.write("notes.txt", "hello\n");
    let asked = test
        .no_reply(
            &session,
            vec![file_draft(&path), Draft::text("What is in my notes?")],
        )
        .await;
    store_reply(&test, &session.id, asked.info.id(), every_assistant_part()).await;
    let markdown = test
        .ledger
        .reshaping()
        .export_markdown(
            &session.id,
            dossier_core::wire::reader_time::ReaderTimeZone::OffsetMinutes(90),
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        markdown.starts_with(&format!("# {}\n", session.title)),
        "{markdown}"
    );
    assert!(markdown.contains("## You · "));
    // The times are the reader's (here 90 minutes east of UTC), not the stored UTC instant.
    assert!(markdown.contains(" (UTC+01:30)"), "{markdown}");
    assert!(!markdown.contains(":00.000Z"), "{markdown}");
    assert!(markdown.contains("What is in my notes?"));
    assert!(
        markdown.contains("- 📎 notes.txt (text/plain, 6 bytes)"),
        "{markdown}"
    );
    assert!(markdown.contains("## Assistant (build · fake/fake-model)"));
    assert!(markdown.contains("Here is **the answer**."));
    assert!(markdown.contains("- 🔧 `read` completed: a"));
    assert!(markdown.contains("- 🔧 `grep` failed: Tool execution aborted"));
    assert!(
        !markdown.contains("Called the Read tool"),
        "synthetic context stays out of the readable export"
    );
}

#[tokio::test]
async fn edit_and_resend_keeps_attachments_and_replaces_the_text() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let path = test.write("notes.txt", "hello\n");
    let image = dossier_core::wire::data_url::build(
        "image/png",
        &[
            vec![0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'],
            vec![3u8; 12_000],
        ]
        .concat(),
    );
    let original = test
        .no_reply(
            &session,
            vec![
                Draft::text("first wording"),
                file_draft(&path),
                Draft::file(image, "image/png", Some("pic.png")),
            ],
        )
        .await;
    test.no_reply(&session, vec![Draft::text("later message")])
        .await;
    let resent = test
        .ledger
        .reshaping()
        .resend(
            &session.id,
            original.info.id(),
            Some("second wording"),
            true,
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let described = describe(&resent.parts);
    assert_eq!(described[0], "text: second wording");
    assert!(
        described
            .iter()
            .any(|line| line.starts_with("text*: <path>")),
        "the file is read again: {described:?}"
    );
    assert_eq!(
        describe(&resent.parts)
            .iter()
            .filter(|line| line.starts_with("file "))
            .count(),
        2
    );
    let page = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        page.messages.len(),
        1,
        "the original and everything after it were replaced"
    );
    assert_eq!(page.messages[0].info.id(), resent.info.id());
    let not_user = test
        .ledger
        .reshaping()
        .regenerate(&session.id, resent.info.id())
        .await
        .err();
    assert_eq!(not_user.map(|error| error.kind()), Some(ErrorKind::Invalid));
}

#[tokio::test]
async fn an_import_file_over_the_size_limit_is_refused_before_it_is_read() {
    use dossier_core::reshaping::export_file::IMPORT_SIZE_LIMIT;
    let test = open(FAKE_CONFIG).await;
    let path = test.folder.path().join("huge.json");
    // Sparse: the size is what the file system reports, without writing half a gigabyte.
    std::fs::File::create(&path)
        .and_then(|file| file.set_len(IMPORT_SIZE_LIMIT + 1))
        .unwrap_or_else(|error| panic!("{error}"));
    let error = test
        .ledger
        .reshaping()
        .import_file(&path)
        .await
        .expect_err("too big to import");
    assert_eq!(error.kind(), ErrorKind::Invalid);
    assert!(
        error.to_string().contains("more than the 512 MB"),
        "{error}"
    );
    let listed = test
        .ledger
        .sessions()
        .list(&dossier_core::store::rows::session_page::SessionQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(listed.sessions.is_empty());
}

#[tokio::test]
async fn an_export_that_cannot_be_written_names_the_path_and_leaves_nothing_behind() {
    use dossier_core::reshaping::export_file::ExportFileKind;
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let folder = test.folder.path().join("exports");
    let error = test
        .ledger
        .reshaping()
        .write_export(
            &session.id,
            ExportFileKind::Json,
            &folder.join("gone/export.json"),
        )
        .await
        .expect_err("the folder does not exist");
    assert_eq!(error.kind(), ErrorKind::Invalid);
    assert!(error.to_string().contains("gone/export.json"), "{error}");

    std::fs::create_dir(&folder).unwrap_or_else(|error| panic!("{error}"));
    let target = folder.join("export.md");
    test.ledger
        .reshaping()
        .write_export(&session.id, ExportFileKind::Markdown, &target)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let written = std::fs::read_to_string(&target).unwrap_or_else(|error| panic!("{error}"));
    assert!(
        written.starts_with(&format!("# {}", session.title)),
        "{written}"
    );
    let names: Vec<String> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("{error}"))
        .map(|entry| {
            entry
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(names, vec!["export.md".to_string()]);
}
