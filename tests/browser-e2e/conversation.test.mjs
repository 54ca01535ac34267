// The conversation as a person uses it (issue 13), in Debian's chromium against a real
// dossier-server whose model is a scripted OpenAI-compatible provider on 127.0.0.1 (slow,
// long or link-carrying replies on demand): stopping a reply, links, following the newest
// message. Screenshots go to tests/artifacts/browser-conversation-*.png.
import { after, before, test } from "node:test"
import assert from "node:assert/strict"
import { mkdtempSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { startServer } from "../sdk-compat/server.mjs"
import { startScriptedProvider } from "./scripted-provider.mjs"
import { artifacts, launchBrowser, root } from "./support.mjs"

const run = { provider: undefined, server: undefined, browser: undefined }
before(async () => {
  run.provider = await startScriptedProvider()
  const folder = mkdtempSync(path.join(os.tmpdir(), "dossier-browser-"))
  run.server = await startServer(folder, { config: run.provider.config, ui: path.join(root, "ui/dist") })
  run.browser = await launchBrowser()
})
after(async () => {
  await run.browser?.close()
  await run.server?.stop()
  await run.provider?.stop()
})

async function freshSession(viewport = { width: 1280, height: 800 }) {
  const page = await run.browser.newPage({ viewport })
  const problems = []
  page.on("pageerror", (error) => problems.push(String(error)))
  await page.goto(run.server.baseUrl + "/")
  await page.getByTestId("new-session").click()
  await page.getByTestId("session-row").first().waitFor()
  return { page, problems }
}

async function send(page, text) {
  const composer = page.getByRole("textbox", { name: "Message" })
  await composer.fill(text)
  await composer.press("Enter")
}

test("a stopped reply is marked quietly as stopped, its text kept, with Continue and Regenerate", async () => {
  const { page, problems } = await freshSession()
  await send(page, "please be slow")
  await page.waitForFunction(() => /word5 /.test(document.querySelector('[data-testid="reply-text"]')?.textContent ?? ""), null, { timeout: 20_000 })
  await page.getByTestId("stop").click()
  const stopped = page.getByTestId("reply-stopped")
  await stopped.waitFor({ timeout: 10_000 })
  assert.equal(await stopped.innerText(), "Stopped")
  const reply = await page.getByTestId("reply-text").first().innerText()
  assert.match(reply, /word0 word1/, "the text streamed before Stop is kept")
  assert.doesNotMatch(reply, /word299/, "the reply really stopped")
  assert.equal(await page.getByRole("alert").count(), 0, "no failure is shown")
  assert.equal(await page.getByText(/failed|aborted/i).count(), 0, "no failure wording")
  const slot = page.locator(".message-slot").filter({ has: stopped })
  await slot.hover()
  assert.equal(await slot.getByTestId("regenerate").innerText(), "Regenerate")
  assert.equal(await slot.getByTestId("continue").innerText(), "Continue")
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-1-stopped.png") })

  // Continue sends a follow-up and a new reply streams in.
  await slot.getByTestId("continue").click()
  await page.getByTestId("reply-text").nth(1).waitFor({ timeout: 20_000 })
  await page.waitForFunction(() => /scripted model/.test(document.querySelectorAll('[data-testid="reply-text"]')[1]?.textContent ?? ""), null, { timeout: 20_000 })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})

test("a link in a reply opens in a new tab cut off from the app; a file: link opens nothing", async () => {
  const { page, problems } = await freshSession()
  const context = page.context()
  await context.route("https://example.com/**", (route) => route.fulfill({ contentType: "text/html", body: "<title>Guide</title>the guide" }))
  await send(page, "show me links")
  const reply = page.getByTestId("reply-text").first()
  await reply.getByText("a script").waitFor({ timeout: 20_000 })
  const appUrl = page.url()
  const guide = reply.getByRole("link", { name: "the guide" })
  assert.equal(await guide.getAttribute("rel"), "noopener noreferrer")
  const [tab] = await Promise.all([context.waitForEvent("page", { timeout: 10_000 }), guide.click()])
  await tab.waitForLoadState()
  assert.equal(tab.url(), "https://example.com/guide", "the link opened in a new tab")
  assert.equal(await tab.evaluate(() => window.opener), null, "the new tab has no handle on the app")
  await tab.close()
  assert.equal(page.url(), appUrl, "the app's own view stayed where it was")

  // file: and javascript: links are words, not links: clicking them opens nothing.
  const pagesBefore = context.pages().length
  await reply.getByText("this local file").click()
  await reply.getByText("a script").click()
  await page.waitForTimeout(500)
  assert.equal(context.pages().length, pagesBefore, "no tab opened")
  assert.equal(page.url(), appUrl)
  assert.equal(await reply.locator("a[href]").count(), 1, "only the https link is a link")
  await page.screenshot({ path: path.join(artifacts, "browser-conversation-2-links.png") })
  assert.deepEqual(problems, [], "no uncaught errors in the page")
  await page.close()
})
