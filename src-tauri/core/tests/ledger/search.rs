//! Full-text search: finds words in user text, assistant text and reasoning, titles and
//! attachment names; follows edits, deletes, forks and reverts; works for Chinese.

use crate::support::*;
use dossier_core::store::search::search_query::{SearchQuery, SearchResult};
use dossier_core::wire::draft::Draft;
use dossier_core::wire::part::PartBody;
use dossier_core::wire::session::{CreateSession, SessionPatch, SessionTimePatch};
use dossier_core::ErrorKind;

fn highlighted(result: &SearchResult) -> Vec<String> {
    result
        .excerpts
        .iter()
        .flat_map(|excerpt| {
            excerpt
                .pieces
                .iter()
                .filter(|piece| piece.highlighted)
                .map(|piece| piece.text.clone())
        })
        .collect()
}

#[tokio::test]
async fn search_finds_user_text_with_message_and_highlight() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let other = test.session().await;
    let said = test
        .no_reply(
            &session,
            vec![Draft::text(
                "Please check my Quarterly Report before Friday",
            )],
        )
        .await;
    test.no_reply(&other, vec![Draft::text("nothing to see here")])
        .await;
    let results = search(&test, "quarterly").await;
    assert_eq!(session_ids(&results), vec![session.id.clone()]);
    let excerpt = &results[0].excerpts[0];
    assert_eq!(
        (excerpt.field.as_str(), excerpt.message_id.as_deref()),
        ("text", Some(said.info.id()))
    );
    assert_eq!(highlighted(&results[0]), ["Quarterly"]);
}

