// The open session's actions in the header: undo and redo of the last turns, fork the whole
// session, export (Markdown or JSON), and import a session from a file. Undo and redo are also
// Ctrl/Cmd+Z and Ctrl/Cmd+Shift+Z (wired in App.tsx).
import { type Component, createSignal, Show } from "solid-js";
import type { Chat } from "../lib/chat";
import type { Translate } from "../lib/i18n";
import type { Reshaping } from "../lib/reshaping";
import type { ExportFormat } from "../lib/shell-bindings/ExportFormat";

export const SessionToolbar: Component<{ t: Translate; chat: Chat; reshaping: Reshaping; sessionId: string | undefined }> = (props) => {
  const [exportOpen, setExportOpen] = createSignal(false);
  let importInput: HTMLInputElement | undefined;
  const busy = () => props.sessionId !== undefined && props.chat.isBusy(props.sessionId);
  /** A fork, export or import under way: its button says so and the three wait for it. */
  const working = () => props.reshaping.working();
  const exportAs = (format: ExportFormat) => {
    setExportOpen(false);
    const id = props.sessionId;
    if (id !== undefined) void props.reshaping.exportSession(id, format);
  };
  const startImport = () => {
    if (props.chat.backend.importWithDialog !== undefined) void props.reshaping.importSession();
    else importInput?.click();
  };

  return (
    <div class="toolbar" role="toolbar" aria-label={props.t("sessionActions")} aria-busy={working() !== undefined}>
      <Show when={props.sessionId}>
        {(id) => (
          <>
            <button
              type="button"
              class="plain-button"
              data-testid="undo"
              disabled={!props.reshaping.canUndo(id())}
              title={busy() ? props.t("busyRefused") : props.t("undoHint")}
              onClick={() => void props.reshaping.undo(id())}
            >
              {props.t("undo")}
            </button>
            <button
              type="button"
              class="plain-button"
              data-testid="redo"
              disabled={!props.reshaping.canRedo(id())}
              title={props.t("redoHint")}
              onClick={() => void props.reshaping.redo(id())}
            >
              {props.t("redo")}
            </button>
            <button
              type="button"
              class="plain-button"
              data-testid="fork-session"
              disabled={busy() || working() !== undefined || !props.reshaping.hasContent(id())}
              title={props.reshaping.hasContent(id()) ? props.t("forkSessionHint") : props.t("emptySessionHint")}
              onClick={() => void props.reshaping.fork(id(), undefined)}
            >
              {working() === "fork" ? props.t("forking") : props.t("forkSession")}
            </button>
            <div class="menu">
              <button
                type="button"
                class="plain-button"
                data-testid="export"
                aria-haspopup="menu"
                aria-expanded={exportOpen()}
                disabled={working() !== undefined || !props.reshaping.hasContent(id())}
                title={props.reshaping.hasContent(id()) ? undefined : props.t("emptySessionHint")}
                onClick={() => setExportOpen((open) => !open)}
              >
                {working() === "export" ? props.t("exporting") : props.t("exportSession")}
              </button>
              <Show when={exportOpen()}>
                <div
                  class="menu-items"
                  role="menu"
                  onKeyDown={(event) => {
                    if (event.key === "Escape") setExportOpen(false);
                  }}
                >
                  <button type="button" role="menuitem" class="plain-button" data-testid="export-markdown" ref={(element) => { queueMicrotask(() => { element.focus(); }); }} onClick={() => { exportAs("markdown"); }}>
                    {props.t("exportMarkdown")}
                  </button>
                  <button type="button" role="menuitem" class="plain-button" data-testid="export-json" onClick={() => { exportAs("json"); }}>
                    {props.t("exportJson")}
                  </button>
                </div>
              </Show>
            </div>
          </>
        )}
      </Show>
      <button type="button" class="plain-button" data-testid="import" title={props.t("importHint")} disabled={working() !== undefined} onClick={startImport}>
        {working() === "import" ? props.t("importing") : props.t("importSession")}
      </button>
      <input
        ref={importInput}
        type="file"
        accept="application/json,.json"
        hidden
        data-testid="import-file"
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          if (file !== undefined) void props.reshaping.importSession(file);
          event.currentTarget.value = "";
        }}
      />
    </div>
  );
};
