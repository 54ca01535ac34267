//! The `list` tool: a folder's files as an indented tree, skipping ignored folders, at most
//! `RESULT_LIMIT` files.

use super::{confine, ToolError, ToolOutcome, IGNORED_FOLDERS, RESULT_LIMIT};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

pub fn run(input: &Value, directory: &Path) -> Result<ToolOutcome, ToolError> {
    let root = confine(directory, input.get("path").and_then(Value::as_str))?;
    if !root.is_dir() {
        return Err(ToolError::NotAFolder {
            path: root.display().to_string(),
        });
    }
    let mut files: Vec<String> = Vec::new();
    let mut truncated = false;
    let walker = walkdir::WalkDir::new(&root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0
                || !IGNORED_FOLDERS.contains(&entry.file_name().to_string_lossy().as_ref())
        });
    for entry in walker.filter_map(Result::ok) {
        if !entry.file_type().is_file() {
            continue;
        }
        if files.len() == RESULT_LIMIT {
            truncated = true;
            break;
        }
        if let Ok(relative) = entry.path().strip_prefix(&root) {
            // The tree is drawn from `/`-separated paths; Windows gives `docs\plan.md`, which
            // would be listed as one file at the top instead of `plan.md` inside `docs/`.
            let relative = relative.to_string_lossy();
            files.push(if cfg!(windows) {
                relative.replace('\\', "/")
            } else {
                relative.into_owned()
            });
        }
    }
    let mut output = format!("{}/\n{}", root.display(), render_tree(&files));
    if truncated {
        output.push_str(&format!(
            "\n(Showing the first {RESULT_LIMIT} files. Use a more specific path to see more.)\n"
        ));
    }
    let title = root
        .strip_prefix(directory)
        .map(|relative| relative.display().to_string())
        .unwrap_or_default();
    Ok(ToolOutcome {
        title: if title.is_empty() { ".".into() } else { title },
        output,
        metadata: json!({"count": files.len(), "truncated": truncated}),
        attachments: Vec::new(),
    })
}

#[derive(Default)]
struct Folder {
    folders: BTreeMap<String, Folder>,
    files: Vec<String>,
}

/// Renders relative file paths as a tree, two spaces per level, folders before files.
pub fn render_tree(files: &[String]) -> String {
    let mut root = Folder::default();
    for file in files {
        let mut folder = &mut root;
        let pieces: Vec<&str> = file.split('/').collect();
        let Some((name, parents)) = pieces.split_last() else {
            continue;
        };
        for parent in parents {
            folder = folder.folders.entry((*parent).to_string()).or_default();
        }
        folder.files.push((*name).to_string());
    }
    let mut output = String::new();
    render(&root, 1, &mut output);
    output
}

fn render(folder: &Folder, depth: usize, output: &mut String) {
    let indent = "  ".repeat(depth);
    for (name, child) in &folder.folders {
        output.push_str(&format!("{indent}{name}/\n"));
        render(child, depth + 1, output);
    }
    for file in &folder.files {
        output.push_str(&format!("{indent}{file}\n"));
    }
}
