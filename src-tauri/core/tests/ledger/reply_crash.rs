//! The reply crash test: a child process (this test binary, re-run) streams a reply from a fake
//! provider and is killed with SIGKILL mid-stream, with a tool call pending. After restart the
//! reply is closed as aborted, the text checkpointed before the kill is there, the tool is
//! marked interrupted, and the session answers the next prompt.

use crate::crash_child::CrashChild;
use crate::fake_provider::*;
use crate::reply_support::{ask, assistant_of, reply_input, text_of};
use crate::support::*;
use dossier_core::wire::assistant_error::AssistantError;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::part::{PartBody, ToolState};
use serde_json::Value;
use std::io::Write;
use std::time::Duration;

const CHILD_ENV: &str = "DOSSIER_REPLY_CRASH_CHILD_DIR";
const TEST_NAME: &str = "reply_crash::killed_mid_reply_is_closed_as_aborted_with_its_text";
const WORDS: [&str; 5] = ["Checkpointed ", "text ", "survives ", "a ", "crash."];

async fn child(folder: std::path::PathBuf) {
    let mut events = openai_text_events(&WORDS);
    events.extend(openai_tool_call_events(
        "call_7",
        "read",
        r#"{"filePath": "notes"#,
    ));
    let fake = FakeProvider::start(vec![openai_stream(events, Ending::Hang, Duration::ZERO)]).await;
    let ledger = dossier_core::start_up::open(options(&folder, &fake.openai_config()))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let session = ledger
        .sessions()
        .create(Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut receiver = ledger.events().subscribe();
    let running = ledger.clone();
    let session_id = session.id.clone();
    tokio::spawn(async move {
        let input = reply_input(vec![dossier_core::wire::draft::Draft::text("tell me")]);
        running.sessions().prompt(&session_id, input).await
    });
    while let Ok(event) = receiver.recv().await {
        if matches!(&event.payload, EventPayload::PartUpdated { part, .. } if part.body.type_name() == "tool")
        {
            break;
        }
    }
    let mut stdout = std::io::stdout();
    writeln!(stdout, "streaming {}", session.id).unwrap_or_default();
    stdout.flush().unwrap_or_default();
    // Wait to be killed.
    tokio::time::sleep(Duration::from_secs(60)).await;
}

#[tokio::test]
async fn killed_mid_reply_is_closed_as_aborted_with_its_text() {
    if let Some(folder) = std::env::var_os(CHILD_ENV) {
        child(folder.into()).await;
        return;
    }
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    std::fs::create_dir_all(folder.path().join("work")).unwrap_or_default();
    let child = CrashChild::spawn(TEST_NAME, CHILD_ENV, folder.path());
    let session_id = child.wait_for("streamed", |line| {
        line.split_once("streaming ")
            .map(|(_, id)| id.trim().to_string())
    });
    // Two checkpoint intervals: the streamed text must be on disk by now.
    std::thread::sleep(Duration::from_millis(600));
    child.kill();

    let fake = FakeProvider::start(vec![openai_text(&["Back ", "again."])]).await;
    let ledger = dossier_core::start_up::open(options(folder.path(), &fake.openai_config()))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let messages = ledger
        .sessions()
        .messages(&session_id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .messages;
    assert_eq!(messages.len(), 2, "the prompt and the interrupted reply");
    let reply = &messages[1];
    let assistant = assistant_of(reply);
    assert!(
        matches!(
            assistant.error,
            Some(AssistantError::MessageAbortedError { .. })
        ),
        "{:?}",
        assistant.error
    );
    assert!(assistant.time.completed.is_some());
    assert_eq!(
        text_of(reply),
        WORDS.concat(),
        "the checkpointed text is kept"
    );
    let tool = reply
        .parts
        .iter()
        .find_map(|part| match &part.body {
            PartBody::Tool(tool) => Some(tool.state.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no tool part"));
    match tool {
        ToolState::Error {
            error, metadata, ..
        } => {
            assert_eq!(error, "Tool execution aborted");
            assert_eq!(
                metadata.and_then(|metadata| metadata.get("interrupted").cloned()),
                Some(Value::Bool(true))
            );
        }
        other => panic!("expected an interrupted tool, got {other:?}"),
    }

    // The session is usable: the next prompt is answered, and the model sees the kept text.
    let test = TestLedger {
        ledger,
        folder,
        database: None,
    };
    let next = ask(&test, &session_id, "are you there?").await;
    assert_eq!(text_of(&next), "Back again.");
    let sent = fake.requests()[0].body["messages"].to_string();
    assert!(
        sent.contains("Checkpointed text survives a crash."),
        "{sent}"
    );
    assert!(sent.contains("Tool execution aborted"), "{sent}");
}
