#!/usr/bin/env bash
# The fuzzing campaign: builds every cargo-fuzz target in fuzz/ and runs each for a fixed number
# of executions from the committed seed corpus, with a fixed seed so a run can be repeated.
#
#   bash scripts/fuzz.sh                       # every target, FUZZ_RUNS executions each
#   bash scripts/fuzz.sh sse_stream data_url   # only these
#
# Settings (environment): FUZZ_RUNS (default 1000000), FUZZ_MAX_TIME seconds per target (default
# 1800), FUZZ_SEED (default 17), FUZZ_BUILD=0 to use the targets already built, FUZZ_PROFILE=dev
# for an unoptimised build (quicker to build, slower to run: the CI smoke test's choice).
# Limits: 1 GiB RSS and no single allocation over 1 GiB (fuzz/src/lib.rs), 10 s per input.
# The corpus is copied to a scratch folder first, so a run never dirties git; a crash is saved
# in fuzz/artifacts/<target>/ (gitignored) and replayed with
#   fuzz/target/x86_64-unknown-linux-gnu/release/<target> fuzz/artifacts/<target>/crash-…
# (or `cd fuzz && cargo +nightly fuzz run -a -s none <target> artifacts/<target>/crash-…`).
# Needs the nightly toolchain and cargo-fuzz (`scripts/test-fuzz.sh` installs both).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

runs=${FUZZ_RUNS:-1000000}
max_time=${FUZZ_MAX_TIME:-1800}
seed=${FUZZ_SEED:-17}
# Debug assertions on: an arithmetic overflow is a finding. No sanitizer: the core forbids
# `unsafe`, and the instrumentation would double the build for little (SQLite, the one C
# library, is not instrumented by cargo-fuzz either way).
build_flags=(-a --sanitizer none)
profile=${FUZZ_PROFILE:-release}
case "$profile" in
  release) ;;
  dev) build_flags+=(--dev); profile=debug ;;
  *) echo "FUZZ_PROFILE must be release or dev" >&2; exit 2 ;;
esac
triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
# cargo honours CARGO_TARGET_DIR; a fresh one is how a cold build is measured.
binaries="${CARGO_TARGET_DIR:-target}/$triple/$profile"

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

if [ "${FUZZ_BUILD:-1}" != 0 ]; then
  nice -n 10 cargo +nightly fuzz build "${build_flags[@]}" >&2
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=()
total=0
printf '%-16s %12s %8s %s\n' target executions seconds result
for target in "${targets[@]}"; do
  mkdir -p "$scratch/corpus/$target" "$scratch/tmp-$target" "artifacts/$target"
  cp -r "corpus/$target/." "$scratch/corpus/$target/"
  log="$scratch/$target.log"
  started=$(date +%s)
  # The search and import targets keep a scratch ledger under $TMPDIR.
  if TMPDIR="$scratch/tmp-$target" nice -n 10 "$binaries/$target" "$scratch/corpus/$target" \
      -runs="$runs" -max_total_time="$max_time" -seed="$seed" -rss_limit_mb=1024 \
      -timeout=10 -print_final_stats=1 \
      -artifact_prefix="artifacts/$target/" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (see below)"
    failed+=("$target")
  fi
  seconds=$(($(date +%s) - started))
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  executions=${executions:-0}
  total=$((total + executions))
  printf '%-16s %12s %8s %s\n' "$target" "$executions" "$seconds" "$result"
  if [ "$result" != ok ]; then
    grep -E 'panicked|ERROR|SUMMARY|Test unit written|allocation of|==fuzz==' "$log" | head -20 >&2 || true
  fi
  rm -rf "$scratch/tmp-$target" "$scratch/corpus/$target"
done
printf '%-16s %12s\n' total "$total"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found problems in: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
  exit 1
fi
