#!/usr/bin/env bash
# Builds and starts the Dossier desktop app (debug build) from a fresh Debian or Ubuntu checkout.
#
#   bash scripts/run-app.sh
#
# Safe to run again: system packages are installed only when missing, and the UI and the app are
# rebuilt only as far as they changed. Needs Rust (cargo) and Node.js 20.19+ with npm already
# installed. Arguments are passed on to the app.
set -euo pipefail
cd "$(dirname "$0")/.."

# What Tauri needs on Linux. Only the WebKitGTK stack, pkg-config and build-essential are linked
# today; the rest is Tauri's documented list, kept so a tray or menus need no new setup step.
SYSTEM_PACKAGES=(
  libwebkit2gtk-4.1-dev
  libgtk-3-dev
  libsoup-3.0-dev
  libjavascriptcoregtk-4.1-dev
  librsvg2-dev
  libayatana-appindicator3-dev
  libxdo-dev
  libssl-dev
  pkg-config
  build-essential
)

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'run-app: %s\n' "$*" >&2; exit 1; }

is_installed() {
  dpkg-query --show --showformat='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

install_missing_system_packages() {
  command -v dpkg-query >/dev/null || fail "this script installs packages with apt; on other systems install Tauri's prerequisites by hand"
  local missing=() package
  for package in "${SYSTEM_PACKAGES[@]}"; do
    is_installed "$package" || missing+=("$package")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    step "System packages: all present"
    return
  fi
  step "Installing system packages: ${missing[*]}"
  local as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || fail "not root and no sudo: install as root: ${missing[*]}"
    as_root=(sudo)
  fi
  "${as_root[@]}" apt-get update
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

check_toolchains() {
  command -v cargo >/dev/null || fail "cargo not found: install Rust (stable) first"
  command -v npm >/dev/null || fail "npm not found: install Node.js 20.19 or newer first"
  # Vite 8 and ESLint 9 need Node 20.19+.
  node -e 'const [a, b] = process.versions.node.split(".").map(Number);
           process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' ||
    fail "Node.js $(node --version) is too old: 20.19 or newer is needed"
}

build_ui() {
  step "Installing UI dependencies (npm ci)"
  (cd ui && npm ci --no-audit --no-fund)
  step "Building the UI into ui/dist"
  (cd ui && npm run build)
}

run_app() {
  step "Building the desktop app (the first build takes several minutes)"
  cargo build
  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    fail "built, but there is no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); on a headless machine try: xvfb-run -a bash scripts/run-app.sh"
  fi
  step "Starting Dossier"
  exec cargo run --quiet -- "$@"
}

install_missing_system_packages
check_toolchains
build_ui
run_app "$@"
