#!/usr/bin/env bash
# Builds the local model worker (llama.cpp in a process of its own, src-tauri/local-model-worker)
# and puts it where the Tauri CLI takes external binaries from, named with the target triple:
#
#   bash scripts/build-local-model-worker.sh [PROFILE] [TARGET]
#     PROFILE: a cargo profile (default `release`); TARGET: a target triple, or
#     `universal-apple-darwin` (both Mac architectures joined with lipo); default: this computer's.
#
# Then `tauri build --config src-tauri/packaging/local-model-worker.conf.json` ships it beside the
# app (bundle.externalBin), where `local_models::worker_process::find_worker` looks for it. The
# overlay is separate so that plain `cargo build`s of the app do not need the worker built first
# (tauri-build refuses a missing external binary).
#
# For x86-64 Linux and Windows, a release build also makes the baseline worker
# (`dossier-local-model-worker-baseline`): the same worker with llama.cpp built without AVX, AVX2,
# FMA, F16C and BMI2, for processors older than about 2013, which the app starts instead of the
# default one on such a processor (`local_models::worker_location`). It is llama.cpp built a second
# time (about as long as the first), in a target folder of its own so the two builds do not
# undo each other. DOSSIER_WORKER_BASELINE=1 makes it for any profile, =0 never. Ship it with
# `--config src-tauri/packaging/local-model-worker-baseline.conf.json` (both workers) instead of
# `local-model-worker.conf.json`; `scripts/package.sh` picks the overlay by what was built.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${1:-release}
host=$(rustc -vV | sed -n 's/^host: //p')
target=${2:-$host}
out=src-tauri/binaries
mkdir -p "$out"
suffix=""
case "$target" in *windows*) suffix=".exe" ;; esac
case "$host:$target" in
  *-linux-*:x86_64-pc-windows-gnu)
    # From Linux with Debian's mingw-w64: the posix-threads compilers llama.cpp needs and what
    # bindgen and mingw-w64 10's headers lack (scripts/mingw-toolchain.sh). The worker's own
    # build script links ggml and a static C++ runtime for this target.
    # shellcheck source=scripts/mingw-toolchain.sh
    source scripts/mingw-toolchain.sh
    forget_stale_llama_cmake_builds "${CARGO_TARGET_DIR:-target}"
    ;;
esac

build_one() {
  local triple=$1 variant=${2:-default} args=(build --locked -p dossier-local-model-worker)
  [ "$profile" = dev ] || args+=(--profile "$profile")
  [ "$triple" = "$host" ] || args+=(--target "$triple")
  local folder=${CARGO_TARGET_DIR:-target}
  if [ "$variant" = baseline ]; then
    # A variable set in the environment wins over .cargo/config.toml's [env].
    folder="$folder/worker-baseline"
    GGML_AVX=OFF GGML_AVX2=OFF GGML_FMA=OFF GGML_F16C=OFF GGML_BMI2=OFF GGML_SSE42=OFF \
      CARGO_TARGET_DIR="$folder" cargo "${args[@]}" >&2
  else
    cargo "${args[@]}" >&2
  fi
  [ "$triple" = "$host" ] || folder="$folder/$triple"
  local profile_folder=$profile
  [ "$profile" = dev ] && profile_folder=debug
  printf '%s\n' "$folder/$profile_folder/dossier-local-model-worker$suffix"
}

started=$SECONDS
if [ "$target" = universal-apple-darwin ]; then
  arm=$(build_one aarch64-apple-darwin)
  intel=$(build_one x86_64-apple-darwin)
  lipo -create -output "$out/dossier-local-model-worker-universal-apple-darwin" "$arm" "$intel"
else
  cp "$(build_one "$target")" "$out/dossier-local-model-worker-$target$suffix"
  baseline=${DOSSIER_WORKER_BASELINE:-}
  if [ -z "$baseline" ]; then
    baseline=0
    case "$target" in
      x86_64-*-linux-* | x86_64-*-windows-*) if [ "$profile" = release ]; then baseline=1; fi ;;
    esac
  fi
  rm -f "$out/dossier-local-model-worker-baseline-$target$suffix"
  if [ "$baseline" = 1 ]; then
    cp "$(build_one "$target" baseline)" "$out/dossier-local-model-worker-baseline-$target$suffix"
  fi
fi
shopt -s nullglob
for built in "$out"/dossier-local-model-worker-"$target"* "$out"/dossier-local-model-worker-baseline-"$target"*; do
  echo "Local model worker built in $((SECONDS - started)) s: $built, $(stat -c %s "$built" 2>/dev/null || stat -f %z "$built") bytes"
done
