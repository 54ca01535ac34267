//! A text file draft whose `?start=N&end=N` names one line reads the symbol that begins there
//! (the seed's `prompt.ts` 898–911, with symbols from the built-in grammars instead of a language
//! server): the recorded Read call and the lines read, per language, on a real database.

use crate::support::*;
use dossier_core::wire::draft::Draft;

/// The recorded call and the Read output for one draft of `name` with `?start=line&end=line`.
async fn read_symbol(name: &str, source: &str, line: usize) -> (String, String) {
    let test = open(FAKE_CONFIG).await;
    let path = test.write(name, source);
    let session = test.session().await;
    let url = format!("{}?start={line}&end={line}", file_url(&path));
    let saved = test
        .no_reply(&session, vec![Draft::file(url, "text/plain", Some(name))])
        .await;
    let described = describe(&saved.parts);
    let quoted = serde_json::Value::from(path.display().to_string()).to_string();
    let prefix =
        format!("text*: Called the Read tool with the following input: {{\"filePath\":{quoted},");
    let call = described[0]
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{} is not a Read call on {name}", described[0]))
        .trim_end_matches('}')
        .to_string();
    (call, described[1].clone())
}

/// The numbered lines of a Read output, `N: text` each.
fn numbered_lines(output: &str) -> Vec<String> {
    output
        .lines()
        .filter(|line| {
            line.split_once(": ")
                .is_some_and(|(number, _)| number.parse::<usize>().is_ok())
        })
        .map(str::to_string)
        .collect()
}

const PYTHON: &str = r#"import functools


@functools.cache
def compute(value):
    doubled = value * 2
    return doubled


class Shape:
    def area(self):
        return 0
"#;

#[tokio::test]
async fn a_decorated_python_function_is_read_from_the_line_its_decorator_names() {
    // The decorator is on line 3 counted from 0, as a language server counts; the function ends
    // on line 6. The seed reads offset 3 (1-based, the blank line above the decorator) with
    // limit 6 − 3 + 1 = 4: to the line above the function's last, as OpenCode records it.
    let (call, output) = read_symbol("shapes.py", PYTHON, 3).await;
    assert_eq!(call, "\"offset\":3,\"limit\":4");
    assert_eq!(
        numbered_lines(&output),
        [
            "3: ",
            "4: @functools.cache",
            "5: def compute(value):",
            "6:     doubled = value * 2"
        ]
    );
}

#[tokio::test]
async fn a_nested_method_is_read_when_no_top_level_symbol_starts_on_its_line() {
    let (call, _) = read_symbol("shapes.py", PYTHON, 10).await;
    // `area` spans lines 10–11 from 0; OpenCode widens it too (its language servers send a flat
    // list with methods in it, measured beside it: docs/symbols.md).
    assert_eq!(call, "\"offset\":10,\"limit\":2");
}

#[tokio::test]
async fn a_line_inside_a_symbol_but_not_its_first_reads_that_one_line() {
    let (call, output) = read_symbol("shapes.py", PYTHON, 5).await;
    assert_eq!(call, "\"offset\":5,\"limit\":1");
    assert_eq!(numbered_lines(&output), ["5: def compute(value):"]);
}

#[tokio::test]
async fn a_symbol_on_the_first_line_is_not_widened_as_the_seed_skips_line_zero() {
    let source = "def first():\n    return 1\n\ndef second():\n    return 2\n";
    // And `end=0` sets no limit (the seed's `if (end)`): OpenCode records this, read beside it.
    let (call, _) = read_symbol("first.py", source, 0).await;
    assert_eq!(call, "\"offset\":1");
    // Line 3 from 0 is `second`, which ends on line 4.
    let (call, _) = read_symbol("first.py", source, 3).await;
    assert_eq!(call, "\"offset\":3,\"limit\":2");
}

#[tokio::test]
async fn a_file_in_a_language_without_a_grammar_reads_one_line() {
    let source = "fn looks_like_rust() {\n    1\n}\n\nfn second() {\n    2\n}\n";
    let (call, _) = read_symbol("notes.txt", source, 4).await;
    assert_eq!(call, "\"offset\":4,\"limit\":1");
    let (call, _) = read_symbol("notes.rs", source, 4).await;
    assert_eq!(call, "\"offset\":4,\"limit\":3");
}

