//! The rooms stay rooms: reads every `.rs` under `src/`, maps each file to its floor (the folder
//! it sits in; files at the top of `src/` are the crate root), collects the floors it names
//! through `crate::…` paths (in `use` lines, grouped `use crate::{a, b::c}` and inline paths) and
//! fails on an import from a higher floor or a cycle between floors, printing the file and the
//! pair. It also keeps `sqlx` inside `store/`. `docs/architecture.md` explains the floors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The floors, lowest first. A file may use its own floor and the floors before it.
const FLOORS: &[&str] = &[
    "wire",
    "store",
    "models",
    "mcp",
    "pipeline",
    "reshaping",
    "reply",
];

/// Everything at the top of `src/` (lib.rs, the `Ledger` facade, the start-up builder, the
/// operation table), and the facade's per-floor handles in `ledger/`.
const CRATE_ROOT: &str = "crate root";

/// The folder of the `Ledger` facade's handles: part of the crate root, above every floor.
const FACADE_FOLDER: &str = "ledger";

/// One source file: its path relative to `src/` (with `/` separators) and its text.
struct SourceFile {
    path: String,
    text: String,
}

/// An import that breaks the rules, said in words a reader can act on.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Violation {
    Upward {
        file: String,
        from: String,
        to: String,
    },
    Cycle {
        floors: Vec<String>,
    },
    UnknownFolder {
        file: String,
        folder: String,
    },
    SqlOutsideStore {
        file: String,
    },
}

impl std::fmt::Display for Violation {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Upward { file, from, to } => write!(
                formatter,
                "{file}: `{from}` imports from `{to}`, a floor above it"
            ),
            Self::Cycle { floors } => {
                write!(formatter, "cycle between floors: {}", floors.join(" -> "))
            }
            Self::UnknownFolder { file, folder } => write!(
                formatter,
                "{file}: folder `{folder}` is not one of the floors {FLOORS:?}; add it to the \
                 list in tests/architecture.rs and to docs/architecture.md"
            ),
            Self::SqlOutsideStore { file } => {
                write!(formatter, "{file}: names `sqlx` outside `store/`")
            }
        }
    }
}

/// The floor a file belongs to: the first folder of its path, or the crate root for files at
/// the top of `src/` (a floor's own `wire.rs` belongs to `wire`).
fn floor_of(path: &str) -> String {
    match path.split_once('/') {
        Some((FACADE_FOLDER, _)) => CRATE_ROOT.to_string(),
        Some((folder, _)) => folder.to_string(),
        None => {
            let stem = path.trim_end_matches(".rs");
            if FLOORS.contains(&stem) {
                stem.to_string()
            } else {
                CRATE_ROOT.to_string()
            }
        }
    }
}

fn rank(floor: &str) -> usize {
    FLOORS
        .iter()
        .position(|known| *known == floor)
        .unwrap_or(FLOORS.len())
}

/// Whether a file is only tests (`tests.rs` or a file under a `tests/` folder): tests are
/// consumers of a floor and may open the whole ledger, so they are not held to the floors.
fn is_test_file(path: &str) -> bool {
    path.split('/')
        .any(|component| component == "tests.rs" || component == "tests")
}

