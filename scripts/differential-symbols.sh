#!/usr/bin/env bash
# Differential of symbol ranges (issue 31): OpenCode with real language servers
# (typescript-language-server + pyright from npm, its own downloads switched off)
# against dossier-server, both on free 127.0.0.1 ports with fresh data dirs.
# The same noReply prompts with `file://…?start=N&end=N` drafts go to both; the
# stored user-message parts are compared by scripts/differential-symbols.py.
# Exit 0: every case matched; 1: a difference; 2: OpenCode's language servers
# never answered (nothing measured); other: setup failure.
#
# Env: DOSSIER_SERVER_BIN (default target/debug/dossier-server of this checkout,
#   else /work/main's), OC_ROOT (OpenCode 1.18.x installed by npm; default
#   ~/.cache/oc-anchor, see /work/shared/tools/opencode-bench), LSP_TOOLS (folder
#   with typescript-language-server, typescript and pyright from npm; installed
#   there with npm when missing; typescript@5, because typescript 7 ships no
#   tsserver.js, which typescript-language-server needs), KEEP=1 keeps the work
#   folder, PARTS_OUT=file copies every case's parts there, READY_TIMEOUT=120
#   (seconds to wait per language for OpenCode to widen a top-level function).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OC_ROOT=${OC_ROOT:-$HOME/.cache/oc-anchor}
LSP_TOOLS=${LSP_TOOLS:-/work/differential-tools}
PY=${PYTHON:-python3}
DOSSIER_SERVER_BIN=${DOSSIER_SERVER_BIN:-}
if [ -z "$DOSSIER_SERVER_BIN" ]; then
  for candidate in "$REPO/target/debug/dossier-server" /work/main/target/debug/dossier-server; do
    [ -x "$candidate" ] && { DOSSIER_SERVER_BIN=$candidate; break; }
  done
fi
[ -x "${DOSSIER_SERVER_BIN:-}" ] || { echo "dossier-server not found; set DOSSIER_SERVER_BIN" >&2; exit 3; }

OPENCODE_BIN=
for candidate in "$OC_ROOT"/node_modules/opencode-linux-x64/bin/opencode \
                 "$OC_ROOT"/node_modules/opencode-linux-x64-baseline/bin/opencode \
                 "$OC_ROOT"/node_modules/opencode-linux-arm64/bin/opencode; do
  [ -x "$candidate" ] && { OPENCODE_BIN=$candidate; break; }
done
[ -n "$OPENCODE_BIN" ] || { echo "OpenCode not installed under $OC_ROOT (see /work/shared/tools/opencode-bench)" >&2; exit 3; }

if [ ! -x "$LSP_TOOLS/node_modules/.bin/typescript-language-server" ] || \
   [ ! -x "$LSP_TOOLS/node_modules/.bin/pyright-langserver" ] || \
   [ ! -f "$LSP_TOOLS/node_modules/typescript/lib/tsserver.js" ]; then
  echo "== npm install typescript-language-server typescript pyright into $LSP_TOOLS"
  mkdir -p "$LSP_TOOLS"
  (cd "$LSP_TOOLS" && { [ -f package.json ] || npm init -y >/dev/null; } && \
    npm install --no-audit --no-fund typescript-language-server typescript@5 pyright >/dev/null)
fi
TS_LS=$LSP_TOOLS/node_modules/.bin/typescript-language-server
PYRIGHT_LS=$LSP_TOOLS/node_modules/.bin/pyright-langserver
TSSERVER=$LSP_TOOLS/node_modules/typescript/lib/tsserver.js

WORK=$(mktemp -d /tmp/differential-symbols.XXXXXX)
PROJECT=$WORK/project
mkdir -p "$PROJECT" "$WORK/opencode-data" "$WORK/opencode-state" "$WORK/dossier-data"

