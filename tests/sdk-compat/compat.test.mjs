// @opencode-ai/sdk, unchanged, against the real dossier-server binary on 127.0.0.1:0.
//
// Run through scripts/test-sdk.sh, or by hand after building the server:
//   DOSSIER_SERVER_BIN=/path/to/dossier-server node --test
import { test, before, after } from "node:test"
import assert from "node:assert/strict"
import { mkdtempSync, writeFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk/v2/client"
import { startServer } from "./server.mjs"

let server
let client
let folder
let file
let baseUrl
const events = []
const streamAbort = new AbortController()
let connected

before(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "dossier-sdk-"))
  file = path.join(folder, "package.json")
  writeFileSync(file, JSON.stringify({ name: "demo", version: "0.1.0" }, null, 2) + "\n")
  server = await startServer(folder)
  baseUrl = server.baseUrl
  client = createOpencodeClient({ baseUrl })
  const subscription = await client.event.subscribe(undefined, { signal: streamAbort.signal, sseMaxRetryAttempts: 1 })
  connected = new Promise((resolve) => {
    ;(async () => {
      try {
        for await (const event of subscription.stream) {
          events.push(event)
          if (event.type === "server.connected") resolve()
        }
      } catch {
        // The stream is aborted when the suite ends.
      }
    })()
  })
  await connected
})

after(async () => {
  streamAbort.abort()
  await server?.stop()
  if (folder) rmSync(folder, { recursive: true, force: true })
})

