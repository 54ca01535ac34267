#!/usr/bin/env bash
# Proves the README's first command: runs `bash scripts/run-app.sh` exactly as a newcomer would,
# under Xvfb with a fresh data folder and home folders, and passes only if the desktop app's
# window becomes usable (the UI loaded, called the backend and listed the sessions). The app is
# told to quit at that moment with DOSSIER_EXIT_WHEN_INTERACTIVE=1.
#
#   bash scripts/test-run-command.sh
#
# It once built and then failed ("could not determine which binary to run") and nothing noticed.
# Prints "N passed, N failed" last.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/system-packages.sh
source scripts/system-packages.sh
# shellcheck source=scripts/npm-packages.sh
source scripts/npm-packages.sh
install_missing_system_packages xvfb xauth imagemagick

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Everything the app writes goes under $work: the ledger, its config, WebKit's storage and the
# log file, whose "window interactive" line is the second witness beside the exit status.
export DOSSIER_DATA_DIR="$work/data"
export DOSSIER_CONFIG="$work/dossier.json"
export XDG_DATA_HOME="$work/xdg-data"
export XDG_CONFIG_HOME="$work/xdg-config"
export XDG_CACHE_HOME="$work/xdg-cache"
export DOSSIER_EXIT_WHEN_INTERACTIVE=1
unset WAYLAND_DISPLAY

# A cold build takes many minutes and is not what is being timed: build first, exactly as
# run-app.sh builds (in the full test run the window test has built it already), so the command
# below only has to start the app, and a window that never comes up fails in minutes, not hours.
install_npm_packages ui
(cd ui && npm run --silent build)
bash scripts/build-debug-binaries.sh

status=0
timeout 600 xvfb-run --auto-servernum --server-args="-screen 0 1280x800x24" \
  bash scripts/run-app.sh >"$work/run-app.log" 2>&1 || status=$?

log_file="$XDG_DATA_HOME/app.dossier.desktop/logs/dossier.log"
passed=0
failed=0
check() {
  if eval "$2"; then
    passed=$((passed + 1))
    echo "ok: $1"
  else
    failed=$((failed + 1))
    echo "FAILED: $1"
  fi
}
check "bash scripts/run-app.sh exits 0 once the window is usable (status $status)" '[ "$status" -eq 0 ]'
check "the app said its window became interactive" \
  'grep -q "window interactive; exiting" "$work/run-app.log"'
check "the app's log records the interactive window" \
  '[ -f "$log_file" ] && grep -q "window interactive" "$log_file"'
check "the ledger was created in the fresh data folder" '[ -s "$DOSSIER_DATA_DIR/dossier.db" ]'
# Run again on a machine where the UI's packages are in place, it does not reinstall them.
check "it did not reinstall the UI's npm packages, which were already installed from the lockfile" \
  'grep -q "npm packages in ui: already installed" "$work/run-app.log"'

# The window draws in the app's own rendering choice (WebKit's compositing off on a machine with
# no GPU, src-tauri/src/software_rendering.rs; the WebDriver tests run composited): the app
# started again on the same folders, the X server's picture of the screen taken once the app
# says it is interactive, and the pixels counted. An undrawn window is one flat colour.
unset DOSSIER_EXIT_WHEN_INTERACTIVE
cat >"$work/screen-shot.sh" <<'SHOT'
"$1" >"$2/app-again.log" 2>&1 &
app=$!
for _ in $(seq 1 120); do
  grep -q "window interactive" "$3" 2>/dev/null && [ "$(grep -c "window interactive" "$3")" -ge 2 ] && break
  sleep 0.5
done
sleep 2
import -window root "$2/screen.png"
kill "$app"
wait "$app" 2>/dev/null || true
SHOT
# CARGO_TARGET_DIR may be absolute (a target folder shared between checkouts) or relative.
target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
timeout 120 xvfb-run --auto-servernum --server-args="-screen 0 1280x800x24" \
  bash "$work/screen-shot.sh" "$target_dir/debug/dossier" "$work" "$log_file" || true
colours=$( [ -f "$work/screen.png" ] && identify -format '%k' "$work/screen.png" || echo 0)
mkdir -p tests/artifacts && [ -f "$work/screen.png" ] && cp "$work/screen.png" tests/artifacts/run-command-window.png
check "the window draws the UI in the app's own rendering choice ($colours colours on screen)" '[ "$colours" -gt 50 ]'

# A machine with rustup but no default toolchain (rustup installed with `--default-toolchain
# none`, or its default removed): rustup's cargo is on the PATH but cannot run. The command must
# stop before building anything and say what to type, not fail later in rustup's own words.
if command -v rustup >/dev/null; then
  rustup_home=$(rustup show home)
  no_default="$work/rustup-without-default"
  mkdir -p "$no_default"
  ln -s "$rustup_home/toolchains" "$no_default/toolchains"
  grep -v '^default_toolchain' "$rustup_home/settings.toml" >"$no_default/settings.toml"
  no_default_status=0
  env -u RUSTUP_TOOLCHAIN RUSTUP_HOME="$no_default" bash scripts/run-app.sh >"$work/no-default.log" 2>&1 || no_default_status=$?
  check "with rustup but no default toolchain, run-app.sh stops before building and says to run 'rustup default stable' (status $no_default_status)" \
    '[ "$no_default_status" -ne 0 ] && grep -q "^run-app: rustup has no default Rust toolchain" "$work/no-default.log" && ! grep -q "Installing UI dependencies" "$work/no-default.log"'
else
  echo "skipped: the no-default-toolchain check (rustup is not installed here)"
fi

if [ "$failed" -ne 0 ]; then
  echo "--- run-app.sh output (last 40 lines) ---"
  tail -n 40 "$work/run-app.log" || true
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
