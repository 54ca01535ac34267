// Another web page open in the same browser must not be able to use the local dossier-server: a
// page served from a second loopback origin (another port, and another name) tries what needs no
// preflight — a text/plain JSON POST, a no-cors form POST whose prompt names a file: URL, a
// text/plain <form> that smuggles JSON, navigator.sendBeacon — and a GET of the session list.
// Afterwards the ledger holds no new session and none of the file's content, and the page read
// nothing. A name resolved to 127.0.0.1 (what DNS rebinding achieves) gets no page and no data.
// The server's own UI keeps working under each loopback name it answers to.
import { test, before, after } from "node:test"
import assert from "node:assert/strict"
import { createServer } from "node:http"
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { artifacts, launchBrowser, serverAndBrowser } from "./support.mjs"

const run = serverAndBrowser()
const SECRET = "the-vault-combination-is-31-41-59"

/** A page of someone else's: blank HTML served from another port of this machine. */
let foreign
before(async () => {
  const server = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end("<!doctype html><title>Totally harmless page</title><iframe name=sink></iframe>")
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  foreign = { server, port: server.address().port }
})
after(() => foreign?.server.close())

const api = run.api

/** Every byte the server stored: the database and its write-ahead log. */
function ledgerText(folder) {
  let text = ""
  for (const name of readdirSync(folder)) {
    const file = path.join(folder, name)
    text += statSync(file).isDirectory() ? ledgerText(file) : readFileSync(file, "latin1")
  }
  return text
}

/** Runs in the foreign page: every way to reach the server without a preflight. */
async function attack({ base, sessionID, fileUrl }) {
  const prompt = JSON.stringify({ noReply: true, parts: [{ type: "file", mime: "text/plain", filename: "secret.txt", url: fileUrl }, { type: "text", text: "planted prompt" }] })
  const created = JSON.stringify({ title: "planted session" })
  const outcomes = {}
  const attempt = async (name, action) => {
    try {
      outcomes[name] = await action()
    } catch (error) {
      outcomes[name] = `threw ${error.name}`
    }
  }
  const describe = (response) => ({ type: response.type, status: response.status })
  await attempt("text/plain session", async () => describe(await fetch(base + "/session", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: created })))
  await attempt("cors text/plain session", async () => describe(await fetch(base + "/session", { method: "POST", headers: { "content-type": "text/plain" }, body: created })))
  await attempt("json session (needs a preflight)", async () => describe(await fetch(base + "/session", { method: "POST", headers: { "content-type": "application/json" }, body: created })))
  await attempt("untyped blob session", async () => describe(await fetch(base + "/session", { method: "POST", mode: "no-cors", body: new Blob([created]) })))
  const form = new FormData()
  form.append("body", prompt)
  await attempt("multipart prompt with a file part", async () => describe(await fetch(`${base}/session/${sessionID}/message`, { method: "POST", mode: "no-cors", body: form })))
  await attempt("urlencoded prompt", async () => describe(await fetch(`${base}/session/${sessionID}/message`, { method: "POST", mode: "no-cors", body: new URLSearchParams({ [prompt]: "" }) })))
  await attempt("text/plain prompt", async () => describe(await fetch(`${base}/session/${sessionID}/message`, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: prompt })))
  await attempt("text/plain prompt_async", async () => describe(await fetch(`${base}/session/${sessionID}/prompt_async`, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: prompt })))
  await attempt("beacon session", async () => navigator.sendBeacon(base + "/session", created))
  await attempt("beacon prompt", async () => navigator.sendBeacon(`${base}/session/${sessionID}/message`, new Blob([prompt])))
  await attempt("listing", async () => {
    const response = await fetch(base + "/session")
    return { status: response.status, body: await response.text() }
  })
  await attempt("opaque listing", async () => describe(await fetch(base + "/session", { mode: "no-cors" })))
  // The classic trick: a text/plain form whose one field's name and value join into JSON.
  const smuggler = document.createElement("form")
  smuggler.method = "POST"
  smuggler.enctype = "text/plain"
  smuggler.target = "sink"
  smuggler.action = `${base}/session/${sessionID}/message`
  const field = document.createElement("input")
  field.name = prompt.slice(0, -1) + ',"pad":"'
  field.value = '"}'
  smuggler.append(field)
  document.body.append(smuggler)
  smuggler.submit()
  await new Promise((resolve) => setTimeout(resolve, 1500))
  return outcomes
}

