use super::*;
use crate::wire::document_symbol::SymbolKind::*;

/// The outline flattened: (depth, kind, name, first line, last line), lines from 0.
fn outline_of(extension: &str, source: &str) -> Vec<(usize, SymbolKind, String, u32, u32)> {
    let grammar = grammars::for_extension(extension).expect("a grammar");
    let symbols = outline(grammar, source.as_bytes(), PARSE_TIME_LIMIT).expect("parsed in time");
    let mut flat = Vec::new();
    let mut pending: Vec<(usize, &DocumentSymbol)> = symbols.iter().rev().map(|s| (0, s)).collect();
    while let Some((depth, symbol)) = pending.pop() {
        flat.push((
            depth,
            symbol.kind,
            symbol.name.clone(),
            symbol.line,
            symbol.end_line,
        ));
        pending.extend(symbol.children.iter().rev().map(|child| (depth + 1, child)));
    }
    flat
}

fn row(
    depth: usize,
    kind: SymbolKind,
    name: &str,
    line: u32,
    end: u32,
) -> (usize, SymbolKind, String, u32, u32) {
    (depth, kind, name.to_string(), line, end)
}

#[test]
fn every_grammar_loads_into_the_runtime() {
    for grammar in grammars::all() {
        let mut parser = Parser::new();
        assert!(
            parser.set_language(&(grammar.language)()).is_ok(),
            "{} speaks an ABI the runtime does not",
            grammar.name
        );
    }
}

#[test]
fn rust_outline_has_items_impl_blocks_and_methods() {
    let source = r#"use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point {
    x: i32,
}

const ORIGIN: Point = Point { x: 0 };

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let inner = 1;
        write!(f, "{}", self.x + inner)
    }
}

mod nested {
    pub fn helper() {}
}
"#;
    assert_eq!(
        outline_of("rs", source),
        vec![
            // The doc comment and the attribute belong to the struct, as in rust-analyzer.
            row(0, Struct, "Point", 2, 6),
            row(0, Constant, "ORIGIN", 8, 8),
            row(0, Implementation, "impl fmt::Display for Point", 10, 15),
            row(1, Method, "fmt", 11, 14),
            row(0, Module, "nested", 17, 19),
            row(1, Function, "helper", 18, 18),
        ]
    );
}

#[test]
fn python_decorated_function_starts_at_its_decorator() {
    let source = r#"import functools

MAX_SIZE = 10
counter = 0


@functools.cache
def compute(value):
    local = value * 2
    return local


class Shape:
    sides = 0

    @property
    def area(self):
        return 0
"#;
    assert_eq!(
        outline_of("py", source),
        vec![
            row(0, Constant, "MAX_SIZE", 2, 2),
            row(0, Variable, "counter", 3, 3),
            row(0, Function, "compute", 6, 9),
            row(0, Class, "Shape", 12, 17),
            row(1, Variable, "sides", 13, 13),
            row(1, Method, "area", 15, 17),
        ]
    );
}

#[test]
fn typescript_exported_and_decorated_declarations() {
    let source = r#"import { x } from "./x";

export interface Shape {
  area(): number;
}

@Component({ selector: "app" })
export class Circle implements Shape {
  constructor(private radius: number) {}

  area(): number {
    return Math.PI * this.radius ** 2;
  }
}

export const unit = new Circle(1);

function helper() {
  const local = 1;
  return local;
}

enum Colour {
  Red,
}
"#;
    assert_eq!(
        outline_of("ts", source),
        vec![
            row(0, Interface, "Shape", 2, 4),
            row(0, Class, "Circle", 6, 13),
            row(1, Method, "constructor", 8, 8),
            row(1, Method, "area", 10, 12),
            row(0, Constant, "unit", 15, 15),
            row(0, Function, "helper", 17, 20),
            row(1, Constant, "local", 18, 18),
            row(0, Enum, "Colour", 22, 24),
        ]
    );
}

/// tsserver lists a function's locals, class fields and the properties of an object a variable
/// holds, each with its whole declaration (OpenCode widens to them); an object passed to a call
/// is not an outline's, and Python keeps its locals out (pyright does not widen them).
#[test]
fn typescript_locals_fields_and_object_properties_span_their_declaration() {
    let source = r#"export class Store {
  private cache = new Map<string, number>([
    ["a", 1],
  ]);
}

export function locals(): number {
  const list = [
    1,
  ];
  register({ quiet: true });
  return list[0];
}

