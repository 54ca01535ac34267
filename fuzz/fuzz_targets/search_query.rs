//! Search queries: what a person types (any script, FTS5 syntax such as `"`, `*`, `NEAR`, `AND`,
//! `^`, `:` included) is cut into terms, highlighted in excerpts, and run against a real FTS5
//! index in a scratch ledger. No typed text may reach SQLite as query syntax: a search either
//! finds sessions or finds none, never a database error.

#![no_main]

use dossier_core::fuzzing::search_excerpt;
use dossier_core::store::search::search_query::SearchQuery;
use dossier_core::store::search::search_text::{
    index_tokens, occurrences, query_terms, runs_contiguous,
};
use dossier_core::wire::draft::{Draft, PromptInput};
use dossier_core::wire::session::CreateSession;
use dossier_core::ErrorKind;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// Texts in the scratch ledger, and the texts every query is highlighted in.
const TEXTS: &[&str] = &[
    "Please check my Quarterly Report before Friday's meeting",
    "这个文件很大，请检查格式。数据库服务器明天维护",
    "ファイルを確認してください：カタカナ・ひらがな",
    "NEAR(\"tax\" invoice, 3) AND title:budget OR ^start * end",
    "İstanbul straße ÆØÅ œuvre naïve café",
    "한국어 문서를 검토해 주세요 ภาษาไทย",
    "emoji 🎉 mixed中文English混合text",
];

/// The scratch ledger with one session per text (title and a user message), and its session ids.
fn seeded() -> (&'static dossier_fuzz::Scratch, &'static [String]) {
    static SESSIONS: OnceLock<Vec<String>> = OnceLock::new();
    let scratch = dossier_fuzz::scratch_ledger("search");
    let sessions = SESSIONS.get_or_init(|| {
        scratch.block_on(async {
            let mut sessions = Vec::new();
            for text in TEXTS {
                let session = scratch
                    .ledger
                    .sessions()
                    .create(CreateSession {
                        title: Some((*text).to_string()),
                        ..CreateSession::default()
                    })
                    .await
                    .expect("seed session");
                scratch
                    .ledger
                    .sessions()
                    .prompt(
                        &session.id,
                        PromptInput {
                            no_reply: Some(true),
                            parts: vec![Draft::text(*text)],
                            ..PromptInput::default()
                        },
                    )
                    .await
                    .expect("seed message");
                sessions.push(session.id);
            }
            sessions
        })
    });
    (scratch, sessions)
}

fn check_ranges(text: &str, query: &str) {
    let terms = query_terms(query);
    let found = occurrences(text, &terms);
    let mut previous_end = 0;
    for range in &found {
        assert!(
            range.start >= previous_end && range.start < range.end,
            "{found:?}"
        );
        assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
        previous_end = range.end;
    }
    let _ = runs_contiguous(text, &terms);
    let pieces = search_excerpt(text, &terms);
    let excerpt_text: String = pieces.iter().map(|piece| piece.text.as_str()).collect();
    assert!(excerpt_text.chars().count() <= 170, "{excerpt_text}");
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let query = String::from_utf8_lossy(rest);
    for token in index_tokens(&query) {
        assert!(!token.is_empty() && !token.contains(' '));
    }
    for text in TEXTS {
        check_ranges(text, &query);
    }
    // The query's own text always contains what it asks for.
    check_ranges(&query, &query);
    let terms = query_terms(&query);
    assert!(runs_contiguous(&query, &terms), "{query:?}");

    let (scratch, sessions) = seeded();
    let search = SearchQuery {
        text: query.to_string(),
        limit: Some(u32::from(mode % 8) + 1),
        offset: Some(u32::from(mode >> 6)),
        include_archived: mode & 8 != 0,
        session_id: (mode & 16 != 0).then(|| sessions[usize::from(mode) % sessions.len()].clone()),
    };
    match scratch.block_on(scratch.ledger.sessions().search(&search)) {
        Ok(results) => assert!(results.len() <= TEXTS.len()),
        Err(error) => {
            assert!(query.trim().is_empty(), "{query:?} failed: {error}");
            assert_eq!(error.kind(), ErrorKind::Invalid);
        }
    }
});
