//! The rooms stay rooms: reads every `.rs` under `src/`, maps each file to its floor (the folder
//! it sits in; files at the top of `src/` are the crate root), collects the floors it names
//! through `crate::…` paths (in `use` lines, grouped `use crate::{a, b::c}` and inline paths) and
//! fails on an import from a higher floor or a cycle between floors, printing the file and the
//! pair. It also keeps `sqlx` inside `store/`. Inside `store/` the same holds for its rooms
//! (`STORE_ROOMS`), and in every Rust crate of the workspace no two folders may reach each other
//! (`folder_cycles`). `docs/architecture.md` explains the floors and the rooms.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The floors, lowest first. A file may use its own floor and the floors before it.
const FLOORS: &[&str] = &[
    "wire",
    "store",
    "local_models",
    "models",
    "mcp",
    "pipeline",
    "reshaping",
    "reply",
];

/// The rooms of `store/`, lowest first: a file in a room may use its own room, the rooms before
/// it, and the store's ground — the files at the top of `store/` (`engine`, `connection_shelf`,
/// `durable_file`, `database_url`) and the `Store` handle in `store.rs`. The ground uses no room; `store.rs`
/// assembles them all (`Store::open`), so it is held to nothing here.
const STORE_ROOMS: &[&str] = &[
    "search",
    "rows",
    "postgres",
    "sqlite",
    "tables",
    "backups",
    "data_folder",
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
    RoomUpward {
        file: String,
        from: String,
        to: String,
    },
    GroundUsesRoom {
        file: String,
        room: String,
    },
    UnknownRoom {
        file: String,
        room: String,
    },
    FolderCycle {
        crate_name: String,
        folders: Vec<String>,
        /// For each step of the cycle, the first file (by path) that takes it.
        through: Vec<String>,
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
            Self::RoomUpward { file, from, to } => write!(
                formatter,
                "{file}: store room `{from}` imports from room `{to}`, a room above it (the \
                 rooms, lowest first: {STORE_ROOMS:?})"
            ),
            Self::GroundUsesRoom { file, room } => write!(
                formatter,
                "{file}: the store's ground (the files at the top of `store/`) imports from \
                 room `{room}`; the ground stands below every room"
            ),
            Self::UnknownRoom { file, room } => write!(
                formatter,
                "{file}: folder `store/{room}` is not one of the store's rooms {STORE_ROOMS:?}; \
                 add it to STORE_ROOMS in tests/architecture.rs and to docs/architecture.md"
            ),
            Self::FolderCycle {
                crate_name,
                folders,
                through,
            } => write!(
                formatter,
                "{crate_name}: cycle between folders: {} (through {})",
                folders.join(" -> "),
                through.join(", ")
            ),
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

/// Every path a piece of code names from the crate's root, whole: `crate::a::{b, c::d}` gives
/// `a::b` and `a::c::d`, and `super::x` in the file whose module is `module` gives the path it
/// stands for. Inline paths (`crate::a::b::f(…)`) end where the path ends.
fn absolute_paths(code: &str, module: &[String]) -> BTreeSet<Vec<String>> {
    let mut paths = BTreeSet::new();
    for (prefix, base) in [("crate::", Vec::new()), ("super::", parent(module))] {
        let mut searched = 0;
        while let Some(found_at) = code[searched..].find(prefix) {
            let start = searched + found_at;
            searched = start + prefix.len();
            let rest = &code[searched..];
            // `a::super::x`, and the second `super::` of `super::super::`, start nothing.
            let preceded = code[..start].chars().next_back().is_some_and(|character| {
                character.is_alphanumeric() || character == '_' || character == ':'
            });
            if preceded {
                continue;
            }
            // `super::super::x`: one more level up for each further `super::`.
            let mut base = base.clone();
            let mut tail = rest;
            if prefix == "super::" {
                while let Some(further) = tail.strip_prefix("super::") {
                    base = parent(&base);
                    tail = further;
                }
            }
            let mut found = Vec::new();
            use_tree(tail, &base, &mut found);
            paths.extend(found);
        }
    }
    paths
}

fn parent(module: &[String]) -> Vec<String> {
    module[..module.len().saturating_sub(1)].to_vec()
}

/// The paths of one use tree: `a::b`, `a::{b, c::d}`, `a::*`, read from the start of `text`.
fn use_tree(text: &str, base: &[String], found: &mut Vec<Vec<String>>) {
    let mut path = base.to_vec();
    let mut rest = text.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item_start = 0;
            for (index, character) in group.char_indices() {
                match character {
                    '{' => depth += 1,
                    '}' | ',' if depth == 1 => {
                        let item = group[item_start..index].trim();
                        if item == "self" {
                            found.push(path.clone());
                        } else if !item.is_empty() {
                            use_tree(item, &path, found);
                        }
                        item_start = index + 1;
                        if character == '}' {
                            return;
                        }
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            return;
        }
        let name: String = rest
            .chars()
            .take_while(|character| character.is_alphanumeric() || *character == '_')
            .collect();
        if name.is_empty() {
            found.push(path);
            return;
        }
        path.push(name.clone());
        rest = &rest[name.len()..];
        match rest.strip_prefix("::") {
            Some(further) => rest = further,
            None => {
                found.push(path);
                return;
            }
        }
    }
}

/// The module path of a file: `store/sqlite/database.rs` is `store::sqlite::database`,
/// `store.rs` is `store`, `lib.rs` and `main.rs` the crate itself.
fn module_of(path: &str) -> Vec<String> {
    let stem = path.trim_end_matches(".rs");
    if stem == "lib" || stem == "main" {
        return Vec::new();
    }
    stem.split('/').map(str::to_string).collect()
}

/// The room of a file under `store/`: `Some(room)` for `store/<room>.rs` and anything in
/// `store/<room>/`; `None` for the ground (a file at the top of `store/`) and for `store.rs`.
fn room_of(path: &str, folders: &BTreeSet<String>) -> Option<String> {
    let inside = path.strip_prefix("store/")?;
    match inside.split_once('/') {
        Some((room, _)) => Some(room.to_string()),
        None => {
            let stem = inside.trim_end_matches(".rs");
            folders
                .contains(&format!("store/{stem}"))
                .then(|| stem.to_string())
        }
    }
}

/// The folders of a tree (`store`, `store/sqlite`, …), from where its source files sit.
fn folders_of(files: &[SourceFile]) -> BTreeSet<String> {
    let mut folders = BTreeSet::new();
    for file in files.iter().filter(|file| !is_test_file(&file.path)) {
        let mut components: Vec<&str> = file.path.split('/').collect();
        components.pop();
        while !components.is_empty() {
            folders.insert(components.join("/"));
            components.pop();
        }
    }
    folders
}

/// The store's rooms: a file in a room imports only from its own room, the rooms before it and
/// the ground; a file of the ground imports from no room.
fn check_store_rooms(files: &[SourceFile]) -> Vec<Violation> {
    let folders = folders_of(files);
    let mut violations = BTreeSet::new();
    for file in files {
        if !file.path.starts_with("store/") || is_test_file(&file.path) {
            continue;
        }
        let from = room_of(&file.path, &folders);
        let from_rank = match &from {
            Some(room) => match STORE_ROOMS.iter().position(|known| known == room) {
                Some(rank) => Some(rank),
                None => {
                    violations.insert(Violation::UnknownRoom {
                        file: file.path.clone(),
                        room: room.clone(),
                    });
                    continue;
                }
            },
            None => None,
        };
        let module = module_of(&file.path);
        for path in absolute_paths(&production_code(&file.text), &module) {
            let [store, to, ..] = path.as_slice() else {
                continue;
            };
            if store != "store" || Some(to) == from.as_ref() {
                continue;
            }
            let Some(to_rank) = STORE_ROOMS.iter().position(|known| known == to) else {
                continue; // the ground or the handle: open to every room
            };
            match (&from, from_rank) {
                (Some(from), Some(from_rank)) if to_rank > from_rank => {
                    violations.insert(Violation::RoomUpward {
                        file: file.path.clone(),
                        from: from.clone(),
                        to: to.clone(),
                    });
                }
                (None, _) => {
                    violations.insert(Violation::GroundUsesRoom {
                        file: file.path.clone(),
                        room: to.clone(),
                    });
                }
                _ => {}
            }
        }
    }
    violations.into_iter().collect()
}

/// Cycles between sibling folders of one crate: each import from a file in folder `a/b/…` of a
/// path in folder `a/c/…` is an edge `b → c` among the children of `a`; a folder using its own
/// parent (the handle it is given, as a room uses `Store`) or its parent assembling it is how
/// modules nest, not a cycle. Returned for each group of siblings that reach each other.
fn folder_cycles(crate_name: &str, files: &[SourceFile]) -> Vec<Violation> {
    let folders = folders_of(files);
    let folder_of_module = |module: &[String]| -> Vec<String> {
        let mut folder = module.to_vec();
        while !folder.is_empty() && !folders.contains(&folder.join("/")) {
            folder.pop();
        }
        folder
    };
    // Edges per parent folder, between its children.
    let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut first_file: BTreeMap<(String, String, String), String> = BTreeMap::new();
    for file in files.iter().filter(|file| !is_test_file(&file.path)) {
        let module = module_of(&file.path);
        let from = folder_of_module(&module);
        for path in absolute_paths(&production_code(&file.text), &module) {
            let to = folder_of_module(&path);
            let common = from
                .iter()
                .zip(&to)
                .take_while(|(left, right)| left == right)
                .count();
            let (Some(from_child), Some(to_child)) = (from.get(common), to.get(common)) else {
                continue;
            };
            let parent = from[..common].join("/");
            first_file
                .entry((parent.clone(), from_child.clone(), to_child.clone()))
                .or_insert_with(|| file.path.clone());
            edges
                .entry(parent)
                .or_default()
                .entry(from_child.clone())
                .or_default()
                .insert(to_child.clone());
        }
    }
    let mut found = Vec::new();
    for (parent, children) in &edges {
        for cycle in cycles(children) {
            if let Violation::Cycle { floors } = cycle {
                let named = floors
                    .iter()
                    .map(|child| match parent.as_str() {
                        "" => format!("{child}/"),
                        _ => format!("{parent}/{child}/"),
                    })
                    .collect();
                let through = floors
                    .windows(2)
                    .map(|step| {
                        first_file[&(parent.clone(), step[0].clone(), step[1].clone())].clone()
                    })
                    .collect();
                found.push(Violation::FolderCycle {
                    crate_name: crate_name.to_string(),
                    folders: named,
                    through,
                });
            }
        }
    }
    found
}

/// The source folder of each workspace member, from the root `Cargo.toml`'s `members` (the root
/// package's sources are `src-tauri/src`), so a new crate is checked without being listed here.
fn workspace_sources() -> Vec<(String, std::path::PathBuf)> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest =
        std::fs::read_to_string(workspace.join("Cargo.toml")).expect("the workspace manifest");
    let members_line = manifest
        .lines()
        .find(|line| line.starts_with("members = ["))
        .expect("a one-line `members = [...]` in the workspace manifest");
    members_line
        .split('"')
        .skip(1)
        .step_by(2)
        .map(|member| match member {
            "." => (
                "dossier (src-tauri/src)".to_string(),
                workspace.join("src-tauri/src"),
            ),
            other => (other.to_string(), workspace.join(other).join("src")),
        })
        .collect()
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

#[test]
fn the_store_rooms_import_only_downward() {
    let files = read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let folders = folders_of(&files);
    for room in STORE_ROOMS {
        assert!(
            folders.contains(&format!("store/{room}")),
            "STORE_ROOMS names `{room}`, which is no folder of store/"
        );
    }
    let violations = check_store_rooms(&files);
    let report: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        violations.is_empty(),
        "{} store room violations:\n{}",
        violations.len(),
        report.join("\n")
    );
}

#[test]
fn no_crate_of_the_workspace_has_a_cycle_between_folders() {
    let sources = workspace_sources();
    assert!(sources.len() >= 5, "read only {sources:?}");
    let mut report = Vec::new();
    for (member, source) in &sources {
        let files = read_tree(source);
        assert!(!files.is_empty(), "no sources in {}", source.display());
        report.extend(
            folder_cycles(member, &files)
                .iter()
                .map(ToString::to_string),
        );
    }
    assert!(
        report.is_empty(),
        "{} folder cycles:\n{}",
        report.len(),
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
        (
            "wire/session.rs",
            "use crate::store::tables::session_store;\n",
        ),
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
    who_pulls_in("sqlx-postgres", package)
}

/// The dependency graph of one workspace package, its normal dependencies only, inverted at
/// `dependency`: empty when the package does not link it.
fn who_pulls_in(dependency: &str, package: &str) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = std::process::Command::new(cargo)
        .current_dir(&workspace)
        .args(["tree", "--locked", "-e", "normal", "-i", dependency, "-p"])
        .arg(package)
        .output()
        .expect("cargo tree runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    // A dependency in nobody's graph here (Tauri, seen from the core) is no package to invert at.
    if !output.status.success() && stderr.contains("did not match any packages") {
        return String::new();
    }
    assert!(
        output.status.success(),
        "cargo tree -p {package} -i {dependency} failed: {stderr}"
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

#[test]
fn checker_reports_a_back_import_between_store_rooms_with_the_file_and_the_rule() {
    let files = tree(&[
        (
            "store.rs",
            "pub mod sqlite;\npub mod tables;\nuse crate::store::tables::x;\n",
        ),
        ("store/engine.rs", "pub enum Pool {}\n"),
        ("store/sqlite.rs", "pub mod database;\n"),
        (
            "store/sqlite/database.rs",
            "use crate::store::tables::session_store;\nuse crate::store::{Store, engine::Pool};\n",
        ),
        ("store/tables.rs", "pub mod session_store;\n"),
        (
            "store/tables/session_store.rs",
            "use crate::store::{sqlite::database, rows::session_page::SessionQuery};\n",
        ),
    ]);
    let violations = check_store_rooms(&files);
    assert_eq!(
        violations,
        vec![Violation::RoomUpward {
            file: "store/sqlite/database.rs".into(),
            from: "sqlite".into(),
            to: "tables".into(),
        }]
    );
    assert_eq!(
        violations[0].to_string(),
        "store/sqlite/database.rs: store room `sqlite` imports from room `tables`, a room above \
         it (the rooms, lowest first: [\"search\", \"rows\", \"postgres\", \"sqlite\", \"tables\", \
         \"backups\", \"data_folder\"])"
    );
}

#[test]
fn checker_keeps_the_store_ground_below_every_room_and_knows_only_the_listed_rooms() {
    let files = tree(&[
        (
            "store/durable_file.rs",
            "fn f() { super::search::search_text::tokens(); }\n",
        ),
        ("store/helpers/thing.rs", "use crate::wire::id;\n"),
        ("store/search.rs", "pub mod search_text;\n"),
        (
            "store/search/search_text.rs",
            "use super::search_query::SearchQuery;\n",
        ),
    ]);
    assert_eq!(
        check_store_rooms(&files),
        vec![
            Violation::GroundUsesRoom {
                file: "store/durable_file.rs".into(),
                room: "search".into(),
            },
            Violation::UnknownRoom {
                file: "store/helpers/thing.rs".into(),
                room: "helpers".into(),
            },
        ]
    );
}

#[test]
fn checker_reports_a_cycle_between_sibling_folders_of_any_crate() {
    let files = tree(&[
        ("lib.rs", "mod attached_server;\nmod commands;\n"),
        ("commands.rs", "pub mod data;\n"),
        (
            "commands/data.rs",
            "use crate::attached_server::relay::Relay;\nuse crate::error::Error;\n",
        ),
        ("attached_server.rs", "pub mod relay;\n"),
        (
            "attached_server/relay.rs",
            "use crate::{commands::data::Reply, error::Error};\n",
        ),
        // A room using its parent's handle, and the parent assembling it, is nesting, not a cycle.
        (
            "store.rs",
            "pub mod sqlite;\nuse sqlite::database;\nuse crate::store::sqlite::x;\n",
        ),
        ("store/sqlite.rs", "pub mod database;\n"),
        ("store/sqlite/database.rs", "use crate::store::Store;\n"),
        ("error.rs", "pub struct Error;\n"),
    ]);
    assert_eq!(
        folder_cycles("dossier", &files),
        vec![Violation::FolderCycle {
            crate_name: "dossier".into(),
            folders: vec![
                "attached_server/".into(),
                "commands/".into(),
                "attached_server/".into()
            ],
            through: vec!["attached_server/relay.rs".into(), "commands/data.rs".into()],
        }]
    );
    assert_eq!(
        folder_cycles("dossier", &files)[0].to_string(),
        "dossier: cycle between folders: attached_server/ -> commands/ -> attached_server/ \
         (through attached_server/relay.rs, commands/data.rs)"
    );
}

#[test]
fn paths_are_read_whole_from_groups_inline_uses_and_super() {
    let module = module_of("store/sqlite/database.rs");
    let paths = absolute_paths(
        "use crate::{a::{b, c::d}, e};\nfn f() { crate::g::h(1); super::search_index::x(); }\n\
         use super::super::engine::Pool;\n",
        &module,
    );
    let said: Vec<String> = paths.iter().map(|path| path.join("::")).collect();
    assert_eq!(
        said,
        vec![
            "a::b",
            "a::c::d",
            "e",
            "g::h",
            "store::engine::Pool",
            "store::sqlite::search_index::x"
        ]
    );
}

/// Only the desktop shell links Tauri: the core, the server and every other crate of the
/// workspace (a client library split out of the shell included) stay plain Rust, usable and
/// testable without a window. Read from the workspace's members, so a new crate is held to it.
#[test]
#[cfg_attr(
    wine,
    ignore = "runs `cargo tree`: there is no Windows cargo inside the Wine prefix (the Windows runner has one)"
)]
fn only_the_desktop_shell_links_tauri() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut checked = Vec::new();
    for (member, _) in workspace_sources() {
        if member.starts_with("dossier (") {
            continue;
        }
        let manifest = std::fs::read_to_string(workspace.join(&member).join("Cargo.toml"))
            .expect("a member's manifest");
        let package = manifest
            .lines()
            .find_map(|line| line.strip_prefix("name = \""))
            .and_then(|rest| rest.strip_suffix('"'))
            .expect("a member's package name");
        let tauri = who_pulls_in("tauri", package);
        assert!(
            tauri.trim().is_empty(),
            "{package} ({member}) links Tauri; only the desktop shell may:\n{tauri}"
        );
        checked.push(package.to_string());
    }
    assert!(checked.len() >= 4, "checked only {checked:?}");
    // And the name is right: the shell does link it, so an empty answer above means something.
    assert!(
        !who_pulls_in("tauri", "dossier").trim().is_empty(),
        "cargo tree finds no `tauri` under the desktop shell: is the package still called that?"
    );
}
