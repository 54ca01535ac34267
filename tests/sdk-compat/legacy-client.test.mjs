// The SDK's first-generation client (`@opencode-ai/sdk`, `{path, body}` parameters), which older
// OpenCode integrations still use, against the same binary.
import { test, before, after } from "node:test"
import assert from "node:assert/strict"
import { mkdtempSync, writeFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk"
import { startServer } from "./server.mjs"

let server
let client
let folder

before(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "dossier-sdk-v1-"))
  server = await startServer(folder)
  client = createOpencodeClient({ baseUrl: server.baseUrl })
})

after(async () => {
  await server?.stop()
  if (folder) rmSync(folder, { recursive: true, force: true })
})

test("the first-generation client creates, prompts and lists", async () => {
  const file = path.join(folder, "notes.txt")
  writeFileSync(file, "one\ntwo\n")
  const created = await client.session.create({ body: { title: "v1" } })
  assert.equal(created.response.status, 200)
  const id = created.data.id
  const prompted = await client.session.prompt({
    path: { id },
    body: {
      noReply: true,
      parts: [
        { type: "file", mime: "text/plain", filename: "notes.txt", url: "file://" + file },
        { type: "text", text: "summarise" },
      ],
    },
  })
  assert.equal(prompted.response.status, 200)
  assert.deepEqual(prompted.data.parts.map((part) => part.type), ["text", "text", "file", "text"])
  const messages = await client.session.messages({ path: { id } })
  assert.equal(messages.data.length, 1)
  const sessions = await client.session.list()
  assert.ok(sessions.data.some((session) => session.id === id))
  const missing = await client.session.get({ path: { id: "ses_missing" } })
  assert.equal(missing.response.status, 404)
  assert.equal(missing.error.name, "NotFoundError")
})
