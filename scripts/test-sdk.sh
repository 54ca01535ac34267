#!/usr/bin/env bash
# Compatibility with the official OpenCode SDK: installs the pinned @opencode-ai/sdk
# (tests/sdk-compat/package-lock.json), builds the dossier-server binary and runs the SDK,
# unchanged, against it on 127.0.0.1 with node's test runner.
#
#   bash scripts/test-sdk.sh
#
# Honours CARGO_TARGET_DIR (the binary is looked up there, else in ./target).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v node >/dev/null || { echo "node not found: install Node 20+ first" >&2; exit 1; }

printf '\n==> SDK compatibility: npm ci\n'
# shellcheck source=scripts/npm-packages.sh
source scripts/npm-packages.sh
install_npm_packages tests/sdk-compat

printf '\n==> SDK compatibility: build dossier-server\n'
bash scripts/build-debug-binaries.sh

target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export DOSSIER_SERVER_BIN="$target_dir/debug/dossier-server"

# DOSSIER_TEST_ENGINE=postgres: the servers the SDK talks to keep their ledger in a fresh
# PostgreSQL database of this run's own (scripts/postgres-for-tests.sh) instead of SQLite.
if [ "${DOSSIER_TEST_ENGINE:-}" = postgres ]; then
  admin_url=$(bash scripts/postgres-for-tests.sh start | tail -n 1)
  database=dossier_sdk_$$
  psql "$admin_url" -q -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"
  export DOSSIER_DATABASE_URL="${admin_url%/postgres}/$database"
  trap 'psql "$admin_url" -q -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" || true' EXIT
fi

printf '\n==> SDK compatibility: node --test\n'
(cd tests/sdk-compat && node --test)
