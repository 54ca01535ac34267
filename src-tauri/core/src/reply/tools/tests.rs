use super::*;
use crate::wire::permission::{Action, Rule};
use std::path::Path;

#[test]
fn glob_table() {
    let table: [(&str, &str, bool); 14] = [
        ("*.md", "notes.md", true),
        ("*.md", "deep/down/notes.md", true),
        ("*.md", "notes.mdx", false),
        ("**/*.rs", "src/lib.rs", true),
        ("**/*.rs", "lib.rs", true),
        ("src/*.rs", "src/lib.rs", true),
        ("src/*.rs", "src/tools/glob.rs", false),
        ("src/**", "src/tools/glob.rs", true),
        ("*.{md,txt}", "a.txt", true),
        ("*.{md,txt}", "a.pdf", false),
        ("note?.md", "note1.md", true),
        ("note?.md", "note12.md", false),
        ("a+b(c).txt", "a+b(c).txt", true),
        ("docs/**/*.pdf", "docs/2024/q1/report.pdf", true),
    ];
    for (glob, path, expected) in table {
        let compiled = glob::compile(glob).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            glob::matches(&compiled, glob, path),
            expected,
            "{glob} vs {path}"
        );
    }
}

#[test]
fn confinement_table() {
    let root = Path::new("/work/dossier");
    let table: [(Option<&str>, Option<&str>); 7] = [
        (None, Some("/work/dossier")),
        (Some("notes.md"), Some("/work/dossier/notes.md")),
        (Some("./a/../b.md"), Some("/work/dossier/b.md")),
        (Some("/work/dossier/x"), Some("/work/dossier/x")),
        (Some("../other/x"), None),
        (Some("/etc/passwd"), None),
        (Some("a/../../x"), None),
    ];
    for (requested, expected) in table {
        let result = confine(root, requested).ok();
        assert_eq!(result.as_deref(), expected.map(Path::new), "{requested:?}");
    }
}

#[test]
fn permission_patterns_are_relative_paths() {
    let root = Path::new("/w");
    let table = [
        ("read", serde_json::json!({"filePath": "a/.env"}), "a/.env"),
        ("read", serde_json::json!({"filePath": "/w/b.md"}), "b.md"),
        ("read", serde_json::json!({"filePath": "/etc/x"}), "/etc/x"),
        // Parts joined with `/` on every system, so `docs/*` rules match on Windows too.
        (
            "read",
            serde_json::json!({"filePath": "docs/notes/a.md"}),
            "docs/notes/a.md",
        ),
        (
            "list",
            serde_json::json!({"path": "docs/notes"}),
            "docs/notes",
        ),
        ("list", serde_json::json!({}), "*"),
        ("glob", serde_json::json!({"pattern": "*.md"}), "*.md"),
        (
            "grep",
            serde_json::json!({"pattern": "x", "path": "docs"}),
            "docs",
        ),
    ];
    for (tool, input, expected) in table {
        assert_eq!(
            permission_pattern(tool, &input, root),
            expected,
            "{tool} {input}"
        );
    }
}

#[test]
fn only_a_blanket_deny_hides_a_tool() {
    let base = vec![
        Rule::new("*", "*", Action::Allow),
        Rule::new("read", "*.env", Action::Ask),
    ];
    assert!(!disabled("read", &base));
    let denied = vec![
        Rule::new("*", "*", Action::Allow),
        Rule::new("grep", "*", Action::Deny),
    ];
    assert!(disabled("grep", &denied));
    assert!(!disabled("read", &denied));
    let allowed_again = vec![
        Rule::new("grep", "*", Action::Deny),
        Rule::new("grep", "docs/*", Action::Allow),
    ];
    assert!(!disabled("grep", &allowed_again));
}

#[test]
fn list_renders_a_tree() {
    let files = ["b.md", "docs/a.md", "docs/sub/c.txt", "a.txt"].map(str::to_string);
    assert_eq!(
        list::render_tree(&files),
        "  docs/\n    sub/\n      c.txt\n    a.md\n  b.md\n  a.txt\n"
    );
}

#[tokio::test]
async fn tools_run_on_a_real_folder() {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let root = folder.path().to_path_buf();
    std::fs::create_dir_all(root.join("docs")).unwrap_or_default();
    std::fs::create_dir_all(root.join("node_modules/pkg")).unwrap_or_default();
    std::fs::write(root.join("docs/plan.md"), "# Plan\nbudget: 10\n").unwrap_or_default();
    std::fs::write(root.join("notes.txt"), "alpha\nbudget: 20\n").unwrap_or_default();
    std::fs::write(root.join("node_modules/pkg/budget.md"), "budget").unwrap_or_default();

    let listed = execute("list", serde_json::json!({}), root.clone())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        listed
            .output
            .contains("  docs/\n    plan.md\n  notes.txt\n"),
        "{}",
        listed.output
    );
    assert!(!listed.output.contains("node_modules"));

    let globbed = execute(
        "glob",
        serde_json::json!({"pattern": "**/*.md"}),
        root.clone(),
    )
    .await
    .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        globbed.output,
        root.join("docs").join("plan.md").display().to_string()
    );

    let grepped = execute(
        "grep",
        serde_json::json!({"pattern": "budget: \\d+"}),
        root.clone(),
    )
    .await
    .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        grepped.output.starts_with("Found 2 matches\n"),
        "{}",
        grepped.output
    );
    assert!(
        grepped.output.contains("  Line 2: budget: 20"),
        "{}",
        grepped.output
    );
    let filtered = execute(
        "grep",
        serde_json::json!({"pattern": "budget", "include": "*.md"}),
        root.clone(),
    )
    .await
    .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        filtered.output.starts_with("Found 1 matches"),
        "{}",
        filtered.output
    );

    let read = execute(
        "read",
        serde_json::json!({"filePath": "notes.txt"}),
        root.clone(),
    )
    .await
    .unwrap_or_else(|error| panic!("{error}"));
    assert!(read.output.contains("1: alpha"), "{}", read.output);
    let missing = execute("glob", serde_json::json!({}), root.clone()).await;
    assert_eq!(
        missing.err().map(|error| error.to_string()).as_deref(),
        Some("The \"pattern\" parameter is required and must be a string")
    );
    let outside = execute(
        "read",
        serde_json::json!({"filePath": "../x"}),
        root.clone(),
    )
    .await;
    assert!(outside.err().is_some_and(|error| {
        matches!(error, ToolError::OutsideFolder { .. })
            && error.to_string().contains("outside the session folder")
    }));
    let bad_regex = execute("grep", serde_json::json!({"pattern": "("}), root).await;
    assert!(bad_regex.err().is_some_and(|error| {
        matches!(error, ToolError::InvalidRegex { .. })
            && error.to_string().starts_with("Invalid regular expression")
    }));
}

#[cfg(windows)]
#[test]
fn permission_patterns_use_forward_slashes_on_windows() {
    let root = Path::new(r"C:\w");
    let input = serde_json::json!({"filePath": r"docs\notes\a.md"});
    assert_eq!(permission_pattern("read", &input, root), "docs/notes/a.md");
    let outside = serde_json::json!({"filePath": r"D:\elsewhere\x.txt"});
    assert_eq!(
        permission_pattern("read", &outside, root),
        "D:/elsewhere/x.txt"
    );
}
