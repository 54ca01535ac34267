//! Document symbols without a language server: a file's outline from the built-in tree-sitter
//! grammars (`symbols/grammars.rs`), nested as an editor's outline is, with each symbol's lines
//! counted from 0 as a language server counts them. The prompt pipeline uses it to widen a
//! one-line `?start=N&end=N` draft to the symbol on that line (`symbol_range.rs`); the window's
//! outline picker lists it.
//!
//! Outside bytes never panic or hang it: a file over the size cap, a binary one or a language
//! without a grammar has no outline, a parse that runs past `PARSE_TIME_LIMIT` is cancelled, the
//! tree is walked without recursion and a symbol whose own subtree holds a syntax error is left
//! out (its lines could be wrong), never guessed.

pub mod grammars;

use crate::pipeline::read_tool::{self, MAX_ATTACHMENT_BYTES};
use crate::wire::document_symbol::{DocumentSymbol, SymbolKind};
use crate::wire::error::LedgerError;
use grammars::Grammar;
use std::path::Path;
use std::time::{Duration, Instant};
use tree_sitter::{Node, ParseOptions, ParseState, Parser};

/// Long enough for a large hand-written source file on a slow machine (tens of milliseconds is
/// usual), short enough that a hostile file costs a prompt at most this much.
pub const PARSE_TIME_LIMIT: Duration = Duration::from_secs(2);

/// Symbols nested deeper than this are left out: no outline needs them, and it keeps the
/// assembly below free of unbounded work per symbol.
const MAX_SYMBOL_DEPTH: usize = 64;

/// The outline of a file on disk, or `None` when it has none to give: a missing or unreadable
/// file, one over the Read tool's attachment cap, a binary one, a language without a grammar,
/// or a parse that did not finish in time.
pub fn file_outline(path: &Path) -> Option<Vec<DocumentSymbol>> {
    let grammar = grammars::for_extension(path.extension()?.to_str()?)?;
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_ATTACHMENT_BYTES {
        return None;
    }
    let source = std::fs::read(path).ok()?;
    let sample = &source[..source.len().min(4096)];
    if read_tool::sniff_media(sample).is_some() || read_tool::is_binary(path, sample) {
        return None;
    }
    outline(grammar, &source, PARSE_TIME_LIMIT)
}

/// The outline picker's list for a file the person gave (the window's chip, `GET
/// /dossier/symbols`): its symbols, or none when Dossier has no grammar for it, it is binary or
/// too large, or it did not parse in time — the same files a one-line draft reads as one line.
/// A path that is not an absolute path to an existing file is refused with the reason.
pub fn symbols_of_file(path: &Path) -> Result<Vec<DocumentSymbol>, LedgerError> {
    let refused = |reason: &str| LedgerError::File {
        path: path.display().to_string(),
        reason: reason.to_string(),
    };
    if !path.is_absolute() {
        return Err(refused("the path must be absolute"));
    }
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => Ok(file_outline(path).unwrap_or_default()),
        Ok(_) => Err(refused("it is not a file")),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Err(refused("it does not exist"))
        }
        Err(error) => Err(refused(&error.to_string())),
    }
}

/// The outline of `source` read with `grammar`; `None` if the parse was cancelled at
/// `time_limit`.
pub fn outline(
    grammar: &Grammar,
    source: &[u8],
    time_limit: Duration,
) -> Option<Vec<DocumentSymbol>> {
    let mut parser = Parser::new();
    parser.set_language(&(grammar.language)()).ok()?;
    let deadline = Instant::now() + time_limit;
    let mut past_deadline = |_: &ParseState| Instant::now() >= deadline;
    let options = ParseOptions::new().progress_callback(&mut past_deadline);
    let length = source.len();
    let tree = parser.parse_with_options(
        &mut |offset, _| {
            if offset < length {
                &source[offset..]
            } else {
                &[]
            }
        },
        None,
        Some(options),
    )?;
    Some(collect(grammar, source, tree.root_node()))
}

/// One symbol found by the walk, before nesting: `parent` is the index of the enclosing
/// symbol in the walk's (document) order.
struct Found {
    symbol: DocumentSymbol,
    parent: Option<usize>,
}

/// Walks the tree in document order without recursion, then nests the symbols found.
fn collect(grammar: &Grammar, source: &[u8], root: Node<'_>) -> Vec<DocumentSymbol> {
    let mut found: Vec<Found> = Vec::new();
    // (node, index of the enclosing symbol, symbol depth, inside a function)
    let mut pending = vec![(root, None::<usize>, 0_usize, false)];
    while let Some((node, parent, depth, in_function)) = pending.pop() {
        let mut child_parent = parent;
        let mut child_depth = depth;
        let mut child_in_function = in_function;
        if let Some(kind) = grammar.symbol_kind(node.kind()) {
            if let Some(symbol) =
                symbol_at(grammar, source, node, kind, parent, &found, in_function)
            {
                if depth < MAX_SYMBOL_DEPTH {
                    let is_function =
                        matches!(symbol.kind, SymbolKind::Function | SymbolKind::Method);
                    found.push(Found { symbol, parent });
                    child_parent = Some(found.len() - 1);
                    child_depth = depth + 1;
                    child_in_function = in_function || is_function;
                }
            }
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            pending.push((child, child_parent, child_depth, child_in_function));
        }
    }
    nest(found)
}