for (const foreignName of ["127.0.0.1", "localhost"]) {
  test(`a page at http://${foreignName}:<other port> cannot create sessions, store a local file or read the list`, async () => {
    const kept = await api("POST", "/session", { title: "kept" })
    const secretFile = path.join(run.server.folder, `secret-${foreignName}.txt`)
    writeFileSync(secretFile, SECRET + "\n")
    const page = await run.browser.newPage()
    const answers = []
    page.on("response", (response) => {
      if (response.url().startsWith(run.server.baseUrl)) answers.push({ request: `${response.request().method()} ${new URL(response.url()).pathname}`, status: response.status() })
    })
    await page.goto(`http://${foreignName}:${foreign.port}/`)
    const outcomes = await page.evaluate(attack, { base: run.server.baseUrl, sessionID: kept.id, fileUrl: `file://${secretFile}` })
    await page.screenshot({ path: path.join(artifacts, `browser-foreign-page-${foreignName}.png`) })
    await page.close()

    // Nothing the page could read: CORS reads fail, no-cors ones are opaque.
    assert.equal(outcomes["listing"], "threw TypeError", JSON.stringify(outcomes))
    assert.equal(outcomes["cors text/plain session"], "threw TypeError")
    assert.equal(outcomes["json session (needs a preflight)"], "threw TypeError")
    assert.deepEqual(outcomes["opaque listing"], { type: "opaque", status: 0 })
    // Whatever reached the server was refused (403 forbidden_origin), never served.
    assert.ok(answers.length >= 8, JSON.stringify(answers))
    assert.deepEqual(answers.filter((answer) => answer.status !== 403), [], JSON.stringify(answers))

    const titles = (await api("GET", "/session")).map((session) => session.title)
    assert.ok(!titles.includes("planted session"), `sessions: ${titles}`)
    assert.deepEqual(await api("GET", `/session/${kept.id}/message`), [])
    assert.ok(!ledgerText(path.join(run.server.folder, "data")).includes(SECRET), "the secret file's text is not in the ledger")
  })
}

for (const name of ["127.0.0.1", "localhost"]) {
  test(`the server's own UI works at http://${name}:<port>`, async () => {
    const title = `Reachable as ${name}`
    await api("POST", "/session", { title })
    const port = new URL(run.server.baseUrl).port
    const page = await run.browser.newPage({ viewport: { width: 1000, height: 700 } })
    const problems = []
    page.on("pageerror", (error) => problems.push(String(error)))
    await page.goto(`http://${name}:${port}/`)
    await page.getByTestId("session-row").filter({ hasText: title }).first().waitFor()
    // A write from the page itself (same origin: Chromium sends its Origin on a POST) goes through.
    const status = await page.evaluate(async () => {
      const response = await fetch("/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "from the page" }) })
      return response.status
    })
    assert.equal(status, 200)
    await page.screenshot({ path: path.join(artifacts, `browser-own-ui-${name}.png`) })
    await page.close()
    assert.deepEqual(problems, [])
  })
}

test("a name that resolves to 127.0.0.1 (DNS rebinding) gets neither the UI nor the data", async () => {
  await api("POST", "/session", { title: "Not for evil.example" })
  const port = new URL(run.server.baseUrl).port
  const browser = await launchBrowser(["--host-resolver-rules=MAP evil.example 127.0.0.1"])
  try {
    const page = await browser.newPage()
    for (const route of ["/", "/session", "/event"]) {
      const response = await page.goto(`http://evil.example:${port}${route}`)
      assert.equal(response.status(), 421, route)
      const body = await response.text()
      assert.match(body, /"kind":"misdirected"/, route)
      assert.doesNotMatch(body, /Not for evil\.example/, route)
    }
    await page.screenshot({ path: path.join(artifacts, "browser-rebound-name.png") })
  } finally {
    await browser.close()
  }
})
