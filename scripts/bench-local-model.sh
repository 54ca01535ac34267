#!/usr/bin/env bash
# Dossier's local model worker beside llama.cpp's own llama-bench, in one run, on the same model
# and threads: prompt processing (pp512) and generation (tg128) in tokens per second.
#
#   bash scripts/bench-local-model.sh [MODEL.gguf]   # default: the test model (scripts/test-model.sh)
#   THREADS=2 REPETITIONS=5 bash scripts/bench-local-model.sh
#
# llama-bench is built from the SAME llama.cpp sources the worker links (llama-cpp-sys-2's vendored
# tree, copied out of Cargo's registry) with the same ggml options (.cargo/config.toml: AVX2, FMA,
# F16C, BMI2; no OpenMP, as the worker). That tree leaves out llama-bench's own two files, so they
# come from PyPI's llama-cpp-python 0.3.36 source package (`pip download --no-binary`). Built once
# into a cache outside the repository. The results go to docs/benchmarks.md by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

threads=${THREADS:-2}
repetitions=${REPETITIONS:-5}
if [ $# -ge 1 ]; then
  model=$1
else
  # shellcheck source=scripts/test-model.sh
  source scripts/test-model.sh
  model=$DOSSIER_TEST_MODEL
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/dossier-llama-bench"
target=${CARGO_TARGET_DIR:-target}

cargo build --locked -p dossier-local-model-worker --profile "${PROFILE:-dev}"
worker="$target/$([ "${PROFILE:-dev}" = dev ] && echo debug || echo "$PROFILE")/dossier-local-model-worker"

sys_tree=$(cargo metadata --format-version 1 --locked \
  | python3 -c 'import json, sys, os; print(next(os.path.dirname(p["manifest_path"]) for p in json.load(sys.stdin)["packages"] if p["name"] == "llama-cpp-sys-2"))')/llama.cpp
bench="$cache/tree/build/bin/llama-bench"
if [ ! -x "$bench" ]; then
  mkdir -p "$cache"
  python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python --dest "$cache" "llama-cpp-python==0.3.36"
  tar -xzf "$cache/llama_cpp_python-0.3.36.tar.gz" -C "$cache" llama_cpp_python-0.3.36/vendor/llama.cpp/tools/llama-bench
  rm -rf "$cache/tree"
  cp -a "$sys_tree" "$cache/tree"
  cp -a "$cache"/llama_cpp_python-0.3.36/vendor/llama.cpp/tools/llama-bench/. "$cache/tree/tools/llama-bench/"
  echo 'add_subdirectory(llama-bench)' > "$cache/tree/tools/CMakeLists.txt"
  started=$SECONDS
  cmake -S "$cache/tree" -B "$cache/tree/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
    -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_SSE42=ON \
    -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
    -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_MTMD=OFF -DLLAMA_BUILD_APP=OFF >/dev/null
  cmake --build "$cache/tree/build" --target llama-bench -j "$(nproc)" >/dev/null
  echo "llama-bench built in $((SECONDS - started)) s"
fi

printf '\n==> %s, %s threads, %s repetitions\n' "$(basename "$model")" "$threads" "$repetitions"
printf '\nllama-bench (llama.cpp, same sources):\n'
"$bench" -m "$model" -p 512 -n 128 -t "$threads" -r "$repetitions" -o md
printf '\nDossier worker (%s):\n' "$worker"
"$worker" --bench "$model" --threads "$threads" --prompt 512 --generate 128 --repetitions "$repetitions" 2>/dev/null