/// Nests the flat, document-ordered list: every symbol's descendants come after it, so going
/// backwards each symbol is complete before it is moved into its parent.
fn nest(found: Vec<Found>) -> Vec<DocumentSymbol> {
    let mut slots: Vec<Option<DocumentSymbol>> = Vec::with_capacity(found.len());
    let mut parents = Vec::with_capacity(found.len());
    for item in found {
        slots.push(Some(item.symbol));
        parents.push(item.parent);
    }
    let mut roots = Vec::new();
    for index in (0..slots.len()).rev() {
        let Some(mut symbol) = slots[index].take() else {
            continue;
        };
        symbol.children.reverse();
        match parents[index].and_then(|parent| slots.get_mut(parent)?.as_mut()) {
            Some(parent) => parent.children.push(symbol),
            None => roots.push(symbol),
        }
    }
    roots.reverse();
    roots
}

/// The symbol a node stands for, or `None` when it is not one after all (a struct named but
/// not defined here, a local variable, a piece with a syntax error).
fn symbol_at(
    grammar: &Grammar,
    source: &[u8],
    node: Node<'_>,
    kind: SymbolKind,
    parent: Option<usize>,
    found: &[Found],
    in_function: bool,
) -> Option<DocumentSymbol> {
    if node.has_error() {
        return None;
    }
    if node.kind() == "section" && !starts_with_heading(node) {
        // The lines before a document's first heading: not a section anyone named.
        return None;
    }
    let enclosing = parent
        .and_then(|index| found.get(index))
        .map(|item| item.symbol.kind);
    let kind = match kind {
        // Names inside a function body are its locals, which only tsserver's outline lists.
        SymbolKind::Variable | SymbolKind::Constant
            if in_function && !grammar.lists_function_locals =>
        {
            return None
        }
        SymbolKind::Property if !is_named_property(node) => return None,
        SymbolKind::Variable | SymbolKind::Constant if !is_declaration_statement(node) => {
            return None
        }
        SymbolKind::Struct | SymbolKind::Enum | SymbolKind::Class if is_reference_only(node) => {
            return None
        }
        SymbolKind::Function
            if matches!(
                enclosing,
                Some(
                    SymbolKind::Class
                        | SymbolKind::Struct
                        | SymbolKind::Interface
                        | SymbolKind::Implementation
                        | SymbolKind::Enum
                )
            ) =>
        {
            SymbolKind::Method
        }
        SymbolKind::Variable if is_constant(source, node) => SymbolKind::Constant,
        kind => kind,
    };
    let (line, end_line) = if node.kind() == "assignment" {
        // pyright's range for a module-level name is the name alone.
        let name = node.child_by_field_name("left")?;
        lines_of(name.start_position().row, name)
    } else {
        lines_of(first_row(grammar, outermost_wrapper(grammar, node)), node)
    };
    Some(DocumentSymbol {
        name: symbol_name(source, node),
        kind,
        line,
        end_line,
        children: Vec::new(),
    })
}

/// A decorator, `export` or `template<…>` belongs to the symbol it wraps.
fn outermost_wrapper<'tree>(grammar: &Grammar, node: Node<'tree>) -> Node<'tree> {
    let mut outer = node;
    while let Some(parent) = outer.parent() {
        if !grammar.wrappers.contains(&parent.kind()) {
            break;
        }
        outer = parent;
    }
    outer
}

/// The row a symbol starts on: its own, or that of the attributes and comments right above it
/// that the grammar's language server counts as part of it (rust-analyzer's ranges take in an
/// item's `#[…]` and the comments directly above, up to a blank line).
fn first_row(grammar: &Grammar, node: Node<'_>) -> usize {
    let mut row = node.start_position().row;
    let mut previous = node.prev_sibling();
    while let Some(sibling) = previous {
        if !grammar.leading.contains(&sibling.kind()) || last_row(sibling) + 1 < row {
            break;
        }
        row = sibling.start_position().row;
        previous = sibling.prev_sibling();
    }
    row
}

/// The last row a node has text on: one that ends at the start of a line (a Markdown section,
/// a Rust line comment, each takes its final newline) ends on the line before.
fn last_row(node: Node<'_>) -> usize {
    let end = node.end_position();
    if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    }
}

/// The lines from `start` to `last`'s end, both from 0.
fn lines_of(start: usize, last: Node<'_>) -> (u32, u32) {
    let end_row = last_row(last);
    (
        u32::try_from(start).unwrap_or(u32::MAX),
        u32::try_from(end_row.max(start)).unwrap_or(u32::MAX),
    )
}

