#!/usr/bin/env python3
"""The INSTALLED Dossier (/usr/bin/dossier from its .deb), driven through W3C WebDriver
(tauri-driver in front of WebKitWebDriver) under Xvfb with a fresh HOME, and an update of it from
version N to N+1 served by a release server on 127.0.0.1. Standard library only.

Run by scripts/test-packages.sh, which builds both .deb files, installs N, makes the throwaway
signing key and starts Xvfb and tauri-driver. What this driver checks:

1. The installed app opens a window that draws the UI, and keeps its data in the XDG data folder.
2. The start-up check (once a day) finds N+1; Settings shows "Dossier N+1 is ready" at once.
   The release server answers with a TAMPERED signature: the download is refused, the person
   sees why, the installed package is still N and the window still works.
3. Started again the same day, the app does not check by itself (the schedule held); the person
   clicks "Check for updates", the server now has the right signature: the download shows
   progress, verifies, "Restart to update" hands the package to the installer (pkexec → dpkg -i)
   and the app comes back as N+1 (read from the restarted process's log and from dpkg).

Usage: installed_app_test.py <webdriver-url> <artifacts-dir> <n.deb> <n+1.deb> <n+1.deb.sig>
       <version-n> <version-n+1> <port>
Prints "N passed, N failed" last; exits non-zero if anything failed.
"""

import base64
import glob
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "window-e2e"))
from window_test import WebDriver  # noqa: E402 - the shared minimal W3C client

APPLICATION = "/usr/bin/dossier"


def tampered(signature_file_text):
    """The .sig with one byte of the signature itself changed: still well-formed, never valid."""
    lines = base64.b64decode(signature_file_text).decode().split("\n")
    raw = bytearray(base64.b64decode(lines[1]))
    raw[-1] ^= 0x01
    lines[1] = base64.b64encode(bytes(raw)).decode()
    return base64.b64encode("\n".join(lines).encode()).decode()


class ReleaseServer:
    """latest.json and the N+1 .deb on 127.0.0.1; the package is sent in slices with short pauses
    so a person (and this test) can see the progress bar move."""

    def __init__(self, port, package, signature, version):
        self.package = open(package, "rb").read()
        self.good_signature = open(signature).read().strip()
        self.signature = tampered(self.good_signature)
        self.version = version
        self.requests = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802 - the http.server API
                server.requests.append(self.path)
                if self.path == "/latest.json":
                    body = json.dumps({
                        "version": server.version,
                        "notes": "Built by the update test.\nSecond line of the notes.",
                        "pub_date": "2026-12-01T12:00:00Z",
                        "platforms": {
                            "linux-x86_64-deb": {
                                "url": f"http://127.0.0.1:{port}/Dossier.deb",
                                "signature": server.signature,
                            }
                        },
                    }).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif self.path == "/Dossier.deb":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/vnd.debian.binary-package")
                    self.send_header("Content-Length", str(len(server.package)))
                    self.end_headers()
                    slices = 40
                    step = len(server.package) // slices + 1
                    for start in range(0, len(server.package), step):
                        self.wfile.write(server.package[start:start + step])
                        self.wfile.flush()
                        time.sleep(0.1)
                else:
                    self.send_response(404)
                    self.end_headers()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def sign_correctly(self):
        self.signature = self.good_signature


