//! Which grammar reads a file (by its extension, as an editor picks a language server) and, per
//! grammar, which syntax nodes are outline symbols and which nodes wrap one (a decorator, an
//! `export`, a `template<…>`) so that the symbol's lines start where the wrapper does, as the
//! language servers' ranges do (pyright and tsserver both start a decorated definition at its
//! first decorator).

use crate::wire::document_symbol::SymbolKind;
use tree_sitter::Language;

pub struct Grammar {
    pub name: &'static str,
    pub language: fn() -> Language,
    pub symbols: &'static [(&'static str, SymbolKind)],
    pub wrappers: &'static [&'static str],
    /// Siblings right above a symbol (no blank line between) that belong to it.
    pub leading: &'static [&'static str],
    /// Whether names declared inside a function body are symbols too. tsserver's navigation
    /// tree lists a function's `const`/`let` with their whole declaration, and OpenCode widens
    /// to them (measured by `scripts/differential-symbols.sh`); pyright and the others do not.
    pub lists_function_locals: bool,
}

impl Grammar {
    pub fn symbol_kind(&self, node_kind: &str) -> Option<SymbolKind> {
        self.symbols
            .iter()
            .find(|(kind, _)| *kind == node_kind)
            .map(|(_, symbol)| *symbol)
    }
}

use SymbolKind::{
    Class, Constant, Enum, Function, Implementation, Interface, Module, Property, Section, Struct,
    Type, Variable,
};

const RUST: Grammar = Grammar {
    name: "rust",
    language: || tree_sitter_rust::LANGUAGE.into(),
    symbols: &[
        ("function_item", Function),
        ("function_signature_item", Function),
        ("struct_item", Struct),
        ("union_item", Struct),
        ("enum_item", Enum),
        ("trait_item", Interface),
        ("impl_item", Implementation),
        ("mod_item", Module),
        ("const_item", Constant),
        ("static_item", Constant),
        ("type_item", Type),
        ("macro_definition", Function),
    ],
    wrappers: &[],
    leading: &["attribute_item", "line_comment", "block_comment"],
    lists_function_locals: false,
};

const PYTHON: Grammar = Grammar {
    name: "python",
    language: || tree_sitter_python::LANGUAGE.into(),
    symbols: &[
        ("function_definition", Function),
        ("class_definition", Class),
        // Module-level names; their lines are the name's alone, as pyright reports them.
        ("assignment", Variable),
    ],
    wrappers: &["decorated_definition"],
    leading: &[],
    lists_function_locals: false,
};

const JAVASCRIPT_SYMBOLS: &[(&str, SymbolKind)] = &[
    ("function_declaration", Function),
    ("generator_function_declaration", Function),
    ("class_declaration", Class),
    ("abstract_class_declaration", Class),
    ("method_definition", Function),
    ("abstract_method_signature", Function),
    ("lexical_declaration", Variable),
    ("variable_declaration", Variable),
    ("interface_declaration", Interface),
    ("enum_declaration", Enum),
    ("type_alias_declaration", Type),
    ("internal_module", Module),
    ("module", Module),
    // A class field (TypeScript's and JavaScript's node names) and an object literal's
    // property: tsserver lists both, a multi-line one with its whole declaration.
    ("public_field_definition", Property),
    ("field_definition", Property),
    ("pair", Property),
];

const JAVASCRIPT_WRAPPERS: &[&str] = &["export_statement", "ambient_declaration"];

const JAVASCRIPT: Grammar = Grammar {
    name: "javascript",
    language: || tree_sitter_javascript::LANGUAGE.into(),
    symbols: JAVASCRIPT_SYMBOLS,
    wrappers: JAVASCRIPT_WRAPPERS,
    leading: &[],
    lists_function_locals: true,
};

const TYPESCRIPT: Grammar = Grammar {
    name: "typescript",
    language: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    symbols: JAVASCRIPT_SYMBOLS,
    wrappers: JAVASCRIPT_WRAPPERS,
    leading: &[],
    lists_function_locals: true,
};

const TSX: Grammar = Grammar {
    name: "tsx",
    language: || tree_sitter_typescript::LANGUAGE_TSX.into(),
    symbols: JAVASCRIPT_SYMBOLS,
    wrappers: JAVASCRIPT_WRAPPERS,
    leading: &[],
    lists_function_locals: true,
};

const GO: Grammar = Grammar {
    name: "go",
    language: || tree_sitter_go::LANGUAGE.into(),
    symbols: &[
        ("function_declaration", Function),
        ("method_declaration", Function),
        ("type_spec", Type),
        ("type_alias", Type),
        ("const_spec", Constant),
        ("var_spec", Variable),
    ],
    wrappers: &[],
    leading: &[],
    lists_function_locals: false,
};

