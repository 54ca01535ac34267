#!/usr/bin/env bash
# Dossier's local model worker beside llama.cpp's own llama-bench, in one run, on the same models
# and threads: prompt processing (pp512) and generation (tg128) in tokens per second, and the time
# to the first token of a 200-token prompt.
#
#   bash scripts/bench-local-model.sh              # SmolLM2-135M (the test model) and a
#                                                  # random-weights Qwen2.5-0.5B-shaped Q4_K_M
#   bash scripts/bench-local-model.sh MODEL.gguf   # one model of yours
#   THREADS=2 REPETITIONS=5 bash scripts/bench-local-model.sh
#   bash scripts/bench-local-model.sh --prepare    # only build and make the models (slow, once),
#                                                  # so the measuring run can have a quiet machine
#
# llama-bench and llama-quantize are built from the SAME llama.cpp sources the worker links
# (llama-cpp-sys-2's vendored tree, copied out of Cargo's registry) with the same ggml options
# (.cargo/config.toml: AVX2, FMA, F16C, BMI2; no OpenMP, as the worker). That tree leaves out the
# tools' own source files, so those come from PyPI's llama-cpp-python 0.3.36 source package
# (`pip download --no-binary`, llama.cpp a minor version older; the tools compile unchanged), as do
# the Qwen2 vocabulary file and the `gguf` Python package that scripts/make-random-qwen-model.py
# uses. Everything is built once into a cache outside the repository. The worker is built with the
# `release` profile, as shipped. The figures go to docs/benchmarks.md by hand.
#
# Figures, side by side:
#   pp512, tg128   llama-bench's measure, run by llama-bench and by `dossier-local-model-worker
#                  --bench` (the same loop through the worker's own build of llama.cpp).
#   first token    llama.cpp: llama-bench's `pp200+tg1` test, the compute alone. Dossier: the
#                  worker's whole path over its JSON lines (scripts/bench-first-token.py): the chat
#                  template, tokenising, a fresh context, the prompt, one sampled token, the line.
set -euo pipefail
cd "$(dirname "$0")/.."

threads=${THREADS:-2}
repetitions=${REPETITIONS:-5}
cache="${XDG_CACHE_HOME:-$HOME/.cache}/dossier-llama-bench"
target=${CARGO_TARGET_DIR:-target}
# numpy for the random model: Debian's package, for Debian's Python.
python=/usr/bin/python3
# shellcheck source=scripts/system-packages.sh
source scripts/system-packages.sh
install_missing_system_packages cmake g++ python3-numpy python3-yaml

cargo build --locked --release -p dossier-local-model-worker
worker="$target/release/dossier-local-model-worker"

sys_tree=$(cargo metadata --format-version 1 --locked \
  | python3 -c 'import json, sys, os; print(next(os.path.dirname(p["manifest_path"]) for p in json.load(sys.stdin)["packages"] if p["name"] == "llama-cpp-sys-2"))')/llama.cpp
python_tree="$cache/llama_cpp_python-0.3.36/vendor/llama.cpp"
bench="$cache/tree/build/bin/llama-bench"
quantize="$cache/tree/build/bin/llama-quantize"
if [ ! -x "$bench" ] || [ ! -x "$quantize" ]; then
  mkdir -p "$cache"
  [ -f "$cache/llama_cpp_python-0.3.36.tar.gz" ] \
    || python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python --dest "$cache" "llama-cpp-python==0.3.36"
  tar -xzf "$cache/llama_cpp_python-0.3.36.tar.gz" -C "$cache" \
    llama_cpp_python-0.3.36/vendor/llama.cpp/tools/llama-bench \
    llama_cpp_python-0.3.36/vendor/llama.cpp/tools/quantize \
    llama_cpp_python-0.3.36/vendor/llama.cpp/gguf-py \
    llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-qwen2.gguf
  # A tree already there (an earlier run that built one tool) is built on, not copied again.
  if [ ! -d "$cache/tree" ]; then
    cp -a "$sys_tree" "$cache/tree"
    chmod -R u+w "$cache/tree"
  fi
  cp -a "$python_tree/tools/llama-bench/." "$cache/tree/tools/llama-bench/"
  cp -a "$python_tree/tools/quantize/." "$cache/tree/tools/quantize/"
  printf 'add_subdirectory(llama-bench)\nadd_subdirectory(quantize)\n' > "$cache/tree/tools/CMakeLists.txt"
  started=$SECONDS
  cmake -S "$cache/tree" -B "$cache/tree/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
    -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_SSE42=ON \
    -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
    -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_MTMD=OFF -DLLAMA_BUILD_APP=OFF >/dev/null
  cmake --build "$cache/tree/build" --target llama-bench llama-quantize -j "$(nproc)" >/dev/null
  echo "llama-bench and llama-quantize built in $((SECONDS - started)) s"
