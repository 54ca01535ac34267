// Settings → MCP servers, one connected server's tools, each with an "Always allow" switch: on,
// the tool runs without asking (the config file's permission rule `"<server>_<tool>": "allow"`);
// off, the tool asks again unless its server marks it read-only. The list is read when it is
// opened, and a switch takes effect at the tool's next call.
import { type Component, createSignal, For, Show } from "solid-js";
import type { McpToolPermission } from "../lib/bindings/McpToolPermission";

import type { McpSettingsStore } from "../lib/mcp-settings-store";
import { toBackendError } from "../lib/transport";
import { useLanguage } from "../lib/language";

export interface McpToolSwitchesProps {
  store: McpSettingsStore;
  server: string;
}

export const McpToolSwitches: Component<McpToolSwitchesProps> = (props) => {
  const { t } = useLanguage();
  const [tools, setTools] = createSignal<McpToolPermission[] | undefined>();
  const [failure, setFailure] = createSignal<string | undefined>();
  const [busy, setBusy] = createSignal(false);
  const mine = (listed: McpToolPermission[]) => listed.filter((tool) => tool.server === props.server);

  // Takes the call already made, so its failure is shown like any other.
  const run = async (call: Promise<McpToolPermission[]>) => {
    setBusy(true);
    setFailure(undefined);
    try {
      setTools(mine(await call));
    } catch (error) {
      setFailure(toBackendError(error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <details
      class="mcp-tools"
      data-testid="mcp-tools"
      onToggle={(event) => {
        if (event.currentTarget.open) void run(props.store.toolPermissions());
      }}
    >
      <summary>{t("mcp.toolsTitle")}</summary>
      <p class="field-hint">{t("mcp.toolsHint")}</p>
      <Show when={failure()}>{(message) => <p class="field-problem" role="alert">{message()}</p>}</Show>
      <Show when={tools()?.length === 0}>
        <p class="settings-empty">{t("mcp.toolsNone")}</p>
      </Show>
      <ul class="mcp-tool-list">
        <For each={tools() ?? []}>
          {(tool) => (
            <li class="mcp-tool" data-testid="mcp-tool" data-name={tool.name}>
              <label class="checkbox-label">
                <input
                  type="checkbox"
                  data-testid="mcp-always-allow"
                  checked={tool.alwaysAllowed}
                  disabled={busy()}
                  onChange={(event) => {
                    const allowed = event.currentTarget.checked;
                    void run(props.store.setAlwaysAllowed(tool.name, allowed));
                  }}
                />
                {t("mcp.alwaysAllow", { tool: tool.tool })}
              </label>
              <span class="provider-detail">
                {tool.readOnly ? t("mcp.toolReadOnly") : t("mcp.toolAsks")}
                <Show when={tool.description}> · {tool.description}</Show>
              </span>
            </li>
          )}
        </For>
      </ul>
    </details>
  );
};
