// The state behind Settings → MCP servers: the configured servers, their live statuses (kept
// current by the `mcp.status` event and read again on a resync), the last failure or notice, and
// the actions on them. The only caller of the backend's MCP settings calls; the component keeps
// just its form.
import { createSignal } from "solid-js";
import type { McpServerInput } from "./bindings/McpServerInput";
import type { McpSettings } from "./bindings/McpSettings";
import type { McpStatus } from "./bindings/McpStatus";
import type { McpToolPermission } from "./bindings/McpToolPermission";
import type { MessageKey } from "./i18n";
import { type Backend, type BackendError, type McpBackend, toBackendError } from "./transport";

export type McpSettingsStore = ReturnType<typeof createMcpSettingsStore>;

export function createMcpSettingsStore(backend: Backend, mcp: McpBackend) {
  const [listing, setListing] = createSignal<McpSettings | undefined>();
  const [statuses, setStatuses] = createSignal<Record<string, McpStatus>>({});
  const [failure, setFailure] = createSignal<BackendError | undefined>();
  const [notice, setNotice] = createSignal<MessageKey | undefined>();
  const [busy, setBusy] = createSignal(false);

  const refreshStatuses = async () => {
    setStatuses(Object.fromEntries(await mcp.statuses()));
  };

  /** Runs a call; on failure keeps its error. Statuses are read again either way. */
  const run = async (call: () => Promise<McpSettings | undefined>, done?: MessageKey): Promise<boolean> => {
    setBusy(true);
    setFailure(undefined);
    setNotice(undefined);
    try {
      const result = await call();
      if (result) setListing(result);
      if (done !== undefined) setNotice(done);
      return true;
    } catch (error) {
      setFailure(toBackendError(error));
      return false;
    } finally {
      setBusy(false);
      await refreshStatuses().catch((error: unknown) => {
        console.warn("could not read the MCP statuses", error);
      });
    }
  };

  /** A lifecycle call (connect, disconnect, restart): its answer is the statuses read after it. */
  const act = (call: () => Promise<void>) =>
    run(async () => {
      await call();
      return undefined;
    });

  const importWithDialog = mcp.importWithDialog;
  const importText = mcp.importText;

  return {
    listing,
    statuses,
    failure,
    notice,
    busy,
    clearNotice: () => {
      setNotice(undefined);
    },
    /** Reads the list, and follows the statuses until the returned function is called. */
    watch: (): (() => void) => {
      void run(() => mcp.settings());
      return backend.subscribe({
        onEvent: (event) => {
          if (event.type === "mcp.status") {
            const { name, status } = event.properties;
            setStatuses((current) => ({ ...current, [name]: status }));
          }
        },
        onResync: () => {
          void refreshStatuses();
        },
      });
    },
    save: (input: McpServerInput) => run(() => mcp.save(input), "mcp.saved"),
    remove: (name: string) => run(() => mcp.remove(name)),
    connect: (name: string) => act(() => mcp.connect(name)),
    disconnect: (name: string) => act(() => mcp.disconnect(name)),
    restart: (name: string) => act(() => mcp.restart(name)),
    /** The desktop's open dialog, when there is one. */
    importWithDialog: importWithDialog === undefined ? undefined : () => run(() => importWithDialog(), "mcp.imported"),
    /** A chosen file's text (a browser's file input), when the backend takes one. */
    importText: importText === undefined ? undefined : (text: Promise<string>) => run(async () => importText(await text), "mcp.imported"),
    toolPermissions: (): Promise<McpToolPermission[]> => mcp.toolPermissions(),
    setAlwaysAllowed: (name: string, allowed: boolean): Promise<McpToolPermission[]> => mcp.setAlwaysAllowed(name, allowed),
  };
}
