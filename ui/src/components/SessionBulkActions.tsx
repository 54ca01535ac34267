// The bar over the session list while several sessions are ticked: how many, archive (or
// restore, in the Archived view), delete after a confirmation, clear.
import { type Component, createSignal, Show } from "solid-js";
import type { Chat } from "../lib/chat";
import type { Translate } from "../lib/i18n";
import { cycleTab } from "../lib/keyboard-focus";

export const SessionBulkActions: Component<{
  t: Translate;
  chat: Chat;
  /** The ticked sessions, in the order they are shown. */
  sessionIds: string[];
  archivedView: boolean;
  /** An action ran: the selection is spent and the lists may have changed. */
  onDone: () => void;
  /** Archives and offers Undo (App.tsx); resolves with the ids that could not be archived. */
  archive: (sessionIds: readonly string[]) => Promise<string[]>;
  onClear: () => void;
}> = (props) => {
  const [confirming, setConfirming] = createSignal(false);
  const [working, setWorking] = createSignal(false);
  let deleteButton: HTMLButtonElement | undefined;
  /** Keeping them puts focus back on Delete (rendered again by then). */
  const keep = () => {
    setConfirming(false);
    queueMicrotask(() => deleteButton?.focus());
  };

  const run = async (action: "archive" | "restore" | "delete") => {
    const ids = props.sessionIds;
    setWorking(true);
    try {
      if (action === "archive") await props.archive(ids);
      else if (action === "delete") await props.chat.deleteSessions(ids);
      else for (const id of ids) await props.chat.restoreSession(id);
    } finally {
      setWorking(false);
      setConfirming(false);
      props.onDone();
    }
  };

  return (
    <div class="bulk-bar" role="toolbar" aria-label={props.t("bulkLabel")} data-testid="bulk-bar">
      <Show
        when={confirming()}
        fallback={
          <>
            <span class="bulk-count" data-testid="bulk-count">
              {props.t("selectedCount", { count: props.sessionIds.length })}
            </span>
            <Show
              when={props.archivedView}
              fallback={
                <button type="button" class="plain-button" disabled={working()} data-testid="bulk-archive" data-writes onClick={() => void run("archive")}>
                  {props.t("archiveSession")}
                </button>
              }
            >
              <button type="button" class="plain-button" disabled={working()} data-testid="bulk-restore" data-writes onClick={() => void run("restore")}>
                {props.t("restoreSession")}
              </button>
            </Show>
            <button type="button" class="plain-button" disabled={working()} data-testid="bulk-delete" data-writes ref={deleteButton} onClick={() => setConfirming(true)}>
              {props.t("deleteSession")}
            </button>
            <button type="button" class="icon-button" title={props.t("bulkClear")} aria-label={props.t("bulkClear")} onClick={() => { props.onClear(); }}>
              ✕
            </button>
          </>
        }
      >
        <div
          class="confirm confirm--bulk"
          role="alertdialog"
          aria-label={props.t("bulkDeleteConfirm", { count: props.sessionIds.length })}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              // Esc answers the question; the sidebar's Esc (clear the selection) waits for the next one.
              event.preventDefault();
              event.stopPropagation();
              keep();
            }
            cycleTab(event, event.currentTarget);
          }}
        >
          <span class="confirm-text confirm-text--wrap">{props.t("bulkDeleteConfirm", { count: props.sessionIds.length })}</span>
          <button
            type="button"
            class="danger-button"
            disabled={working()}
            data-testid="bulk-delete-confirm"
            onClick={() => void run("delete")}
          >
            {props.t("deleteConfirmYes")}
          </button>
          <button type="button" class="plain-button" ref={(element) => { queueMicrotask(() => { element.focus(); }); }} onClick={keep}>
            {props.t("deleteConfirmNo")}
          </button>
        </div>
      </Show>
    </div>
  );
};
