//! Storage: pragmas, ordered and paged reads, atomic writes, session lifecycle.

use crate::support::*;
use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::store::rows::session_page::SessionQuery;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::id::Clock;
use dossier_core::wire::session::{CreateSession, SessionPatch, SessionTimePatch};
use dossier_core::ErrorKind;
use std::collections::HashSet;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

#[tokio::test]
async fn database_uses_wal_foreign_keys_and_a_busy_timeout() {
    crate::sqlite_only!("the file's pragmas");
    let test = open("{}").await;
    let pool = test.ledger.pool().sqlite().expect("a SQLite ledger");
    let journal: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(pool)
        .await
        .unwrap_or_default();
    let foreign_keys: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(pool)
        .await
        .unwrap_or_default();
    let busy: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
        .fetch_one(pool)
        .await
        .unwrap_or_default();
    assert_eq!((journal.as_str(), foreign_keys, busy), ("wal", 1, 5000));
    let tables: Vec<String> = sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part', 'blob') ORDER BY name")
        .fetch_all(pool)
        .await
        .unwrap_or_default();
    assert_eq!(tables, ["blob", "message", "part", "session"]);
}

#[tokio::test]
async fn reopening_an_existing_database_keeps_everything() {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    std::fs::create_dir_all(folder.path().join("work")).unwrap_or_default();
    let first = dossier_core::start_up::open(options(folder.path(), "{}"))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let session = first
        .sessions()
        .create(CreateSession::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    first
        .sessions()
        .prompt(&session.id, no_reply(vec![Draft::text("remember")]))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    first.close().await;
    let second = dossier_core::start_up::open(options(folder.path(), "{}"))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let page = second
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(describe(&page.messages[0].parts), ["text: remember"]);
}

fn frozen_clock(at: i64) -> (Clock, Arc<AtomicI64>) {
    let now = Arc::new(AtomicI64::new(at));
    let reader = now.clone();
    (Arc::new(move || reader.load(Ordering::SeqCst)), now)
}

#[tokio::test]
async fn session_pages_are_newest_first_without_gaps_or_repeats_on_equal_times() {
    // Everything in one millisecond: only the id tiebreak keeps pages apart.
    let (clock, _) = frozen_clock(1_796_000_000_000);
    let test = open_with("{}", |options| options.clock = Some(clock)).await;
    let mut created = Vec::new();
    for _ in 0..250 {
        created.push(test.session().await.id);
    }
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = test
            .ledger
            .sessions()
            .list(&SessionQuery {
                limit: Some(100),
                cursor: cursor.clone(),
                ..SessionQuery::default()
            })
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        seen.extend(page.sessions.iter().map(|session| session.id.clone()));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    created.reverse();
    assert_eq!(seen, created);
    assert_eq!(seen.iter().collect::<HashSet<_>>().len(), 250);
}

#[tokio::test]
async fn session_list_orders_by_last_update_and_hides_archived() {
    let (clock, now) = frozen_clock(1_000);
    let test = open_with("{}", |options| options.clock = Some(clock)).await;
    let older = test.session().await;
    now.store(2_000, Ordering::SeqCst);
    let newer = test.session().await;
    now.store(3_000, Ordering::SeqCst);
    test.no_reply(&older, vec![Draft::text("bump")]).await;
    let ids = |page: dossier_core::store::rows::session_page::SessionPage| {
        page.sessions
            .into_iter()
            .map(|session| session.id)
            .collect::<Vec<_>>()
    };
    let listed = test
        .ledger
        .sessions()
        .list(&SessionQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(ids(listed), [older.id.clone(), newer.id.clone()]);
    let patch = SessionPatch {
        time: Some(SessionTimePatch {
            archived: Some(Some(4_000)),
        }),
        ..SessionPatch::default()
    };
    test.ledger
        .sessions()
        .update(&older.id, patch)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let visible = test
        .ledger
        .sessions()
        .list(&SessionQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(ids(visible), vec![newer.id.clone()]);
    let all = test
        .ledger
        .sessions()
        .list(&SessionQuery {
            include_archived: true,
            ..SessionQuery::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(all.sessions.len(), 2);
}

#[tokio::test]
async fn pinned_sessions_are_listed_on_their_own_however_old() {
    let (clock, now) = frozen_clock(1_000);
    let test = open_with("{}", |options| options.clock = Some(clock)).await;
    let pin = SessionPatch {
        pinned: Some(true),
        ..SessionPatch::default()
    };
    let oldest = test.session().await;
    test.ledger
        .sessions()
        .update(&oldest.id, pin.clone())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut newer = Vec::new();
    for step in 0..5 {
        now.store(2_000 + step, Ordering::SeqCst);
        newer.push(test.session().await);
    }
    test.ledger
        .sessions()
        .update(&newer[1].id, pin)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    // Sessions pinned long ago are not on the first page of the listing.
    let first_page = test
        .ledger
        .sessions()
        .list(&SessionQuery {
            limit: Some(2),
            ..SessionQuery::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(first_page
        .sessions
        .iter()
        .all(|session| session.id != oldest.id));
    let pinned = test
        .ledger
        .sessions()
        .list(&SessionQuery {
            pinned_only: true,
            ..SessionQuery::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let ids: Vec<_> = pinned
        .sessions
        .iter()
        .map(|session| session.id.clone())
        .collect();
    assert_eq!(ids, [newer[1].id.clone(), oldest.id.clone()]);
    assert!(pinned.sessions.iter().all(|session| session.pinned));
    assert_eq!(pinned.next_cursor, None);
}

#[tokio::test]
async fn title_search_treats_percent_and_underscore_literally() {
    let test = open("{}").await;
    for title in ["100% done", "1000 done", "snake_case", "snakeXcase"] {
        test.ledger
            .sessions()
            .create(CreateSession {
                title: Some(title.into()),
                ..CreateSession::default()
            })
            .await
            .unwrap_or_else(|error| panic!("{error}"));
    }
    let search = |text: &str| {
        let ledger = test.ledger.clone();
        let text = text.to_string();
        async move {
            let page = ledger
                .sessions()
                .list(&SessionQuery {
                    search: Some(text),
                    ..SessionQuery::default()
                })
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            page.sessions
                .into_iter()
                .map(|session| session.title)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(search("100%").await, ["100% done"]);
    assert_eq!(search("snake_").await, ["snake_case"]);
}

#[tokio::test]
async fn bad_cursors_are_invalid_requests() {
    let test = open("{}").await;
    let session = test.session().await;
    let error = test
        .ledger
        .sessions()
        .list(&SessionQuery {
            cursor: Some("nonsense".into()),
            ..SessionQuery::default()
        })
        .await
        .err();
    assert_eq!(error.map(|error| error.kind()), Some(ErrorKind::Invalid));
    let error = test
        .ledger
        .sessions()
        .messages(
            &session.id,
            &MessageQuery {
                limit: Some(5),
                before: Some("x".into()),
            },
        )
        .await
        .err();
    assert_eq!(error.map(|error| error.kind()), Some(ErrorKind::Invalid));
    let error = test
        .ledger
        .sessions()
        .messages_json(
            &session.id,
            &MessageQuery {
                limit: Some(5),
                before: Some("x".into()),
            },
        )
        .await
        .err();
    assert_eq!(
        error.map(|error| error.kind()),
        Some(ErrorKind::Invalid),
        "the JSON listing reads cursors the same way"
    );
}

#[tokio::test]
async fn message_pages_walk_back_with_before_cursor() {
    let test = open("{}").await;
    let session = test.session().await;
    for index in 0..25 {
        test.no_reply(&session, vec![Draft::text(format!("m{index}"))])
            .await;
    }
    let mut collected = Vec::new();
    let mut before = None;
    loop {
        let page = test
            .ledger
            .sessions()
            .messages(
                &session.id,
                &MessageQuery {
                    limit: Some(10),
                    before: before.clone(),
                },
            )
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let texts: Vec<String> = page
            .messages
            .iter()
            .flat_map(|message| describe(&message.parts))
            .collect();
        collected.splice(0..0, texts);
        match page.next_cursor {
            Some(cursor) => before = Some(cursor),
            None => break,
        }
    }
    let expected: Vec<String> = (0..25).map(|index| format!("text: m{index}")).collect();
    assert_eq!(collected, expected);
    let everything = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(everything.messages.len(), 25);
    assert!(everything.next_cursor.is_none());
}

#[tokio::test]
async fn messages_of_other_sessions_never_mix_in() {
    let test = open("{}").await;
    let first = test.session().await;
    let second = test.session().await;
    test.no_reply(&first, vec![Draft::text("one")]).await;
    test.no_reply(&second, vec![Draft::text("two")]).await;
    let page = test
        .ledger
        .sessions()
        .messages(&first.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(page.messages.len(), 1);
    assert_eq!(describe(&page.messages[0].parts), ["text: one"]);
    let missing = test
        .ledger
        .sessions()
        .message(&second.id, page.messages[0].info.id())
        .await
        .err();
    assert_eq!(missing.map(|error| error.kind()), Some(ErrorKind::NotFound));
}

#[tokio::test]
async fn failed_part_write_rolls_back_the_whole_prompt() {
    let test = open("{}").await;
    let session = test.session().await;
    let with_id = |text: &str| {
        Draft::Text(dossier_core::wire::draft::TextDraft {
            id: Some("prt_duplicate".into()),
            part: dossier_core::wire::part::TextPart {
                text: text.into(),
                ..Default::default()
            },
        })
    };
    test.no_reply(&session, vec![with_id("first")]).await;
    let error = test
        .ledger
        .sessions()
        .prompt(
            &session.id,
            no_reply(vec![Draft::text("would be saved"), with_id("second")]),
        )
        .await
        .err();
    assert_eq!(
        error.map(|error| error.to_string()).as_deref(),
        Some("The id prt_duplicate is already used")
    );
    let messages = scalar(&test.ledger, "SELECT count(*) FROM message").await;
    let parts = scalar(&test.ledger, "SELECT count(*) FROM part").await;
    assert_eq!((messages, parts), (1, 1));
    // The refused prompt left no transaction open on a pooled connection (a prompt is first
    // tried as one command that begins its own): the next prompts are stored, not kept waiting
    // for a write lock until the busy timeout.
    for text in ["after", "and again"] {
        test.no_reply(&session, vec![Draft::text(text)]).await;
    }
    let messages = scalar(&test.ledger, "SELECT count(*) FROM message").await;
    assert_eq!(messages, 3);
}

#[tokio::test]
async fn a_prompt_whose_message_id_or_two_parts_repeat_an_id_is_refused_whole() {
    let test = open("{}").await;
    let session = test.session().await;
    let first = test.no_reply(&session, vec![Draft::text("kept")]).await;
    let mut again = no_reply(vec![Draft::text("would be saved")]);
    again.message_id = Some(first.info.id().to_string());
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, again)
        .await
        .err();
    assert_eq!(
        error.map(|error| error.to_string()),
        Some(format!("The id {} is already used", first.info.id()))
    );
    let twice = |text: &str| {
        Draft::Text(dossier_core::wire::draft::TextDraft {
            id: Some("prt_twice".into()),
            part: dossier_core::wire::part::TextPart {
                text: text.into(),
                ..Default::default()
            },
        })
    };
    let error = test
        .ledger
        .sessions()
        .prompt(&session.id, no_reply(vec![twice("one"), twice("two")]))
        .await
        .err();
    assert_eq!(
        error.map(|error| error.to_string()).as_deref(),
        Some("Invalid prompt: part 1 repeats the id prt_twice")
    );
    let messages = scalar(&test.ledger, "SELECT count(*) FROM message").await;
    let parts = scalar(&test.ledger, "SELECT count(*) FROM part").await;
    assert_eq!((messages, parts), (1, 1));
}

#[tokio::test]
async fn concurrent_prompts_into_one_session_all_land_in_order_of_commit() {
    // Each prompt is first tried as one command that applies only while the session's sequence
    // counter is as the prompt read it; prompts racing on one session find it moved and take the
    // general path. Every prompt must be stored whole, with numbers no other row has.
    let test = open("{}").await;
    let session = test.session().await;
    let mut tasks = Vec::new();
    for index in 0..20 {
        let ledger = test.ledger.clone();
        let id = session.id.clone();
        tasks.push(tokio::spawn(async move {
            ledger
                .sessions()
                .prompt(
                    &id,
                    no_reply(vec![Draft::text(format!("p{index}")), Draft::text("tail")]),
                )
                .await
        }));
    }
    for task in tasks {
        task.await
            .unwrap_or_else(|error| panic!("{error}"))
            .unwrap_or_else(|error| panic!("{error}"));
    }
    let page = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(page.messages.len(), 20);
    assert!(page
        .messages
        .iter()
        .all(|message| message.parts.len() == 2 && describe(&message.parts)[1] == "text: tail"));
    let numbers = scalar(
        &test.ledger,
        "SELECT count(DISTINCT seq) FROM (SELECT seq FROM message UNION ALL SELECT seq FROM part) AS numbered",
    )
    .await;
    let last = scalar(&test.ledger, "SELECT last_seq FROM session").await;
    assert_eq!((numbers, last), (60, 60));
}

#[tokio::test]
async fn deleting_a_session_removes_children_messages_and_parts() {
    let test = open("{}").await;
    let parent = test.session().await;
    let child = test
        .ledger
        .sessions()
        .create(CreateSession {
            parent_id: Some(parent.id.clone()),
            ..CreateSession::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(child.title.starts_with("Child session - "));
    test.no_reply(&child, vec![Draft::text("inside")]).await;
    let children = test
        .ledger
        .sessions()
        .children(&parent.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(children.len(), 1);
    let mut events = subscribe(&test.ledger).await;
    test.ledger
        .sessions()
        .delete(&parent.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        types(&drain(&test.ledger, &mut events).await),
        ["session.deleted", "session.deleted"]
    );
    let left = scalar(
        &test.ledger,
        "SELECT (SELECT count(*) FROM session) + (SELECT count(*) FROM message) + (SELECT count(*) FROM part)",
    )
    .await;
    assert_eq!(left, 0);
    let again = test.ledger.sessions().delete(&parent.id).await.err();
    assert_eq!(again.map(|error| error.kind()), Some(ErrorKind::NotFound));
}

#[tokio::test]
async fn new_sessions_get_opencodes_defaults_and_events() {
    let (clock, _) = frozen_clock(1_796_000_800_280);
    let test = open_with("{}", |options| options.clock = Some(clock)).await;
    let mut events = subscribe(&test.ledger).await;
    let session = test.session().await;
    assert_eq!(session.title, "New session - 2026-11-30T01:06:40.280Z");
    assert!(session.id.starts_with("ses_"));
    assert_eq!(
        types(&drain(&test.ledger, &mut events).await),
        ["session.created", "session.updated"]
    );
    let renamed = test
        .ledger
        .sessions()
        .update(
            &session.id,
            SessionPatch {
                title: Some("Taxes".into()),
                pinned: Some(true),
                ..SessionPatch::default()
            },
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!((renamed.title.as_str(), renamed.pinned), ("Taxes", true));
    let empty = test
        .ledger
        .sessions()
        .update(
            &session.id,
            SessionPatch {
                title: Some("  ".into()),
                ..SessionPatch::default()
            },
        )
        .await
        .err();
    assert_eq!(empty.map(|error| error.kind()), Some(ErrorKind::Invalid));
    let unknown_agent = test
        .ledger
        .sessions()
        .create(CreateSession {
            agent: Some("nobody".into()),
            ..CreateSession::default()
        })
        .await
        .err();
    assert_eq!(
        unknown_agent.map(|error| error.kind()),
        Some(ErrorKind::NotFound)
    );
}

#[tokio::test]
async fn ledger_keeps_order_across_the_opencode_id_wrap() {
    let wrap = 1_786_709_995_136; // 2026-08-14T11:19:55.136Z
    let (clock, now) = frozen_clock(wrap - 2);
    let test = open_with("{}", |options| options.clock = Some(clock)).await;
    let session = test.session().await;
    let mut sent = Vec::new();
    for step in 0..4 {
        now.store(wrap - 2 + step, Ordering::SeqCst);
        sent.push(
            test.no_reply(&session, vec![Draft::text(format!("t{step}"))])
                .await
                .info
                .id()
                .to_string(),
        );
    }
    let mut sorted = sent.clone();
    sorted.sort();
    assert_eq!(sorted, sent, "ids stay sortable across the wrap instant");
    let page = test
        .ledger
        .sessions()
        .messages(&session.id, &MessageQuery::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let listed: Vec<&str> = page
        .messages
        .iter()
        .map(|message| message.info.id())
        .collect();
    assert_eq!(listed, sent.iter().map(String::as_str).collect::<Vec<_>>());
}

#[tokio::test]
async fn json_listing_is_byte_identical_to_the_typed_listing() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let path = test.write(
        // Windows allows no `"` in a file name; the JSON escaping is still exercised by `'`
        // there and by the text below everywhere.
        if cfg!(windows) {
            "notes 'quoted'.txt"
        } else {
            "notes \"quoted\".txt"
        },
        "line with \"quotes\" and ünïcödé\n\ttabbed\n",
    );
    test.no_reply(
        &session,
        vec![
            file_draft(&path),
            Draft::text("plain"),
            Draft::agent("explore"),
        ],
    )
    .await;
    let image = dossier_core::wire::data_url::build(
        "image/png",
        b"\x89PNG\r\n\x1a\n-not-decodable-but-kept",
    );
    test.no_reply(
        &session,
        vec![
            Draft::file(image, "image/png", Some("x.png")),
            Draft::text("emoji 🎉 and \u{7} bell"),
        ],
    )
    .await;
    for index in 0..5 {
        test.no_reply(&session, vec![Draft::text(format!("filler {index}"))])
            .await;
    }
    for query in [
        MessageQuery::default(),
        MessageQuery {
            limit: Some(3),
            before: None,
        },
    ] {
        let typed = test
            .ledger
            .sessions()
            .messages(&session.id, &query)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let raw = test
            .ledger
            .sessions()
            .messages_json(&session.id, &query)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            raw.json,
            serde_json::to_string(&typed.messages).unwrap_or_default()
        );
        assert_eq!(raw.next_cursor, typed.next_cursor);
    }
    let older = test
        .ledger
        .sessions()
        .messages_json(
            &session.id,
            &MessageQuery {
                limit: Some(3),
                before: Some("9".into()),
            },
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(older.json.starts_with("[{\"info\":"));
    let missing = test
        .ledger
        .sessions()
        .messages_json("ses_nope", &MessageQuery::default())
        .await
        .err();
    assert_eq!(missing.map(|error| error.kind()), Some(ErrorKind::NotFound));
}

#[tokio::test]
async fn concurrent_changes_to_one_session_all_stay() {
    // A generated title lands while the person answers "always allow": each change reads the
    // session, changes one field and saves it; neither may write its older copy over the other.
    use dossier_core::wire::permission::{Action, Rule};
    let test = open("{}").await;
    let session = test.session().await;
    let changes = (0..16).map(|index| {
        let sessions = test.ledger.sessions();
        let id = session.id.clone();
        async move {
            let patch = if index % 2 == 0 {
                SessionPatch {
                    permission: Some(vec![Rule::new(
                        "read",
                        &format!("file{index}"),
                        Action::Allow,
                    )]),
                    ..SessionPatch::default()
                }
            } else {
                SessionPatch {
                    title: Some(format!("Title {index}")),
                    ..SessionPatch::default()
                }
            };
            sessions.update(&id, patch).await
        }
    });
    for changed in futures::future::join_all(changes).await {
        changed.unwrap_or_else(|error| panic!("{error}"));
    }
    let stored = test
        .ledger
        .sessions()
        .get(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut allowed: Vec<String> = stored
        .permission
        .unwrap_or_default()
        .into_iter()
        .map(|rule| rule.pattern)
        .collect();
    allowed.sort();
    let mut expected: Vec<String> = (0..16)
        .step_by(2)
        .map(|index| format!("file{index}"))
        .collect();
    expected.sort();
    assert_eq!(allowed, expected);
    assert!(stored.title.starts_with("Title "));
}
