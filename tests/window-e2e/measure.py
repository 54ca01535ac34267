#!/usr/bin/env python3
"""Measures the real window: time from asking WebDriver to launch the app until the sidebar is
interactive, and resident memory after opening a session of 1,000 messages (created through the
app's own send_prompt command with noReply). Run it like window_test.py (same environment:
Xvfb, tauri-driver, a temporary DOSSIER_DATA_DIR):

    measure.py <app-binary> <webdriver-url>

The launch figure includes WebDriver's own session set-up, so it overstates the app's time.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from window_test import INVOKE, WebDriver  # noqa: E402

CREATE_MESSAGES = """
const [sessionId, count, done] = arguments;
const invoke = window.__TAURI_INTERNALS__.invoke;
(async () => {
  for (let index = 0; index < count; index++) {
    await invoke("send_prompt", {sessionId, input: {noReply: true, parts: [
      {type: "text", text: `Message ${index}: ` + "lorem ipsum dolor sit amet ".repeat(8)}]}});
  }
  done(null);
})().catch((error) => done(String(error)));
"""


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def processes_running(path):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/exe") == path:
                found.append(int(entry))
        except OSError:
            continue
    return found


def children_of(parent):
    """The app's own helper processes (WebKit's web and network processes)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
            if int(fields["PPid"].strip()) == parent:
                found.append((int(entry), fields["Name"].strip()))
        except (OSError, KeyError, ValueError):
            continue
    return found


def main():
    application, webdriver_url = sys.argv[1:3]
    driver = WebDriver(webdriver_url)
    started = time.time()
    driver.start(application)
    driver.wait_for("[data-testid=new-session]", timeout=60)
    launch = time.time() - started
    print(f"launch to interactive sidebar (including WebDriver set-up): {launch:.2f} s")

    session = driver.async_script(INVOKE, "create_session", {"input": {"title": "Thousand"}})["ok"]
    started = time.time()
    error = driver.async_script(CREATE_MESSAGES, session["id"], 1000)
    assert error is None, error
    print(f"1,000 prompts through IPC: {time.time() - started:.1f} s")

    driver.stop()
    driver.start(application)
    driver.wait_for("[data-testid=new-session]", timeout=60)
    row = driver.wait_for(f"[data-session-id='{session['id']}'] .session-open")[0]
    driver.click(row)
    driver.wait_for("[data-testid=message]", count=3)
    time.sleep(2)
    for pid in processes_running(os.path.realpath(application)):
        print(f"app process {pid}: {resident_kib(pid) / 1024:.1f} MiB resident")
        for child, name in children_of(pid):
            print(f"  its {name} {child}: {resident_kib(child) / 1024:.1f} MiB resident")
    print(f"release binary: {os.path.getsize(application) / (1024 * 1024):.1f} MiB")
    driver.stop()


if __name__ == "__main__":
    main()
