#!/usr/bin/env bash
# Builds and starts the Dossier desktop app (debug build) from a fresh Debian or Ubuntu checkout.
#
#   bash scripts/run-app.sh
#
# Safe to run again: system packages are installed only when missing, and the UI and the app are
# rebuilt only as far as they changed. Needs Rust (cargo) and Node.js 20.19+ with npm already
# installed. Arguments are passed on to the app. With DOSSIER_EXIT_WHEN_INTERACTIVE=1 the app quits
# as soon as its window is usable (scripts/test-run-command.sh proves this command that way).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/system-packages.sh
source scripts/system-packages.sh
# shellcheck source=scripts/npm-packages.sh
source scripts/npm-packages.sh

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'run-app: %s\n' "$*" >&2; exit 1; }

check_toolchains() {
  command -v cargo >/dev/null || fail "cargo not found: install Rust (stable) first"
  # rustup's cargo is found even when rustup has no toolchain to run it with; say so plainly
  # instead of failing later inside the build with rustup's own words.
  if ! cargo --version >/dev/null 2>&1; then
    if command -v rustup >/dev/null && ! rustup default >/dev/null 2>&1; then
      fail "rustup has no default Rust toolchain: run 'rustup default stable', then this command again"
    fi
    fail "cargo is installed but does not run: $(cargo --version 2>&1 | head -n 1)"
  fi
  command -v npm >/dev/null || fail "npm not found: install Node.js 20.19 or newer first"
  # Vite 7 and ESLint 9 need Node 20.19+.
  node -e 'const [a, b] = process.versions.node.split(".").map(Number);
           process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' ||
    fail "Node.js $(node --version) is too old: 20.19 or newer is needed"
}

build_ui() {
  step "Installing UI dependencies (npm ci, when package-lock.json changed)"
  install_npm_packages ui
  step "Building the UI into ui/dist"
  (cd ui && npm run build)
}

run_app() {
  step "Building the desktop app (the first build takes several minutes)"
  # The whole workspace's binaries, as every test script builds them (scripts/build-debug-binaries.sh
  # says why): `-p dossier` would select other features of shared crates and rebuild half the tree.
  bash scripts/build-debug-binaries.sh
  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    fail "built, but there is no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); on a headless machine try: xvfb-run -a bash scripts/run-app.sh"
  fi
  step "Starting Dossier"
  local target_dir=${CARGO_TARGET_DIR:-target}
  exec "$target_dir/debug/dossier" "$@"
}

install_missing_system_packages
check_toolchains
build_ui
run_app "$@"