const JAVA: Grammar = Grammar {
    name: "java",
    language: || tree_sitter_java::LANGUAGE.into(),
    symbols: &[
        ("class_declaration", Class),
        ("record_declaration", Class),
        ("interface_declaration", Interface),
        ("annotation_type_declaration", Interface),
        ("enum_declaration", Enum),
        ("method_declaration", Function),
        ("constructor_declaration", Function),
    ],
    wrappers: &[],
    leading: &[],
    lists_function_locals: false,
};

const C_SYMBOLS: &[(&str, SymbolKind)] = &[
    ("function_definition", Function),
    ("struct_specifier", Struct),
    ("union_specifier", Struct),
    ("enum_specifier", Enum),
    ("class_specifier", Class),
    ("namespace_definition", Module),
];

const C: Grammar = Grammar {
    name: "c",
    language: || tree_sitter_c::LANGUAGE.into(),
    symbols: C_SYMBOLS,
    wrappers: &[],
    leading: &[],
    lists_function_locals: false,
};

const CPP: Grammar = Grammar {
    name: "cpp",
    language: || tree_sitter_cpp::LANGUAGE.into(),
    symbols: C_SYMBOLS,
    wrappers: &["template_declaration"],
    leading: &[],
    lists_function_locals: false,
};

const C_SHARP: Grammar = Grammar {
    name: "csharp",
    language: || tree_sitter_c_sharp::LANGUAGE.into(),
    symbols: &[
        ("namespace_declaration", Module),
        ("file_scoped_namespace_declaration", Module),
        ("class_declaration", Class),
        ("record_declaration", Class),
        ("struct_declaration", Struct),
        ("interface_declaration", Interface),
        ("enum_declaration", Enum),
        ("method_declaration", Function),
        ("constructor_declaration", Function),
        ("local_function_statement", Function),
    ],
    wrappers: &[],
    leading: &[],
    lists_function_locals: false,
};

const RUBY: Grammar = Grammar {
    name: "ruby",
    language: || tree_sitter_ruby::LANGUAGE.into(),
    symbols: &[
        ("method", Function),
        ("singleton_method", Function),
        ("class", Class),
        ("module", Module),
    ],
    wrappers: &[],
    leading: &[],
    lists_function_locals: false,
};

const PHP: Grammar = Grammar {
    name: "php",
    language: || tree_sitter_php::LANGUAGE_PHP.into(),
    symbols: &[
        ("function_definition", Function),
        ("method_declaration", Function),
        ("class_declaration", Class),
        ("interface_declaration", Interface),
        ("trait_declaration", Interface),
        ("enum_declaration", Enum),
        ("namespace_definition", Module),
        ("const_declaration", Constant),
    ],
    wrappers: &[],
    leading: &[],
    lists_function_locals: false,
};

const MARKDOWN: Grammar = Grammar {
    name: "markdown",
    language: || tree_sitter_md::LANGUAGE.into(),
    symbols: &[("section", Section)],
    wrappers: &[],
    leading: &[],
    lists_function_locals: false,
};

/// The grammar for a file name's extension (case-insensitive), if Dossier has one.
pub fn for_extension(extension: &str) -> Option<&'static Grammar> {
    let grammar = match extension.to_ascii_lowercase().as_str() {
        "rs" => &RUST,
        "py" | "pyi" | "pyw" => &PYTHON,
        "js" | "mjs" | "cjs" | "jsx" => &JAVASCRIPT,
        "ts" | "mts" | "cts" => &TYPESCRIPT,
        "tsx" => &TSX,
        "go" => &GO,
        "java" => &JAVA,
        "c" | "h" => &C,
        "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tpp" => &CPP,
        "cs" => &C_SHARP,
        "rb" | "rake" | "gemspec" => &RUBY,
        "php" | "phtml" | "php8" => &PHP,
        "md" | "markdown" | "mdown" | "mkd" => &MARKDOWN,
        _ => return None,
    };
    Some(grammar)
}

/// Every grammar, for tests that load each one.
pub fn all() -> [&'static Grammar; 13] {
    [
        &RUST,
        &PYTHON,
        &JAVASCRIPT,
        &TYPESCRIPT,
        &TSX,
        &GO,
        &JAVA,
        &C,
        &CPP,
        &C_SHARP,
        &RUBY,
        &PHP,
        &MARKDOWN,
    ]
}
