#!/usr/bin/env python3
"""Benchmarks the real window (WebKitGTK) with the same measures as tests/browser-e2e/bench.mjs;
reports, asserts nothing. Run through the window harness (Xvfb, tauri-driver, a temporary
DOSSIER_DATA_DIR):

    bash scripts/test-window.sh --bench

1. Open a 5,000-message session (made through the app's own send_prompt command) to its newest
   message painted: from a click made inside the page on its sidebar row to the frame after the one
   in which the newest message is whole in view. Five opens, another session opened between.
2. A reply streaming 500 deltas a second from the browser e2e's scripted provider (added through
   the save_provider command): frames per second while it streams, whether every delta's word
   is in the reply at the end, in order, and the resident memory of the app and WebKit's processes
   while it streams (from /proc). Two shapes of reply: one 2,500-word paragraph, and one
   shaped as a model writes (paragraphs, a list, a code block).
3. The environment's ceiling: the same webview with the app's page emptied, appending the same
   2,500 words at 500 a second to a bare page (one long paragraph, paragraphs, or a short one),
   with and without the view following the bottom. What a page with no app in it gets here.

BENCH_PARTS (comma-separated: open, stream, ceiling; all three by default) picks what runs.
BENCH_UNFOLLOWED=1 streams the shaped reply once more with the reader scrolled up (what following
the bottom costs); BENCH_SLOW_FRAMES=1 lists each animation-frame callback over 8 ms of script.
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import children_of, processes_running, resident_kib, rollup_kib  # noqa: E402
from window_test import INVOKE, SCRIPTED_PROVIDER, SEED, WebDriver  # noqa: E402

MESSAGES = int(os.environ.get("BENCH_MESSAGES", "5000"))
PARTS = set(os.environ.get("BENCH_PARTS", "open,stream,ceiling").split(","))
# BENCH_UNFOLLOWED=1: the shaped reply once more, with the reader scrolled up once it fills the
# view, so the view does not follow it: what following the bottom costs in the app.
UNFOLLOWED = os.environ.get("BENCH_UNFOLLOWED") == "1"
# BENCH_SLOW_FRAMES=1: list each animation-frame callback over 8 ms with where the reply was.
SLOW_FRAMES = os.environ.get("BENCH_SLOW_FRAMES") == "1"

# The reader scrolls up (a wheel, then the move) once the reply is taller than the view.
SCROLL_UP_WHEN_FULL = """
const [done] = arguments;
const check = () => {
  const view = document.querySelector('[data-testid=conversation]');
  if (view.scrollHeight < view.clientHeight + 400) return setTimeout(check, 20);
  view.dispatchEvent(new WheelEvent('wheel', {bubbles: true, deltaY: -300}));
  view.scrollTop -= 300;
  done(0);
};
check();
"""

# The same measure as bench.mjs: click in the page, then every frame until the newest is whole in view.
OPEN_TO_NEWEST = """
const [sessionId, text, done] = arguments;
const row = document.querySelector(`[data-session-id="${sessionId}"] .session-open`);
const clicked = performance.now();
row.click();
const check = () => {
  const scroller = document.querySelector('[data-testid="conversation"]');
  const slot = scroller && [...scroller.querySelectorAll('.message-slot')].find((candidate) => candidate.textContent.includes(text));
  if (slot) {
    const box = slot.getBoundingClientRect();
    const view = scroller.getBoundingClientRect();
    if (box.top >= view.top - 1 && box.bottom <= view.bottom + 1) return requestAnimationFrame(() => done(performance.now() - clicked));
  }
  requestAnimationFrame(check);
};
check();
"""

COUNT_FRAMES = """
window.__frames = [];
const tick = (now) => { window.__frames.push(now); requestAnimationFrame(tick); };
requestAnimationFrame(tick);
return 0;
"""

# Where a streaming frame's time goes: the deltas are applied in an animation-frame callback
# (frame-batch.ts), so the time spent inside animation-frame callbacks is the script's share of
# a frame (the store update, Solid's render, the Markdown render and its innerHTML parse); the
# rest of the interval between frames is style, layout and painting.
TIME_FRAME_CALLBACKS = """
window.__frameWork = new Map();
const original = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (callback) => original((time) => {
  window.__lastFrame = time;
  const start = performance.now();
  try { callback(time); } finally {
    const spent = performance.now() - start;
    window.__frameWork.set(time, (window.__frameWork.get(time) ?? 0) + spent);
    // A slow callback, with where the reply was then (its last words and what it had just become).
    if (spent > 8) {
      const reply = [...document.querySelectorAll('[data-testid=reply-text]')].at(-1);
      window.__slowFrames.push({time, ms: Math.round(spent), tail: (reply?.textContent ?? '').slice(-24), last: reply?.lastElementChild?.nodeName ?? ''});
    }
  }
});
window.__slowFrames = [];
// Two more shares of a frame, summed over the whole stream: the resize observers' callbacks (the
// virtualiser measuring the growing reply, and what that sets off), and the layouts the page's
// script forces by reading a size (scrollHeight, offsetHeight) before the engine would have
// laid out anyway.
window.__observerWork = 0;
window.__forcedLayout = 0;
window.__forcedLayouts = 0;
const Observer = window.ResizeObserver;
window.ResizeObserver = class extends Observer {
  constructor(callback) {
    super((entries, observer) => {
      const start = performance.now();
      try { callback(entries, observer); } finally { window.__observerWork += performance.now() - start; }
    });
  }
};
// Following the bottom: how many times a frame the page writes a scroll position (scrollTop, or
// scrollTo/scrollBy, the virtualiser's way), by the frame they fall in (the last frame begun).
window.__scrollWrites = new Map();
window.__lastFrame = 0;
const noteScrollWrite = () => { window.__scrollWrites.set(window.__lastFrame, (window.__scrollWrites.get(window.__lastFrame) ?? 0) + 1); };
const scrollTop = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollTop');
Object.defineProperty(Element.prototype, 'scrollTop', {configurable: true, get() { return scrollTop.get.call(this); }, set(value) { noteScrollWrite(); scrollTop.set.call(this, value); }});
for (const name of ['scrollTo', 'scrollBy']) {
  const method = Element.prototype[name];
  Element.prototype[name] = function (...rest) { noteScrollWrite(); return method.apply(this, rest); };
}
for (const name of ['scrollHeight', 'offsetHeight']) {
  const owner = name === 'scrollHeight' ? Element.prototype : HTMLElement.prototype;
  const descriptor = Object.getOwnPropertyDescriptor(owner, name);
  Object.defineProperty(owner, name, {configurable: true, get() {
    const start = performance.now();
    try { return descriptor.get.call(this); } finally { window.__forcedLayout += performance.now() - start; window.__forcedLayouts += 1; }
  }});
}
return 0;
"""

FRAME_SPLIT = """
const [from, to] = arguments;
const frames = window.__frames.filter((time) => time >= from && time <= to);
const work = frames.map((time) => window.__frameWork.get(time) ?? 0);
const intervals = frames.slice(1).map((time, index) => time - frames[index]);
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
const writes = frames.map((time) => window.__scrollWrites.get(time) ?? 0);
return {script: mean(work), interval: mean(intervals), worst: Math.max(0, ...work), slow: work.filter((ms) => ms > 8).length,
        frames: frames.length, scrollWrites: mean(writes), mostScrollWrites: Math.max(0, ...writes)};
