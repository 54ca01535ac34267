//! Two processes on one data folder (the desktop app and `dossier-server`, say): the one that
//! starts second must not sweep the first one's live reply as interrupted. A second `Ledger` on
//! the same folder plays the second process — the folder lock is per open file, not per process.

use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::message::Message;
use std::time::Duration;

#[tokio::test]
async fn a_second_process_leaves_the_first_ones_live_reply_alone() {
    crate::sqlite_only!("the data folder's process lock");
    let (fake, test, session) = hanging_after(&["Still ", "streaming"]).await;
    let BackgroundReply {
        mut events,
        running,
    } = reply_in_background(&test, &session.id, "hello");
    wait_for(&mut events, |event| matches!(&event.payload, EventPayload::PartDelta { delta, .. } if delta == "streaming")).await;

    let second = dossier_core::start_up::open(options(test.folder.path(), &fake.openai_config()))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let seen = second
        .sessions()
        .messages(&session.id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .messages;
    let Some(Message::Assistant(reply)) = seen.last().map(|message| &message.info) else {
        panic!("no reply stored: {seen:?}")
    };
    assert!(
        reply.error.is_none() && reply.time.completed.is_none(),
        "the live reply was swept by the second process: {reply:?}"
    );
    second.close().await;

    // The first process still owns its reply: stopping it works as usual.
    assert!(test.ledger.replies().abort(&session.id));
    let finished = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .unwrap_or_else(|_| panic!("abort did not end the run"))
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(text_of(&finished), "Still streaming");
}