#[tokio::test]
async fn search_finds_titles_attachment_names_but_not_synthetic_context() {
    let test = open(FAKE_CONFIG).await;
    let titled = test
        .ledger
        .sessions()
        .create(CreateSession {
            title: Some("Holiday planning".into()),
            ..CreateSession::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let attached = test.session().await;
    let path = test.write("invoice-2026.txt", "the secret word is pineapple\n");
    test.no_reply(
        &attached,
        vec![file_draft(&path), Draft::text("see attached")],
    )
    .await;
    assert_eq!(
        session_ids(&search(&test, "holiday").await),
        vec![titled.id.clone()]
    );
    let by_name = search(&test, "invoice").await;
    assert_eq!(session_ids(&by_name), vec![attached.id.clone()]);
    assert_eq!(by_name[0].excerpts[0].field, "file");
    assert!(
        search(&test, "pineapple").await.is_empty(),
        "the Read tool's output is context, not something said"
    );
}

#[tokio::test]
async fn search_works_for_chinese_words_of_two_and_more_characters() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    test.no_reply(
        &session,
        vec![Draft::text("请帮我检查这个文件的格式是否正确")],
    )
    .await;
    let other = test.session().await;
    test.no_reply(&other, vec![Draft::text("今天天气很好")])
        .await;
    assert_eq!(
        session_ids(&search(&test, "文件").await),
        vec![session.id.clone()]
    );
    assert_eq!(
        session_ids(&search(&test, "文件的格式").await),
        vec![session.id.clone()]
    );
    assert_eq!(highlighted(&search(&test, "文件").await[0]), ["文件"]);
    assert_eq!(
        session_ids(&search(&test, "天气很好").await),
        vec![other.id.clone()]
    );
    assert!(search(&test, "文件夹").await.is_empty());
}

#[tokio::test]
async fn index_follows_title_edits_deletes_and_archiving() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    test.no_reply(&session, vec![Draft::text("marmalade recipe")])
        .await;
    test.ledger
        .sessions()
        .update(
            &session.id,
            SessionPatch {
                title: Some("Breakfast ideas".into()),
                ..SessionPatch::default()
            },
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        session_ids(&search(&test, "breakfast").await),
        vec![session.id.clone()]
    );
    test.ledger
        .sessions()
        .update(
            &session.id,
            SessionPatch {
                title: Some("Lunch".into()),
                ..SessionPatch::default()
            },
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(search(&test, "breakfast").await.is_empty());
    let archive = SessionPatch {
        time: Some(SessionTimePatch {
            archived: Some(Some(1)),
        }),
        ..SessionPatch::default()
    };
    test.ledger
        .sessions()
        .update(&session.id, archive)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(search(&test, "marmalade").await.is_empty());
    let with_archived = test
        .ledger
        .sessions()
        .search(&SearchQuery {
            text: "marmalade".into(),
            include_archived: true,
            ..SearchQuery::default()
        })
        .await
        .unwrap_or_default();
    assert_eq!(session_ids(&with_archived), vec![session.id.clone()]);
    let title_kept = test
        .ledger
        .sessions()
        .search(&SearchQuery {
            text: "lunch".into(),
            include_archived: true,
            ..SearchQuery::default()
        })
        .await
        .unwrap_or_default();
    assert_eq!(
        session_ids(&title_kept),
        vec![session.id.clone()],
        "saving a session without renaming it keeps its title indexed"
    );
    test.ledger
        .sessions()
        .delete(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    // The index rows themselves: SQLite's word index, or PostgreSQL's tsvector tables.
    let leftovers = scalar(
        &test.ledger,
        if on_postgres() {
            "SELECT (SELECT count(*) FROM part_search) + (SELECT count(*) FROM title_search)"
        } else {
            "SELECT (SELECT count(*) FROM part_search WHERE part_search MATCH 'marmalade OR recipe') \
             + (SELECT count(*) FROM title_search WHERE title_search MATCH 'lunch')"
        },
    )
    .await;
    assert_eq!(
        leftovers, 0,
        "deleting a session removes its index rows through the cascade"
    );
}

#[tokio::test]
async fn index_follows_forks_and_reverts() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    test.no_reply(&session, vec![Draft::text("kept avocado")])
        .await;
    let undone = test
        .no_reply(&session, vec![Draft::text("regret zucchini")])
        .await;
    let fork = test
        .ledger
        .reshaping()
        .fork_session(&session.id, None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut found = session_ids(&search(&test, "avocado").await);
    found.sort();
    let mut expected = vec![session.id.clone(), fork.id.clone()];
    expected.sort();
    assert_eq!(found, expected);
    test.ledger
        .reshaping()
        .revert(&session.id, undone.info.id(), None)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    test.no_reply(&session, vec![Draft::text("fresh")]).await;
    assert_eq!(
        session_ids(&search(&test, "zucchini").await),
        vec![fork.id.clone()],
        "the reverted message left the index with the ledger"
    );
}

#[tokio::test]
async fn index_follows_part_updates() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let saved = test
        .no_reply(&session, vec![Draft::text("draft one")])
        .await;
    let mut part = saved.parts[0].clone();
    if let dossier_core::wire::part::PartBody::Text(text) = &mut part.body {
        text.text = "final version with kiwis".into();
    }
    let mut connection = test
        .ledger
        .store()
        .connection()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    dossier_core::store::tables::message_store::update_part(&mut connection, &part, 1)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    drop(connection);
    assert_eq!(
        session_ids(&search(&test, "kiwis").await),
        vec![session.id.clone()]
    );
    assert!(search(&test, "draft one").await.is_empty());
}

#[tokio::test]
async fn search_ranks_pages_and_refuses_empty_queries() {
    let test = open(FAKE_CONFIG).await;
    for index in 0..5 {
        let session = test.session().await;
        test.no_reply(
            &session,
            vec![Draft::text(format!("common words number {index}"))],
        )
        .await;
    }
    let first = test
        .ledger
        .sessions()
        .search(&SearchQuery {
            text: "common".into(),
            limit: Some(2),
            ..SearchQuery::default()
        })
        .await
        .unwrap_or_default();
    let second = test
        .ledger
        .sessions()
        .search(&SearchQuery {
            text: "common".into(),
            limit: Some(2),
            offset: Some(2),
            ..SearchQuery::default()
        })
        .await
        .unwrap_or_default();
    let all = search(&test, "common").await;
    assert_eq!((first.len(), second.len(), all.len()), (2, 2, 5));
    assert!(session_ids(&first)
        .iter()
        .all(|id| !session_ids(&second).contains(id)));
    let empty = test
        .ledger
        .sessions()
        .search(&SearchQuery {
            text: "  ".into(),
            ..SearchQuery::default()
        })
        .await
        .err();
    assert_eq!(empty.map(|error| error.kind()), Some(ErrorKind::Invalid));
    let syntax = search(&test, "\"unbalanced AND OR (").await;
    assert!(
        syntax.is_empty(),
        "query syntax typed by a person is searched for literally"
    );
}

#[tokio::test]
async fn search_within_one_session_ignores_the_others() {
    let test = open(FAKE_CONFIG).await;
    let first = test.session().await;
    let second = test.session().await;
    test.no_reply(&first, vec![Draft::text("shared word lighthouse")])
        .await;
    test.no_reply(&second, vec![Draft::text("shared word lighthouse")])
        .await;
    let scoped = test
        .ledger
        .sessions()
        .search(&SearchQuery {
            text: "lighthouse".into(),
            session_id: Some(second.id.clone()),
            ..SearchQuery::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(session_ids(&scoped), vec![second.id.clone()]);
    assert_eq!(search(&test, "lighthouse").await.len(), 2);
}

#[tokio::test]
async fn search_words_match_the_start_of_longer_words() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    test.no_reply(
        &session,
        vec![Draft::text("Two invoices arrived; call a Taxi to the café")],
    )
    .await;
    for query in ["invoice", "INVOICES", "tax", "cafe", "café", "two inv"] {
        assert_eq!(
            session_ids(&search(&test, query).await),
            vec![session.id.clone()],
            "{query}"
        );
    }
    assert_eq!(highlighted(&search(&test, "invoice").await[0]), ["invoice"]);
    for query in ["voice", "invoices taxes", "zebra"] {
        assert!(search(&test, query).await.is_empty(), "{query}");
    }
}

#[tokio::test]
async fn chinese_runs_must_be_contiguous_and_single_characters_match_anywhere() {
    let test = open(FAKE_CONFIG).await;
    let apart = test.session().await;
    test.no_reply(&apart, vec![Draft::text("文件在这里，件夹在那里")])
        .await;
    let together = test.session().await;
    test.no_reply(&together, vec![Draft::text("请打开文件夹")])
        .await;
    let katakana = test.session().await;
    test.no_reply(&katakana, vec![Draft::text("クレジットカードで払う")])
        .await;
    assert_eq!(
        session_ids(&search(&test, "文件夹").await),
        vec![together.id.clone()],
        "both bigrams occur in the first session, but not next to each other"
    );
    let mut with_end_character = session_ids(&search(&test, "夹").await);
    with_end_character.sort();
    let mut expected = vec![apart.id.clone(), together.id.clone()];
    expected.sort();
    assert_eq!(with_end_character, expected);
    assert_eq!(
        session_ids(&search(&test, "カード").await),
        vec![katakana.id.clone()]
    );
    assert_eq!(highlighted(&search(&test, "文件夹").await[0]), ["文件夹"]);
}

#[tokio::test]
async fn imported_sessions_are_searchable() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    test.no_reply(&session, vec![Draft::text("the walrus said hello")])
        .await;
    let exported = test
        .ledger
        .reshaping()
        .export_json(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let imported = test
        .ledger
        .reshaping()
        .import_session(serde_json::to_value(&exported).unwrap_or_default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    test.ledger
        .sessions()
        .delete(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        session_ids(&search(&test, "walrus").await),
        vec![imported.id.clone()]
    );
}

#[tokio::test]
async fn a_database_with_the_trigram_index_is_reindexed_when_opened() {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let data = folder.path().join("data");
    std::fs::create_dir_all(&data).unwrap_or_else(|error| panic!("{error}"));
    std::fs::create_dir_all(folder.path().join("work")).unwrap_or_else(|error| panic!("{error}"));
    {
        // The ledger as the previous version left it: migrations 0001 and 0002, rows in place.
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(data.join(dossier_core::store::DATABASE_FILE))
            .create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let mut migrator = sqlx::migrate::Migrator::new(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations"),
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));
        let earlier: Vec<_> = migrator
            .migrations
            .iter()
            .filter(|migration| migration.version <= 2)
            .cloned()
            .collect();
        migrator.migrations = earlier.into();
        migrator
            .run(&pool)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        for statement in [
            "INSERT INTO session (id, slug, project_id, directory, title, version, time_created, time_updated) \
             VALUES ('ses_old', 'old', 'global', '/', 'Pelican notes', '0', 1, 1)",
            "INSERT INTO message (id, session_id, seq, role, time_created, time_updated, data) \
             VALUES ('msg_old', 'ses_old', 1, 'user', 1, 1, '{}')",
            "INSERT INTO part (id, message_id, session_id, seq, type, time_created, time_updated, data) \
             VALUES ('prt_old', 'msg_old', 'ses_old', 2, 'text', 1, 1, '{\"type\":\"text\",\"text\":\"flamingo 火烈鸟\"}')",
        ] {
            sqlx::query(statement)
                .execute(&pool)
                .await
                .unwrap_or_else(|error| panic!("{error}"));
        }
        pool.close().await;
    }
    let ledger = dossier_core::start_up::open(options(folder.path(), FAKE_CONFIG))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let test = TestLedger {
        ledger,
        folder,
        database: None,
    };
    for query in ["flamingo", "火烈鸟", "pelican"] {
        let found = search(&test, query).await;
        assert_eq!(session_ids(&found), vec!["ses_old".to_string()], "{query}");
    }
    let excerpt = &search(&test, "flamingo").await[0].excerpts[0];
    assert_eq!(
        (excerpt.message_id.as_deref(), excerpt.part_id.as_deref()),
        (Some("msg_old"), Some("prt_old"))
    );
    let pending: i64 = sqlx::query_scalar("SELECT count(*) FROM search_rebuild")
        .fetch_one(test.ledger.pool().sqlite().expect("a SQLite ledger"))
        .await
        .unwrap_or(-1);
    assert_eq!(pending, 0, "the rebuild runs once");
}

#[tokio::test]
async fn search_within_one_session_lists_every_matching_message_up_to_the_limit() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let mut said = Vec::new();
    for index in 0..6 {
        let message = test
            .no_reply(
                &session,
                vec![Draft::text(format!("harbour note number {index}"))],
            )
            .await;
        said.push(message.info.id().to_string());
    }
    let scoped = |limit| SearchQuery {
        text: "harbour".into(),
        limit,
        session_id: Some(session.id.clone()),
        ..SearchQuery::default()
    };
    let every = test
        .ledger
        .sessions()
        .search(&scoped(None))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let found: Vec<String> = every[0]
        .excerpts
        .iter()
        .filter_map(|excerpt| excerpt.message_id.clone())
        .collect();
    said.reverse();
    assert_eq!(found, said, "every matching message, newest first");
    let capped = test
        .ledger
        .sessions()
        .search(&scoped(Some(4)))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(capped[0].excerpts.len(), 4);
    assert_eq!(
        search(&test, "harbour").await[0].excerpts.len(),
        3,
        "across sessions, three excerpts each"
    );
}

#[tokio::test]
async fn excerpts_carry_about_a_line_of_context_around_the_match() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let said = "we saw a quokka sleeping all day under the old fig tree by the river";
    test.no_reply(&session, vec![Draft::text(said)]).await;
    let results = search(&test, "quokka").await;
    let shown: String = results[0].excerpts[0]
        .pieces
        .iter()
        .map(|piece| piece.text.as_str())
        .collect();
    assert!(
        shown.starts_with("we saw a quokka sleeping all day under the old fig tree"),
        "{shown}"
    );
}

