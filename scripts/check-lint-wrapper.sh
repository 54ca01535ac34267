#!/usr/bin/env bash
# Proves that the lint settings test-all.sh exports (RUSTC_WORKSPACE_WRAPPER=clippy-driver and
# CLIPPY_ARGS) really fail a build on a clippy warning: a throwaway crate with one lint must not
# build, the same crate without it must. Without this, a changed clippy or an empty variable
# would let every later build pass unlinted and nobody would notice.
#
#   RUSTC_WORKSPACE_WRAPPER=$(command -v clippy-driver) \
#   CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__ bash scripts/check-lint-wrapper.sh
set -euo pipefail
[ -n "${RUSTC_WORKSPACE_WRAPPER:-}" ] || { echo "RUSTC_WORKSPACE_WRAPPER is not set" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/src"
cat >"$scratch/Cargo.toml" <<'TOML'
[package]
name = "lint-wrapper-check"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]
TOML
build() { CARGO_TARGET_DIR="$scratch/target" cargo build --quiet --manifest-path "$scratch/Cargo.toml" 2>"$scratch/log"; }
# clippy::len_zero, a warning by default: only `-D warnings` makes it fail the build.
printf 'fn main() {\n    let words: Vec<String> = std::env::args().collect();\n    println!("{}", words.len() == 0);\n}\n' >"$scratch/src/main.rs"
if build; then
  echo "A crate with a clippy warning built: the lint wrapper does not deny warnings." >&2
  exit 1
fi
if ! grep -q "len_zero" "$scratch/log"; then
  echo "The crate failed to build, but not because of clippy:" >&2
  cat "$scratch/log" >&2
  exit 1
fi
printf 'fn main() {\n    let words: Vec<String> = std::env::args().collect();\n    println!("{}", words.is_empty());\n}\n' >"$scratch/src/main.rs"
if ! build; then
  echo "A crate without warnings failed to build under the lint wrapper:" >&2
  cat "$scratch/log" >&2
  exit 1
fi
echo "The lint wrapper denies clippy warnings (checked on a throwaway crate)."
