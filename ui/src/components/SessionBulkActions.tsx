// The bar over the session list while several sessions are ticked: how many, archive (or
// restore, in the Archived view), delete after a confirmation, clear.
import { type Component, createSignal, Show } from "solid-js";
import type { Chat } from "../lib/chat";

import { cycleTab } from "../lib/keyboard-focus";
import { useLanguage } from "../lib/language";

export const SessionBulkActions: Component<{
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
  const { t } = useLanguage();
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
    <div class="bulk-bar" role="toolbar" aria-label={t("sessions.bulkLabel")} data-testid="bulk-bar">
      <Show
        when={confirming()}
        fallback={
          <>
            <span class="bulk-count" data-testid="bulk-count">
              {t("sessions.selectedCount", { count: props.sessionIds.length })}
            </span>
            <Show
              when={props.archivedView}
              fallback={
                <button type="button" class="plain-button" disabled={working()} data-testid="bulk-archive" data-writes onClick={() => void run("archive")}>
                  {t("sessions.archiveSession")}
                </button>
              }
            >
              <button type="button" class="plain-button" disabled={working()} data-testid="bulk-restore" data-writes onClick={() => void run("restore")}>
                {t("sessions.restoreSession")}
              </button>
            </Show>
            <button type="button" class="plain-button" disabled={working()} data-testid="bulk-delete" data-writes ref={deleteButton} onClick={() => setConfirming(true)}>
              {t("sessions.deleteSession")}
            </button>
            <button type="button" class="icon-button" title={t("sessions.bulkClear")} aria-label={t("sessions.bulkClear")} onClick={() => { props.onClear(); }}>
              ✕
            </button>
          </>
        }
      >
        <div
          class="confirm confirm--bulk"
          role="alertdialog"
          aria-label={t("sessions.bulkDeleteConfirm", { count: props.sessionIds.length })}
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
          <span class="confirm-text confirm-text--wrap">{t("sessions.bulkDeleteConfirm", { count: props.sessionIds.length })}</span>
          <button
            type="button"
            class="danger-button"
            disabled={working()}
            data-testid="bulk-delete-confirm"
            onClick={() => void run("delete")}
          >
            {t("sessions.deleteConfirmYes")}
          </button>
          <button type="button" class="plain-button" ref={(element) => { queueMicrotask(() => { element.focus(); }); }} onClick={keep}>
            {t("sessions.deleteConfirmNo")}
          </button>
        </div>
      </Show>
    </div>
  );
};
