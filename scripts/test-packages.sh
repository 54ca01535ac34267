#!/usr/bin/env bash
# The installed app, not the build tree, and an update from one .deb to the next:
#
#   bash scripts/test-packages.sh
#
# 1. Builds version N's .deb and .rpm and version N+1's .deb from this tree with `tauri build
#    --debug` (the debug build the other tests already made, so only the app crate recompiles),
#    N+1 by raising the version in a --config file and signing it as the release workflow does
#    (src-tauri/packaging/updater.conf.json) with a throwaway key from `tauri signer generate`.
#    Both test builds point the updater at a release server on 127.0.0.1 over plain HTTP and
#    trust the throwaway key: that exists only in these builds' --config, never in
#    tauri.conf.json.
# 2. Checks the packages: `apt-get install ./Dossier_*.deb` resolves the dependencies from the
#    system's apt sources, `dossier` is on PATH, the desktop entry validates and its icon exists,
#    `rpm -qip` is printed, `rpm -qp --requires` names the libraries and `rpm -qlp` the entry.
# 3. Runs tests/package-e2e/installed_app_test.py: /usr/bin/dossier under Xvfb with a fresh HOME
#    draws its window and keeps its data in the XDG data folder; the update is found, a tampered
#    signature is refused, the right one downloads with progress, installs and comes back as N+1.
# 4. `apt-get remove dossier` leaves the person's data in place.
#
# Installs the package as root (sudo when not root) and removes it at the end. polkit's `pkexec`,
# which the updater asks to run `dpkg -i`, is replaced on the app's PATH by a stand-in that runs
# the command as this user (root, or through sudo): the password prompt is the one thing not
# exercised. Screenshots go to tests/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

step() { printf '\n==> %s\n' "$*"; }
started=$SECONDS

# shellcheck source=scripts/system-packages.sh
source scripts/system-packages.sh
# shellcheck source=scripts/desktop-session.sh
source scripts/desktop-session.sh
install_missing_system_packages xvfb xauth webkit2gtk-driver dbus-daemon desktop-file-utils rpm

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
if command -v tauri-driver >/dev/null; then :; else
  step "Installing tauri-driver (about a minute)"
  cargo install tauri-driver --locked --version '^2'
fi
tauri=(node "$root/ui/node_modules/@tauri-apps/cli/tauri.js")
# shellcheck source=scripts/npm-packages.sh
source scripts/npm-packages.sh
install_npm_packages ui

work=$(mktemp -d)
pids=()
# The app restarted by the update is nobody's child: found by its binary (" (deleted)" once the
# package is removed) and this run's HOME, so nothing else is ever touched.
restarted_apps() {
  local process
  for process in /proc/[0-9]*; do
    case "$(readlink "$process/exe" 2>/dev/null)" in
      /usr/bin/dossier | "/usr/bin/dossier (deleted)")
        grep -qzx "HOME=$work/home" "$process/environ" 2>/dev/null && echo "${process#/proc/}"
        ;;
    esac
  done
  return 0
}
cleanup() {
  for pid in $(restarted_apps) "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if dossier_package_installed dossier; then "${as_root[@]}" apt-get remove -y -qq dossier >/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if dossier_package_installed dossier; then
  echo "A dossier package is installed on this machine; this test installs and removes its own. Remove it first." >&2
  exit 1
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
version=$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "dossier"))')
next_version=$(python3 -c 'import sys; major, minor, patch = sys.argv[1].split("-")[0].split(".")[:3]; print(".".join([major, minor, str(int(patch) + 1)]))' "$version")