async function waitForEvents(predicate, timeout = 5000) {
  const started = Date.now()
  while (Date.now() - started < timeout) {
    if (predicate(events)) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.fail("events did not arrive: " + events.map((event) => event.type).join(", "))
}

let sessionID

test("session.create returns an OpenCode session", async () => {
  const created = await client.session.create({ title: "SDK session" })
  assert.equal(created.response.status, 200)
  assert.match(created.data.id, /^ses_/)
  assert.equal(created.data.title, "SDK session")
  sessionID = created.data.id
})

test("a noReply prompt with a file:// text file and a text part gives four parts in OpenCode's order", async () => {
  const reply = await client.session.prompt({
    sessionID,
    noReply: true,
    parts: [
      { type: "file", mime: "text/plain", filename: "package.json", url: "file://" + file },
      { type: "text", text: "explain this project" },
    ],
  })
  assert.equal(reply.response.status, 200)
  assert.equal(reply.data.info.role, "user")
  assert.deepEqual(reply.data.info.model, { providerID: "fake", modelID: "fake-model" })
  const parts = reply.data.parts
  assert.deepEqual(parts.map((part) => [part.type, part.synthetic === true]), [
    ["text", true], ["text", true], ["file", false], ["text", false],
  ])
  assert.equal(parts[0].text, `Called the Read tool with the following input: {"filePath":"${file}"}`)
  assert.ok(parts[1].text.startsWith(`<path>${file}</path>\n<type>file</type>\n<content>\n1: {`), parts[1].text)
  assert.equal(parts[2].url, "file://" + file)
  assert.equal(parts[3].text, "explain this project")
})

test("session.list and session.messages read the session back", async () => {
  const list = await client.session.list({})
  assert.equal(list.response.status, 200)
  assert.ok(list.data.some((session) => session.id === sessionID))
  const messages = await client.session.messages({ sessionID })
  assert.equal(messages.response.status, 200)
  assert.equal(messages.data.length, 1)
  assert.deepEqual(messages.data[0].parts.map((part) => part.type), ["text", "text", "file", "text"])
  const one = await client.session.message({ sessionID, messageID: messages.data[0].info.id })
  assert.equal(one.data.parts.length, 4)
  const page = await client.session.messages({ sessionID, limit: 1 })
  assert.equal(page.data.length, 1)
})

test("the events of the prompt arrive over SSE in OpenCode's order", async () => {
  const forSession = () => events.filter((event) => event.properties?.sessionID === sessionID)
  await waitForEvents(() => forSession().filter((event) => event.type === "message.part.updated").length === 4)
  await waitForEvents(() => forSession().at(-1)?.type === "session.updated")
  const types = forSession().map((event) => event.type)
  assert.deepEqual(types, [
    "session.created",
    "session.updated",
    "session.updated",
    "message.updated",
    "message.part.updated",
    "message.part.updated",
    "message.part.updated",
    "message.part.updated",
    "session.updated",
  ])
  assert.equal(events[0].type, "server.connected")
})

test("listings the SDK asks for answer", async () => {
  const agents = await client.app.agents()
  assert.equal(agents.data[0].name, "build")
  const providers = await client.config.providers()
  assert.equal(providers.data.default.fake, "fake-model")
  const all = await client.provider.list()
  assert.ok(all.data.connected.includes("fake"))
  const config = await client.config.get()
  assert.equal(config.data.model, "fake/fake-model")
  const status = await client.session.status()
  assert.deepEqual(status.data, {})
})

test("a prompt that wants a reply gets the offline model's streamed reply", async () => {
  const model = { providerID: "dossier", modelID: "offline" }
  const replied = await client.session.prompt({ sessionID, model, parts: [{ type: "text", text: "answer me" }] })
  assert.equal(replied.response.status, 200)
  assert.equal(replied.data.info.role, "assistant")
  const text = replied.data.parts.filter((part) => part.type === "text").map((part) => part.text).join("")
  assert.match(text, /answer me/)
  await waitForEvents(() => events.some((event) => event.type === "message.part.delta" && event.properties.sessionID === sessionID))
  const accepted = await client.session.promptAsync({ sessionID, model, parts: [{ type: "text", text: "answer me later" }] })
  assert.equal(accepted.response.status, 204)
  await waitForEvents(() => events.filter((event) => event.type === "session.idle" && event.properties.sessionID === sessionID).length >= 2)
  const messages = await client.session.messages({ sessionID })
  const roles = messages.data.slice(-4).map((message) => message.info.role)
  assert.deepEqual(roles, ["user", "assistant", "user", "assistant"])
})

test("part.update, part.delete and session.deleteMessage edit the ledger", async () => {
  const created = await client.session.create({ title: "Editing" })
  const editing = created.data.id
  const prompted = await client.session.prompt({ sessionID: editing, noReply: true, parts: [{ type: "text", text: "first draft" }, { type: "text", text: "a second part" }] })
  const messageID = prompted.data.info.id
  const [first, second] = prompted.data.parts
  const updated = await client.part.update({ sessionID: editing, messageID, partID: first.id, part: { ...first, text: "final wording" } })
  assert.equal(updated.response.status, 200)
  assert.equal(updated.data.text, "final wording")
  const removed = await client.part.delete({ sessionID: editing, messageID, partID: second.id })
  assert.equal(removed.response.status, 200)
  assert.equal(removed.data, true)
  const one = await client.session.message({ sessionID: editing, messageID })
  assert.deepEqual(one.data.parts.map((part) => part.text), ["final wording"])
  const deleted = await client.session.deleteMessage({ sessionID: editing, messageID })
  assert.equal(deleted.data, true)
  await waitForEvents(() => events.some((event) => event.type === "message.removed" && event.properties.messageID === messageID))
  const messages = await client.session.messages({ sessionID: editing })
  assert.deepEqual(messages.data, [])
})

test("errors reach the SDK as OpenCode's named errors", async () => {
  const missing = await client.session.get({ sessionID: "ses_missing" })
  assert.equal(missing.response.status, 404)
  assert.equal(missing.error.name, "NotFoundError")
  assert.match(missing.error.data.message, /ses_missing/)
  await assert.rejects(
    client.session.get({ sessionID: "ses_missing" }, { throwOnError: true }),
    /Session not found: ses_missing/,
  )
})
