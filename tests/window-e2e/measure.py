#!/usr/bin/env python3
"""Measures the real window: time from asking WebDriver to launch the app until the sidebar is
interactive, and resident memory after opening a session of 1,000 messages (created through the
app's own send_prompt command with noReply). Run it like window_test.py (same environment:
Xvfb, tauri-driver, a temporary DOSSIER_DATA_DIR):

    measure.py <app-binary> <webdriver-url>

Launch time is measured twice: without WebDriver (the binary spawned directly, timed until the
UI reports itself interactive through the `report_interactive` command, which logs "window
interactive"), and through WebDriver, whose session set-up overstates it.
"""

import os
import re
import subprocess
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


def resident_breakdown(pid, top=12):
    """Where a process's resident memory sits, from /proc/<pid>/smaps: each shared library or
    file on its own, anonymous memory (the heaps of Rust, glibc, GLib and JavaScriptCore) as one
    line, largest first."""
    totals = {}
    name = None
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                path = fields[5] if len(fields) > 5 else ""
                name = os.path.basename(path) if path.startswith("/") else (path or "anonymous")
            elif fields and fields[0] == "Rss:" and name is not None:
                totals[name] = totals.get(name, 0) + int(fields[1])
    return sorted(totals.items(), key=lambda item: -item[1])[:top]


def rollup_kib(pid):
    """Proportional (shared pages split among the processes mapping them) and private resident
    memory, from /proc/<pid>/smaps_rollup."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                fields[parts[0][:-1]] = int(parts[1])
    private = fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)
    return fields.get("Pss", 0), private


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


def launch_without_webdriver(application, runs=5):
    """Seconds from spawning the binary until the UI said it is interactive, per run, and the
    app's own figure (from the start of `run`) as logged."""
    log = os.path.join(os.environ["XDG_DATA_HOME"], "app.dossier.desktop", "logs", "dossier.log")
    measured = []
    for _ in range(runs):
        offset = os.path.getsize(log) if os.path.exists(log) else 0
        started = time.monotonic()
        process = subprocess.Popen([application], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while time.monotonic() < started + 30:
                text = ""
                if os.path.exists(log):
                    with open(log) as file:
                        file.seek(offset)
                        text = file.read()
                if "window interactive" in text:
                    elapsed = time.monotonic() - started
                    inside = re.search(r"milliseconds=Some\((\d+)\)", text)
                    measured.append((elapsed, int(inside.group(1)) / 1000 if inside else None))
                    break
                time.sleep(0.005)
            else:
                raise AssertionError("the app never reported an interactive window")
        finally:
            process.terminate()
            process.wait(timeout=10)
        time.sleep(0.5)
    return measured


def main():
    application, webdriver_url = sys.argv[1:3]
    runs = launch_without_webdriver(application)
    for index, (spawned, inside) in enumerate(runs, 1):
        shown = "?" if inside is None else f"{inside:.3f}"
        print(f"launch {index} without WebDriver: spawn to interactive {spawned:.3f} s (app's own count {shown} s)")
    ordered = sorted(spawned for spawned, _ in runs)
    print(f"launch to interactive without WebDriver, median of {len(ordered)}: {ordered[len(ordered) // 2]:.3f} s")
    driver = WebDriver(webdriver_url)
    started = time.time()
    driver.start(application)
    driver.wait_for("[data-testid=new-session]", timeout=60)
    launch = time.time() - started
    print(f"launch to interactive sidebar (including WebDriver set-up): {launch:.2f} s")
    time.sleep(2)
    for pid in processes_running(os.path.realpath(application)):
        # The baseline: what the app holds with an empty ledger, before any session is open.
        print(f"app process {pid} at launch, empty ledger: {resident_kib(pid) / 1024:.1f} MiB resident")

    session = driver.async_script(INVOKE, "create_session", {"input": {"title": "Thousand"}})["ok"]
    started = time.time()
    error = driver.async_script(CREATE_MESSAGES, session["id"], 1000)
    assert error is None, error
    print(f"1,000 prompts through IPC: {time.time() - started:.1f} s")

    driver.stop()
    driver.start(application)
    driver.wait_for("[data-testid=new-session]", timeout=60)
    # The title, not the row's middle: hovering the row shows its action buttons there.
    row = driver.wait_for(f"[data-session-id='{session['id']}'] .session-title")[0]
    driver.click(row)
    try:
        driver.wait_for("[data-testid=message]", count=3)
    except AssertionError:
        shot = os.path.join(os.environ.get("TMPDIR", "/tmp"), "measure-failed.png")
        driver.screenshot(shot)
        raise
    time.sleep(2)
    for pid in processes_running(os.path.realpath(application)):
        proportional, private = rollup_kib(pid)
        print(
            f"app process {pid}: {resident_kib(pid) / 1024:.1f} MiB resident "
            f"({proportional / 1024:.1f} MiB proportional, {private / 1024:.1f} MiB private)"
        )
        for name, kib in resident_breakdown(pid):
            print(f"    {kib / 1024:7.1f} MiB  {name}")
        for child, name in children_of(pid):
            print(f"  its {name} {child}: {resident_kib(child) / 1024:.1f} MiB resident")
    browse_curve(driver, application)
    print(f"release binary: {os.path.getsize(application) / (1024 * 1024):.1f} MiB")
    driver.stop()


SCROLL_UP = """
const [step] = arguments;
const view = document.querySelector('[data-testid=conversation]');
view.scrollTop = Math.max(0, view.scrollTop - step);
return [view.scrollTop, document.querySelectorAll('[data-testid=message]').length];
"""

SCROLL_TO_NEWEST = """
const view = document.querySelector('[data-testid=conversation]');
view.scrollTop = view.scrollHeight;
return view.scrollTop;
"""


def browse_curve(driver, application, passes=3, step=2400):
    """Memory while the 1,000-message session is browsed: each pass scrolls from the newest
    message to the first (the view loads older pages as it goes) and back, and the app's and its
    web process's resident memory is printed after each pass. Growth from pass to pass is
    memory kept; the first pass is the pages loaded."""
    applications = processes_running(os.path.realpath(application))
    web = [child for pid in applications for child, name in children_of(pid) if "WebKitWeb" in name]

    def sample(label):
        app = sum(resident_kib(pid) for pid in applications) / 1024
        page = sum(resident_kib(pid) for pid in web) / 1024
        print(f"browse {label}: app {app:.1f} MiB, web process {page:.1f} MiB resident")

    sample("start")
    for index in range(1, passes + 1):
        # At the top the view asks for the next older page; it has arrived when the view can
        # scroll up again. Three seconds at the top with nothing new: the first page is in.
        stalled = 0
        while stalled < 30:
            top, _ = driver.script(SCROLL_UP, step)
            stalled = stalled + 1 if top == 0 else 0
            time.sleep(0.1)
        reached = driver.script(
            "return [...document.querySelectorAll('[data-testid=message]')]"
            ".some((message) => message.textContent.includes('Message 0:'));"
        )
        driver.script(SCROLL_TO_NEWEST)
        time.sleep(2)
        sample(f"pass {index} (first message reached: {reached})")


if __name__ == "__main__":
    main()
