#!/usr/bin/env bash
# What the window tests start before a desktop app can run headless: a virtual display (Xvfb), a
# private D-Bus session bus, and a wait for tauri-driver. Sourced by test-window.sh and
# test-packages.sh, which keep every started process in their `pids` array and stop them on exit.

# Starts Xvfb on a free display number; sets `display_number`. Logs to "$1/xvfb.log".
start_virtual_display() {
  local work=$1
  display_number=$((90 + RANDOM % 9))
  while [ -e "/tmp/.X11-unix/X$display_number" ]; do display_number=$((display_number + 1)); done
  Xvfb ":$display_number" -screen 0 1280x800x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$display_number" ] && break; sleep 0.1; done
}

# A private session bus, as a desktop session has (GTK and WebKit talk to it). It has no Secret
# Service, so the app sees "no keychain" as CI machines do. Its address goes to "$1/dbus-address".
start_session_bus() {
  local work=$1
  dbus-daemon --session --fork --nopidfile --print-address=3 --print-pid=4 \
    3>"$work/dbus-address" 4>"$work/dbus-pid"
  pids+=("$(cat "$work/dbus-pid")")
}

# Waits (up to 20 s) until the WebDriver server on 127.0.0.1:$1 answers its status.
wait_for_webdriver() {
  local port=$1
  for _ in $(seq 100); do
    python3 -c 'import http.client, sys
try:
    connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=1)
    connection.request("GET", "/status")
    sys.exit(0 if connection.getresponse().status == 200 else 1)
except OSError:
    sys.exit(1)' "$port" && return 0
    sleep 0.2
  done
  return 1
}
