import { describe, expect, it } from "vitest";
import type { McpStatus } from "./bindings/McpStatus";
import { translator } from "./i18n";
import { checkMcpForm, describeMcpStatus, emptyMcpForm, failedStderr, formFromMcpSetting, joinCommandLine, mcpActions, splitCommandLine } from "./mcp-settings";

const t = translator("en");

describe("command lines", () => {
  it("splits on spaces and keeps quoted words whole", () => {
    expect(splitCommandLine("  npx -y @modelcontextprotocol/server-everything  ")).toEqual(["npx", "-y", "@modelcontextprotocol/server-everything"]);
    expect(splitCommandLine(`node "/home/ada/My Servers/index.js" --name 'it''s' ""`)).toEqual(["node", "/home/ada/My Servers/index.js", "--name", "its", ""]);
    expect(splitCommandLine("   ")).toEqual([]);
  });

  it("joins back to a line that splits the same", () => {
    const words = ["node", "/home/ada/My Servers/index.js", 'say "hi"', ""];
    expect(splitCommandLine(joinCommandLine(words))).toEqual(words);
  });
});

describe("checkMcpForm", () => {
  it("turns a local form into the core's input; a stored value left empty is kept", () => {
    const form = {
      ...emptyMcpForm(),
      name: " everything ",
      commandLine: "npx -y @modelcontextprotocol/server-everything",
      values: [
        { name: "TOKEN", value: "s3cret", stored: false },
        { name: "KEPT", value: "", stored: true },
        { name: "", value: "", stored: false },
      ],
      timeout: "30000",
    };
    expect(checkMcpForm(form)).toEqual({
      input: {
        name: "everything",
        kind: "local",
        command: ["npx", "-y", "@modelcontextprotocol/server-everything"],
        values: [{ name: "TOKEN", value: "s3cret" }, { name: "KEPT" }],
        enabled: true,
        timeout: 30000,
      },
    });
  });

  it("turns a remote form into a URL and headers", () => {
    const form = { ...emptyMcpForm(), name: "docs", kind: "remote" as const, url: " http://127.0.0.1:3001/mcp ", values: [{ name: "Authorization", value: "Bearer x", stored: false }], enabled: false };
    expect(checkMcpForm(form)).toEqual({
      input: { name: "docs", kind: "remote", url: "http://127.0.0.1:3001/mcp", values: [{ name: "Authorization", value: "Bearer x" }], enabled: false },
    });
  });

  it("accepts a name with spaces and refuses one without a letter or digit, or too long", () => {
    const local = { ...emptyMcpForm(), commandLine: "node server.js" };
    expect(checkMcpForm({ ...local, name: "My files" })).toMatchObject({ input: { name: "My files" } });
    expect(checkMcpForm({ ...local, name: "  --  " })).toEqual({ problems: { name: "mcp.nameInvalid" } });
    expect(checkMcpForm({ ...local, name: "x".repeat(65) })).toEqual({ problems: { name: "mcp.nameInvalid" } });
    expect(checkMcpForm({ ...local, name: "tab\there" })).toEqual({ problems: { name: "mcp.nameInvalid" } });
  });

  it("says what to fix, field by field", () => {
    expect(checkMcpForm({ ...emptyMcpForm(), name: "文件", timeout: "soon" })).toEqual({
      problems: { name: "mcp.nameInvalid", commandLine: "mcp.commandMissing", timeout: "mcp.timeoutInvalid" },
    });
    expect(checkMcpForm({ ...emptyMcpForm(), kind: "remote", url: "ftp://x" })).toEqual({ problems: { name: "mcp.nameMissing", url: "mcp.urlInvalid" } });
    const twice = [{ name: "A", value: "1", stored: false }, { name: "A", value: "2", stored: false }];
    expect(checkMcpForm({ ...emptyMcpForm(), name: "x", commandLine: "x", values: twice })).toEqual({ problems: { values: "mcp.valuesInvalid" } });
    const empty = [{ name: "NEW", value: "", stored: false }];
    expect(checkMcpForm({ ...emptyMcpForm(), name: "x", commandLine: "x", values: empty })).toEqual({ problems: { values: "mcp.valueMissing" } });
  });

  it("edits a saved server with its values kept and never shown", () => {
    const form = formFromMcpSetting({
      name: "files",
      kind: "local",
      command: ["node", "/srv/My Server.js"],
      values: [{ name: "TOKEN", source: { type: "keychain" } }],
      enabled: true,
      timeout: 9000,
    });
    expect(form).toEqual({ name: "files", kind: "local", commandLine: 'node "/srv/My Server.js"', url: "", values: [{ name: "TOKEN", value: "", stored: true }], enabled: true, timeout: "9000" });
    expect(checkMcpForm(form)).toEqual({
      input: { name: "files", kind: "local", command: ["node", "/srv/My Server.js"], values: [{ name: "TOKEN" }], enabled: true, timeout: 9000 },
    });
  });
});

describe("statuses", () => {
  it("say what a person needs, and offer the buttons that apply", () => {
    expect(describeMcpStatus(t, { status: "connected", tools: 3, resources: 2, prompts: 1 })).toBe("Connected: 3 tools, 2 resources, 1 prompts");
    expect(describeMcpStatus(t, { status: "failed", error: "spawn ENOENT", stderr: ["x"] })).toBe("Failed: spawn ENOENT");
    expect(describeMcpStatus(t, { status: "disabled" })).toBe("Disconnected");
    expect(describeMcpStatus(t, undefined)).toBe("Not started");
    expect(mcpActions({ status: "connected", tools: 0, resources: 0, prompts: 0 })).toEqual({ connect: false, disconnect: true, restart: true });
    expect(mcpActions({ status: "disabled" })).toEqual({ connect: true, disconnect: false, restart: false });
    expect(mcpActions({ status: "failed", error: "x", stderr: [] })).toEqual({ connect: true, disconnect: true, restart: true });
    expect(mcpActions({ status: "connecting" })).toEqual({ connect: false, disconnect: true, restart: false });
    expect(failedStderr({ status: "failed", error: "x", stderr: ["Error: no token", "exit 1"] })).toEqual(["Error: no token", "exit 1"]);
    expect(failedStderr({ status: "failed", error: "x", stderr: [] })).toBeUndefined();
    expect(failedStderr(JSON.parse('{"status": "failed", "error": "x"}') as McpStatus)).toBeUndefined();
    expect(failedStderr({ status: "disabled" })).toBeUndefined();
  });
});
