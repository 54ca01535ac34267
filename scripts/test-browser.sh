#!/usr/bin/env bash
# The web UI end to end in Debian's chromium against a real dossier-server on 127.0.0.1:
#
#   bash scripts/test-browser.sh
#
# Installs chromium (apt) and playwright-core (npm, no browser download) when missing, builds
# the UI and the server, and runs tests/browser-e2e with node's test runner. Screenshots land in
# tests/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/system-packages.sh
source scripts/system-packages.sh
# shellcheck source=scripts/npm-packages.sh
source scripts/npm-packages.sh
# A CJK font, or Chinese screens render as empty boxes in headless chromium.
install_missing_system_packages chromium fonts-wqy-microhei

printf '\n==> browser e2e: npm ci\n'
install_npm_packages tests/browser-e2e
# Rebuilt when missing or older than a UI source, so a standalone run never tests a stale UI.
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html -newer ui/dist/index.html -print -quit)" ]; then
  printf '\n==> browser e2e: build the UI\n'
  install_npm_packages ui
  (cd ui && npm run --silent build)
fi
printf '\n==> browser e2e: build dossier-server\n'
bash scripts/build-debug-binaries.sh
target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export DOSSIER_SERVER_BIN="$target_dir/debug/dossier-server"

printf '\n==> browser e2e: node --test\n'
(cd tests/browser-e2e && node --test)
