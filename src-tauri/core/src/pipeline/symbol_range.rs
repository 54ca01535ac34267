//! The seed's symbol range (`prompt.ts` 898–910): a text file draft whose `?start=N&end=N` names
//! one line reads the whole symbol that begins on that line. The seed asks the language server
//! for the file's document symbols and compares their start lines — counted from 0 — with `N`
//! as sent, skipping a symbol on line 0 (`r.start.line && …`); on a match `end` becomes the
//! symbol's last line, again counted from 0, and the window is then cut as for any range
//! (`offset = max(start, 1)`, `limit = end − offset + 1`). So `start=N` reads from line `N` of
//! the Read tool's 1-based numbering (the line above the symbol) to the line above its last:
//! what OpenCode records, kept as it is so the stored parts are the same.
//!
//! Dossier knows the symbols itself (`symbols.rs`). The seed walks the list the server returns;
//! Dossier looks at the top-level symbols first and, where none of them starts on the line, at
//! nested ones (a method in a class) — which OpenCode widens too, since its language servers send
//! a flat list with the methods in it (measured beside OpenCode: `docs/symbols.md`).

use crate::pipeline::symbols;
use crate::wire::document_symbol::DocumentSymbol;
use std::path::Path;

/// The last line (from 0) of the symbol the seed's rule finds starting on `line`: the first
/// top-level symbol, in document order, that starts there and not on line 0; failing that, the
/// first nested one.
pub fn symbol_end(symbols: &[DocumentSymbol], line: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let starts_here = |symbol: &DocumentSymbol| usize::try_from(symbol.line).ok() == Some(line);
    if let Some(symbol) = symbols.iter().find(|symbol| starts_here(symbol)) {
        return usize::try_from(symbol.end_line).ok();
    }
    // Depth-first in document order, without recursion (the outline's depth is bounded, but
    // an explicit stack costs nothing).
    let mut pending: Vec<&DocumentSymbol> = symbols.iter().rev().collect();
    while let Some(symbol) = pending.pop() {
        if starts_here(symbol) {
            return usize::try_from(symbol.end_line).ok();
        }
        pending.extend(symbol.children.iter().rev());
    }
    None
}

/// The draft's line range after the seed's widening: `(start, end)` unchanged unless both are
/// the same line and a symbol of the file starts on it. Reads and parses the file only then.
pub fn widen_to_symbol(
    path: &Path,
    start: Option<usize>,
    end: Option<usize>,
) -> (Option<usize>, Option<usize>) {
    match (start, end) {
        (Some(line), Some(last)) if line == last && line > 0 => {
            let widened = symbols::file_outline(path)
                .and_then(|outline| symbol_end(&outline, line))
                .unwrap_or(last);
            (start, Some(widened))
        }
        _ => (start, end),
    }
}
