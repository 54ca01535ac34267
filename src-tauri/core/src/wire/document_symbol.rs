//! A file's outline as an editor shows it: named symbols (functions, classes, Markdown sections,
//! …) with the lines they span, nested as they are in the file. Lines count from 0 as a language
//! server's do, so a symbol's `line` is what goes into a draft's `?start=&end=` to read it
//! (docs/core-behaviours.md, "Symbols").

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What kind of thing a symbol is; the window shows it beside the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    Module,
    Class,
    Struct,
    Enum,
    Interface,
    /// A Rust `impl` block.
    Implementation,
    Function,
    /// A function inside a class, struct, interface or `impl` block.
    Method,
    Constant,
    Variable,
    /// A class field, or a property of an object literal that a variable holds.
    Property,
    Type,
    /// A Markdown heading and everything under it up to the next heading of its level or above.
    Section,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct DocumentSymbol {
    pub name: String,
    pub kind: SymbolKind,
    /// The first line, counted from 0.
    pub line: u32,
    /// The last line, counted from 0 (a symbol on one line has `end_line == line`).
    #[serde(rename = "endLine")]
    pub end_line: u32,
    pub children: Vec<DocumentSymbol>,
}