/// The production code of a file: without its comments, so a doc comment that mentions a path is
/// no import, and without a trailing `#[cfg(test)] mod tests { … }`, for the reason above.
fn production_code(text: &str) -> String {
    let code = match text.find("#[cfg(test)]\nmod tests {") {
        Some(start) => &text[..start],
        None => text,
    };
    code.lines()
        .map(|line| match line.find("//") {
            Some(start) => &line[..start],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first names after every `crate::`: `crate::a::b` gives `a`, `crate::{a, b::c}` gives `a`
/// and `b`, nested groups included.
fn crate_names(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = code;
    while let Some(start) = rest.find("crate::") {
        let preceded_by_word = rest[..start]
            .chars()
            .next_back()
            .is_some_and(|character| character.is_alphanumeric() || character == '_');
        rest = &rest[start + "crate::".len()..];
        if preceded_by_word {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut end = group.len();
            for (index, character) in group.char_indices() {
                match character {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = index;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            names.extend(group_heads(&group[..end]));
        } else {
            let name: String = rest
                .chars()
                .take_while(|character| character.is_alphanumeric() || *character == '_')
                .collect();
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    names
}

/// The first name of each top-level item of a `{…}` group.
fn group_heads(group: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for character in group.chars() {
        match character {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(character);
    }
    items.push(current);
    items
        .iter()
        .filter_map(|item| {
            let name: String = item
                .trim()
                .chars()
                .take_while(|character| character.is_alphanumeric() || *character == '_')
                .collect();
            (!name.is_empty() && name != "self").then_some(name)
        })
        .collect()
}

/// The floor a `crate::<name>` path lands on: a floor's name, or else something at the root.
fn floor_named(name: &str) -> String {
    if FLOORS.contains(&name) {
        name.to_string()
    } else {
        CRATE_ROOT.to_string()
    }
}

fn check(files: &[SourceFile]) -> Vec<Violation> {
    let mut violations = BTreeSet::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let from = floor_of(&file.path);
        if from != CRATE_ROOT && !FLOORS.contains(&from.as_str()) {
            violations.insert(Violation::UnknownFolder {
                file: file.path.clone(),
                folder: from.clone(),
            });
            continue;
        }
        if from != "store" && file.text.contains("sqlx") {
            // Tests too: a second engine must be able to run them.
            violations.insert(Violation::SqlOutsideStore {
                file: file.path.clone(),
            });
        }
        if is_test_file(&file.path) {
            continue;
        }
        for name in crate_names(&production_code(&file.text)) {
            let to = floor_named(&name);
            if to == from {
                continue;
            }
            if rank(&to) > rank(&from) {
                violations.insert(Violation::Upward {
                    file: file.path.clone(),
                    from: from.clone(),
                    to: to.clone(),
                });
            }
            edges.entry(from.clone()).or_default().insert(to);
        }
    }
    violations.extend(cycles(&edges));
    violations.into_iter().collect()
}

/// One cycle for each group of floors that reach each other (a strongly connected component),
/// walked from the group's first floor by name, so a tangle is said once rather than in every
/// rotation.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Violation> {
    let mut floors: BTreeSet<&String> = edges.keys().collect();
    floors.extend(edges.values().flatten());
    let mut placed = BTreeSet::new();
    let mut found = Vec::new();
    for start in &floors {
        if placed.contains(*start) {
            continue;
        }
        let reached_from_start = reachable(edges, start);
        let group: BTreeSet<&String> = floors
            .iter()
            .copied()
            .filter(|floor| {
                reached_from_start.contains(*floor) && reachable(edges, floor).contains(*start)
            })
            .collect();
        placed.extend(group.iter().map(|floor| (*floor).clone()));
        if let Some(path) = shortest_way_back(edges, start) {
            found.push(Violation::Cycle { floors: path });
        }
    }
    found
}

fn reachable(edges: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut waiting = vec![start.to_string()];
    while let Some(floor) = waiting.pop() {
        for next in edges.get(&floor).into_iter().flatten() {
            if seen.insert(next.clone()) {
                waiting.push(next.clone());
            }
        }
    }
    seen
}

/// The shortest path from `start` back to itself, if there is one.
fn shortest_way_back(
    edges: &BTreeMap<String, BTreeSet<String>>,
    start: &str,
) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.to_string()]);
    while let Some(floor) = queue.pop_front() {
        for next in edges.get(&floor).into_iter().flatten() {
            if next == start {
                let mut path = vec![start.to_string(), floor.clone()];
                let mut current = floor.clone();
                while let Some(previous) = came_from.get(&current) {
                    path.push(previous.clone());
                    current = previous.clone();
                }
                path.reverse();
                return Some(path);
            }
            if !came_from.contains_key(next) && next != start {
                came_from.insert(next.clone(), floor.clone());
                queue.push_back(next.clone());
            }
        }
    }
    None
}

fn read_tree(root: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).expect("the source folder is readable");
        for entry in entries {
            let path = entry.expect("a readable folder entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let relative = path
                    .strip_prefix(root)
                    .expect("inside the source folder")
                    .components()
                    .map(|component| component.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                files.push(SourceFile {
                    path: relative,
                    text: std::fs::read_to_string(&path).expect("a readable source file"),
                });
            }
        }
    }
    files.sort_by(|left, right| left.path.cmp(&right.path));
    files
}

#[test]
fn the_core_imports_only_downward_and_keeps_sql_in_the_store() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = read_tree(&source);
    assert!(
        files.len() > 80,
        "read only {} files from {}",
        files.len(),
        source.display()
    );
    let violations = check(&files);
    let report: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        violations.is_empty(),
        "{} architecture violations:\n{}",
        violations.len(),
        report.join("\n")
    );
}

fn tree(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(path, text)| SourceFile {
            path: path.to_string(),
            text: text.to_string(),
        })
        .collect()
}

#[test]
fn checker_reports_an_import_from_a_higher_floor() {
    let files = tree(&[
        ("wire/session.rs", "use crate::store::session_store;\n"),
        (
            "store/session_store.rs",
            "use crate::wire::session::Session;\n",
        ),
    ]);
    assert_eq!(
        check(&files),
        vec![
            Violation::Upward {
                file: "wire/session.rs".into(),
                from: "wire".into(),
                to: "store".into(),
            },
            Violation::Cycle {
                floors: vec!["store".into(), "wire".into(), "store".into()],
            },
        ]
    );
}