def installed_version():
    return subprocess.run(
        ["dpkg-query", "--show", "--showformat=${Version}", "dossier"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()


def main():
    webdriver_url, artifacts, _deb_n, deb_next, signature, version_n, version_next, port = sys.argv[1:9]
    os.makedirs(artifacts, exist_ok=True)
    home = os.environ["HOME"]
    data_home = os.path.join(home, ".local", "share")
    log = os.path.join(data_home, "app.dossier.desktop", "logs", "dossier.log")
    server = ReleaseServer(int(port), deb_next, signature, version_next)
    driver = WebDriver(webdriver_url)
    results = []

    def check(name, step):
        try:
            step()
            results.append((name, True))
            print(f"ok   {name}")
        except Exception as error:  # noqa: BLE001 - every failure is reported, then we go on
            results.append((name, False))
            print(f"FAIL {name}: {error}")
            traceback.print_exc(limit=2)

    def shot(name):
        driver.screenshot(os.path.join(artifacts, name))

    def open_settings():
        driver.click(driver.wait_for("[data-testid=open-settings]")[0])
        driver.wait_for("[data-testid=updates]")

    def attribute(css, name):
        element = driver.wait_for(css)[0]
        return driver.command("GET", f"/element/{element}/attribute/{name}")

    def window_draws_the_ui_and_data_goes_to_the_xdg_folder():
        driver.start(APPLICATION)
        driver.wait_for("[data-testid=new-session]", timeout=90)
        driver.click(driver.find_all("[data-testid=new-session]")[0])
        driver.wait_for("[data-testid=session-row]")
        shot("installed-01-window.png")
        # One data folder: the ledger beside the webview's storage and the log.
        ledger = os.path.join(data_home, "app.dossier.desktop", "dossier.db")
        assert os.path.isfile(ledger), f"no ledger at {ledger}: {glob.glob(os.path.join(data_home, '*'))}"
        assert not os.path.exists(os.path.join(data_home, "dossier")), "a ledger in the old folder too"
        assert os.path.isfile(log), f"no log at {log}"
        outside = [path for path in os.listdir(home) if path not in (".local", ".config", ".cache", ".dbus")]
        assert not outside, f"the app wrote outside the XDG folders of HOME: {outside}"

    def start_up_check_finds_the_update_and_a_tampered_signature_is_refused():
        # Seen without opening Settings: the sidebar's notice, which opens Settings at Updates.
        driver.wait_for("[data-testid=update-badge]", timeout=60)
        # textContent: WebKitWebDriver's visible text skips a label styled to ellipsise.
        label = driver.script("return document.querySelector('[data-testid=update-badge]').textContent")
        assert f"Dossier {version_next} is ready" in label, label
        assert attribute("[data-testid=update-badge]", "data-version") == version_next
        assert not driver.find_all("[data-testid=settings]"), "Settings was open before the notice was used"
        shot("installed-02a-update-badge.png")
        driver.click(driver.find_all("[data-testid=update-badge-open]")[0])
        driver.wait_for("[data-testid=updates]")
        assert attribute("[data-testid=current-version]", "data-version") == version_n
        offer = driver.wait_for("[data-testid=update-available]", contains=f"Dossier {version_next} is ready")[0]
        assert "Second line of the notes." in driver.text(offer)
        assert "dpkg" in driver.text(driver.wait_for("[data-testid=update-install-note]")[0])
        assert "/latest.json" in server.requests, server.requests
        shot("installed-02-update-ready.png")
        driver.click(driver.wait_for("[data-testid=download-update]")[0])
        error = driver.wait_for("[data-testid=update-error]", timeout=60)[0]
        message = driver.text(error)
        assert "signature does not match Dossier's signing key" in message, message
        assert "Nothing was installed" in message, message
        shot("installed-03-signature-refused.png")
        assert installed_version() == version_n, installed_version()
        # N keeps running and answering.
        assert attribute("[data-testid=current-version]", "data-version") == version_n
        driver.stop()

    def the_right_signature_downloads_with_progress_installs_and_comes_back_as_n_plus_1():
        server.sign_correctly()
        requests_before = len(server.requests)
        driver.start(APPLICATION)
        driver.wait_for("[data-testid=new-session]", timeout=90)
        open_settings()
        # Checked less than a day ago: no automatic check this time, so no offer yet, nor a notice.
        driver.wait_for("[data-testid=check-updates]")
        assert not driver.find_all("[data-testid=update-available]")
        assert not driver.find_all("[data-testid=update-badge]")
        assert "/latest.json" not in server.requests[requests_before:], server.requests
        driver.click(driver.find_all("[data-testid=check-updates]")[0])
        driver.wait_for("[data-testid=update-available]", contains=f"Dossier {version_next} is ready")
        driver.click(driver.wait_for("[data-testid=download-update]")[0])
        seen = set()
        deadline = time.time() + 120
        while not driver.find_all("[data-testid=update-verified]"):
            assert time.time() < deadline, f"no verified download; progress seen {sorted(seen)}"
            assert not driver.find_all("[data-testid=update-error]"), driver.text(driver.find_all("[data-testid=update-error]")[0])
            value = driver.script("const bar = document.querySelector('[data-testid=update-progress]'); return bar && bar.hasAttribute('value') ? bar.value : null;")
            if value is not None:
                seen.add(int(value))
                if len(seen) == 2:
                    shot("installed-04-downloading.png")
            time.sleep(0.05)
        assert len(seen) >= 2 and max(seen) > min(seen), f"the progress bar did not move: {sorted(seen)}"
        shot("installed-05-verified.png")
        started_before = open(log).read().count("Dossier started")
        restart = driver.wait_for("[data-testid=restart-to-update]")[0]
        try:
            driver.click(restart)
        except RuntimeError as error:
            # The old process can exit into the new one before WebDriver answers the click; a
            # click WebDriver refused (out of sight, covered) is a failure, not that.
            if "not interactable" in str(error) or "intercepted" in str(error):
                raise
            print(f"  the click's answer was lost with the old process, as expected: {error}")
        deadline = time.time() + 120
        while True:
            text = open(log).read()
            if text.count("Dossier started") > started_before and f"version={version_next}" in text.split("Dossier started")[-1].split("\n")[0]:
                break
            assert time.time() < deadline, "the app did not come back as the new version:\n" + text[-3000:]
            time.sleep(0.2)
        assert installed_version() == version_next, installed_version()
        assert "pkexec dpkg -i" in open(os.environ["PKEXEC_LOG"]).read()
        try:
            driver.stop()
        except Exception:  # noqa: BLE001 - the session's window went away with the old process
            pass

    check("the installed app opens a window, draws the UI and keeps its data in the XDG data folder", window_draws_the_ui_and_data_goes_to_the_xdg_folder)
    check("the start-up check finds N+1; a tampered signature is refused, N keeps running", start_up_check_finds_the_update_and_a_tampered_signature_is_refused)
    check("checked today: no automatic check; Check for updates → progress → verified → restart → N+1", the_right_signature_downloads_with_progress_installs_and_comes_back_as_n_plus_1)

    passed = sum(1 for _, ok in results if ok)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
