#!/usr/bin/env bash
# Builds the debug binaries every end-to-end script runs, `dossier` (the desktop app) and
# `dossier-server`, in ONE selection: the whole workspace.
#
#   bash scripts/build-debug-binaries.sh
#
# Why the whole workspace and not `-p dossier` / `-p dossier-server`: Cargo turns on a shared
# crate's features by the packages a command selects, and a shared crate built with other features
# (or another debuginfo setting for proc-macro helpers) is a new build of it and of everything above
# it. After `cargo test --workspace`, `-p dossier` recompiled about 200 crates and `-p dossier-server`
# about 100 — two more builds of half the tree on every cold CI run. With `--workspace --bins` only
# Tauri, its plugins and the shell recompile (Tauri's `test` feature is the one difference), and the
# server binary is the very one the test step linked. Check with
# `cargo +nightly build --workspace --bins --unit-graph -Z unstable-options`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --workspace --bins
