//! Compaction the user asks for (`summarize`) and pruning of old tool outputs, through real
//! replies from the fake provider: what is stored, and what the model is sent afterwards.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::message::{Message, ModelRef};
use dossier_core::wire::part::{PartBody, ToolState};
use serde_json::Value;

#[tokio::test]
async fn summarize_records_a_summary_that_the_next_prompt_starts_from() {
    let fake = FakeProvider::start(vec![
        openai_text(&["First answer."]),
        openai_text(&["We said hello."]),
        openai_text(&["After the summary."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    ask(&test, &session.id, "hello there").await;
    let done = test
        .ledger
        .replies()
        .summarize(&session.id, ModelRef::new("fake", "fake-model"), false)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(done);

    let stored = test.history(&session.id).await;
    assert_eq!(stored.len(), 4, "prompt, reply, request, summary");
    assert!(matches!(
        stored[2].parts[0].body,
        PartBody::Compaction(ref compaction) if !compaction.auto
    ));
    let Message::Assistant(summary) = &stored[3].info else {
        panic!("the summary is an assistant message");
    };
    assert_eq!(summary.summary, Some(true));
    assert_eq!(summary.parent_id, stored[2].info.id());
    assert_eq!(text_of(&stored[3]), "We said hello.");

    let requests = fake.requests();
    let summary_request = &requests[1].body;
    assert!(
        summary_request.get("tools").is_none(),
        "no tools while summarising"
    );
    let sent = sent_texts(summary_request);
    assert!(sent.iter().any(|text| text == "hello there"));
    assert!(sent
        .last()
        .is_some_and(|text| text.contains("detailed summary")));

    ask(&test, &session.id, "and now?").await;
    let after = sent_texts(&fake.requests()[2].body);
    assert!(
        !after.iter().any(|text| text.contains("hello there")),
        "the history before the summary is not sent again: {after:?}"
    );
    assert!(after.iter().any(|text| text == "We said hello."));
    assert_eq!(after.last().map(String::as_str), Some("and now?"));
}

#[tokio::test]
async fn summarize_with_an_unknown_model_is_refused_and_records_nothing() {
    let fake = FakeProvider::start(Vec::new()).await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let refused = test
        .ledger
        .replies()
        .summarize(&session.id, ModelRef::new("fake", "missing"), false)
        .await;
    assert!(refused.is_err());
    let stored = test.history(&session.id).await;
    assert!(stored.is_empty());
}

#[tokio::test]
async fn old_tool_outputs_are_pruned_from_what_the_model_sees_but_kept_in_the_ledger() {
    // Six reads of a ~46 KB file in the first turn (~11.7k estimated tokens each: three fit the
    // 40k window, four do not), then three short turns.
    let mut script: Vec<Reply> = (0..6)
        .map(|index| {
            // Different offsets, so the loop does not take the reads for a doom loop.
            openai_tool_call(
                &format!("call_{index}"),
                "read",
                &format!(r#"{{"filePath": "big.txt", "offset": {}}}"#, index + 1),
            )
        })
        .collect();
    script.push(openai_text(&["Read it all."]));
    script.push(openai_text(&["Second."]));
    script.push(openai_text(&["Third."]));
    script.push(openai_text(&["Fourth."]));
    let fake = FakeProvider::start(script).await;
    let config = format!(
        r#"{{"model": "fake/fake-model", "compaction": {{"prune": true}}, "provider": {{"fake": {{"npm": "@ai-sdk/openai-compatible", "options": {{"baseURL": "{}", "apiKey": "{API_KEY}"}}, "models": {{"fake-model": {{}}}}}}}}}}"#,
        fake.base_url
    );
    let test = open(&config).await;
    let line = "x".repeat(79);
    test.write("big.txt", format!("{line}\n").repeat(540));
    let session = test.session().await;
    ask(&test, &session.id, "read big.txt six times").await;
    ask(&test, &session.id, "second").await;
    // Still within the last two turns: nothing pruned yet.
    let cleared = |body: &Value| {
        sent_texts(body)
            .iter()
            .filter(|text| *text == "[Old tool result content cleared]")
            .count()
    };
    assert_eq!(cleared(&fake.requests()[7].body), 0);
    ask(&test, &session.id, "third").await;
    ask(&test, &session.id, "fourth").await;
    let requests = fake.requests();
    assert_eq!(requests.len(), 10);
    // The newest ~40k tokens of old outputs stay; the three oldest reads are cleared.
    assert_eq!(cleared(&requests[9].body), 3);

    let stored = test.history(&session.id).await;
    let reads: Vec<(bool, usize)> = stored
        .iter()
        .flat_map(|message| message.parts.iter())
        .filter_map(|part| match &part.body {
            PartBody::Tool(tool) => match &tool.state {
                ToolState::Completed { output, time, .. } => {
                    Some((time.compacted.is_some(), output.len()))
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(reads.len(), 6);
    let marked: Vec<bool> = reads.iter().map(|(compacted, _)| *compacted).collect();
    assert_eq!(marked, [true, true, true, false, false, false]);
    assert!(
        reads
            .iter()
            .all(|(_, length)| (40_000..53_000).contains(length)),
        "the stored outputs are kept whole: {reads:?}"
    );
}

#[tokio::test]
async fn summarize_keeps_the_last_two_turns_verbatim_after_the_summary() {
    let fake = FakeProvider::start(vec![
        openai_text(&["Reply one."]),
        openai_text(&["Reply two."]),
        openai_text(&["Reply three."]),
        openai_text(&["Turn one was about apples."]),
        openai_text(&["Reply four."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    for text in ["turn one", "turn two", "turn three"] {
        ask(&test, &session.id, text).await;
    }
    test.ledger
        .replies()
        .summarize(&session.id, ModelRef::new("fake", "fake-model"), false)
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let summary_request = sent_texts(&fake.requests()[3].body);
    assert!(summary_request.iter().any(|text| text == "turn one"));
    assert!(
        !summary_request
            .iter()
            .any(|text| text == "turn two" || text == "turn three"),
        "the kept tail is not summarised: {summary_request:?}"
    );

    let stored = test.history(&session.id).await;
    let tail_start = stored[6].parts.iter().find_map(|part| match &part.body {
        PartBody::Compaction(compaction) => compaction.tail_start_id.clone(),
        _ => None,
    });
    assert_eq!(tail_start.as_deref(), Some(stored[2].info.id()));

    ask(&test, &session.id, "turn four").await;
    let sent = sent_texts(&fake.requests()[4].body);
    // System prompt first, then the summary, the kept turns as they were, and the new prompt.
    assert_eq!(
        sent[1..],
        [
            "What did we do so far?",
            "Turn one was about apples.",
            "turn two",
            "Reply two.",
            "turn three",
            "Reply three.",
            "turn four",
        ]
    );
}
