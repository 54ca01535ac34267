#!/usr/bin/env bash
# The fuzz targets' smoke test for CI: installs what they need (the nightly toolchain and
# cargo-fuzz, each only when missing), builds every target in fuzz/ and runs each briefly over
# the committed seed corpus (FUZZ_RUNS, default 2000 executions, at most FUZZ_MAX_TIME seconds).
# It proves the targets build and their seeds pass; the real campaign is scripts/fuzz.sh (see
# docs/fuzzing.md). Exits non-zero on a build failure or any crash, hang or oversized allocation.
#
#   bash scripts/test-fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."

command -v rustup >/dev/null || { echo "rustup not found: the fuzz targets need a nightly toolchain" >&2; exit 1; }
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  # Downloads from static.rust-lang.org; an offline machine must have nightly installed already.
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

# The fuzz workspace is outside the main one, so the main `cargo fmt --all` does not see it.
(cd fuzz && cargo fmt --check)

# The campaign's release build (an unoptimised one, FUZZ_PROFILE=dev, took longer to build and its
# SQLite targets ran slowly: docs/fuzzing.md), but at opt-level 1: the smoke run proves the targets
# build and their seeds pass, which needs no more, and the cold build at the default opt-level 3
# took 13 min 45 s of a CI run on 2 cores. The campaign (scripts/fuzz.sh alone) keeps opt-level 3.
# cargo-fuzz sets only the profile's debug info on its command line, so the variable applies.
CARGO_PROFILE_RELEASE_OPT_LEVEL=${CARGO_PROFILE_RELEASE_OPT_LEVEL:-1} \
  FUZZ_PROFILE=${FUZZ_PROFILE:-release} FUZZ_RUNS=${FUZZ_RUNS:-2000} FUZZ_MAX_TIME=${FUZZ_MAX_TIME:-60} \
  bash scripts/fuzz.sh