export const settings = {
  nested: {
    depth: 2,
  },
};
"#;
    assert_eq!(
        outline_of("ts", source),
        vec![
            row(0, Class, "Store", 0, 4),
            row(1, Property, "cache", 1, 3),
            row(0, Function, "locals", 6, 12),
            row(1, Constant, "list", 7, 9),
            row(0, Constant, "settings", 14, 18),
            row(1, Property, "nested", 15, 17),
            row(2, Property, "depth", 16, 16),
        ]
    );
    let javascript = "class Counter {
  count = {
    value: 0,
  };
}
";
    assert_eq!(
        outline_of("js", javascript),
        vec![
            row(0, Class, "Counter", 0, 4),
            row(1, Property, "count", 1, 3),
            row(2, Property, "value", 2, 2),
        ]
    );
    let python =
        "def outer():\n    settings = {\n        \"depth\": 2,\n    }\n    return settings\n";
    assert_eq!(
        outline_of("py", python),
        vec![row(0, Function, "outer", 0, 4)]
    );
}

#[test]
fn tsx_and_javascript_components() {
    let tsx =
        "import React from \"react\";\n\nexport function App() {\n  return <div>hi</div>;\n}\n";
    assert_eq!(outline_of("tsx", tsx), vec![row(0, Function, "App", 2, 4)]);
    let javascript = "let count = 0;\n\nclass Counter {\n  increment() {\n    count += 1;\n  }\n}\n\nfor (let i = 0; i < 3; i++) {}\n";
    assert_eq!(
        outline_of("js", javascript),
        vec![
            row(0, Variable, "count", 0, 0),
            row(0, Class, "Counter", 2, 6),
            row(1, Method, "increment", 3, 5),
        ]
    );
}

#[test]
fn go_functions_methods_types_and_constants() {
    let source = r#"package main

const Limit = 3

type Server struct {
	name string
}

func (s *Server) Start() error {
	return nil
}

func main() {
	const local = 1
}
"#;
    assert_eq!(
        outline_of("go", source),
        vec![
            row(0, Constant, "Limit", 2, 2),
            row(0, Type, "Server", 4, 6),
            row(0, Function, "Start", 8, 10),
            row(0, Function, "main", 12, 14),
        ]
    );
}

#[test]
fn java_class_with_annotated_method() {
    let source = r#"package app;

public class Greeter {
    private final String name;

    public Greeter(String name) {
        this.name = name;
    }

    @Override
    public String toString() {
        return name;
    }
}
"#;
    assert_eq!(
        outline_of("java", source),
        vec![
            row(0, Class, "Greeter", 2, 13),
            row(1, Method, "Greeter", 5, 7),
            row(1, Method, "toString", 9, 12),
        ]
    );
}

#[test]
fn c_functions_and_defined_structs_only() {
    let source = r#"#include <stdio.h>

struct point {
    int x;
};

static int *find(struct point *p, int n) {
    struct point copy = *p;
    return 0;
}
"#;
    assert_eq!(
        outline_of("c", source),
        vec![
            row(0, Struct, "point", 2, 4),
            row(0, Function, "find", 6, 9)
        ]
    );
}

#[test]
fn cpp_namespace_class_and_template() {
    let source = r#"namespace geometry {

class Shape {
public:
    virtual double area() const { return 0; }
};

template <typename T>
T twice(T value) {
    return value * 2;
}

}
"#;
    assert_eq!(
        outline_of("cpp", source),
        vec![
            row(0, Module, "geometry", 0, 12),
            row(1, Class, "Shape", 2, 5),
            row(2, Method, "area", 4, 4),
            row(1, Function, "twice", 7, 10),
        ]
    );
}

#[test]
fn c_sharp_namespace_class_and_methods() {
    let source = r#"using System;

namespace App
{
    public class Greeter
    {
        [Obsolete]
        public void Greet()
        {
            Console.WriteLine("hi");
        }
    }
}
"#;
    assert_eq!(
        outline_of("cs", source),
        vec![
            row(0, Module, "App", 2, 12),
            row(1, Class, "Greeter", 4, 11),
            row(2, Method, "Greet", 6, 10),
        ]
    );
}

#[test]
fn ruby_modules_classes_and_methods() {
    let source = r#"module Shop
  class Cart
    def self.empty
      new
    end

    def total
      0
    end
  end
end
"#;
    assert_eq!(
        outline_of("rb", source),
        vec![
            row(0, Module, "Shop", 0, 10),
            row(1, Class, "Cart", 1, 9),
            row(2, Method, "empty", 2, 4),
            row(2, Method, "total", 6, 8),
        ]
    );
}

