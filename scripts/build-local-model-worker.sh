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
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${1:-release}
host=$(rustc -vV | sed -n 's/^host: //p')
target=${2:-$host}
out=src-tauri/binaries
mkdir -p "$out"
suffix=""
case "$target" in *windows*) suffix=".exe" ;; esac

build_one() {
  local triple=$1 args=(build --locked -p dossier-local-model-worker)
  [ "$profile" = dev ] || args+=(--profile "$profile")
  [ "$triple" = "$host" ] || args+=(--target "$triple")
  cargo "${args[@]}" >&2
  local folder=${CARGO_TARGET_DIR:-target}
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
fi
for built in "$out"/dossier-local-model-worker-"$target"*; do
  echo "Local model worker built in $((SECONDS - started)) s: $built, $(stat -c %s "$built" 2>/dev/null || stat -f %z "$built") bytes"
done