#[test]
fn checker_reads_grouped_and_inline_paths_and_the_crate_root() {
    let files = tree(&[
        (
            "store/blob_store.rs",
            "use crate::{wire::id, models::{config, agent}};\n",
        ),
        ("pipeline/prompt.rs", "fn f() { crate::reply::run(); }\n"),
        ("models/agent.rs", "use crate::Ledger;\n"),
        ("wire/id.rs", "// crate::reply in a comment is no import\n"),
        ("wire/id/tests.rs", "use crate::Ledger;\n"),
        (
            "wire/event.rs",
            "pub struct Event;\n#[cfg(test)]\nmod tests {\n    use crate::Ledger;\n}\n",
        ),
    ]);
    let upward: Vec<(String, String)> = check(&files)
        .into_iter()
        .filter_map(|violation| match violation {
            Violation::Upward { file, to, .. } => Some((file, to)),
            _ => None,
        })
        .collect();
    assert_eq!(
        upward,
        vec![
            ("models/agent.rs".to_string(), CRATE_ROOT.to_string()),
            ("pipeline/prompt.rs".to_string(), "reply".to_string()),
            ("store/blob_store.rs".to_string(), "models".to_string()),
        ]
    );
}

#[test]
fn checker_reports_a_cycle_with_its_floors() {
    let edges = BTreeMap::from([
        (
            "models".to_string(),
            BTreeSet::from(["pipeline".to_string()]),
        ),
        (
            "pipeline".to_string(),
            BTreeSet::from(["reply".to_string()]),
        ),
        ("reply".to_string(), BTreeSet::from(["models".to_string()])),
        ("store".to_string(), BTreeSet::from(["wire".to_string()])),
    ]);
    assert_eq!(
        cycles(&edges),
        vec![Violation::Cycle {
            floors: vec![
                "models".into(),
                "pipeline".into(),
                "reply".into(),
                "models".into()
            ],
        }]
    );
}

#[test]
fn checker_accepts_downward_imports_and_keeps_sqlx_in_the_store() {
    let files = tree(&[
        ("lib.rs", "pub mod wire;\nuse crate::reply::x;\n"),
        (
            "reply/run.rs",
            "use crate::{pipeline::a, store::b, wire::c};\n",
        ),
        ("store/database.rs", "use sqlx::SqlitePool;\n"),
        ("wire.rs", "pub mod id;\n"),
        ("wire/id.rs", "use crate::wire::session;\n"),
    ]);
    assert_eq!(check(&files), Vec::new());
    let leaked = tree(&[(
        "reshaping/fork.rs",
        "fn f(c: &mut sqlx::SqliteConnection) {}\n",
    )]);
    assert_eq!(
        check(&leaked),
        vec![Violation::SqlOutsideStore {
            file: "reshaping/fork.rs".into()
        }]
    );
}

#[test]
fn checker_refuses_a_folder_that_is_not_a_floor() {
    let files = tree(&[("helpers/thing.rs", "use crate::wire::id;\n")]);
    assert_eq!(
        check(&files),
        vec![Violation::UnknownFolder {
            file: "helpers/thing.rs".into(),
            folder: "helpers".into(),
        }]
    );
}

/// The dependency graph of one workspace package, its normal dependencies only, inverted at
/// sqlx's Postgres driver: empty when the package does not link it.
fn who_pulls_in_the_postgres_driver(package: &str) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = std::process::Command::new(cargo)
        .current_dir(&workspace)
        .args([
            "tree",
            "--locked",
            "-e",
            "normal",
            "-i",
            "sqlx-postgres",
            "-p",
        ])
        .arg(package)
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree -p {package} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The PostgreSQL engine is the core's `postgres` feature, and only dossier-server turns it
/// on: the desktop app reaches a team's ledger over HTTP, so neither sqlx's Postgres driver nor
/// `store::postgres` belongs in the binary people install (`docs/packaging.md`). A consumer
/// that takes the core's default features would bring them back without a compile error.
#[test]
#[cfg_attr(
    wine,
    ignore = "runs `cargo tree`: there is no Windows cargo inside the Wine prefix (the Windows runner has one)"
)]
fn only_the_server_links_the_postgres_driver() {
    let desktop = who_pulls_in_the_postgres_driver("dossier");
    assert!(
        desktop.trim().is_empty(),
        "the desktop app links sqlx's Postgres driver; give it dossier-core with \
         default-features = false:\n{desktop}"
    );
    let server = who_pulls_in_the_postgres_driver("dossier-server");
    assert!(
        server.contains("dossier-core"),
        "dossier-server no longer links sqlx's Postgres driver through dossier-core:\n{server}"
    );
}
