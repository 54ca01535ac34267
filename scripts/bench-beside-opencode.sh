#!/usr/bin/env bash
# Dossier's server beside real OpenCode, the same HTTP workload in one go, with the floor the
# machine allows printed beside every figure:
#
#   DOSSIER_SERVER_BIN=target/release/dossier-server bash scripts/bench-beside-opencode.sh
#
# Runs the shared side-by-side bench (`../shared/tools/opencode-bench/bench_opencode.sh`, beside
# the checkout: it installs `opencode-ai` from npm and starts a fake OpenAI-compatible provider)
# for OpenCode, then for dossier-server; then starts each server again, fresh, and measures its
# floor with `scripts/bench-floor.py`: an empty request (`GET /path`) and one fsync on the data
# folder's disk. The table at the end gives each figure in milliseconds and as a multiple of the
# empty request. Knobs: the shared bench's (`N_PROMPTS`, `N_MESSAGES`, `N_SESSIONS`,
# `REPLY_RUNS`, `REPS`, …; defaults here: 300 prompts, 1,000 messages, 300 sessions, 5 replies).
# Loopback only; prints figures and asserts nothing. Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
repository=$PWD
bench=${OPENCODE_BENCH:-$repository/../shared/tools/opencode-bench}
[ -f "$bench/bench_opencode.sh" ] || { echo "the shared bench is not at $bench (OPENCODE_BENCH=…)" >&2; exit 1; }
server=${DOSSIER_SERVER_BIN:-$repository/target/release/dossier-server}
[ -x "$server" ] || { echo "no release dossier-server at $server: cargo build --release -p dossier-server, or set DOSSIER_SERVER_BIN" >&2; exit 1; }
case "$server" in /*) ;; *) server=$repository/$server ;; esac

export SKIP_SAMPLES=1 RESTART_CHECK=0
export N_PROMPTS=${N_PROMPTS:-300} N_MESSAGES=${N_MESSAGES:-1000} N_SESSIONS=${N_SESSIONS:-300}
export REPLY_RUNS=${REPLY_RUNS:-5} REPS=${REPS:-20}
oc_root=${OC_ROOT:-$HOME/.cache/oc-anchor}
results=$(mktemp -d /tmp/dossier-beside-opencode.XXXXXX)
echo "== results in $results"

printf '\n==> OpenCode\n'
RESULTS=$results/opencode LABEL=opencode bash "$bench/bench_opencode.sh" >"$results/opencode.log" 2>&1 || {
  tail -n 30 "$results/opencode.log"; exit 1; }
grep '^\[' "$results/opencode.log" || true

printf '\n==> dossier-server (%s)\n' "$server"
data=$(mktemp -d /tmp/dossier-beside-opencode-data.XXXXXX)
SERVER_CMD="DOSSIER_DATA_DIR=$data DOSSIER_CONFIG=\$OPENCODE_CONFIG DOSSIER_SERVER_PASSWORD= exec $server --hostname 127.0.0.1 --port \$OC_PORT" \
  RESULTS=$results/dossier LABEL=dossier LISTEN_PATTERN='dossier server listening' \
  bash "$bench/bench_opencode.sh" >"$results/dossier.log" 2>&1 || { tail -n 30 "$results/dossier.log"; exit 1; }
grep '^\[' "$results/dossier.log" || true
rm -rf "$data"

# The floor of each server: started fresh on a free port, an empty request over one keep-alive
# connection, and fsyncs in a folder beside its data.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for_port() {
  local port=$1
  for _ in $(seq 1 600); do
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listened on port $port" >&2
  return 1
}
# The fake provider alone, for the floor under "first text after the POST": its own time from a
# streamed request to its first text chunk (Python's http.server, a thread per request).
provider_port=$(free_port)
python3 "$bench/fake_openai.py" --port "$provider_port" >"$results/provider-floor.log" 2>&1 &
provider_pid=$!
trap 'kill "$provider_pid" 2>/dev/null || true' EXIT
measure_floor() {  # $1 label, $2 port, $3 pid, $4 data folder
  wait_for_port "$2"
  wait_for_port "$provider_port"
  sleep 1
  python3 scripts/bench-floor.py --base "http://127.0.0.1:$2" --folder "$4" \
    --provider "http://127.0.0.1:$provider_port" --json "$results/floor-$1.json" | sed "s/^/[$1] /"
  kill "$3" 2>/dev/null || true
  wait "$3" 2>/dev/null || true
}

printf '\n==> The floor\n'
port=$(free_port)
opencode_data=$(mktemp -d /tmp/dossier-beside-opencode-oc.XXXXXX)
python3 "$bench/make_config.py" 1 "$opencode_data/opencode.json"
(
  # shellcheck source=/dev/null
  OC_ROOT=$oc_root source "$bench/env.sh" >/dev/null
  export XDG_DATA_HOME=$opencode_data/share OPENCODE_CONFIG=$opencode_data/opencode.json
  export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1
  export OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_SHARE=1
  cd "$oc_root/proj" && exec "$OPENCODE_BIN" serve --hostname 127.0.0.1 --port "$port"
) >"$results/opencode-floor.log" 2>&1 &
measure_floor opencode "$port" $! "$opencode_data"
port=$(free_port)
dossier_data=$(mktemp -d /tmp/dossier-beside-opencode-dd.XXXXXX)
DOSSIER_DATA_DIR=$dossier_data DOSSIER_SERVER_PASSWORD='' "$server" --hostname 127.0.0.1 --port "$port" >"$results/dossier-floor.log" 2>&1 &
measure_floor dossier "$port" $! "$dossier_data"
rm -rf "$opencode_data" "$dossier_data"

printf '\n==> Side by side (p50 / p99 ms; × = multiple of that server'"'"'s empty request)\n'
python3 - "$results" <<'EOF'
import json, os, sys
results = sys.argv[1]
def load(name):
    path = os.path.join(results, name)
    return json.load(open(path)) if os.path.exists(path) else {}
opencode, dossier = load("opencode/results.json"), load("dossier/results.json")
floors = {"opencode": load("floor-opencode.json"), "dossier": load("floor-dossier.json")}
rows = [
    ("noReply prompt (text + file)", "noreply_prompts"),
    ("GET /session/:id/message (1,000 messages)", "get_messages"),
    ("GET /session (100 of the sessions)", "list_sessions"),
    ("POST /session", "session_create"),
]
def cell(figures, floor):
    if not figures:
        return "n/a"
    empty = floor.get("empty_request", {}).get("p50_ms")
    times = f" ({figures['p50_ms'] / empty:.1f}×)" if empty else ""
    return f"{figures['p50_ms']:.2f} / {figures['p99_ms']:.2f}{times}"
print(f"{'':44}{'OpenCode':>28}{'dossier-server':>28}")
for label, key in rows:
    print(f"{label:44}{cell(opencode.get(key), floors['opencode']):>28}{cell(dossier.get(key), floors['dossier']):>28}")
def first_text(run_set):
    # The first text part of the reply on /event, after the POST; the first run (a cold
    # connection to the provider) left out, as the shared bench's own warm median does.
    value = (run_set or {}).get("reply_first_text_warm_median_ms")
    return f"{value:.1f}" if value is not None else "n/a"
print(f"{'first text event after the POST (warm median)':44}{first_text(opencode):>28}{first_text(dossier):>28}")
for name in ("opencode", "dossier"):
    floor = floors[name]
    if floor:
        print(f"floor, {name}: empty request p50 {floor['empty_request']['p50_ms']:.3f} ms (p99 {floor['empty_request']['p99_ms']:.3f}); "
              f"fsync p50 {floor['fsync']['p50_ms']:.3f} ms (p99 {floor['fsync']['p99_ms']:.3f})")
provider = floors["dossier"].get("provider_first_chunk")
if provider:
    print(f"floor, the fake provider alone: first text chunk of a streamed request p50 {provider['p50_ms']:.2f} ms "
          f"(p99 {provider['p99_ms']:.2f}), a new connection each time")
EOF
echo "== everything in $results"
