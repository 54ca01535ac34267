#!/usr/bin/env python3
"""Benchmarks the real window (WebKitGTK) with the same measures as tests/browser-e2e/bench.mjs;
reports, asserts nothing. Run through the window harness (Xvfb, tauri-driver, a temporary
DOSSIER_DATA_DIR):

    bash scripts/test-window.sh --bench

1. Open a 5,000-message session (made through the app's own send_prompt command) to its newest
   message painted: from a click made inside the page on its sidebar row to the frame after the one
   in which the newest message is whole in view. Five opens, another session opened between.
2. A reply streaming 500 deltas a second from the browser e2e's scripted provider (added through
   the save_provider command): frames per second while it streams, and whether every delta's word
   is in the reply at the end, in order.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from window_test import INVOKE, SCRIPTED_PROVIDER, SEED, WebDriver  # noqa: E402

MESSAGES = int(os.environ.get("BENCH_MESSAGES", "5000"))

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
  const start = performance.now();
  try { callback(time); } finally { window.__frameWork.set(time, (window.__frameWork.get(time) ?? 0) + performance.now() - start); }
});
return 0;
"""

FRAME_SPLIT = """
const [from, to] = arguments;
const frames = window.__frames.filter((time) => time >= from && time <= to);
const work = frames.map((time) => window.__frameWork.get(time) ?? 0);
const intervals = frames.slice(1).map((time, index) => time - frames[index]);
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
return {script: mean(work), interval: mean(intervals), worst: Math.max(0, ...work)};
"""

LAST_REPLY = "return [...document.querySelectorAll('[data-testid=reply-text]')].at(-1)?.textContent ?? ''"


def main():
    application, webdriver_url = sys.argv[1:3]
    driver = WebDriver(webdriver_url)
    driver.start(application)
    provider = None
    try:
        driver.wait_for("[data-testid=new-session]", timeout=60)
        driver.command("POST", "/timeouts", {"script": 1_800_000})

        def invoke(command, args):
            reply = driver.async_script(INVOKE, command, args)
            assert "error" not in reply, reply
            return reply["ok"]

        long = invoke("create_session", {"input": {"title": "Five thousand messages"}})["id"]
        started = time.time()
        reply = driver.async_script(SEED, long, MESSAGES)
        assert "error" not in reply, reply
        print(f"seeded {MESSAGES} messages in {time.time() - started:.0f} s")
        short = invoke("create_session", {"input": {"title": "Short"}})["id"]
        invoke("send_prompt", {"sessionId": short, "input": {"noReply": True, "parts": [{"type": "text", "text": "hello"}]}})
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

        provider = subprocess.Popen(
            ["node", "--input-type=module", "-e",
             f"const m = await import({json.dumps(SCRIPTED_PROVIDER)}); const p = await m.startScriptedProvider();"
             "console.log(JSON.stringify(p.config.provider.scripted.options.baseURL));"],
            stdout=subprocess.PIPE, text=True)
        base_url = json.loads(provider.stdout.readline())
        invoke("save_provider", {"input": {"id": "scripted", "npm": "@ai-sdk/openai-compatible", "baseURL": base_url, "models": ["scripted-model"]}})
        driver.click(driver.find_all("[data-testid=new-session]")[0])
        time.sleep(1)
        session = driver.script("return document.querySelector('.session-row--selected')?.dataset.sessionId")
        driver.script(TIME_FRAME_CALLBACKS)
        driver.script(COUNT_FRAMES)
        # The frame rate with nothing happening, to read the streaming figure against (Xvfb has
        # no vsync; WebKitGTK may paint less often there than on a desktop).
        idle_start = driver.script("return performance.now()")
        time.sleep(2)
        idle = driver.script("const [from] = arguments; return window.__frames.filter((time) => time >= from).length / ((performance.now() - from) / 1000)", idle_start)
        print(f"idle frame rate in the window: {idle:.1f} fps")
        driver.script(
            "const [sessionId] = arguments;"
            "window.__TAURI_INTERNALS__.invoke('send_prompt', {sessionId, input: {model: {providerID: 'scripted', modelID: 'scripted-model'},"
            " parts: [{type: 'text', text: 'run the benchmark'}]}}).catch(() => {}); return 0;", session)
        deadline = time.time() + 60
        while "d0 " not in driver.script(LAST_REPLY):
            assert time.time() < deadline, "the reply did not start"
            time.sleep(0.02)
        stream_start = driver.script("return performance.now()")
        while driver.find_all("[data-testid=stop]"):
            assert time.time() < deadline + 60, "the reply did not end"
            time.sleep(0.05)
        stream_end = driver.script("return performance.now()")
        frames = driver.script("const [from, to] = arguments; return window.__frames.filter((time) => time >= from && time <= to).length", stream_start, stream_end)
        seconds = (stream_end - stream_start) / 1000
        words = driver.script(LAST_REPLY).split()
        missing = [f"d{index}" for index in range(2500) if index >= len(words) or words[index] != f"d{index}"]
        present = "yes" if not missing else f"no, {len(missing)} missing or out of place (first {missing[0]})"
        split = driver.script(FRAME_SPLIT, stream_start, stream_end)
        print(f"  a streaming frame: {split['interval']:.1f} ms between frames on average, of which {split['script']:.1f} ms in the page's script"
              f" (the deltas applied and rendered; the worst frame's script {split['worst']:.1f} ms), the rest style, layout and painting")
        print(f"a reply streaming 2,500 deltas at 500/s (window): {frames / seconds:.1f} fps over {seconds:.1f} s of streaming ({2500 / seconds:.0f} deltas/s arrived); every delta's text present at the end, in order: {present}")
    finally:
        driver.stop()
        if provider is not None:
            provider.terminate()


if __name__ == "__main__":
    main()
