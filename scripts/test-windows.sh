#!/usr/bin/env bash
# Windows, proven from Linux (docs/platforms.md): builds every binary of the workspace (the app,
# dossier-server, the local model worker, the test binaries) for x86_64-pc-windows-gnu with
# Debian's mingw-w64, warnings denied as on Linux, then runs the core's, the server's and the
# worker's suites under Debian's Wine in a throwaway prefix. Prints how many tests ran, passed
# and were skipped, each skip with its reason.
#
#   bash scripts/test-windows.sh            build and test
#   WINDOWS_BUILD_ONLY=1 bash scripts/test-windows.sh   build only
#
# Tests that fail because of Wine itself (not of Windows) are marked
# `#[cfg_attr(wine, ignore = "…Wine bug …")]`: this script builds with `--cfg wine`, so they are
# ignored here and still run on a real Windows runner. The MSVC build stays with the release
# workflow.
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-pc-windows-gnu
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# shellcheck source=scripts/system-packages.sh
source scripts/system-packages.sh
# mingw-w64's C and C++ compilers (SQLite, ring, llama.cpp) and linker, in the posix-threads
# flavour (scripts/mingw-toolchain.sh says why); Wine 64-bit to run the tests.
install_missing_system_packages gcc-mingw-w64-x86-64 gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix wine64
if ! rustup target list --installed | grep -qx "$target"; then
  rustup target add "$target"
fi

# Clippy as the compiler of the workspace's own crates, warnings denied, as in the Linux build
# (scripts/test-all.sh): the Windows-only code is linted too, at no extra compile.
clippy_driver=$(command -v clippy-driver) || {
  echo "clippy-driver not found: install clippy (rustup component add clippy)" >&2
  exit 1
}
export RUSTC_WORKSPACE_WRAPPER="$clippy_driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
# shellcheck source=scripts/mingw-toolchain.sh
source scripts/mingw-toolchain.sh
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS="--cfg wine"

# The app embeds the built UI.
if [ ! -f ui/dist/index.html ]; then
  # shellcheck source=scripts/npm-packages.sh
  source scripts/npm-packages.sh
  install_npm_packages ui
  (cd ui && npm run --silent build)
fi

target_dir="${CARGO_TARGET_DIR:-target}"
forget_stale_llama_cmake_builds "$target_dir"
# Dependencies unoptimised (opt-level 0 instead of the dev profile's 2) and the workspace's
# crates without line tables: the Windows build is about compiling, and this lane (every
# dependency compiled for another target) is the longest part of a CI run. Measured here, cold,
# both builds alone on 2 cores: 1,081 s at opt-level 1 with line tables, 633 s like this; the
# Wine suites then took 87 s (834 tests, all passed) instead of 58–89 s. A panic still names its
# file and line (that comes from the code, not from debug info). llama.cpp keeps its own
# optimised CMake build whatever Rust's level. WINDOWS_DEPENDENCY_OPT_LEVEL=2 and
# WINDOWS_DEBUG_INFO=line-tables-only restore the dev profile's.
dependency_opt_level=(
  --config "profile.dev.package.\"*\".opt-level=${WINDOWS_DEPENDENCY_OPT_LEVEL:-0}"
  --config "profile.dev.debug=\"${WINDOWS_DEBUG_INFO:-none}\""
)
artifacts=$(mktemp)
started=$SECONDS
echo "==> Windows build: every binary and every test target of the workspace ($target)"
cargo "${dependency_opt_level[@]}" build --workspace --bins --locked --target "$target"
# The same workspace-wide selection as the binaries, so cargo unifies the same features and only
# Tauri's `test` feature is built twice; one run of `-p dossier-core -p dossier-server` would
# compile half the dependency tree again for its own features. The test executables are then
# run under Wine one by one, not through `cargo test` (whose narrower selection would rebuild).
cargo "${dependency_opt_level[@]}" test --workspace --all-targets --locked --no-run --target "$target" \
  --message-format=json-render-diagnostics >"$artifacts"