#[test]
fn php_namespace_class_and_function() {
    let source = r#"<?php

namespace App;

const VERSION = "1";

function greet(string $name): string {
    return "hi $name";
}

class Greeter {
    public function greet(): void {}
}
"#;
    assert_eq!(
        outline_of("php", source),
        vec![
            row(0, Module, "App", 2, 2),
            row(0, Constant, "VERSION", 4, 4),
            row(0, Function, "greet", 6, 8),
            row(0, Class, "Greeter", 10, 12),
            row(1, Method, "greet", 11, 11),
        ]
    );
}

#[test]
fn markdown_heading_sections_nest_by_level() {
    let source = "Intro text before any heading.\n\n# Guide\n\nWelcome.\n\n## Install\n\nRun it.\n\n## Use\n\nType.\n\n# Reference\n\nEnd.\n";
    assert_eq!(
        outline_of("md", source),
        vec![
            row(0, Section, "Guide", 2, 13),
            row(1, Section, "Install", 6, 9),
            row(1, Section, "Use", 10, 13),
            row(0, Section, "Reference", 14, 16),
        ]
    );
}

#[test]
fn a_symbol_with_a_syntax_error_inside_is_left_out() {
    let source = "fn broken( {\n}\n\nfn fine() {}\n";
    let outline = outline_of("rs", source);
    assert!(
        outline.iter().any(|(_, _, name, ..)| name == "fine"),
        "{outline:?}"
    );
    assert!(
        !outline.iter().any(|(_, _, name, ..)| name == "broken"),
        "{outline:?}"
    );
}

#[test]
fn a_parse_past_its_time_limit_gives_no_outline() {
    let grammar = grammars::for_extension("rs").expect("rust");
    let source = "fn f() { let a = [".to_string() + &"1, ".repeat(40_000) + "]; }\n";
    assert_eq!(outline(grammar, source.as_bytes(), Duration::ZERO), None);
    assert!(outline(grammar, source.as_bytes(), PARSE_TIME_LIMIT).is_some());
}

#[test]
fn deep_nesting_neither_overflows_nor_lists_past_the_depth_cap() {
    let depth = 5_000;
    let source = "mod m {\n".repeat(depth) + &"}\n".repeat(depth);
    let grammar = grammars::for_extension("rs").expect("rust");
    let symbols = outline(grammar, source.as_bytes(), PARSE_TIME_LIMIT).expect("parsed");
    let mut deepest = 0;
    let mut level: Vec<&DocumentSymbol> = symbols.iter().collect();
    while !level.is_empty() {
        deepest += 1;
        level = level
            .iter()
            .flat_map(|symbol| symbol.children.iter())
            .collect();
    }
    assert_eq!(deepest, MAX_SYMBOL_DEPTH);
}

#[test]
fn files_without_a_grammar_binary_or_too_large_have_no_outline() {
    let folder = tempfile::tempdir().expect("temp dir");
    let unknown = folder.path().join("notes.xyz");
    std::fs::write(&unknown, "fn main() {}\n").expect("write");
    assert_eq!(file_outline(&unknown), None);
    let binary = folder.path().join("lib.rs");
    std::fs::write(&binary, b"fn main() {}\0\x01\x02").expect("write");
    assert_eq!(file_outline(&binary), None);
    let large = folder.path().join("large.rs");
    let file = std::fs::File::create(&large).expect("create");
    file.set_len(MAX_ATTACHMENT_BYTES + 1).expect("grow");
    assert_eq!(file_outline(&large), None);
    let real = folder.path().join("main.rs");
    std::fs::write(&real, "\nfn main() {}\n").expect("write");
    assert_eq!(file_outline(&real).map(|symbols| symbols.len()), Some(1));
}

#[test]
fn the_pickers_list_refuses_what_is_not_an_existing_file_and_is_empty_without_a_grammar() {
    let folder = tempfile::tempdir().expect("temp dir");
    let refused = |path: &Path| match symbols_of_file(path) {
        Err(LedgerError::File { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        refused(Path::new("relative.rs")),
        "the path must be absolute"
    );
    assert_eq!(refused(&folder.path().join("gone.rs")), "it does not exist");
    assert_eq!(refused(folder.path()), "it is not a file");
    let notes = folder.path().join("notes.txt");
    std::fs::write(&notes, "# not markdown\n").expect("write");
    assert_eq!(symbols_of_file(&notes).expect("a file"), Vec::new());
    let guide = folder.path().join("guide.md");
    std::fs::write(&guide, "# Guide\n\nText.\n").expect("write");
    let names: Vec<String> = symbols_of_file(&guide)
        .expect("a file")
        .into_iter()
        .map(|symbol| symbol.name)
        .collect();
    assert_eq!(names, ["Guide"]);
}
