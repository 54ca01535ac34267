//! Excerpts: a window of the original text around the first place a query matched, cut into
//! plain and highlighted pieces. Built in Rust from the stored text, because the index holds
//! prepared tokens (FTS5's snippet() would quote those, and a contentless index has no text).

use crate::store::search::search_query::ExcerptPiece;
use crate::store::search::search_text::{self, QueryTerm};

/// Characters kept before the first highlight and in the whole window.
const BEFORE: usize = 40;
const WINDOW: usize = 160;
const ELLIPSIS: &str = "…";

/// The byte offset `count` characters before `offset`, or the start.
fn back(text: &str, offset: usize, count: usize) -> usize {
    text[..offset]
        .char_indices()
        .rev()
        .take(count)
        .last()
        .map_or(offset, |(index, _)| index)
}

/// The byte offset `count` characters after `offset`, or the end.
fn forward(text: &str, offset: usize, count: usize) -> usize {
    text[offset..]
        .char_indices()
        .nth(count)
        .map_or(text.len(), |(index, _)| offset + index)
}

fn push(pieces: &mut Vec<ExcerptPiece>, text: &str, highlighted: bool) {
    if text.is_empty() {
        return;
    }
    match pieces.last_mut() {
        Some(last) if last.highlighted == highlighted => last.text.push_str(text),
        _ => pieces.push(ExcerptPiece {
            text: text.to_string(),
            highlighted,
        }),
    }
}

/// The excerpt of `text` for `terms`: up to 160 characters starting a little before the first
/// match, every match inside highlighted, "…" where the text was cut. Text without a match (a
/// word whose accents the index folded) gives its opening, unhighlighted.
pub fn excerpt(text: &str, terms: &[QueryTerm]) -> Vec<ExcerptPiece> {
    let matches = search_text::occurrences(text, terms);
    let start = matches
        .first()
        .map_or(0, |first| back(text, first.start, BEFORE));
    let end = forward(text, start, WINDOW);
    let mut pieces = Vec::new();
    if start > 0 {
        push(&mut pieces, ELLIPSIS, false);
    }
    let mut cursor = start;
    for range in matches {
        if range.start < cursor || range.end > end {
            continue;
        }
        push(&mut pieces, &text[cursor..range.start], false);
        push(&mut pieces, &text[range.clone()], true);
        cursor = range.end;
    }
    push(&mut pieces, &text[cursor..end], false);
    if end < text.len() {
        push(&mut pieces, ELLIPSIS, false);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::search::search_text::query_terms;

    fn render(pieces: &[ExcerptPiece]) -> String {
        pieces
            .iter()
            .map(|piece| {
                if piece.highlighted {
                    format!("[{}]", piece.text)
                } else {
                    piece.text.clone()
                }
            })
            .collect()
    }

    #[test]
    fn excerpts_highlight_every_match_in_a_window_around_the_first() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "Please check my Quarterly Report",
                "quarterly report",
                "Please check my [Quarterly] [Report]",
            ),
            (
                "请帮我检查这个文件的格式",
                "文件",
                "请帮我检查这个[文件]的格式",
            ),
            ("nothing here", "zebra", "nothing here"),
        ];
        for (text, query, expected) in cases {
            assert_eq!(render(&excerpt(text, &query_terms(query))), *expected);
        }
        let long = format!("{} needle {}", "a ".repeat(100), "b ".repeat(100));
        let shown = render(&excerpt(&long, &query_terms("needle")));
        assert!(
            shown.starts_with("… a a") && shown.ends_with('…'),
            "{shown}"
        );
        assert!(shown.contains("[needle]"));
        assert_eq!(shown.chars().count(), 160 + 2 + 2);
    }
}
