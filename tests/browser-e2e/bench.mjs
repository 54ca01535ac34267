// Benchmarks for the window (issue 13), reported, never asserted: run by hand, not by the tests.
//
//   node tests/browser-e2e/bench.mjs        (after the UI and dossier-server are built, as
//                                            scripts/test-browser.sh builds them)
//
// 1. Open a 5,000-message session to its newest message painted, in Debian's chromium: from the
//    click on its sidebar row to the first frame after the newest message is whole in view.
// 2. A reply streaming 500 deltas a second (the scripted provider's "benchmark" reply: 2,500
//    numbered words, in one paragraph, then shaped in paragraphs, a list and a code block):
//    frames per second while it streams, and whether every delta's word is in the reply at the
//    end, in order.
import { mkdtempSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { startServer as startDossierServer } from "../sdk-compat/server.mjs"
import { startScriptedProvider } from "./scripted-provider.mjs"
import { callApi, launchBrowser, root } from "./support.mjs"

const messages = Number(process.env.BENCH_MESSAGES ?? 5000)
const opens = 5

const provider = await startScriptedProvider()
const folder = mkdtempSync(path.join(os.tmpdir(), "dossier-bench-"))
// BENCH_UI: another build of the UI (a before/after comparison, run alternately).
const server = await startDossierServer(folder, { config: provider.config, ui: process.env.BENCH_UI ?? path.join(root, "ui/dist") })
const browser = await launchBrowser()
const api = (method, route, body) => callApi(server.baseUrl, method, route, body)
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

try {
  // The long session, of uneven heights, and a short one to switch away to between opens.
  const long = await api("POST", "/session", { title: "Five thousand messages" })
  const started = performance.now()
  for (let index = 0; index < messages; index++) {
    const text = Array.from({ length: 1 + (index % 7) }, (_, line) => `message ${index} line ${line}`).join("\n")
    await api("POST", `/session/${long.id}/message`, { noReply: true, parts: [{ type: "text", text }] })
  }
  console.log(`seeded ${messages} messages in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  const short = await api("POST", "/session", { title: "Short" })
  await api("POST", `/session/${short.id}/message`, { noReply: true, parts: [{ type: "text", text: "hello" }] })

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(server.baseUrl + "/")
  await page.locator(`[data-session-id="${short.id}"] .session-open`).waitFor()
  const newest = `message ${messages - 1} line 0`
  const times = []
  for (let run = 0; run < opens; run++) {
    await page.locator(`[data-session-id="${short.id}"] .session-open`).click()
    await page.locator(".message-slot").filter({ hasText: "hello" }).waitFor()
    const sessionRow = await page.locator(`[data-session-id="${long.id}"] .session-open`).elementHandle()
    // Clicked inside the page so the clock starts at the click itself, not at a WebDriver round trip.
    times.push(
      await page.evaluate(
        ([row, text]) =>
          new Promise((resolve) => {
            performance.clearResourceTimings()
            const clicked = performance.now()
            row.click()
            const check = () => {
              const scroller = document.querySelector('[data-testid="conversation"]')
              const slot = scroller && [...scroller.querySelectorAll(".message-slot")].find((candidate) => candidate.textContent.includes(text))
              if (slot) {
                const box = slot.getBoundingClientRect()
                const view = scroller.getBoundingClientRect()
                // Painted: the frame after the one in which it is whole in view.
                if (box.top >= view.top - 1 && box.bottom <= view.bottom + 1) {
                  return requestAnimationFrame(() => {
                    // When the last of the server's answers the open asked for had arrived: the
                    // rest of the time is the page's (render, layout, paint).
                    const answers = performance.getEntriesByType("resource").filter((entry) => entry.startTime >= clicked)
                    resolve({ total: performance.now() - clicked, answered: Math.max(0, ...answers.map((entry) => entry.responseEnd - clicked)), requests: answers.length })
                  })
                }
              }
              requestAnimationFrame(check)
            }
            check()
          }),
        [sessionRow, newest],
      ),
    )
  }
  const totals = times.map((time) => time.total)
  console.log(`open a ${messages}-message session to the newest message painted (chromium): median ${median(totals).toFixed(0)} ms; runs ${totals.map((time) => time.toFixed(0)).join(", ")} ms`)
  console.log(`  the server's last answer arrived (from the click): median ${median(times.map((time) => time.answered)).toFixed(0)} ms; runs ${times.map((time) => `${time.answered.toFixed(0)} (${time.requests} requests)`).join(", ")}`)

  // Streaming at 500 deltas a second, in two shapes: one 2,500-word paragraph, and the same words
  // shaped as a model writes (paragraphs, a list, a code block).
  await page.evaluate(() => {
    window.__frames = []
    const tick = (now) => {
      window.__frames.push(now)
      requestAnimationFrame(tick)
    }
    requestAnimationFrame(tick)
  })
  for (const [prompt, shape] of [["run the benchmark", "one 2,500-word paragraph"], ["run the shaped benchmark", "paragraphs, a list and a code block"]]) {
    await page.getByTestId("new-session").click()
    await page.getByTestId("session-heading").filter({ hasText: /^New session · / }).waitFor()
    const composer = page.locator("#composer-input")
    await composer.fill(prompt)
    await composer.press("Enter")
    await page.waitForFunction(() => /\bd0 /.test([...document.querySelectorAll('[data-testid="reply-text"]')].at(-1)?.textContent ?? ""), null, { timeout: 30_000 })
    const streamStart = await page.evaluate(() => performance.now())
    await page.getByTestId("stop").waitFor({ state: "detached", timeout: 60_000 })
    const streamEnd = await page.evaluate(() => performance.now())
    const frames = await page.evaluate(([from, to]) => window.__frames.filter((time) => time >= from && time <= to).length, [streamStart, streamEnd])
    const seconds = (streamEnd - streamStart) / 1000
    // The numbered words as they show, without the code blocks' headers (their label and Copy
    // button, whose text runs into the code's first word in textContent).
    const text = await page.evaluate(() => {
      const reply = [...document.querySelectorAll('[data-testid="reply-text"]')].at(-1)?.cloneNode(true)
      if (reply === undefined) return ""
      for (const header of reply.querySelectorAll(".code-header")) header.remove()
      return reply.textContent
    })
    const words = text.split(/\s+/).filter((word) => /^d[0-9]+$/.test(word))
    const missing = Array.from({ length: 2500 }, (_, index) => `d${index}`).filter((word, index) => words[index] !== word)
    const present = missing.length === 0 && words.length === 2500 ? "yes" : `no, ${missing.length} missing or out of place (first ${missing[0]}), ${words.length} words`
    console.log(`a reply streaming 2,500 deltas at 500/s, ${shape} (chromium): ${(frames / seconds).toFixed(1)} fps over ${seconds.toFixed(1)} s of streaming (${(2500 / seconds).toFixed(0)} deltas/s arrived); every delta's text present at the end, in order: ${present}`)
  }
} finally {
  await browser.close()
  await server.stop()
  await provider.stop()
}
