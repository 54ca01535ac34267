//! How text is cut into the tokens the search index holds, and how a query is cut the same
//! way. Pure functions; the index itself is kept by `search_index`, queried by `search`.
//!
//! Why not a tokenizer inside SQLite: FTS5's `trigram` tokenizer finds any substring in any
//! script, but its index was about four times the text and multi-word queries were slow;
//! `unicode61` splits on spaces and punctuation, which is right for English and wrong for
//! Chinese and Japanese (no spaces between words: a whole sentence would be one token). A custom
//! FTS5 tokenizer needs unsafe C callbacks, which this crate forbids. So the text is prepared in
//! Rust and handed to a plain `unicode61` index as space-separated tokens:
//!
//! - words of letters and digits are kept as they are (the index folds case and diacritics);
//! - runs of scripts written without spaces (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar)
//!   become overlapping bigrams — 这个文件 → 这个 个文 文件 — plus the run's last character on
//!   its own, so every character of the run starts some token (a one-character query is a
//!   prefix search and then finds characters at the end of a run too).
//!
//! A query is cut by the same rules, so `文件` is the bigram `文件` and finds it inside
//! `这个文件很大`; a longer run is all of its bigrams, and `search` checks the run really is
//! contiguous in the text. A character counts as part of a token when it is a letter, a digit or
//! private-use (Unicode L*, N*, Co) — exactly `unicode61`'s default token characters, so each
//! token prepared here stays one token inside the index.

use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// Scripts written without spaces between words. U+30FC (the katakana long vowel mark) is
/// listed on its own because its script property is "Common".
const UNSPACED: &str =
    r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\x{30FC}";

static TOKENS: LazyLock<Regex> = LazyLock::new(|| {
    let pattern = format!(
        r"(?P<run>[[\p{{L}}\p{{N}}\p{{Co}}\x{{30FC}}]&&[{UNSPACED}]]+)|(?P<word>[[\p{{L}}\p{{N}}\p{{Co}}]--[{UNSPACED}]]+)"
    );
    // The pattern is a constant; a failure here is a programming error caught by every test.
    Regex::new(&pattern).unwrap_or_else(|error| panic!("search token pattern: {error}"))
});

/// A stretch of text the index sees as tokens, with where it sits in the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stretch<'text> {
    /// Letters and digits between spaces or punctuation.
    Word(&'text str, Range<usize>),
    /// Characters of a script written without spaces, each with its byte range.
    Run(Vec<(char, Range<usize>)>),
}

/// Cuts `text` into words and unspaced runs, in order.
pub fn stretches(text: &str) -> Vec<Stretch<'_>> {
    TOKENS
        .captures_iter(text)
        .filter_map(|captures| {
            if let Some(word) = captures.name("word") {
                return Some(Stretch::Word(word.as_str(), word.range()));
            }
            captures.name("run").map(|run| {
                Stretch::Run(
                    run.as_str()
                        .char_indices()
                        .map(|(offset, symbol)| {
                            let start = run.start() + offset;
                            (symbol, start..start + symbol.len_utf8())
                        })
                        .collect(),
                )
            })
        })
        .collect()
}

fn bigrams(run: &[char]) -> Vec<String> {
    run.windows(2)
        .map(|pair| pair.iter().collect::<String>())
        .collect()
}

/// The tokens the index holds for `text`, lower-cased (the index would fold them anyway; the
/// word list used to widen prefixes needs them folded).
pub fn index_tokens(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for stretch in stretches(text) {
        match stretch {
            Stretch::Word(word, _) => tokens.push(word.to_lowercase()),
            Stretch::Run(characters) => {
                let run: Vec<char> = characters.iter().map(|(symbol, _)| *symbol).collect();
                tokens.extend(bigrams(&run));
                if let Some(last) = run.last() {
                    tokens.push(last.to_lowercase().collect());
                }
            }
        }
    }
    tokens
}

/// What the index is given for `text`: its tokens separated by spaces.
pub fn prepared(text: &str) -> String {
    index_tokens(text).join(" ")
}

