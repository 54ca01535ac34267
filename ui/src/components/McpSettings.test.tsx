// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@solidjs/testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { McpSettings } from "./McpSettings";
import type { McpServerInput } from "../lib/bindings/McpServerInput";
import type { McpSettings as McpListing } from "../lib/bindings/McpSettings";
import type { McpStatus } from "../lib/bindings/McpStatus";
import type { McpToolPermission } from "../lib/bindings/McpToolPermission";
import type { McpBackend } from "../lib/transport";
import { fakeBackend } from "../lib/transport/fake-backend";

afterEach(cleanup);

/** An in-memory MCP backend: saved servers connect at once; calls are recorded. */
function fakeMcp(withDialog: boolean) {
  const calls: string[] = [];
  const saved: McpServerInput[] = [];
  let listing: McpListing = {
    configPath: "/home/ada/.config/dossier/dossier.json",
    servers: [{ name: "files", kind: "local", command: ["npx", "-y", "server-filesystem"], values: [{ name: "TOKEN", source: { type: "keychain" } }], enabled: true }],
  };
  const statuses: Record<string, McpStatus> = { files: { status: "failed", error: "spawn npx ENOENT", stderr: ["npx: not found"] } };
  // The core's answer: a connected server's tools, with the config file's exact allow rules.
  const allowed = new Set<string>();
  const tools = (): McpToolPermission[] =>
    [
      { server: "files", tool: "read_file", readOnly: true, description: "Reads a file" },
      { server: "files", tool: "write_file", readOnly: false, description: "Writes a file" },
      { server: "other", tool: "ping", readOnly: true, description: "" },
    ]
      .filter((tool) => statuses[tool.server]?.status === "connected")
      .map((tool) => ({ ...tool, name: `${tool.server}_${tool.tool}`, alwaysAllowed: allowed.has(`${tool.server}_${tool.tool}`) }));
  const mcp: McpBackend = {
    statuses: () => Promise.resolve(Object.entries(statuses)),
    connect: (name) => {
      calls.push(`connect ${name}`);
      statuses[name] = { status: "connected", tools: 2, resources: 1, prompts: 0 };
      return Promise.resolve();
    },
    disconnect: (name) => {
      calls.push(`disconnect ${name}`);
      statuses[name] = { status: "disabled" };
      return Promise.resolve();
    },
    restart: (name) => {
      calls.push(`restart ${name}`);
      return Promise.resolve();
    },
    settings: () => Promise.resolve(listing),
    save: (input) => {
      saved.push(input);
      listing = { ...listing, servers: [...listing.servers, { name: input.name, kind: input.kind, command: input.command ?? [], values: [], enabled: true }] };
      statuses[input.name] = { status: "connecting" };
      return Promise.resolve(listing);
    },
    remove: (name) => {
      calls.push(`remove ${name}`);
      listing = { ...listing, servers: listing.servers.filter((server) => server.name !== name) };
      return Promise.resolve(listing);
    },
    resources: () => Promise.resolve([]),
    prompts: () => Promise.resolve([]),
    promptText: () => Promise.reject(new Error("no prompts here")),
    toolPermissions: () => Promise.resolve(tools()),
    setAlwaysAllowed: (name, on) => {
      calls.push(`always ${name} ${String(on)}`);
      if (on) allowed.add(name);
      else allowed.delete(name);
      return Promise.resolve(tools());
    },
    ...(withDialog ? { importWithDialog: () => Promise.resolve(listing) } : { importText: (text: string) => { calls.push(`import ${text}`); return Promise.resolve(listing); } }),
  };
  return { mcp, calls, saved };
}