fi

prepare_only=false
if [ "${1:-}" = --prepare ]; then
  prepare_only=true
  shift
fi
if [ $# -ge 1 ]; then
  models=("$@")
else
  # shellcheck source=scripts/test-model.sh
  source scripts/test-model.sh
  qwen="$cache/qwen2.5-0.5b-shape-random-Q4_K_M.gguf"
  if [ ! -f "$qwen" ]; then
    "$python" scripts/make-random-qwen-model.py "$python_tree" "$cache/qwen-random-f16.gguf"
    "$quantize" "$cache/qwen-random-f16.gguf" "$qwen" Q4_K_M >/dev/null 2>&1
    rm -f "$cache/qwen-random-f16.gguf"
  fi
  models=("$DOSSIER_TEST_MODEL" "$qwen")
fi
if $prepare_only; then
  printf 'ready: %s\n' "$bench" "$worker" "${models[@]}"
  exit 0
fi

printf '\n==> %s threads, %s repetitions; load %s; %s\n' "$threads" "$repetitions" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for model in "${models[@]}"; do
  llama_json=$("$bench" -m "$model" -p 512 -n 128 -pg 200,1 -t "$threads" -r "$repetitions" -o json 2>/dev/null)
  worker_json=$("$worker" --bench "$model" --threads "$threads" --prompt 512 --generate 128 --repetitions "$repetitions" 2>/dev/null)
  first_json=$(python3 scripts/bench-first-token.py "$worker" "$model" "$threads" "$repetitions" 200)
  LLAMA="$llama_json" WORKER="$worker_json" FIRST="$first_json" MODEL="$model" python3 - <<'PY'
import json, os
llama = json.loads(os.environ["LLAMA"])
worker = json.loads(os.environ["WORKER"])
first = json.loads(os.environ["FIRST"])
def test(prompt, generate):
    return next(row for row in llama if row["n_prompt"] == prompt and row["n_gen"] == generate)
pp, tg, pg = test(512, 0), test(0, 128), test(200, 1)
print(f"\n{os.path.basename(os.environ['MODEL'])} ({llama[0]['model_type']}, {llama[0]['model_size'] / 2**20:.0f} MiB)")
print(f"{'':14}{'llama-bench':>16}{'Dossier worker':>18}{'ratio':>8}")
print(f"{'pp512 tok/s':14}{pp['avg_ts']:>10.1f} ± {pp['stddev_ts']:<4.1f}{worker['pp_tokens_per_second']:>12.1f} ± {worker['pp_deviation']:<4.1f}{worker['pp_tokens_per_second'] / pp['avg_ts']:>7.2f}x")
print(f"{'tg128 tok/s':14}{tg['avg_ts']:>10.1f} ± {tg['stddev_ts']:<4.1f}{worker['tg_tokens_per_second']:>12.1f} ± {worker['tg_deviation']:<4.1f}{worker['tg_tokens_per_second'] / tg['avg_ts']:>7.2f}x")
llama_first = pg["avg_ns"] / 1e6
print(f"{'first token':14}{llama_first:>13.1f} ms{first['first_token_ms_median']:>15.1f} ms{first['first_token_ms_median'] / llama_first:>7.2f}x   (prompt {first['prompt_tokens']} tokens; Dossier's min {first['first_token_ms_min']} ms)")
PY
done