echo "Windows build: $((SECONDS - started)) s"
for binary in dossier dossier-server dossier-local-model-worker; do
  ls -l "$target_dir/$target/debug/$binary.exe"
done
[ "${WINDOWS_BUILD_ONLY:-0}" = 1 ] && exit 0

# A prefix of our own, thrown away at the end: nothing of the person's Wine is touched.
wine=/usr/lib/wine/wine64
WINEPREFIX=$(mktemp -d)
export WINEPREFIX WINEARCH=win64 WINEDEBUG=-all
cleanup() {
  WINEPREFIX=$WINEPREFIX /usr/lib/wine/wineserver -k 2>/dev/null || true
  rm -rf "$WINEPREFIX"
}
trap cleanup EXIT
started=$SECONDS
"$wine" wineboot --init >/dev/null 2>&1
system32="$WINEPREFIX/drive_c/windows/system32"
if [ ! -f "$system32/bcryptprimitives.dll" ]; then
  # Wine 8.0 has no bcryptprimitives.dll; every Rust program calls its ProcessPrng at start.
  x86_64-w64-mingw32-gcc -O2 -shared -o "$system32/bcryptprimitives.dll" \
    scripts/wine/bcryptprimitives.c -ladvapi32
fi
# A second drive letter for the data-folder move across volumes (E:, a folder of the prefix;
# C: is the prefix's drive_c, where the tests' temporary folders are).
mkdir -p "$WINEPREFIX/other-volume"
ln -sfn "$WINEPREFIX/other-volume" "$WINEPREFIX/dosdevices/e:"
export DOSSIER_TEST_OTHER_VOLUME='E:\'
echo "Wine prefix ready: $((SECONDS - started)) s ($("$wine" --version))"

# The real model of the local engine's tests (SmolLM2-135M, 98 MB from PyPI; scripts/test-model.sh),
# as in the Linux run: with it the core's and the server's tests start the Windows worker under
# Wine and get replies from it; without it they say they were skipped.
if [ -z "${DOSSIER_TEST_MODEL:-}" ]; then
  # shellcheck source=scripts/test-model.sh
  source scripts/test-model.sh
fi

log=$(mktemp)
started=$SECONDS
echo "==> The core's, the server's and the local model worker's suites under Wine"
status=0
# Each test executable of the three crates (unit tests, the core's `ledger` and `architecture`,
# the server's `http`, the worker's `protocol`), run from its package's folder as cargo runs it.
# Two threads: Wine's process start is slow and both cores are shared with the rest of the run.
while IFS=$'\t' read -r package_dir executable; do
  printf '     Running %s\n' "${executable#"$PWD"/}" | tee -a "$log"
  (cd "$package_dir" && CARGO_MANIFEST_DIR="$package_dir" \
    "$wine" "$executable" --test-threads="${WINE_TEST_THREADS:-2}") </dev/null >>"$log" 2>&1 || status=1
done < <(python3 - "$artifacts" <<'PYTHON'
import json, os, sys
for line in open(sys.argv[1]):
    message = json.loads(line)
    if message.get("reason") != "compiler-artifact" or not message.get("executable"):
        continue
    if not message["profile"]["test"] or "bench" in message["target"]["kind"]:
        continue
    manifest = message["manifest_path"]
    if os.path.basename(os.path.dirname(manifest)) in ("core", "server", "local-model-worker"):
        print(os.path.dirname(manifest), message["executable"], sep="\t")
PYTHON
)
grep -E '^(test result|failures:|    [a-z_:]+$|test .* FAILED)' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "--- the failing tests' output ---"
  sed -n '/^failures:$/,/^test result/p' "$log" | head -n 600
fi
read -r passed failed ignored < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) {
  if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) g += $i } }
  END { print p + 0, f + 0, g + 0 }' "$log")
echo
echo "Under Wine ($((SECONDS - started)) s): $((passed + failed)) tests run, $passed passed, $failed failed, $ignored skipped:"
grep -E '^test .* \.\.\. ignored' "$log" | sed 's/^test /  /' || true
rm -f "$log" "$artifacts"
exit "$status"