PIDS=()
# shellcheck disable=SC2317  # called from the EXIT trap
stop_pid() {  # TERM twice (OpenCode may swallow the first), then KILL; only our own PIDs
  local pid=$1 _
  kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
# shellcheck disable=SC2317  # the EXIT trap
cleanup() {
  local pid
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && stop_pid "$pid"; done
  if [ "${KEEP:-0}" = 1 ]; then echo "== kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The project: lock and pyproject files are the roots OpenCode's typescript and
# pyright entries look for.
cat >"$PROJECT/package.json" <<'EOF'
{ "name": "differential-symbols", "version": "0.1.0", "private": true }
EOF
cat >"$PROJECT/package-lock.json" <<'EOF'
{ "name": "differential-symbols", "version": "0.1.0", "lockfileVersion": 3, "requires": true,
  "packages": { "": { "name": "differential-symbols", "version": "0.1.0" } } }
EOF
cat >"$PROJECT/tsconfig.json" <<'EOF'
{ "compilerOptions": { "target": "es2022", "experimentalDecorators": true, "strict": true } }
EOF
printf '[project]\nname = "differential-symbols"\nversion = "0.1.0"\n' >"$PROJECT/pyproject.toml"
(cd "$PROJECT" && git init -q && git add -A && \
  git -c user.email=differential@localhost -c user.name=differential commit -qm init)

# A model is needed only to name one; noReply prompts never call it.
FAKE_PORT=$(free_port)
"$PY" /work/shared/tools/opencode-bench/make_config.py "$FAKE_PORT" "$WORK/dossier-config.json"
"$PY" - "$WORK/dossier-config.json" "$WORK/opencode.json" "$TS_LS" "$PYRIGHT_LS" "$TSSERVER" <<'EOF'
import json, sys
source, out, ts_ls, pyright_ls, tsserver = sys.argv[1:]
config = json.load(open(source))
# Override the built-in entries by id: the same ids, our local binaries, no
# download or npm install on demand (OpenCode's built-in typescript entry would
# otherwise fetch typescript-language-server through its own npm wrapper).
config["lsp"] = {
    "typescript": {"command": [ts_ls, "--stdio"],
                   "extensions": [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"],
                   "initialization": {"tsserver": {"path": tsserver}}},
    "pyright": {"command": [pyright_ls, "--stdio"], "extensions": [".py", ".pyi"]},
}
json.dump(config, open(out, "w"), indent=2)
EOF
"$PY" /work/shared/tools/opencode-bench/fake_openai.py --port "$FAKE_PORT" >"$WORK/fake.log" 2>&1 </dev/null &
PIDS+=($!)

OC_PORT=$(free_port)
(
  cd "$PROJECT"
  export HOME=$OC_ROOT/home
  export XDG_CONFIG_HOME=$HOME/.config XDG_CACHE_HOME=$HOME/.cache
  export XDG_DATA_HOME=$WORK/opencode-data XDG_STATE_HOME=$WORK/opencode-state
  export OPENCODE_CONFIG=$WORK/opencode.json
  export OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1
  export OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_CLAUDE_CODE=1
  export OPENCODE_DISABLE_EXTERNAL_SKILLS=1 no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost
  exec "$OPENCODE_BIN" serve --hostname 127.0.0.1 --port "$OC_PORT" --print-logs --log-level DEBUG
) >"$WORK/opencode.log" 2>&1 </dev/null &
PIDS+=($!)

DOSSIER_PORT=$(free_port)
(
  cd "$PROJECT"
  export DOSSIER_DATA_DIR=$WORK/dossier-data DOSSIER_CONFIG=$WORK/dossier-config.json
  exec "$DOSSIER_SERVER_BIN" --hostname 127.0.0.1 --port "$DOSSIER_PORT"
) >"$WORK/dossier.log" 2>&1 </dev/null &
PIDS+=($!)

echo "== OpenCode $("$OPENCODE_BIN" --version </dev/null) on 127.0.0.1:$OC_PORT, dossier-server ($DOSSIER_SERVER_BIN) on 127.0.0.1:$DOSSIER_PORT"
echo "== typescript-language-server $("$TS_LS" --version), typescript $(node -p "require('$LSP_TOOLS/node_modules/typescript/package.json').version"), pyright $(node -p "require('$LSP_TOOLS/node_modules/pyright/package.json').version")"
status=0
"$PY" "$REPO/scripts/differential-symbols.py" --opencode "http://127.0.0.1:$OC_PORT" \
  --dossier "http://127.0.0.1:$DOSSIER_PORT" --project "$PROJECT" --json "$WORK/parts.json" \
  --ready-timeout "${READY_TIMEOUT:-120}" || status=$?
echo "== OpenCode's LSP log lines:"
grep -iE 'lsp|language|pyright|typescript' "$WORK/opencode.log" | grep -viE 'lsp_ready|"lsp"' | cut -c1-240 | head -20 || true
if [ "$status" = 2 ]; then echo "== FAIL: OpenCode recorded nothing from its language servers"; fi
if [ -n "${PARTS_OUT:-}" ] && [ -f "$WORK/parts.json" ]; then cp "$WORK/parts.json" "$PARTS_OUT"; fi
exit "$status"