"""

LAST_REPLY = "return [...document.querySelectorAll('[data-testid=reply-text]')].at(-1)?.textContent ?? ''"
# The last reply's text without its code blocks' headers (their language label and Copy button,
# whose text runs into the code's first word in textContent).
LAST_REPLY_WORDS = """
const reply = [...document.querySelectorAll('[data-testid=reply-text]')].at(-1)?.cloneNode(true);
if (reply === undefined) return '';
for (const header of reply.querySelectorAll('.code-header')) header.remove();
return reply.textContent;
"""

# The environment's ceiling: empties the app's page (its styles and its DOM; the app's script
# keeps running but has nothing on screen) and streams 2,500 words at 500 a second into a bare
# scroller, the way the app does: a timer takes the words in as the clock makes them due, and one
# animation-frame callback a frame appends them. Shapes: "long" one paragraph of 2,500 words,
# "paragraphs" a new paragraph every 60 words, "short" a paragraph holding only the newest 30
# words, "idle" nothing appended. `follow` keeps the view at the bottom after each frame. Options:
# "reserved" gives the content a fixed 8,000 px height, so growing text does not change the
# scroller's size; "skipped" marks finished paragraphs `content-visibility: auto`.
BARE_PAGE_STREAM = """
const [shape, follow, options, done] = arguments;
for (const sheet of document.querySelectorAll('style, link[rel=stylesheet]')) sheet.remove();
document.body.replaceChildren();
document.body.style.cssText = 'margin: 0; background: white; color: black';
const scroller = document.createElement('div');
scroller.style.cssText = 'height: 100vh; overflow-y: auto; font: 15px/1.6 sans-serif; padding: 0 24px';
document.body.append(scroller);
const content = document.createElement('div');
if (options.includes('reserved')) content.style.height = '8000px';
scroller.append(content);
let text = null;
const paragraph = () => {
  if (text !== null && options.includes('skipped')) text.parentNode.style.cssText = 'content-visibility: auto; contain-intrinsic-size: auto 200px';
  const element = document.createElement('p'); text = document.createTextNode(''); element.append(text); content.append(element);
};
paragraph();
const total = 2500, rate = 500, words = [];
const start = performance.now();
let arrived = 0, shown = 0;
const timer = setInterval(() => {
  const due = Math.min(total, Math.floor((performance.now() - start) * rate / 1000));
  for (; arrived < due; arrived++) words.push(`d${arrived} `);
  if (arrived === total) clearInterval(timer);
}, 2);
const frames = [];
const frame = (now) => {
  frames.push(now);
  if (shape !== 'idle') {
    for (; shown < words.length; shown++) {
      if (shape === 'paragraphs' && shown > 0 && shown % 60 === 0) paragraph();
      if (shape !== 'short') text.appendData(words[shown]);
    }
    if (shape === 'short') text.data = words.slice(-30).join('');
    if (follow) scroller.scrollTop = scroller.scrollHeight;
  }
  if (performance.now() - start < 5000 || arrived < total) return requestAnimationFrame(frame);
  const seconds = (frames.at(-1) - frames[0]) / 1000;
  done({fps: (frames.length - 1) / seconds, seconds, words: scroller.textContent.split(' ').filter(Boolean).length, height: scroller.scrollHeight});
};
requestAnimationFrame(frame);
"""


def main():
    application, webdriver_url = sys.argv[1:3]
    # What decides WebKit's compositing in the app (src-tauri/src/software_rendering.rs): a GPU
    # render node, or a WEBKIT_*_COMPOSITING_MODE the person set.
    chosen = {name: os.environ[name] for name in ("WEBKIT_DISABLE_COMPOSITING_MODE", "WEBKIT_FORCE_COMPOSITING_MODE") if name in os.environ}
    render_nodes = sorted(name for name in (os.listdir("/dev/dri") if os.path.isdir("/dev/dri") else []) if name.startswith("renderD"))
    print(f"compositing inputs: GPU render nodes {render_nodes or 'none'}; set by hand {chosen or 'nothing'}")
    driver = WebDriver(webdriver_url)
    driver.start(application)
    provider = None
    try:
        driver.wait_for("[data-testid=new-session]", timeout=60)
        driver.command("POST", "/timeouts", {"script": 1_800_000})
        if "open" in PARTS:
            open_long_session(driver)
        if "stream" in PARTS:
            provider = start_provider(driver)
            driver.script(TIME_FRAME_CALLBACKS)
            driver.script(COUNT_FRAMES)
            # The frame rate with nothing happening, to read the streaming figure against (Xvfb has
            # no vsync; WebKitGTK may paint less often there than on a desktop).
            idle_start = driver.script("return performance.now()")
            time.sleep(2)
            idle = driver.script("const [from] = arguments; return window.__frames.filter((time) => time >= from).length / ((performance.now() - from) / 1000)", idle_start)
            print(f"idle frame rate in the window: {idle:.1f} fps")
            stream_reply(driver, application, "run the benchmark", "one 2,500-word paragraph")
            stream_reply(driver, application, "run the shaped benchmark", "paragraphs, a list and a code block")
            if UNFOLLOWED:
                stream_reply(driver, application, "run the shaped benchmark", "shaped, the reader scrolled up (not following)", follow=False)
        if "ceiling" in PARTS:
            # Last: it empties the app's page.
            for shape, follow, options in [("idle", False, ""), ("short", False, ""), ("long", False, ""), ("long", True, ""),
                                           ("paragraphs", False, ""), ("paragraphs", True, ""), ("paragraphs", False, "reserved"),
                                           ("paragraphs", True, "reserved"), ("paragraphs", True, "skipped")]:
                result = driver.async_script(BARE_PAGE_STREAM, shape, follow, options)
                print(f"ceiling, a bare page in the same webview, {shape}{', following the bottom' if follow else ''}{', ' + options if options else ''}:"
                      f" {result['fps']:.1f} fps over {result['seconds']:.1f} s ({result['words']} words, {result['height']} px tall)")
    finally:
        driver.stop()
        if provider is not None:
            provider.terminate()


def invoke(driver, command, args):
    reply = driver.async_script(INVOKE, command, args)
    assert "error" not in reply, reply
    return reply["ok"]


def open_long_session(driver):
    long = invoke(driver, "create_session", {"input": {"title": "Five thousand messages"}})["id"]
    started = time.time()
    reply = driver.async_script(SEED, long, MESSAGES)
    assert "error" not in reply, reply
    print(f"seeded {MESSAGES} messages in {time.time() - started:.0f} s")
    short = invoke(driver, "create_session", {"input": {"title": "Short"}})["id"]
    invoke(driver, "send_prompt", {"sessionId": short, "input": {"noReply": True, "parts": [{"type": "text", "text": "hello"}]}})
    driver.command("POST", "/refresh", {})
    driver.wait_for(f"[data-session-id='{long}'] .session-open", timeout=60)
    times = []
    for _ in range(5):
        driver.script(f"document.querySelector(\"[data-session-id='{short}'] .session-open\").click(); return 0;")
        deadline = time.time() + 30
        while "hello" not in driver.script("return document.querySelector('[data-testid=conversation]')?.textContent ?? ''"):
            assert time.time() < deadline, "the short session did not open"
            time.sleep(0.1)
        times.append(driver.async_script(OPEN_TO_NEWEST, long, f"message {MESSAGES - 1} line 0"))
    ordered = sorted(times)
    print(f"open a {MESSAGES}-message session to the newest message painted (window): median {ordered[len(ordered) // 2]:.0f} ms; runs {', '.join(f'{time:.0f}' for time in times)} ms")


def start_provider(driver):
    provider = subprocess.Popen(
        ["node", "--input-type=module", "-e",
         f"const m = await import({json.dumps(SCRIPTED_PROVIDER)}); const p = await m.startScriptedProvider();"
         "console.log(JSON.stringify(p.config.provider.scripted.options.baseURL));"],
        stdout=subprocess.PIPE, text=True)
    base_url = json.loads(provider.stdout.readline())
    invoke(driver, "save_provider", {"input": {"id": "scripted", "npm": "@ai-sdk/openai-compatible", "baseURL": base_url, "models": ["scripted-model"]}})
    return provider


def app_processes(application):
    """The app's process and its helpers (WebKit's web and network processes), by name."""
    found = []
    for pid in processes_running(os.path.realpath(application)):
        found.append((pid, "app"))
        # The program's own name: /proc's short name cuts "WebKitWebProcess" at 15 characters.
        for child, name in children_of(pid):
            try:
                found.append((child, os.path.basename(os.readlink(f"/proc/{child}/exe"))))
            except OSError:
                found.append((child, name))
    return found


def stream_reply(driver, application, prompt, shape, follow=True):
    """Streams the scripted provider's 2,500 numbered words at 500 a second into a new session;
    samples the resident memory of the app and WebKit's processes (from /proc) while it streams."""
    driver.click(driver.find_all("[data-testid=new-session]")[0])
    time.sleep(1)
    session = driver.script("return document.querySelector('.session-row--selected')?.dataset.sessionId")
    driver.script(
        "const [sessionId, text] = arguments;"
        "window.__TAURI_INTERNALS__.invoke('send_prompt', {sessionId, input: {model: {providerID: 'scripted', modelID: 'scripted-model'},"
        " parts: [{type: 'text', text}]}}).catch(() => {}); return 0;", session, prompt)
    deadline = time.time() + 60
    while "d0 " not in driver.script(LAST_REPLY):
        assert time.time() < deadline, "the reply did not start"
        time.sleep(0.02)
    if not follow:
        driver.async_script(SCROLL_UP_WHEN_FULL)
        unpinned_by = time.time() + 5
        while not driver.find_all("[data-testid=jump-to-newest]"):
            assert time.time() < unpinned_by, "the view still follows the reply"
            time.sleep(0.02)
    stream_start = driver.script("return performance.now()")
    before = driver.script("return [window.__observerWork, window.__forcedLayout, window.__forcedLayouts]")
    processes = app_processes(application)
    peaks = {}
    while driver.find_all("[data-testid=stop]"):
        assert time.time() < deadline + 60, "the reply did not end"
        for pid, name in processes:
            try:
                peaks[(pid, name)] = max(peaks.get((pid, name), 0), resident_kib(pid))
            except OSError:
                continue
        time.sleep(0.05)
    stream_end = driver.script("return performance.now()")
    frames = driver.script("const [from, to] = arguments; return window.__frames.filter((time) => time >= from && time <= to).length", stream_start, stream_end)
    seconds = (stream_end - stream_start) / 1000
    # The numbered words in the order they show; the shaped reply's Markdown (list markers, the
    # code block's label and Copy button) is not among them.
    words = [word for word in driver.script(LAST_REPLY_WORDS).split() if re.fullmatch(r"d[0-9]+", word)]
    missing = [f"d{index}" for index in range(2500) if index >= len(words) or words[index] != f"d{index}"]
    present = "yes" if not missing and len(words) == 2500 else f"no, {len(missing)} missing or out of place (first {missing[0] if missing else 'none'}), {len(words)} words"
    split = driver.script(FRAME_SPLIT, stream_start, stream_end)
    after = driver.script("return [window.__observerWork, window.__forcedLayout, window.__forcedLayouts]")
    observer, forced, forced_count = (after[index] - before[index] for index in range(3))
    print(f"  a streaming frame ({shape}): {split['interval']:.1f} ms between frames on average, of which {split['script']:.1f} ms in the page's script"
          f" (the deltas applied and rendered; the worst frame's script {split['worst']:.1f} ms), the rest style, layout and painting;"
          f" per frame also {observer / max(frames, 1):.1f} ms in resize observers and {forced / max(frames, 1):.1f} ms in"
          f" {forced_count / max(frames, 1):.1f} layouts forced by reading a size; {split['slow']} of {split['frames']} frames over 8 ms of script;"
          f" {split['scrollWrites']:.2f} scroll writes a frame (at most {split['mostScrollWrites']} in one)")
    if SLOW_FRAMES:
        slow = driver.script("const [from, to] = arguments; return window.__slowFrames.filter((frame) => frame.time >= from && frame.time <= to)", stream_start, stream_end)
        print("  frames over 8 ms of script: " + "; ".join(f"{frame['ms']} ms at {frame['tail']!r} ({frame['last']})" for frame in slow))
    print(f"a reply streaming 2,500 deltas at 500/s, {shape} (window): {frames / seconds:.1f} fps over {seconds:.1f} s of streaming"
          f" ({2500 / seconds:.0f} deltas/s arrived); every delta's text present at the end, in order: {present}")
    memory = []
    for (pid, name), peak in sorted(peaks.items(), key=lambda item: item[0][0]):
        try:
            proportional, _ = rollup_kib(pid)
            memory.append(f"{name} {peak / 1024:.0f} MiB resident at most ({resident_kib(pid) / 1024:.0f} MiB at the end, {proportional / 1024:.0f} MiB proportional)")
        except OSError:
            continue
    print(f"  memory while it streamed: {'; '.join(memory) or 'no process found'}")


if __name__ == "__main__":
    main()
