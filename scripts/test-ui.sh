#!/usr/bin/env bash
# Checks the web UI: a clean install from the lockfile (unless node_modules already holds it,
# scripts/npm-packages.sh), then the type check, the linter and the unit tests (vitest). Stops at,
# and exits non-zero on, the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-packages.sh
source scripts/npm-packages.sh

step() { printf '\n==> ui: %s\n' "$*"; }

step "npm ci"
install_npm_packages ui
cd ui
step "typecheck"
npm run --silent typecheck
step "lint"
npm run --silent lint
step "unit tests"
npm test
