#!/usr/bin/env bash
# Builds the Linux installers that can be built on this machine, the .deb and the .rpm, with the
# Tauri CLI, and prints each file's size:
#
#   bash scripts/package.sh                  # profile `packaging` (thin LTO, quicker)
#   PROFILE=release bash scripts/package.sh  # what a release ships (fat LTO, one codegen unit)
#
# The AppImage is left out: its bundler downloads AppRun and linuxdeploy from GitHub while it
# builds, and only package registries are reachable here. The release workflow builds it.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${PROFILE:-packaging}
tauri=(npm --prefix ui exec --no -- tauri)

# shellcheck source=scripts/npm-packages.sh
source scripts/npm-packages.sh
install_npm_packages ui
# The shell embeds ui/dist at compile time.
(cd ui && npm run --silent build)

# CARGO_TARGET_DIR is honoured (the Tauri CLI builds there) so a packaging build can run beside a
# debug build without waiting on its lock.
bundle_dir=${CARGO_TARGET_DIR:-target}/$profile/bundle
rm -rf "$bundle_dir/deb" "$bundle_dir/rpm"

started=$SECONDS
# Arguments after `--` go to cargo; the CLI reads `--profile` from them to find the binary.
# `-p dossier`: the CLI would otherwise build every default member of the workspace, and
# dossier-server's `postgres` feature of dossier-core would then reach the app's build too
# (features are unified per build), linking sqlx's Postgres driver into what people install.
cargo_args=(-p dossier)
if [ "$profile" != release ]; then
  cargo_args+=(--profile "$profile")
fi
# The local model worker ships beside the app as an external binary (built first, same profile).
# A release build also makes the baseline worker for older processors; both then ship.
bash scripts/build-local-model-worker.sh "$profile"
overlay=src-tauri/packaging/local-model-worker.conf.json
if compgen -G "src-tauri/binaries/dossier-local-model-worker-baseline-*" >/dev/null; then
  overlay=src-tauri/packaging/local-model-worker-baseline.conf.json
fi
"${tauri[@]}" build --ci --bundles deb,rpm --config "$overlay" -- "${cargo_args[@]}"
echo "Built in $((SECONDS - started)) s (profile $profile)"

shopt -s nullglob
packages=("$bundle_dir"/deb/*.deb "$bundle_dir"/rpm/*.rpm)
[ ${#packages[@]} -eq 2 ] || { echo "expected one .deb and one .rpm under $bundle_dir" >&2; exit 1; }
for package in "${packages[@]}"; do
  bytes=$(stat -c %s "$package")
  awk -v bytes="$bytes" -v name="$package" 'BEGIN { printf "%8.2f MiB  %10d B  %s\n", bytes / 1048576, bytes, name }'
done
