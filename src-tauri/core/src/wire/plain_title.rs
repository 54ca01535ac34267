//! Titles as plain text. A model asked for a title sometimes answers in Markdown ("## Summary of
//! your file", "**Tax** return"); the marks mean nothing in a one-line label or a file name, so
//! they are taken off when a title is generated and when an export is named. The UI applies the
//! same rule (`ui/src/lib/session-title.ts`) to titles stored before this one existed.

/// The title's words without Markdown's marks: headings, quotes, list markers, emphasis, code,
/// links and images (their words kept). Angle brackets stay: a title a person wrote may hold
/// `<draft>`, and the UI shows any HTML as text anyway. Lines are joined with a space. A title that is
/// nothing but marks is kept as it was (trimmed), so there is always something to show.
pub fn plain_title(title: &str) -> String {
    let joined = title
        .lines()
        .map(line_without_block_marks)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let words = collapse_spaces(&without_emphasis(&without_code_ticks(&without_links(
        &joined,
    ))));
    if words.is_empty() {
        title.trim().to_string()
    } else {
        words
    }
}

/// A line's leading heading, quote or list marker and a heading's closing hashes; a table row's
/// cells joined by " · ", and a table's delimiter row (`|---|:--:|`) gone.
fn line_without_block_marks(line: &str) -> String {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return line.to_string();
    }
    let rest = line.trim_start();
    if let Some(cells) = table_row_cells(rest) {
        return cells;
    }
    if let Some(after) = heading_text(rest) {
        after
            .trim_end()
            .trim_end_matches('#')
            .trim_end()
            .to_string()
    } else if let Some(after) = rest.strip_prefix('>') {
        after.trim_start().to_string()
    } else if let Some(after) = list_item_text(rest) {
        after.to_string()
    } else {
        rest.to_string()
    }
}

/// A row of a Markdown table (`| Item | Cost |`): its non-empty cells joined by " · ", or
/// nothing for the delimiter row under the header. Only a line that starts and ends with `|` is
/// taken for a row, so "a | b" in a sentence stays as written.
fn table_row_cells(line: &str) -> Option<String> {
    let inner = line.trim_end().strip_prefix('|')?.strip_suffix('|')?;
    let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
    let delimiter = cells
        .iter()
        .all(|cell| !cell.is_empty() && cell.chars().all(|symbol| matches!(symbol, '-' | ':')));
    if delimiter {
        return Some(String::new());
    }
    Some(
        cells
            .into_iter()
            .filter(|cell| !cell.is_empty())
            .collect::<Vec<_>>()
            .join(" · "),
    )
}

/// `# `…`###### ` followed by the heading's text.
fn heading_text(line: &str) -> Option<&str> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let after = &line[hashes..];
    after
        .starts_with(char::is_whitespace)
        .then(|| after.trim_start())
}

/// `- `, `* `, `+ `, `1. ` or `1) ` followed by the item's text.
fn list_item_text(line: &str) -> Option<&str> {
    for bullet in ['-', '*', '+'] {
        if let Some(after) = line.strip_prefix(bullet) {
            if after.starts_with(char::is_whitespace) {
                return Some(after.trim_start());
            }
        }
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let after = line[digits..]
        .strip_prefix('.')
        .or_else(|| line[digits..].strip_prefix(')'))?;
    after
        .starts_with(char::is_whitespace)
        .then(|| after.trim_start())
}

/// `[words](target)` and `![words](target)` become `words`.
fn without_links(text: &str) -> String {
    let mut output = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some((words, after)) = link_at(&rest[open..]) else {
            output.push_str(&rest[..=open]);
            rest = &rest[open + 1..];
            continue;
        };
        let before = rest[..open].strip_suffix('!').unwrap_or(&rest[..open]);
        output.push_str(before);
        output.push_str(words);
        rest = after;
    }
    output.push_str(rest);
    output
}

/// At `[`: the link's words and what follows its `(target)`.
fn link_at(text: &str) -> Option<(&str, &str)> {
    let close = text.find(']')?;
    let words = &text[1..close];
    if words.contains('[') {
        return None;
    }
    let target = text[close + 1..].strip_prefix('(')?;
    let end = target.find(')')?;
    Some((words, &target[end + 1..]))
}

