//! The built-in offline model answers with no configuration and no network, through the same
//! streaming machinery as any provider.

use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::draft::Draft;
use std::time::Duration;

#[tokio::test]
async fn offline_model_answers_with_what_it_received() {
    let test = open("{}").await;
    let notes = test.write("notes.txt", "alpha\nbeta\ngamma\n");
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let reply = test
        .ledger
        .sessions()
        .prompt(
            &session.id,
            reply_input(vec![
                Draft::text("What is in my notes?"),
                file_draft(&notes),
            ]),
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let assistant = assistant_of(&reply);
    assert_eq!(
        (assistant.provider_id.as_str(), assistant.model_id.as_str()),
        ("dossier", "offline")
    );
    assert_eq!(assistant.finish.as_deref(), Some("stop"));
    assert!(assistant.time.completed.is_some());
    assert_eq!(assistant.path.cwd, test.work().display().to_string());
    assert_eq!(describe(&reply.parts)[0], "step-start");
    let text = text_of(&reply);
    assert!(text.starts_with("I am Dossier's offline model."), "{text}");
    assert!(
        text.contains("- notes.txt (text/plain, 17 bytes, 3 lines)"),
        "{text}"
    );
    assert!(
        text.contains("Your question: \"What is in my notes?\""),
        "{text}"
    );

    let seen = story(&drain(&test.ledger, &mut events).await);
    let reply_events: Vec<String> = seen
        .iter()
        .skip_while(|line| *line != "status busy")
        .cloned()
        .collect();
    assert_eq!(
        reply_events[..4],
        strings(&["status busy", "assistant", "step-start", "text \"\""])
    );
    let deltas: String = reply_events
        .iter()
        .filter_map(|line| line.strip_prefix("delta "))
        .map(|quoted| serde_json::from_str::<String>(quoted).unwrap_or_default())
        .collect();
    assert_eq!(deltas, text, "the deltas add up to the stored text");
    let tail = &reply_events[reply_events.len() - 6..];
    assert_eq!(
        tail,
        strings(&[
            &format!("text {text:?}"),
            "step-finish stop",
            "assistant finish=stop",
            "assistant finish=stop completed",
            "status idle",
            "idle",
        ])
    );
    // The offline model titles the session with the first line of the question.
    for _ in 0..500 {
        if test
            .ledger
            .sessions()
            .get(&session.id)
            .await
            .map(|session| session.title)
            .ok()
            .as_deref()
            == Some("What is in my notes?")
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the session was not titled");
}
