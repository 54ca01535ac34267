//! Build script for the desktop shell: runs tauri-build against the top-level `tauri.conf.json`
//! and keeps the generated schema folder out of the repository root.

use std::io::ErrorKind;
use std::path::Path;

/// Where tauri-build writes its schemas: relative to the build script's cwd (the repo root) and
/// not configurable (`tauri_utils::acl::schema::CAPABILITIES_SCHEMA_FOLDER_PATH`).
const GENERATED_AT_ROOT: &str = "gen";
/// Where we keep them instead, next to the capability files that reference them via `$schema`.
const GENERATED_IN_SHELL: &str = "src-tauri/gen";

fn main() {
    // Cargo runs this script with cwd = CARGO_MANIFEST_DIR = the repo root, so tauri-build finds
    // ./tauri.conf.json and ./Cargo.toml there. Its default capabilities glob is
    // ./capabilities/**/* (the root); without this pattern the files in src-tauri/capabilities
    // would be ignored silently and every built-in webview call refused at run time.
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    tauri_build::try_build(
        tauri_build::Attributes::new().capabilities_path_pattern("./src-tauri/capabilities/**/*"),
    )
    .expect("tauri-build failed");

    move_generated_schemas().expect("could not move gen/ under src-tauri/");
}

/// The schemas are only editor aids (tauri-build has already copied what it needs into OUT_DIR),
/// so replace the previous copy under src-tauri/ and leave the repository root clean.
fn move_generated_schemas() -> std::io::Result<()> {
    if !Path::new(GENERATED_AT_ROOT).exists() {
        return Ok(());
    }
    remove_dir_if_present(GENERATED_IN_SHELL)?;
    std::fs::rename(GENERATED_AT_ROOT, GENERATED_IN_SHELL)
}

fn remove_dir_if_present(path: &str) -> std::io::Result<()> {
    match std::fs::remove_dir_all(path) {
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(()),
        result => result,
    }
}
