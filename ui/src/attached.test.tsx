// The whole app while the desktop window is attached to a Dossier server: the sidebar names the
// server, Settings lists the server's providers read-only, and the app's own updates still reach
// Settings → Updates from the sidebar's notice. A server that no longer accepts the token is a
// notice that asks the person to act (not "retrying", not an error per action), leading to
// Settings → Connect to a Dossier server; Settings says what is the server's and what this computer's.
// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import type { AvailableUpdate } from "./lib/shell-bindings/AvailableUpdate";
import type { UpdateStatus } from "./lib/shell-bindings/UpdateStatus";
import { Settings } from "./components/Settings";
import type { ServerConnectionCommands } from "./lib/server-connection";
import { BackendError } from "./lib/transport";
import type { Session } from "./lib/bindings/Session";
import { fakeBackend, session } from "./lib/transport/fake-backend";
import type { UpdateCommands } from "./lib/updates";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

const available: AvailableUpdate = { version: "0.2.0", notes: null, publishedAt: null };

const updates: UpdateCommands = {
  status: (): Promise<UpdateStatus> =>
    Promise.resolve({ currentVersion: "0.1.0", installKind: "deb", automaticChecks: true, lastCheckedAt: null, available, downloaded: false }),
  setAutomaticChecks: () => Promise.reject(new Error("not used here")),
  check: () => Promise.resolve(available),
  download: () => Promise.reject(new Error("not used here")),
  restart: () => Promise.reject(new Error("not used here")),
  onAvailable: () => () => undefined,
};

function attachedBackend(sessions: Session[] = []) {
  return { ...fakeBackend(sessions), transport: "attached" as const, server: "https://dossier.example.com:4096" };
}

describe("the app attached to a Dossier server", () => {
  it("names the server in the sidebar; on this computer's ledger nothing is said", async () => {
    render(() => <App locale="en" backend={attachedBackend()} />);
    const shown = await screen.findByTestId("ledger-in-use");
    expect(shown.textContent).toBe("On server dossier.example.com:4096");
    expect(shown.dataset.url).toBe("https://dossier.example.com:4096");
    cleanup();
    render(() => <App locale="en" backend={fakeBackend()} />);
    await screen.findByText("No sessions yet");
    expect(screen.queryByTestId("ledger-in-use")).toBeNull();
  });

  it("lists the server's providers read-only and keeps the app's updates in Settings", async () => {
    render(() => <App locale="en" backend={attachedBackend()} updates={updates} />);
    fireEvent.click(await screen.findByRole("button", { name: "Dossier 0.2.0 is ready" }));
    const section = await screen.findByTestId("updates");
    await waitFor(() => {
      expect(document.activeElement).toBe(section);
    });
    expect((await screen.findByTestId("update-available")).dataset.version).toBe("0.2.0");
    expect(await screen.findByTestId("server-provider-row")).toBeTruthy();
    expect(screen.queryByTestId("add-provider")).toBeNull();
    // Not "use the desktop app": this is the desktop app.
    const note = screen.getByTestId("settings-desktop-only").textContent;
    expect(note).toBe(
      "The providers and models of the Dossier server this window shows, listed read-only: they are set up where the server runs. The providers you added on this computer are kept, for when you use this computer’s ledger again.",
    );
  });
});

describe("the first run on a server without providers", () => {
  it("says the server's providers are set up where it runs, and leads to their list; on this computer it offers to add one", async () => {
    render(() => <App locale="en" backend={attachedBackend()} />);
    const welcome = await screen.findByTestId("welcome");
    const button = screen.getByTestId("welcome-add-provider");
    expect(button.textContent).toBe("Where model providers come from");
    expect(welcome.querySelector(".welcome-hint")?.textContent).toBe(
      "This server has no model provider yet: they are set up where it runs. Until it has one, its built-in offline model answers.",
    );
    fireEvent.click(button);
    expect(await screen.findByTestId("server-providers")).toBeTruthy();
    expect(screen.queryByTestId("add-provider")).toBeNull();
    cleanup();
    render(() => <App locale="en" backend={fakeBackend()} />);
    expect((await screen.findByTestId("welcome-add-provider")).textContent).toBe("Add a model provider");
    expect(screen.getByTestId("welcome").querySelector(".welcome-hint")?.textContent).toBe(
      "Until you add one, the built-in offline model answers.",
    );
  });
});

/** Refuses every call that reaches the server as the shell does once the token is revoked. */
const tokenRefused = () =>
  Promise.reject(new BackendError({ kind: "unauthorized", message: "https://dossier.example.com:4096 no longer accepts this computer's access token (it may have been revoked)." }));

