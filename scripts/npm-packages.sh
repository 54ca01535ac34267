#!/usr/bin/env bash
# A function that installs a folder's npm packages with `npm ci` only when they are not already
# what its lockfile asks for. Sourced by run-app.sh and the test scripts.
#
# `npm ci` deletes node_modules and installs everything again (30 s to a minute per folder here),
# so running it unconditionally made every `bash scripts/run-app.sh` start with a reinstall, and
# the test run install the same folders twice. After a successful `npm ci` a stamp in
# node_modules records what it installed from: package.json, package-lock.json and the Node.js
# version (packages with native parts are built for one). Any change to them installs again.

install_npm_packages() {
  local folder=$1
  local stamp="$folder/node_modules/.dossier-installed-from"
  local wanted
  wanted=$({ node --version; cat "$folder/package.json" "$folder/package-lock.json"; } | sha256sum | cut -d ' ' -f 1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    echo "npm packages in $folder: already installed from its package-lock.json"
    return 0
  fi
  (cd "$folder" && npm ci --no-audit --no-fund --loglevel=error)
  printf '%s\n' "$wanted" >"$stamp"
}