describe("Settings → MCP servers", () => {
  it("shows a failed server's error and stderr, connects it, and follows mcp.status events", async () => {
    const backend = fakeBackend();
    const { mcp, calls } = fakeMcp(true);
    render(() => <McpSettings backend={backend} mcp={mcp} />);
    const row = await screen.findByTestId("mcp-server");
    await waitFor(() => {
      expect(within(row).getByTestId("mcp-status").textContent).toBe("Failed: spawn npx ENOENT");
    });
    expect(within(row).getByTestId("mcp-stderr").textContent).toContain("npx: not found");
    expect(row.textContent).toContain("TOKEN");
    fireEvent.click(within(row).getByTestId("mcp-connect"));
    await waitFor(() => {
      expect(within(row).getByTestId("mcp-status").textContent).toBe("Connected: 2 tools, 1 resources, 0 prompts");
    });
    expect(calls).toEqual(["connect files"]);
    backend.publish({ type: "mcp.status", properties: { name: "files", status: { status: "connecting" } } });
    await waitFor(() => {
      expect(row.getAttribute("data-status")).toBe("connecting");
    });
    expect(within(row).queryByTestId("mcp-connect")).toBeNull();
  });

  it("adds a local server from the form, refusing a form without a command first", async () => {
    const { mcp, saved } = fakeMcp(true);
    render(() => <McpSettings backend={fakeBackend()} mcp={mcp} />);
    fireEvent.click(await screen.findByTestId("mcp-add"));
    const form = screen.getByTestId("mcp-form");
    fireEvent.input(form.querySelector('input[name="name"]') as HTMLInputElement, { target: { value: "everything" } });
    fireEvent.submit(form);
    await screen.findByText("Enter the command that starts the server.");
    expect(saved).toEqual([]);
    fireEvent.input(form.querySelector('input[name="command"]') as HTMLInputElement, { target: { value: "npx -y @modelcontextprotocol/server-everything" } });
    fireEvent.click(screen.getByTestId("mcp-value-add"));
    fireEvent.input(form.querySelector('input[name="value-name"]') as HTMLInputElement, { target: { value: "API_KEY" } });
    fireEvent.input(form.querySelector('input[name="value-value"]') as HTMLInputElement, { target: { value: "s3cret" } });
    fireEvent.submit(form);
    await screen.findByText("Saved. The server follows the new settings.");
    expect(saved).toEqual([{ name: "everything", kind: "local", command: ["npx", "-y", "@modelcontextprotocol/server-everything"], values: [{ name: "API_KEY", value: "s3cret" }], enabled: true }]);
    expect(screen.getAllByTestId("mcp-server").map((row) => row.getAttribute("data-name"))).toEqual(["files", "everything"]);
  });

  it("imports a Claude Desktop file through a file input in a browser", async () => {
    const { mcp, calls } = fakeMcp(false);
    render(() => <McpSettings backend={fakeBackend()} mcp={mcp} />);
    const input = await screen.findByTestId<HTMLInputElement>("mcp-import-file");
    const content = '{"mcpServers": {}}';
    // jsdom's File has no text(); every browser's has.
    const file = Object.assign(new File([content], "claude_desktop_config.json", { type: "application/json" }), { text: () => Promise.resolve(content) });
    fireEvent.change(input, { target: { files: [file] } });
    await screen.findByText("Imported. The servers are connecting.");
    expect(calls).toEqual(['import {"mcpServers": {}}']);
  });

  it("lists a connected server's tools and switches Always allow on and off", async () => {
    const { mcp, calls } = fakeMcp(true);
    render(() => <McpSettings backend={fakeBackend()} mcp={mcp} />);
    const row = await screen.findByTestId("mcp-server");
    await waitFor(() => {
      expect(row.getAttribute("data-status")).toBe("failed");
    });
    // A failed server has no tools to list.
    expect(within(row).queryByTestId("mcp-tools")).toBeNull();
    fireEvent.click(within(row).getByTestId("mcp-connect"));
    const tools = await within(row).findByTestId("mcp-tools");
    (tools as HTMLDetailsElement).open = true;
    fireEvent(tools, new Event("toggle"));
    await waitFor(() => {
      expect(within(tools).getAllByTestId("mcp-tool").map((tool) => tool.getAttribute("data-name"))).toEqual(["files_read_file", "files_write_file"]);
    });
    const write = within(tools).getAllByTestId("mcp-tool")[1] as HTMLElement;
    expect(write.textContent).toContain("Always allow write_file");
    expect(write.textContent).toContain("Asks before it runs");
    const switchOf = () => within(write).getByTestId<HTMLInputElement>("mcp-always-allow");
    expect(switchOf().checked).toBe(false);
    fireEvent.click(switchOf());
    await waitFor(() => {
      expect(calls).toContain("always files_write_file true");
    });
    await waitFor(() => {
      expect(within(tools).getAllByTestId<HTMLInputElement>("mcp-always-allow").map((box) => box.checked)).toEqual([false, true]);
    });
    fireEvent.click(within(tools).getAllByTestId("mcp-always-allow")[1] as HTMLElement);
    await waitFor(() => {
      expect(calls).toContain("always files_write_file false");
    });
    await waitFor(() => {
      expect(within(tools).getAllByTestId<HTMLInputElement>("mcp-always-allow").map((box) => box.checked)).toEqual([false, false]);
    });
  });
});
