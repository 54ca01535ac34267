// The actions under one message, shown when the message is hovered or focused: a message you
// sent can be edited and sent again, or forked from; a reply can be regenerated or forked from;
// either can be deleted for good (after a confirmation: undo cannot bring it back).
// Editing opens the text in place; sending it reverts to that message and sends the new text
// with the same attachments.
import { type Component, createSignal, Show } from "solid-js";
import type { AssistantError } from "../lib/bindings/AssistantError";
import type { Message } from "../lib/bindings/Message";
import type { Chat } from "../lib/chat";

import { copiedMs, messageMarkdown, writeClipboard } from "../lib/copying";
import { cycleTab } from "../lib/keyboard-focus";
import { replyOutcome } from "../lib/reply-outcome";
import { type Reshaping, typedText } from "../lib/reshaping";
import { useLanguage } from "../lib/language";

export const MessageActions: Component<{
  chat: Chat;
  reshaping: Reshaping;
  sessionId: string;
  message: Message;
  /** The session's error for a reply that could not record its own (shown under it all the same). */
  unrecordedError?: AssistantError | undefined;
}> = (props) => {
  const { t } = useLanguage();
  const [editing, setEditing] = createSignal<string | undefined>();
  const [confirmingDelete, setConfirmingDelete] = createSignal(false);
  let deleteButton: HTMLButtonElement | undefined;
  /** Keeping the message puts focus back on its Delete button (rendered again by then). */
  const keepMessage = () => {
    setConfirmingDelete(false);
    queueMicrotask(() => deleteButton?.focus());
  };
  const [copied, setCopied] = createSignal(false);
  const busy = () => props.chat.isBusy(props.sessionId);
  const outcome = () => replyOutcome(props.message, props.unrecordedError)?.kind;
  const submit = () => {
    const text = editing();
    if (text === undefined || text.trim() === "") return;
    setEditing(undefined);
    void props.reshaping.resend(props.sessionId, props.message.id, text);
  };

  return (
    <Show
      when={editing() === undefined}
      fallback={
        <form
          class="message-editor"
          data-testid="message-editor"
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <textarea
            aria-label={t("message.editMessage")}
            value={editing() ?? ""}
            ref={(element) => { queueMicrotask(() => { element.focus(); }); }}
            onInput={(event) => setEditing(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
                event.preventDefault();
                submit();
              } else if (event.key === "Escape") {
                event.stopPropagation();
                setEditing(undefined);
              }
            }}
          />
          <div class="message-editor-buttons">
            <button type="submit" class="plain-button" disabled={busy() || (editing() ?? "").trim() === ""}>
              {t("message.resend")}
            </button>
            <button type="button" class="plain-button" onClick={() => { setEditing(undefined); }}>
              {t("common.cancel")}
            </button>
          </div>
        </form>
      }
    >
      <div class="message-actions" data-testid="message-actions">
        <button type="button" class="link-button" data-testid="copy-message" title={t("message.copyMessageHint")} onClick={() => void copyMessage(props.chat, props.sessionId, props.message.id, setCopied)}>
          {copied() ? t("common.copied") : t("common.copy")}
        </button>
        <span class="visually-hidden" role="status">{copied() ? t("common.copied") : ""}</span>
        <Show
          when={props.message.role === "user"}
          fallback={
            <>
            {/* A stopped reply can be taken up where it stopped: its text is in the history. */}
            <Show when={outcome() === "stopped"}>
              <button
                type="button"
                class="link-button link-button--strong"
                data-testid="continue"
                data-writes
                disabled={busy()}
                title={busy() ? t("common.busyRefused") : undefined}
                onClick={() => {
                  const sessionId = props.sessionId;
                  void props.chat.replyBy(sessionId, (operations) => operations.continueReply(sessionId));
                }}
              >
                {t("conversation.continueReply")}
              </button>
            </Show>
            <button
              type="button"
              class="link-button"
              classList={{ "link-button--strong": outcome() === "failed" }}
              data-testid="regenerate"
              data-writes
              disabled={busy()}
              title={busy() ? t("common.busyRefused") : undefined}
              onClick={() => void props.reshaping.regenerate(props.sessionId, props.message.id)}
            >
              {/* A failed reply is answered again the same way: offered as Retry. */}
              {outcome() === "failed" ? t("common.retry") : t("message.regenerate")}
            </button>
            </>
          }
        >
          <button
            type="button"
            class="link-button"
            data-testid="edit"
            data-writes
            disabled={busy()}
            title={busy() ? t("common.busyRefused") : undefined}
            onClick={() => setEditing(typedText(props.chat.state.parts[props.message.id] ?? []))}
          >
            {t("message.editMessage")}
          </button>
        </Show>
        <button type="button" class="link-button" data-testid="fork-here" data-writes disabled={busy()} title={t("message.forkHereHint")} onClick={() => void props.reshaping.fork(props.sessionId, props.message)}>
          {t("message.forkHere")}
        </button>
        <Show
          when={confirmingDelete()}
          fallback={
            <button
              type="button"
              class="link-button"
              data-testid="delete-message"
            data-writes
              ref={deleteButton}
              disabled={busy()}
              title={busy() ? t("common.busyRefused") : t("message.deleteMessageHint")}
              onClick={() => setConfirmingDelete(true)}
            >
              {t("message.deleteMessage")}
            </button>
          }
        >
          <span
            class="message-confirm"
            role="alertdialog"
            aria-label={t("message.deleteMessageConfirm")}
            onKeyDown={(event) => {
              if (event.key === "Escape") {
                event.preventDefault();
                keepMessage();
              }
              cycleTab(event, event.currentTarget);
            }}
          >
            <span>{t("message.deleteMessageConfirm")}</span>
            <button
              type="button"
              class="danger-button"
              data-testid="delete-message-confirm"
              disabled={busy()}
              ref={(element) => { queueMicrotask(() => { element.focus(); }); }}
              onClick={() => {
                setConfirmingDelete(false);
                void props.chat.deleteMessage(props.sessionId, props.message.id);
              }}
            >
              {t("sessions.deleteConfirmYes")}
            </button>
            <button type="button" class="link-button" onClick={keepMessage}>
              {t("sessions.deleteConfirmNo")}
            </button>
          </span>
        </Show>
      </div>
    </Show>
  );
};

/** Copies a message as Markdown; the button says "Copied" for a moment, a failure shows in place. */
async function copyMessage(chat: Chat, sessionId: string, messageId: string, setCopied: (copied: boolean) => void): Promise<void> {
  try {
    await writeClipboard(messageMarkdown(chat.state.parts[messageId] ?? []));
  } catch (error) {
    chat.reportError(sessionId, error);
    return;
  }
  setCopied(true);
  setTimeout(() => { setCopied(false); }, copiedMs);
}
