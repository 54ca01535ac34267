#!/usr/bin/env bash
# The Debian/Ubuntu packages Dossier needs to build and test, and a function that installs the
# missing ones (with sudo when not root). Sourced by run-app.sh and test-all.sh.

DOSSIER_SYSTEM_PACKAGES=(
  # Tauri's WebKitGTK stack and build tools.
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
  # A real PostgreSQL for the Postgres store's tests (scripts/postgres-for-tests.sh starts a
  # throwaway server from it; the package's own cluster is not used).
  postgresql
)

dossier_package_installed() {
  dpkg-query --show --showformat='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

install_missing_system_packages() {
  if ! command -v dpkg-query >/dev/null; then
    echo "This script installs packages with apt; on other systems install Tauri's prerequisites by hand." >&2
    return 1
  fi
  local missing=() package
  for package in "${DOSSIER_SYSTEM_PACKAGES[@]}" "$@"; do
    dossier_package_installed "$package" || missing+=("$package")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    printf '\n==> System packages: all present\n'
    return 0
  fi
  printf '\n==> Installing system packages: %s\n' "${missing[*]}"
  local as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "Not root and no sudo: install as root: ${missing[*]}" >&2; return 1; }
    as_root=(sudo)
  fi
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
