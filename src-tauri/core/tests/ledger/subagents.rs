//! Subagents: the model's `task` tool and a prompt's subtask part run a subagent in a child
//! session and hand its last text back to the parent reply.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::draft::{Draft, SubtaskDraft};
use dossier_core::wire::part::{PartBody, SubtaskPart, ToolState};

fn task_part(reply: &dossier_core::wire::message::MessageWithParts) -> ToolState {
    reply
        .parts
        .iter()
        .find_map(|part| match &part.body {
            PartBody::Tool(tool) if tool.tool == "task" => Some(tool.state.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no task part in {:?}", describe(&reply.parts)))
}

#[tokio::test]
async fn the_task_tool_runs_a_subagent_in_a_child_session() {
    let fake = FakeProvider::start(vec![
        openai_tool_call(
            "call_1",
            "task",
            r#"{"description": "Look around", "prompt": "Find the notes", "subagent_type": "general"}"#,
        ),
        openai_text(&["Child ", "found alpha."]),
        openai_text(&["Done."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "delegate this").await;
    assert_eq!(text_of(&reply), "Done.");

    let children = test
        .ledger
        .sessions()
        .children(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(children.len(), 1);
    assert_eq!(children[0].title, "Look around (@general subagent)");
    let stored = test.history(&session.id).await;
    match task_part(&stored[1]) {
        ToolState::Completed {
            output,
            title,
            metadata,
            ..
        } => {
            assert_eq!(title, "Look around");
            assert!(
                output.ends_with("<task_result>\nChild found alpha.\n</task_result>"),
                "{output}"
            );
            assert_eq!(metadata["sessionId"], children[0].id.as_str());
        }
        other => panic!("{other:?}"),
    }
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    let child_tools: Vec<&str> = requests[1].body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    assert!(
        !child_tools.contains(&"task"),
        "no tasks inside tasks: {child_tools:?}"
    );
    assert!(requests[2].body["messages"]
        .to_string()
        .contains("Child found alpha."));
}

#[tokio::test]
async fn a_subtask_part_runs_before_the_model_answers() {
    let fake = FakeProvider::start(vec![
        openai_text(&["Sub answer."]),
        openai_text(&["Summary."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let subtask = Draft::Subtask(SubtaskDraft {
        id: None,
        part: SubtaskPart {
            prompt: "Summarise the folder".into(),
            description: "Summarise".into(),
            agent: "explore".into(),
            model: None,
            command: None,
        },
    });
    let reply = test
        .ledger
        .sessions()
        .prompt(&session.id, reply_input(vec![subtask]))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(text_of(&reply), "Summary.");
    let stored = test.history(&session.id).await;
    let roles: Vec<&str> = stored.iter().map(|message| message.info.role()).collect();
    assert_eq!(roles, ["user", "assistant", "assistant"]);
    assert_eq!(
        assistant_of(&stored[1]).finish.as_deref(),
        Some("tool-calls")
    );
    assert_eq!(assistant_of(&stored[1]).agent, "explore");
    assert!(
        matches!(task_part(&stored[1]), ToolState::Completed { output, .. } if output.contains("Sub answer."))
    );
    let children = test
        .ledger
        .sessions()
        .children(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(children.len(), 1);
    let last = fake.requests()[1].body["messages"].to_string();
    assert!(
        last.contains("The following tool was executed by the user"),
        "{last}"
    );
}
