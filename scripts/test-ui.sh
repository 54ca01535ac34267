#!/usr/bin/env bash
# Checks the web UI: a clean install from the lockfile, then the type check, the linter and the
# unit tests (vitest). Stops at, and exits non-zero on, the first failure.
set -euo pipefail
cd "$(dirname "$0")/../ui"

step() { printf '\n==> ui: %s\n' "$*"; }

step "npm ci"
npm ci --no-audit --no-fund
step "typecheck"
npm run --silent typecheck
step "lint"
npm run --silent lint
step "unit tests"
npm test
