#!/usr/bin/env bash
# Installs the real MCP servers (from npm, pinned by tests/mcp/package-lock.json) that the core's
# MCP integration tests start. Without them those tests skip with a loud message; the test run
# (scripts/test-all.sh) always installs them first.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-packages.sh
source scripts/npm-packages.sh
install_npm_packages tests/mcp
