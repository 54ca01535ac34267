// @vitest-environment jsdom
// The composer in the reader's language (issue 27): the agent picker names the agents in words
// (their ids stay on the wire), the offline model and the token counts are translated, and the
// Resources button shows only while a connected MCP server offers resources.
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import type { McpStatus } from "./lib/bindings/McpStatus";
import type { McpBackend } from "./lib/transport";
import { fakeBackend, session } from "./lib/transport/fake-backend";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

function withMcp(statuses: [string, McpStatus][]) {
  const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
  const mcp: McpBackend = {
    statuses: () => Promise.resolve(statuses),
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    restart: () => Promise.resolve(),
    settings: () => Promise.resolve({ servers: [], configPath: "" }),
    save: () => Promise.reject(new Error("unused")),
    remove: () => Promise.reject(new Error("unused")),
    resources: () => Promise.resolve([{ clientName: "docs", uri: "docs://guide", name: "guide.md" }]),
    prompts: () => Promise.resolve([]),
    promptText: () => Promise.reject(new Error("unused")),
    toolPermissions: () => Promise.resolve([]),
    setAlwaysAllowed: () => Promise.resolve([]),
  };
  return Object.assign(backend, { mcp });
}

describe("the composer's words", () => {
  it("in Chinese, the agent picker names the agents in words and still sends their ids", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    render(() => <App locale="zh-CN" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    const picker = await screen.findByTestId<HTMLSelectElement>("agent-picker");
    await waitFor(() => {
      expect([...picker.options].map((option) => [option.value, option.textContent])).toEqual([
        ["build", "直接动手"],
        ["plan", "只做计划（不改动）"],
      ]);
    });
    await waitFor(() => { expect(screen.getByTestId("model-picker").textContent).toContain("Dossier · 离线替身（备用：未安装模型）"); });
    fireEvent.change(picker, { target: { value: "plan" } });
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "消息" });
    expect(field.placeholder).toContain("@ 提及智能体");
    fireEvent.input(field, { target: { value: "想一想" } });
    fireEvent.keyDown(field, { key: "Enter" });
    await waitFor(() => {
      expect(backend.calls.find((call) => call.command === "sendPrompt")?.argument).toMatchObject({ input: { agent: "plan" } });
    });

    // A reply's token counts read in Chinese too.
    backend.publish({
      type: "message.updated",
      properties: {
        sessionID: "ses_a",
        info: {
          role: "assistant", id: "msg_900", sessionID: "ses_a", time: { created: 5, completed: 6 }, parentID: "msg_1", modelID: "offline", providerID: "dossier",
          mode: "plan", agent: "plan", path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 7, output: 78, reasoning: 0, cache: { read: 0, write: 0 } },
        },
      },
    });
    backend.publish({
      type: "message.part.updated",
      properties: { sessionID: "ses_a", time: 6, part: { id: "prt_901", sessionID: "ses_a", messageID: "msg_900", type: "step-finish", reason: "stop", cost: 0, tokens: { input: 7, output: 78, reasoning: 0, cache: { read: 0, write: 0 } } } },
    });
    await waitFor(() => { expect(screen.getByTestId("usage").textContent).toBe("输入 7 · 输出 78"); });
  });

  it("the @ menu shows each agent's id to type, its name and what it does", async () => {
    render(() => <App locale="en" backend={fakeBackend([session("ses_a", "Taxes", 1)])} />);
    fireEvent.click(await screen.findByText("Taxes"));
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    await waitFor(() => { expect(screen.getByTestId<HTMLSelectElement>("agent-picker").options).toHaveLength(2); });
    fireEvent.input(field, { target: { value: "ask @ex" } });
    const menu = await screen.findByRole("listbox", { name: "Agent" });
    expect([...menu.querySelectorAll("[role=option]")].map((option) => option.textContent)).toEqual([
      "@explore Explore the filesFinds files and searches the code to answer questions about it; changes nothing.",
    ]);
    fireEvent.keyDown(field, { key: "Tab" });
    expect(field.value).toBe("ask @explore ");
  });

  it("Resources shows only while a connected server offers resources", async () => {
    const backend = withMcp([["tools-only", { status: "connected", tools: 4, resources: 0, prompts: 0 }]]);
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    await screen.findByTestId("agent-picker");
    expect(screen.queryByTestId("attach-resource")).toBeNull();

    backend.publish({ type: "mcp.status", properties: { name: "docs", status: { status: "connected", tools: 0, resources: 2, prompts: 0 } } });
    fireEvent.click(await screen.findByTestId("attach-resource"));
    expect((await screen.findAllByTestId("resource-option")).map((item) => item.getAttribute("data-uri"))).toEqual(["docs://guide"]);

    backend.publish({ type: "mcp.status", properties: { name: "docs", status: { status: "disabled" } } });
    await waitFor(() => { expect(screen.queryByTestId("attach-resource")).toBeNull(); });
  });
});