/// Backticks around code go; the code stays.
fn without_code_ticks(text: &str) -> String {
    text.replace('`', "")
}

/// `**strong**`, `__strong__`, `~~struck~~`, and `*em*` / `_em_` at word edges lose their marks;
/// a lone `*` (2 * 3) or an underscore inside a word (snake_case) stays.
fn without_emphasis(text: &str) -> String {
    let mut output = text.to_string();
    for mark in ["**", "__", "~~"] {
        output = without_paired(&output, mark, |_, _| true);
    }
    for mark in ["*", "_"] {
        output = without_paired(&output, mark, |before, after| {
            before.is_none_or(|c| c.is_whitespace() || "([{\"'".contains(c))
                && after.is_none_or(|c| c.is_whitespace() || ").,:;!?]}\"'".contains(c))
        });
    }
    output
}

/// Removes `mark`…`mark` pairs around non-empty text that does not start or end with a space,
/// when `at_edges(character before the opening, character after the closing)` allows it.
fn without_paired(
    text: &str,
    mark: &str,
    at_edges: impl Fn(Option<char>, Option<char>) -> bool,
) -> String {
    let mut output = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(mark) {
        let inner_start = open + mark.len();
        let closing = rest[inner_start..].find(mark).map(|at| inner_start + at);
        let paired = closing.filter(|&close| {
            let inner = &rest[inner_start..close];
            let before = output
                .chars()
                .last()
                .filter(|_| open == 0)
                .or_else(|| rest[..open].chars().last());
            let after = rest[close + mark.len()..].chars().next();
            !inner.is_empty()
                && !inner.starts_with(char::is_whitespace)
                && !inner.ends_with(char::is_whitespace)
                && at_edges(before, after)
        });
        match paired {
            Some(close) => {
                output.push_str(&rest[..open]);
                output.push_str(&rest[inner_start..close]);
                rest = &rest[close + mark.len()..];
            }
            None => {
                output.push_str(&rest[..inner_start]);
                rest = &rest[inner_start..];
            }
        }
    }
    output.push_str(rest);
    output
}

fn collapse_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::plain_title;

    #[test]
    fn markdown_marks_come_off_titles() {
        let table = [
            ("## Summary of your file", "Summary of your file"),
            ("# Title #", "Title"),
            ("**Tax** return 2025", "Tax return 2025"),
            ("__Bold__ and *em* and _also em_", "Bold and em and also em"),
            ("~~Old~~ New plan", "Old New plan"),
            ("`cargo test` failures", "cargo test failures"),
            ("> Quoted title", "Quoted title"),
            ("- Item title", "Item title"),
            ("1. First step", "First step"),
            (
                "[Rust docs](https://doc.rust-lang.org) reading",
                "Rust docs reading",
            ),
            ("![diagram](a.png) review", "diagram review"),
            ("Line one\n## Line two", "Line one Line two"),
            ("## 总结你的文件", "总结你的文件"),
            ("  spaced   out  ", "spaced out"),
            ("| Item | Cost |", "Item · Cost"),
            (
                "| Item | Cost |\n|------|:---:|\n| Tea | 3 |",
                "Item · Cost Tea · 3",
            ),
            ("|---|---|", "|---|---|"),
        ];
        for (title, expected) in table {
            assert_eq!(plain_title(title), expected, "{title:?}");
        }
    }

    #[test]
    fn text_that_only_looks_like_marks_stays() {
        let table = [
            ("2 * 3 = 6", "2 * 3 = 6"),
            ("snake_case_names explained", "snake_case_names explained"),
            ("#hashtag trends", "#hashtag trends"),
            ("C# and F# basics", "C# and F# basics"),
            ("a < b and c > d", "a < b and c > d"),
            ("[not a link] yet", "[not a link] yet"),
            ("1.5 million rows", "1.5 million rows"),
            ("-5 degrees", "-5 degrees"),
            ("cats | dogs", "cats | dogs"),
            ("|pipe at the start only", "|pipe at the start only"),
            // Nothing but marks: kept, so there is something to show.
            ("##", "##"),
            ("**", "**"),
        ];
        for (title, expected) in table {
            assert_eq!(plain_title(title), expected, "{title:?}");
        }
    }
}
