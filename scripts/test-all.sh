#!/usr/bin/env bash
# Runs every test of Dossier on a fresh Debian or Ubuntu machine:
#
#   bash scripts/test-all.sh
#
# Installs what the tests need (Tauri's system libraries, the UI's npm packages), then checks
# formatting and lints, runs the Rust tests of every crate (the core's crash test included) and
# the UI's type check, lint and unit tests. Safe to run again; exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

# shellcheck source=scripts/system-packages.sh
source scripts/system-packages.sh
install_missing_system_packages

command -v cargo >/dev/null || { echo "cargo not found: install Rust (stable) first" >&2; exit 1; }

step "Rust formatting"
cargo fmt --all -- --check

step "UI: install, typecheck, lint, unit tests"
bash scripts/test-ui.sh

step "UI: build (the desktop shell embeds ui/dist)"
(cd ui && npm run --silent build)

step "Rust lints (clippy, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "Rust tests (every crate; also regenerates the UI's TypeScript bindings)"
cargo test --workspace --locked

step "SDK compatibility (@opencode-ai/sdk, unchanged, against dossier-server)"
bash scripts/test-sdk.sh

step "The web UI in Debian chromium against dossier-server"
bash scripts/test-browser.sh

step "The real window under Xvfb (tauri-driver + WebKitWebDriver)"
bash scripts/test-window.sh

step "Generated TypeScript bindings are up to date"
if [ -n "$(git status --porcelain -- ui/src/lib/bindings ui/src/lib/shell-bindings)" ]; then
  git status --short -- ui/src/lib/bindings ui/src/lib/shell-bindings
  echo "ui/src/lib/bindings is stale: run 'cargo test -p dossier-core export_bindings' and commit the result." >&2
  exit 1
fi
