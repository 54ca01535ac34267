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

import base64
import http.client
import json
import os
import subprocess
import sys
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

    def wait_for(self, css, count=1, timeout=20, contains=None):
        deadline = time.time() + timeout
        while True:
            elements = self.find_all(css)
            if contains is not None:
                elements = [element for element in elements if contains in self.text(element)]
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


def main():
    application, webdriver_url, artifacts, fixtures = sys.argv[1:5]
    os.makedirs(artifacts, exist_ok=True)
    notes = os.path.join(fixtures, "notes.txt")
    project = os.path.join(fixtures, "project")
    photo = os.path.join(fixtures, "photo.png")
    results = []
    state = {}
    driver = WebDriver(webdriver_url)

    def check(name, step):
        try:
            step()
            results.append((name, True))
            print(f"ok   {name}")
        except Exception as error:  # noqa: BLE001 - every failure is reported, then we go on
            results.append((name, False))
            print(f"FAIL {name}: {error}")
            traceback.print_exc(limit=2)

    def launch():
        driver.start(application)
        driver.wait_for("[data-testid=new-session]", timeout=60)
        # The core is in-process: the window never says it cannot reach it.
        assert not driver.find_all("[data-testid=connection-status]")

    def create_session():
        before = len(driver.find_all("[data-testid=session-row]"))
        driver.click(driver.find_all("[data-testid=new-session]")[0])
        driver.wait_for("[data-testid=session-row]", count=before + 1)
        selected = driver.wait_for(".session-row--selected")[0]
        state["session"] = driver.command("GET", f"/element/{selected}/attribute/data-session-id")
        assert state["session"].startswith("ses"), state["session"]

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

    try:
        check("app starts with a working window", launch)
        check("new session appears in the sidebar", create_session)
        check("dropped file and folder become chips", drop_file_and_folder)
        check("a path that was never dropped is refused", refuse_path_never_dropped)
        check("sent message shows its text, context and chips", send_message)
        check("the image preview loads from the ledger's blob store", image_preview_loads)
        check("a streamed reply or the honest unavailable notice", see_reply_or_honest_notice)
        check("context expands to the exact text", expand_context)
        check("after a restart the session is in the sidebar", restart_and_find_session)
        check("the open session is restored on the next launch, with its unsent draft", open_session_restored)
        check("three sessions made through the commands, then a reload", three_sessions_then_reload)
        check("Ctrl+K finds a word said three sessions ago and lands on it", search_lands_on_the_message)
        check("Ctrl+F counts and steps through matches in the session", find_steps_through_matches)
        check("Undo and Redo in the header hide and bring back the last turn", undo_and_redo_through_the_buttons)
        check("Fork in the header opens a copy of the session", fork_opens_a_copy)
        check("a narrow window keeps every control on one line, actions in the menu", narrow_window_keeps_one_line)
        check("a second launch hands over to the running window", second_launch_hands_over)
        check("settings add a provider (a key without a keychain is refused) and show the room sessions take", settings_add_provider)
    finally:
        try:
            driver.stop()
        except Exception as error:  # noqa: BLE001
            print(f"(closing the session: {error})")

    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
