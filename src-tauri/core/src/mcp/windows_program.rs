//! Which file Windows runs for a command name. A person's MCP config says `npx`, as the
//! servers' own instructions do, but on Windows that is `npx.cmd` in Node.js's folder, and
//! `CreateProcess` (what Rust's `Command` calls) adds only `.exe`: it never finds a `.cmd` or
//! `.bat` shim. A command prompt finds it by trying each extension of `PATHEXT` in each folder
//! of `PATH`; this does the same, so the found file is started directly. Rust's standard library
//! runs a `.cmd` or `.bat` file through `cmd.exe` with arguments quoted for it (and refuses one it
//! cannot quote safely), which `cmd /c program args` by hand does not: cmd strips the first and
//! last quote of the line, so a program under `C:\Program Files` given an argument with a space
//! would not start.

use std::path::{Path, PathBuf};

/// `PATHEXT` when the environment has none, as Windows sets it (minus the scripting hosts).
const DEFAULT_EXTENSIONS: [&str; 4] = [".COM", ".EXE", ".BAT", ".CMD"];

/// The files to try for `program`, in Windows' order: a name with a folder is tried as given and
/// then with each extension; a bare name in each folder of `folders` in turn. A name that
/// already has an extension (`node.exe`) is tried as it is first.
pub fn candidates(
    program: &str,
    folders: &[PathBuf],
    path_extensions: Option<&str>,
) -> Vec<PathBuf> {
    let extensions: Vec<String> = match path_extensions {
        Some(listed) if !listed.trim().is_empty() => listed
            .split(';')
            .map(str::trim)
            .filter(|extension| extension.starts_with('.'))
            .map(str::to_string)
            .collect(),
        _ => DEFAULT_EXTENSIONS
            .iter()
            .map(|extension| extension.to_string())
            .collect(),
    };
    let has_folder = program.contains(['\\', '/']) || program.get(1..2) == Some(":");
    let has_extension = Path::new(program)
        .file_name()
        .is_some_and(|name| name.to_string_lossy().contains('.'));
    let in_folder = |folder: Option<&Path>| {
        let named = |name: String| match folder {
            Some(folder) => folder.join(name),
            None => PathBuf::from(name),
        };
        let mut tried = Vec::new();
        if has_extension {
            tried.push(named(program.to_string()));
        }
        tried.extend(
            extensions
                .iter()
                .map(|extension| named(format!("{program}{extension}"))),
        );
        tried
    };
    if program.is_empty() {
        return Vec::new();
    }
    if has_folder {
        return in_folder(None);
    }
    folders
        .iter()
        .flat_map(|folder| in_folder(Some(folder)))
        .collect()
}

/// The file Windows would run for `program` with this `PATH` and `PATHEXT`, if one exists.
pub fn resolve(
    program: &str,
    path: Option<&std::ffi::OsStr>,
    path_extensions: Option<&str>,
) -> Option<PathBuf> {
    let folders: Vec<PathBuf> = path
        .map(|path| std::env::split_paths(path).collect())
        .unwrap_or_default();
    candidates(program, &folders, path_extensions)
        .into_iter()
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(paths: Vec<PathBuf>) -> Vec<String> {
        paths
            .iter()
            .map(|path| path.display().to_string())
            .collect()
    }

    #[test]
    fn a_bare_name_is_tried_with_each_path_extension_in_each_folder() {
        let folders = [PathBuf::from("first"), PathBuf::from("node")];
        let tried = shown(candidates("npx", &folders, Some(".EXE;.CMD")));
        let expected: Vec<String> = ["first", "node"]
            .iter()
            .flat_map(|folder| {
                [".EXE", ".CMD"].map(|extension| {
                    Path::new(folder)
                        .join(format!("npx{extension}"))
                        .display()
                        .to_string()
                })
            })
            .collect();
        assert_eq!(tried, expected);
    }

    #[test]
    fn a_name_with_an_extension_is_tried_as_it_is_first() {
        let tried = shown(candidates(
            "node.exe",
            &[PathBuf::from("bin")],
            Some(".EXE"),
        ));
        assert_eq!(
            tried,
            [
                Path::new("bin").join("node.exe"),
                Path::new("bin").join("node.exe.EXE")
            ]
            .map(|path| path.display().to_string())
        );
    }

    #[test]
    fn a_name_with_a_folder_or_drive_is_not_searched_for() {
        let folders = [PathBuf::from("elsewhere")];
        assert_eq!(
            shown(candidates(r"C:\Tools\server", &folders, Some(".CMD"))),
            [r"C:\Tools\server.CMD"]
        );
        assert_eq!(
            shown(candidates("./server", &folders, Some(".BAT"))),
            ["./server.BAT"]
        );
    }

    #[test]
    fn without_pathext_windows_default_extensions_are_tried() {
        let tried = shown(candidates("npx", &[PathBuf::from("n")], None));
        let expected = [".COM", ".EXE", ".BAT", ".CMD"].map(|extension| {
            Path::new("n")
                .join(format!("npx{extension}"))
                .display()
                .to_string()
        });
        assert_eq!(tried, expected);
        assert!(candidates("", &[PathBuf::from("n")], None).is_empty());
    }

    #[test]
    fn the_first_existing_file_wins() {
        let folder = tempfile::tempdir().expect("temporary folder");
        let empty = tempfile::tempdir().expect("temporary folder");
        let shim = folder.path().join("npx.CMD");
        std::fs::write(&shim, "@echo off\r\n").expect("shim written");
        let path = std::env::join_paths([empty.path(), folder.path()]).expect("a PATH");
        assert_eq!(resolve("npx", Some(&path), Some(".EXE;.CMD")), Some(shim));
        assert_eq!(resolve("npx", Some(&path), Some(".EXE")), None);
    }
}