#[tokio::test]
async fn a_range_over_several_lines_is_read_as_sent() {
    let test = open(FAKE_CONFIG).await;
    let path = test.write("shapes.py", PYTHON);
    let session = test.session().await;
    let url = format!("{}?start=3&end=4", file_url(&path));
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(url, "text/plain", Some("shapes.py"))],
        )
        .await;
    assert!(describe(&saved.parts)[0].ends_with("\"offset\":3,\"limit\":2}"));
}

#[tokio::test]
async fn a_binary_file_with_a_source_extension_reads_one_line() {
    let (call, _) = read_symbol("blob.rs", "fn a() {\n}\n\nfn b() {\0\n}\n", 3).await;
    assert_eq!(call, "\"offset\":3,\"limit\":1");
}

#[tokio::test]
async fn a_symbol_is_widened_in_every_language_with_a_grammar() {
    // (file, source, line from 0 where a symbol starts, its last line from 0)
    let cases: &[(&str, &str, usize, usize)] = &[
        (
            "lib.rs",
            "use std::fmt;\n\nimpl fmt::Display for Point {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"p\")\n    }\n}\n",
            2,
            6,
        ),
        (
            "app.js",
            "import x from \"x\";\n\nexport function start() {\n  return x;\n}\n",
            2,
            4,
        ),
        (
            "circle.ts",
            "import { Shape } from \"./shape\";\n\n@Component({})\nexport class Circle {\n  area(): number {\n    return 1;\n  }\n}\n",
            2,
            7,
        ),
        (
            "App.tsx",
            "import React from \"react\";\n\nexport const App = () => (\n  <div>hi</div>\n);\n",
            2,
            4,
        ),
        (
            "main.go",
            "package main\n\ntype Server struct {\n\tname string\n}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n",
            6,
            8,
        ),
        (
            "Greeter.java",
            "package app;\n\npublic class Greeter {\n    @Override\n    public String toString() {\n        return \"g\";\n    }\n}\n",
            3,
            6,
        ),
        (
            "find.c",
            "#include <stdio.h>\n\nstatic int find(int *values, int n) {\n    return n;\n}\n",
            2,
            4,
        ),
        (
            "twice.cpp",
            "#include <vector>\n\ntemplate <typename T>\nT twice(T value) {\n    return value * 2;\n}\n",
            2,
            5,
        ),
        (
            "Greeter.cs",
            "using System;\n\npublic class Greeter\n{\n    public void Greet()\n    {\n    }\n}\n",
            2,
            7,
        ),
        (
            "cart.rb",
            "require \"json\"\n\nclass Cart\n  def total\n    0\n  end\nend\n",
            2,
            6,
        ),
        (
            "greet.php",
            "<?php\n\nfunction greet(string $name): string {\n    return $name;\n}\n",
            2,
            4,
        ),
        (
            "guide.md",
            "# Guide\n\nWelcome.\n\n## Install\n\nRun it.\n\n## Use\n\nType.\n",
            4,
            7,
        ),
    ];
    for (name, source, line, last) in cases {
        let (call, output) = read_symbol(name, source, *line).await;
        let limit = last - line + 1;
        assert_eq!(
            call,
            format!("\"offset\":{line},\"limit\":{limit}"),
            "{name}"
        );
        assert_eq!(numbered_lines(&output).len(), limit, "{name}: {output}");
    }
}

#[tokio::test]
async fn an_end_without_a_start_is_no_range_as_in_the_seed() {
    // The seed reads a range only when `start` is given; `end` alone changes nothing.
    let test = open(FAKE_CONFIG).await;
    let path = test.write("shapes.py", PYTHON);
    let session = test.session().await;
    let url = format!("{}?end=4", file_url(&path));
    let saved = test
        .no_reply(
            &session,
            vec![Draft::file(url, "text/plain", Some("shapes.py"))],
        )
        .await;
    let quoted = serde_json::Value::from(path.display().to_string()).to_string();
    assert_eq!(
        describe(&saved.parts)[0],
        format!("text*: Called the Read tool with the following input: {{\"filePath\":{quoted}}}")
    );
}