/// A variable or constant counts when it is a statement of its own (not the `let` of a `for`,
/// not an assignment inside an expression).
fn is_declaration_statement(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else {
        return true;
    };
    match node.kind() {
        "assignment" => parent.kind() == "expression_statement",
        _ => !parent.kind().contains("for"),
    }
}

/// A class field counts, and an object literal's property only where tsserver's outline
/// shows one: in an object that a variable, a field or another such property holds (not in an
/// object passed to a call).
fn is_named_property(node: Node<'_>) -> bool {
    if node.kind() != "pair" {
        return true;
    }
    let holder = node.parent().and_then(|object| {
        (object.kind() == "object")
            .then(|| object.parent())
            .flatten()
    });
    holder.is_some_and(|holder| {
        matches!(
            holder.kind(),
            "variable_declarator" | "public_field_definition" | "field_definition"
        ) || (holder.kind() == "pair" && is_named_property(holder))
    })
}

/// `struct point p;` names a type defined elsewhere; only a definition with a body is a symbol.
fn is_reference_only(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
    ) && node.child_by_field_name("body").is_none()
}

fn is_constant(source: &[u8], node: Node<'_>) -> bool {
    match node.kind() {
        "lexical_declaration" => text(source, node).starts_with("const"),
        "assignment" => node.child_by_field_name("left").is_some_and(|name| {
            let name = text(source, name);
            name.chars().any(char::is_alphabetic)
                && name
                    .chars()
                    .all(|c| c.is_uppercase() || c.is_ascii_digit() || c == '_')
        }),
        _ => false,
    }
}

fn text<'source>(source: &'source [u8], node: Node<'_>) -> std::borrow::Cow<'source, str> {
    String::from_utf8_lossy(source.get(node.byte_range()).unwrap_or_default())
}

/// The name an outline shows: the node's `name`, or what stands for it in this kind of node.
fn symbol_name(source: &[u8], node: Node<'_>) -> String {
    let name = match node.kind() {
        "impl_item" => {
            let implemented = node
                .child_by_field_name("type")
                .map(|name| text(source, name).to_string())
                .unwrap_or_default();
            match node.child_by_field_name("trait") {
                Some(name) => format!("impl {} for {implemented}", text(source, name)),
                None => format!("impl {implemented}"),
            }
        }
        "section" => heading_text(source, node),
        "assignment" => node
            .child_by_field_name("left")
            .map(|name| text(source, name).to_string())
            .unwrap_or_default(),
        "lexical_declaration" | "variable_declaration" | "const_declaration" => {
            first_named_child_name(source, node)
        }
        "pair" => node
            .child_by_field_name("key")
            .map(|name| text(source, name).trim_matches(['"', '\'']).to_string())
            .unwrap_or_default(),
        "field_definition" => node
            .child_by_field_name("property")
            .map(|name| text(source, name).to_string())
            .unwrap_or_default(),
        "function_definition" if node.child_by_field_name("name").is_none() => {
            declarator_name(source, node)
        }
        _ => node
            .child_by_field_name("name")
            .map(|name| text(source, name).to_string())
            .unwrap_or_default(),
    };
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        "(anonymous)".into()
    } else {
        name
    }
}

/// `const a = 1` and PHP's `const A = 1`: the first declarator's name.
fn first_named_child_name(source: &[u8], node: Node<'_>) -> String {
    let mut cursor = node.walk();
    let declarator = node
        .named_children(&mut cursor)
        .find(|child| child.kind().ends_with("declarator") || child.kind() == "const_element");
    declarator
        .and_then(|declarator| {
            declarator.child_by_field_name("name").or_else(|| {
                let mut cursor = declarator.walk();
                let first = declarator.named_children(&mut cursor).next();
                first
            })
        })
        .map(|name| text(source, name).to_string())
        .unwrap_or_default()
}

/// C and C++ name a function inside its declarator (`int *(*name)(int)`): follow the
/// `declarator` fields down to the identifier.
fn declarator_name(source: &[u8], node: Node<'_>) -> String {
    let mut current = node;
    for _ in 0..MAX_SYMBOL_DEPTH {
        match current.child_by_field_name("declarator") {
            Some(inner) => current = inner,
            None => break,
        }
    }
    text(source, current).to_string()
}

fn starts_with_heading(section: Node<'_>) -> bool {
    section
        .named_child(0)
        .is_some_and(|first| matches!(first.kind(), "atx_heading" | "setext_heading"))
}

/// A Markdown section's heading, without its `#` marks or setext underline.
fn heading_text(source: &[u8], section: Node<'_>) -> String {
    let whole = text(source, section);
    let first = whole.lines().next().unwrap_or_default();
    first
        .trim()
        .trim_start_matches('#')
        .trim()
        .trim_end_matches('#')
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests;
