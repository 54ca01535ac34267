//! The symbol finder (`pipeline::symbols`) over any bytes in any of the built-in grammars: the
//! first byte picks the grammar, the second a line to widen as a one-line draft would. The
//! parse must finish or be cancelled in time, never panic; every symbol's lines are in order
//! and inside the file and inside its parent's; the seed's rule only ever widens a draft to a
//! symbol that starts on its line.

#![no_main]

use dossier_core::pipeline::symbol_range::symbol_end;
use dossier_core::pipeline::symbols::{grammars, outline};
use dossier_core::wire::document_symbol::DocumentSymbol;
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, Instant};

/// Short enough for thousands of runs a minute, long enough to finish the seed files.
const TIME_LIMIT: Duration = Duration::from_millis(200);

fn check(symbols: &[DocumentSymbol], lines: u32, parent: Option<(u32, u32)>) {
    for symbol in symbols {
        assert!(symbol.line <= symbol.end_line, "{symbol:?}");
        assert!(symbol.end_line <= lines, "{symbol:?} past line {lines}");
        assert!(!symbol.name.is_empty());
        if let Some((first, last)) = parent {
            assert!(
                first <= symbol.line && symbol.end_line <= last,
                "{symbol:?} outside {first}..={last}"
            );
        }
        check(
            &symbol.children,
            lines,
            Some((symbol.line, symbol.end_line)),
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let Some((&line, source)) = rest.split_first() else {
        return;
    };
    let all = grammars::all();
    let grammar = all[usize::from(choice) % all.len()];
    let started = Instant::now();
    let Some(symbols) = outline(grammar, source, TIME_LIMIT) else {
        return;
    };
    // Cancelled parses return `None`; a finished one plus the walk stays well within a second.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let lines = source.iter().filter(|byte| **byte == b'\n').count();
    check(&symbols, u32::try_from(lines).unwrap_or(u32::MAX), None);
    let line = usize::from(line);
    if let Some(end) = symbol_end(&symbols, line) {
        assert!(line > 0 && end >= line, "widened {line} to {end}");
    }
});