step "Throwaway signing key and the test builds' updater config (N $version, N+1 $next_version)"
mkdir -p "$work/keys" "$work/n" "$work/next" "$work/bin" "$work/home"
"${tauri[@]}" signer generate --ci --password "" --write-keys "$work/keys/update.key" >/dev/null
python3 - "$work" "$port" "$next_version" <<'PY'
import json, sys
work, port, next_version = sys.argv[1:4]
updater = {
    "pubkey": open(f"{work}/keys/update.key.pub").read().strip(),
    "endpoints": [f"http://127.0.0.1:{port}/latest.json"],
    "dangerousInsecureTransportProtocol": True,
}
json.dump({"plugins": {"updater": updater}}, open(f"{work}/n.json", "w"))
json.dump({"version": next_version, "plugins": {"updater": updater}}, open(f"{work}/next.json", "w"))
PY

step "Building the UI"
(cd ui && npm run --silent build)

build_started=$SECONDS
# The Tauri CLI builds where CARGO_TARGET_DIR says, as cargo does.
bundle=${CARGO_TARGET_DIR:-target}/debug/bundle
step "Building version $version: .deb and .rpm (tauri build --debug)"
rm -rf "$bundle"/deb "$bundle"/rpm
# `--workspace` after `--` (for cargo; the CLI adds `--bins`): the same selection as scripts/build-debug-binaries.sh,
# which the window test has built, so the shared crates are not recompiled with other features.
"${tauri[@]}" build --debug --ci --bundles deb,rpm --config "$work/n.json" -- --workspace
cp "$bundle"/deb/*.deb "$bundle"/rpm/*.rpm "$work/n/"

step "Building version $next_version: .deb, signed by the bundler with the throwaway key"
rm -rf "$bundle"/deb
# As the release workflow signs when TAURI_SIGNING_PRIVATE_KEY is set: the same updater.conf.json
# (createUpdaterArtifacts), so the .deb.sig is the bundler's, bound to the version.
TAURI_SIGNING_PRIVATE_KEY="$(cat "$work/keys/update.key")" TAURI_SIGNING_PRIVATE_KEY_PASSWORD="" \
  "${tauri[@]}" build --debug --ci --bundles deb --config "$work/next.json" \
  --config src-tauri/packaging/updater.conf.json -- --workspace
cp "$bundle"/deb/*.deb "$bundle"/deb/*.deb.sig "$work/next/"
next_deb=$(ls "$work"/next/*.deb)
echo "Both builds took $((SECONDS - build_started)) s"
deb=$(ls "$work"/n/*.deb)
rpm_file=$(ls "$work"/n/*.rpm)
ls -l "$deb" "$rpm_file" "$next_deb"

step "apt-get install ./$(basename "$deb")"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb"
[ "$(command -v dossier)" = /usr/bin/dossier ] || { echo "dossier is not on PATH as /usr/bin/dossier" >&2; exit 1; }
echo "dossier on PATH: $(command -v dossier); Depends: $(dpkg-query --show --showformat='${Depends}' dossier)"

step "Desktop entry and icon"
entry=/usr/share/applications/Dossier.desktop
desktop-file-validate "$entry"
icon=$(sed -n 's/^Icon=//p' "$entry")
exec_line=$(sed -n 's/^Exec=//p' "$entry")
[ "$exec_line" = dossier ] || { echo "Exec=$exec_line, expected dossier" >&2; exit 1; }
for size in 32x32 128x128 256x256@2 512x512; do
  [ -f "/usr/share/icons/hicolor/$size/apps/$icon.png" ] ||
    { echo "no $size icon for Icon=$icon" >&2; find /usr/share/icons/hicolor -name "$icon*" >&2; exit 1; }
done
echo "$entry validates; Icon=$icon exists at 32, 128, 256@2 and 512"

step "The .rpm's metadata (rpm -qip, --requires, the desktop entry)"
rpm -qip "$rpm_file" 2>/dev/null
requires=$(rpm -qp --requires "$rpm_file" 2>/dev/null)
echo "$requires"
# By library (soname), which dnf resolves to Fedora's webkit2gtk4.1 and gtk3 (and zypper to
# openSUSE's own names): the .deb's libwebkit2gtk-4.1-0 and libgtk-3-0.
for needed in 'libwebkit2gtk-4.1.so.0()(64bit)' 'libgtk-3.so.0()(64bit)'; do
  grep -qxF "$needed" <<<"$requires" || { echo "the .rpm does not require $needed" >&2; exit 1; }
done
# Captured first: `grep -q` stopping early would fail the pipeline with rpm's SIGPIPE.
files=$(rpm -qlp "$rpm_file" 2>/dev/null)
grep -qx "$entry" <<<"$files" || { echo "the .rpm lacks $entry" >&2; exit 1; }
echo "the .rpm requires WebKitGTK 4.1 and GTK 3 and installs $entry"

step "Starting Xvfb, a session bus and tauri-driver (fresh HOME $work/home)"
start_virtual_display "$work"
start_session_bus "$work"

# What polkit's pkexec would do once the person typed the password: run the command as root.
cat >"$work/bin/pkexec" <<'SH'
#!/bin/sh
echo "pkexec $*" >>"$PKEXEC_LOG"
if [ "$(id -u)" -eq 0 ]; then exec "$@"; else exec sudo -n "$@"; fi
SH
chmod +x "$work/bin/pkexec"

webdriver_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# A person's environment, nothing of the test run's: a fresh HOME and no Dossier variables, so
# the app picks its folders itself. One exception: WebKit's compositing stays on, as in the
# window test (scripts/test-window.sh says why: WebDriver's screenshot hangs without it); that
# the app's own choice here, compositing off, draws the window is checked by
# scripts/test-run-command.sh from the X server's side.
env -i PATH="$work/bin:$PATH" HOME="$work/home" DISPLAY=":$display_number" \
  DBUS_SESSION_BUS_ADDRESS="$(cat "$work/dbus-address")" PKEXEC_LOG="$work/pkexec.log" \
  LANG=en_US.UTF-8 WEBKIT_FORCE_COMPOSITING_MODE=1 \
  tauri-driver --port "$webdriver_port" --native-port $((webdriver_port + 1)) >"$work/tauri-driver.log" 2>&1 &
pids+=($!)
wait_for_webdriver "$webdriver_port" || { echo "tauri-driver did not start" >&2; exit 1; }

step "The installed app and its update (tests/package-e2e/installed_app_test.py)"
mkdir -p tests/artifacts
touch "$work/pkexec.log"
status=0
HOME="$work/home" PKEXEC_LOG="$work/pkexec.log" python3 tests/package-e2e/installed_app_test.py \
  "http://127.0.0.1:$webdriver_port" "$root/tests/artifacts" "$deb" "$next_deb" "$next_deb.sig" \
  "$version" "$next_version" "$port" || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- tauri-driver log (last 40 lines) ---"
  tail -n 40 "$work/tauri-driver.log" || true
  echo "--- app log (last 40 lines) ---"
  tail -n 40 "$work/home/.local/share/app.dossier.desktop/logs/dossier.log" || true
  exit "$status"
fi

running=$(restarted_apps)
[ -n "$running" ] || { echo "no Dossier process is running after the restart into $next_version" >&2; exit 1; }
echo "Dossier $next_version is running after the update (pid $running); stopping it"
# shellcheck disable=SC2086 # one pid per word
kill $running

step "apt-get remove leaves the person's data"
"${as_root[@]}" apt-get remove -y -qq dossier
[ ! -e /usr/bin/dossier ] || { echo "/usr/bin/dossier is still there after apt-get remove" >&2; exit 1; }
kept="$work/home/.local/share/app.dossier.desktop"
[ -n "$(ls -A "$kept" 2>/dev/null)" ] || { echo "$kept is gone or empty after apt-get remove" >&2; exit 1; }
echo "removed; the data folders are still there:"
find "$work/home/.local/share" -mindepth 1 -maxdepth 1
echo "Packages tested in $((SECONDS - started)) s"
