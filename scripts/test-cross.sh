#!/usr/bin/env bash
# Windows and macOS from this Linux machine, one after the other (docs/platforms.md):
# scripts/test-windows.sh (every binary built for Windows, the core's and server's suites under
# Wine) and scripts/check-macos.sh (clippy for Apple silicon; both Macs on request, below).
# scripts/test-all.sh runs it in the background; alone:
#
#   bash scripts/test-cross.sh
#
# Ends with a summary: each part's time, the Wine suites' counts and every skipped test's reason.
set -euo pipefail
cd "$(dirname "$0")/.."

windows_log=$(mktemp)
macos_log=$(mktemp)
trap 'rm -f "$windows_log" "$macos_log"' EXIT
status=0

started=$SECONDS
bash scripts/test-windows.sh 2>&1 | tee "$windows_log" || status=1
windows_seconds=$((SECONDS - started))

# Apple silicon only: the Intel Mac's check type-checks the same `cfg(target_os = "macos")`
# code and cost about as much again (issue 29 named it the first thing to cut when CI time gets
# tight; CI's runs reached 3,550 s). Both Macs: `bash scripts/check-macos.sh` alone, or
# CROSS_MACOS_TARGETS="aarch64-apple-darwin x86_64-apple-darwin". The release workflow builds both.
macos_targets=${CROSS_MACOS_TARGETS:-aarch64-apple-darwin}
started=$SECONDS
MACOS_TARGETS=$macos_targets bash scripts/check-macos.sh 2>&1 | tee "$macos_log" || status=1
macos_seconds=$((SECONDS - started))

printf '\n==> Cross-platform summary\n'
printf '%5ds  Windows: build of every binary (x86_64-pc-windows-gnu) and the core, server and local model worker suites under Wine\n' "$windows_seconds"
printf '%5ds  macOS: clippy, warnings denied (%s)\n' "$macos_seconds" "$macos_targets"
grep -E '^(Windows build:|Wine prefix ready:)' "$windows_log" || true
sed -n '/^Under Wine/,$p' "$windows_log"
grep -E '^macOS check' "$macos_log" || echo "macOS check: FAILED (its output is above)"
exit "$status"