describe("a server that no longer accepts this computer's access token", () => {
  it("is a notice that asks the person to act and leads to Settings, and goes when the token is accepted again", async () => {
    const fake = attachedBackend();
    render(() => <App locale="en" backend={fake} />);
    await screen.findByText("No sessions yet");
    fake.connection("refused");
    const notice = await screen.findByTestId("connection-status");
    expect(notice.dataset.state).toBe("refused");
    expect(notice.getAttribute("role")).toBe("alert");
    expect(notice.querySelector("p")?.textContent).toBe(
      "Dossier’s server no longer accepts this computer’s access token (it may have been revoked). Nothing on this computer was lost. Enter a new token, or use this computer’s ledger.",
    );
    expect(notice.textContent).not.toContain("retrying");
    fireEvent.click(screen.getByTestId("open-server-settings"));
    expect(await screen.findByTestId("settings")).toBeTruthy();
    fireEvent.click(screen.getByTestId("close-settings"));
    // Down rather than refused: the "retrying" notice, as before.
    fake.connection("reconnecting");
    await waitFor(() => {
      expect(screen.getByTestId("connection-status").dataset.state).toBe("reconnecting");
    });
    fake.connection("connected");
    await waitFor(() => {
      expect(screen.queryByTestId("connection-status")).toBeNull();
    });
  });

  it("says it in place of a send's error, with Retry, and adds no error to other refused actions", async () => {
    const fake = attachedBackend([session("ses_a", "Taxes", Date.now())]);
    render(() => <App locale="en" backend={fake} />);
    fireEvent.click(await screen.findByText("Taxes"));
    fake.connection("refused");
    // A new session, say: the notice above already says why; no "Something went wrong" below it.
    fake.createSession = tokenRefused;
    fireEvent.keyDown(window, { key: "n", ctrlKey: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByTestId("notice")).toBeNull();
    // A send keeps its words: said in place, with Retry.
    fake.sendPrompt = tokenRefused;
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    fireEvent.input(field, { target: { value: "hello" } });
    fireEvent.keyDown(field, { key: "Enter" });
    const sent = await screen.findByTestId("notice");
    expect(sent.dataset.kind).toBe("unauthorized");
    expect(sent.querySelector("p")?.textContent).toBe(
      "Not sent: Dossier’s server no longer accepts this computer’s access token (see the notice above). Retry puts your message back in the box.",
    );
    expect(field.value).toBe("");
    fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(field.value).toBe("hello");
  });

  it("opens Settings at Connect to a Dossier server, with the address filled in for a new token and this computer's ledger one click away", async () => {
    const calls: string[] = [];
    const commands: ServerConnectionCommands = {
      ledgerInUse: () => Promise.resolve({ ledger: "server", url: "https://dossier.example.com:4096", tokenRemembered: true }),
      test: (url) => Promise.resolve({ url, version: "0.1.0" }),
      connect: (url, token) => {
        calls.push(`connect ${url} ${token}`);
        return Promise.resolve({ ledger: "server", url, tokenRemembered: true });
      },
      useLocal: () => Promise.reject(new Error("not used here")),
      copyLocalSessions: () => Promise.reject(new Error("not used here")),
    };
    render(() => (
      <Settings backend={attachedBackend()} onClose={() => undefined} onChanged={() => undefined} startAt="server" tokenRefused serverConnection={commands} />
    ));
    const section = await screen.findByTestId("server-connection");
    await waitFor(() => {
      expect(document.activeElement).toBe(section);
    });
    expect((await screen.findByTestId("server-token-refused")).textContent).toBe(
      "The server no longer accepts this computer’s access token (it may have been revoked). Nothing on this computer was lost. Ask whoever runs the server for a new token and enter it below, or use this computer’s ledger.",
    );
    await waitFor(() => {
      expect(document.querySelector<HTMLInputElement>("[name=serverUrl]")?.value).toBe("https://dossier.example.com:4096");
    });
    expect(screen.getByTestId("use-local-ledger")).toBeTruthy();
    // Copying would be refused too.
    expect(screen.queryByTestId("copy-local-sessions")).toBeNull();
    fireEvent.input(document.querySelector("[name=serverToken]") as HTMLInputElement, { target: { value: "dossier_new" } });
    fireEvent.click(screen.getByTestId("test-server-connection"));
    expect(await screen.findByTestId("connect-server")).toBeTruthy();
  });

  it("is said in Simplified Chinese too", async () => {
    const fake = attachedBackend();
    render(() => <App locale="zh-CN" backend={fake} />);
    await screen.findByTestId("ledger-in-use");
    fake.connection("refused");
    expect((await screen.findByTestId("connection-status")).textContent).toContain("不再接受这台电脑的访问令牌");
    expect(screen.getByTestId("open-server-settings").textContent).toBe("打开服务器设置");
  });
});