/// One thing a query asks for; every term of a query must match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryTerm {
    /// A word, or one character of an unspaced script: matches any token it begins.
    Prefix(String),
    /// Two or more characters of an unspaced script: all their bigrams, next to each other.
    Run(String),
}

impl QueryTerm {
    /// The bigrams a run needs (empty for a prefix).
    pub fn bigrams(&self) -> Vec<String> {
        match self {
            QueryTerm::Prefix(_) => Vec::new(),
            QueryTerm::Run(run) => bigrams(&run.chars().collect::<Vec<_>>()),
        }
    }
}

/// The terms of what a person typed, without duplicates; empty when nothing searchable was
/// typed (only spaces or punctuation).
pub fn query_terms(text: &str) -> Vec<QueryTerm> {
    let mut terms: Vec<QueryTerm> = Vec::new();
    for stretch in stretches(text) {
        let term = match stretch {
            Stretch::Word(word, _) => QueryTerm::Prefix(word.to_lowercase()),
            Stretch::Run(characters) if characters.len() == 1 => QueryTerm::Prefix(
                characters
                    .iter()
                    .flat_map(|(symbol, _)| symbol.to_lowercase())
                    .collect(),
            ),
            Stretch::Run(characters) => {
                QueryTerm::Run(characters.iter().map(|(symbol, _)| *symbol).collect())
            }
        };
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    terms
}

/// Where the terms occur in `text` (byte ranges, in order, not overlapping): the start of each
/// word a prefix begins, and each place an unspaced run occurs. Used for highlights and to
/// check that a run's bigrams really sit next to each other.
pub fn occurrences(text: &str, terms: &[QueryTerm]) -> Vec<Range<usize>> {
    let mut found: Vec<Range<usize>> = Vec::new();
    for stretch in stretches(text) {
        match stretch {
            Stretch::Word(word, range) => {
                let lower = word.to_lowercase();
                for term in terms {
                    if let QueryTerm::Prefix(prefix) = term {
                        if lower.starts_with(prefix.as_str()) {
                            // Lower-casing keeps the number of characters for nearly every
                            // script; cut the original at the prefix's length in characters.
                            let length: usize = word
                                .chars()
                                .take(prefix.chars().count())
                                .map(char::len_utf8)
                                .sum();
                            found.push(range.start..range.start + length);
                            break;
                        }
                    }
                }
            }
            Stretch::Run(characters) => {
                let run: Vec<char> = characters
                    .iter()
                    .flat_map(|(symbol, _)| symbol.to_lowercase())
                    .collect();
                if run.len() != characters.len() {
                    continue;
                }
                let mut index = 0;
                while index < run.len() {
                    let matched = terms.iter().find_map(|term| {
                        let wanted: Vec<char> = match term {
                            QueryTerm::Prefix(prefix) => prefix.chars().collect(),
                            QueryTerm::Run(run) => run.chars().collect(),
                        };
                        (run[index..].starts_with(&wanted) && !wanted.is_empty())
                            .then_some(wanted.len())
                    });
                    match matched {
                        Some(length) => {
                            let end = characters[index + length - 1].1.end;
                            found.push(characters[index].1.start..end);
                            index += length;
                        }
                        None => index += 1,
                    }
                }
            }
        }
    }
    found
}

/// Whether every run of the query occurs, contiguous, in `text` (the index only knows that
/// each of its bigrams does). Prefix terms need no check: the index matched them exactly.
pub fn runs_contiguous(text: &str, terms: &[QueryTerm]) -> bool {
    let runs: Vec<&QueryTerm> = terms
        .iter()
        .filter(|term| matches!(term, QueryTerm::Run(run) if run.chars().count() > 2))
        .collect();
    if runs.is_empty() {
        return true;
    }
    // Verbatim in the text is the common case and needs no cutting into stretches.
    if runs
        .iter()
        .all(|term| matches!(term, QueryTerm::Run(run) if text.contains(run.as_str())))
    {
        return true;
    }
    let found = occurrences(text, terms);
    runs.iter().all(|term| {
        let QueryTerm::Run(run) = term else {
            return true;
        };
        found
            .iter()
            .any(|range| &text[range.clone()] == run.as_str())
    })
}

/// `token` without the diacritics of its Latin letters ("café" → "cafe", "Ångström" →
/// "Angstrom"): what SQLite's `unicode61 remove_diacritics 2` tokenizer does to every token it
/// indexes and every query it reads. PostgreSQL's `simple` configuration does not, so the
/// Postgres index and its queries fold their tokens here. Like SQLite's, only Latin letters
/// are folded: in Japanese, ド and ト are different sounds, not one letter with an accent.
/// Letters whose stroke is part of the letter itself (ø, ł) stay.
pub fn without_diacritics(token: &str) -> String {
    use unicode_normalization::char::{decompose_canonical, is_combining_mark};
    let mut folded = String::with_capacity(token.len());
    for symbol in token.chars() {
        let latin = matches!(symbol, '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}');
        if latin {
            decompose_canonical(symbol, |part| {
                if !is_combining_mark(part) {
                    folded.push(part);
                }
            });
        } else {
            folded.push(symbol);
        }
    }
    folded
}

#[cfg(test)]
mod tests {

    #[test]
    fn diacritics_fold_away_and_other_letters_stay() {
        for (token, folded) in [
            ("café", "cafe"),
            ("ångström", "angstrom"),
            ("naïve", "naive"),
            ("søren", "søren"),
            ("文件", "文件"),
            ("カード", "カード"),
            ("ё", "ё"),
            ("plain", "plain"),
        ] {
            assert_eq!(without_diacritics(token), folded, "{token}");
        }
    }
    use super::*;

    #[test]
    fn index_tokens_keep_words_and_cut_unspaced_runs_into_bigrams() {
        let cases: &[(&str, &[&str])] = &[
            ("Tax Return, 2026!", &["tax", "return", "2026"]),
            ("invoice-2026.txt", &["invoice", "2026", "txt"]),
            ("这个文件", &["这个", "个文", "文件", "件"]),
            ("文", &["文"]),
            ("看 report 的文件", &["看", "report", "的文", "文件", "件"]),
            ("2026年", &["2026", "年"]),
            ("カード", &["カー", "ード", "ド"]),
            ("Café", &["café"]),
            ("  ...  ", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(&index_tokens(text), expected, "tokens of {text:?}");
        }
        assert_eq!(prepared("这个 file"), "这个 个 file");
    }

    #[test]
    fn queries_become_prefixes_and_runs() {
        assert_eq!(
            query_terms("Refund  DEADLINE refund"),
            vec![
                QueryTerm::Prefix("refund".into()),
                QueryTerm::Prefix("deadline".into())
            ]
        );
        assert_eq!(
            query_terms("文件的格式 \"x\""),
            vec![
                QueryTerm::Run("文件的格式".into()),
                QueryTerm::Prefix("x".into())
            ]
        );
        assert_eq!(query_terms("文"), vec![QueryTerm::Prefix("文".into())]);
        assert_eq!(
            query_terms(" \"( AND - "),
            vec![QueryTerm::Prefix("and".into())]
        );
        assert!(query_terms(" %% ** ").is_empty());
        assert_eq!(
            QueryTerm::Run("数据库".into()).bigrams(),
            vec!["数据".to_string(), "据库".to_string()]
        );
    }

    #[test]
    fn occurrences_mark_word_starts_and_runs() {
        let text = "Quarterly report: 这个文件很大, quarter";
        let terms = query_terms("quarter 文件");
        let marked: Vec<&str> = occurrences(text, &terms)
            .into_iter()
            .map(|range| &text[range])
            .collect();
        assert_eq!(marked, ["Quarter", "文件", "quarter"]);
        assert!(occurrences("headquarters", &terms).is_empty());
    }

    #[test]
    fn runs_must_be_contiguous() {
        let terms = query_terms("文件夹");
        assert!(runs_contiguous("打开文件夹", &terms));
        assert!(!runs_contiguous("文件, 件夹", &terms));
        assert!(runs_contiguous("anything", &query_terms("文件 word")));
    }
}