/// A prompt's parts and their index rows are written in one command, each index row given the
/// rowid of the part just inserted: with unindexed parts (the Read tool's synthetic context)
/// between indexed ones, every word must still point at its own part.
#[tokio::test]
async fn every_part_of_one_prompt_is_indexed_under_its_own_part() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let path = test.write("walrus-notes.txt", "the body mentions narwhal\n");
    let said = test
        .no_reply(
            &session,
            vec![
                Draft::text("first about albatross"),
                file_draft(&path),
                Draft::text("last about zeppelin"),
            ],
        )
        .await;
    // The part a word was said in: a text part by its text, the file part by its name.
    let part_with = |needle: &str| {
        said.parts
            .iter()
            .find(|part| match &part.body {
                PartBody::Text(text) => text.text == needle,
                PartBody::File(file) => file.filename.as_deref() == Some(needle),
                _ => false,
            })
            .map(|part| part.id.clone())
            .unwrap_or_else(|| panic!("no part holds {needle}"))
    };
    assert!(
        said.parts.len() > 3,
        "the Read tool's context sits between the indexed parts"
    );
    for (word, field, holder) in [
        ("albatross", "text", "first about albatross"),
        ("walrus", "file", "walrus-notes.txt"),
        ("zeppelin", "text", "last about zeppelin"),
    ] {
        let results = search(&test, word).await;
        assert_eq!(session_ids(&results), vec![session.id.clone()], "{word}");
        let excerpt = &results[0].excerpts[0];
        assert_eq!(excerpt.field, field, "{word}");
        assert_eq!(excerpt.part_id, Some(part_with(holder)), "{word}");
        assert_eq!(highlighted(&results[0]), [word], "{word}");
    }
    assert!(search(&test, "narwhal").await.is_empty());
}
