// Undo and redo of the last turns, fork, edit and resend, regenerate, export and import: which
// message each action targets (pure functions, tested on their own) and the actions themselves,
// which call the backend and report failures in place like a failed send.
//
// Undo follows OpenCode's /undo: the revert marker moves back to the previous message you sent,
// and that message's text returns to the composer. Redo moves it forward one message you sent,
// and clears it past the last one, and gives the composer back what it held before that Undo
// (`composer-undo.ts`). Reverted messages stay in the ledger (hidden here) until the next prompt
// removes them for good.
import { createSignal } from "solid-js";
import type { Message } from "./bindings/Message";
import type { Part } from "./bindings/Part";
import type { RevertMarker } from "./bindings/RevertMarker";
import type { Session } from "./bindings/Session";
import type { Chat } from "./chat";
import type { ComposerDraft } from "./composer-drafts";
import { afterUndo, type ComposerUndoStep, emptyDraft, redoComposer } from "./composer-undo";
import type { Attachment } from "./drafts";
import type { ExportFormat } from "./shell-bindings/ExportFormat";
import type { ExportOutcome } from "./shell-bindings/ExportOutcome";
import { toBackendError } from "./transport";

/** Where the revert marker cuts `messages` (listing order): everything from there on is undone. */
export function revertBoundary(messages: readonly Message[], revert: RevertMarker | undefined): number {
  if (revert === undefined) return messages.length;
  const index = messages.findIndex((message) => message.id === revert.messageID);
  return index === -1 ? messages.length : index;
}

/** The messages to show: those before the revert marker. */
export function visibleMessages(messages: readonly Message[], revert: RevertMarker | undefined): readonly Message[] {
  const boundary = revertBoundary(messages, revert);
  return boundary === messages.length ? messages : messages.slice(0, boundary);
}

/** The message undo reverts to: the last one you sent before the current marker. */
export function undoTarget(messages: readonly Message[], revert: RevertMarker | undefined): Message | undefined {
  const boundary = revertBoundary(messages, revert);
  for (let index = boundary - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === "user") return message;
  }
  return undefined;
}

export type RedoStep = { kind: "revert"; messageID: string } | { kind: "unrevert" } | { kind: "none" };

/** What redo does: move the marker to the next message you sent, or clear it past the last. */
export function redoStep(messages: readonly Message[], revert: RevertMarker | undefined): RedoStep {
  if (revert === undefined) return { kind: "none" };
  const boundary = revertBoundary(messages, revert);
  const next = messages.slice(boundary + 1).find((message) => message.role === "user");
  return next === undefined ? { kind: "unrevert" } : { kind: "revert", messageID: next.id };
}

/**
 * Where to fork so the new session ends with `message`: the fork copies the messages before the
 * id it is given, so a reply forks at the message after it (or copies everything when it is the
 * last). A message you sent forks before itself, and its text goes to the new composer.
 */
export function forkPoint(messages: readonly Message[], message: Message): string | undefined {
  if (message.role === "user") return message.id;
  const index = messages.findIndex((candidate) => candidate.id === message.id);
  return messages[index + 1]?.id;
}

/** The text a person typed in a message (not the context the backend added). */
export function typedText(parts: readonly Part[]): string {
  return parts
    .filter((part): part is Extract<Part, { type: "text" }> => part.type === "text" && part.synthetic !== true)
    .map((part) => part.text)
    .join("\n");
}

/**
 * The files a person attached to a message, as composer chips again (after undo, or in a fork
 * made at a message you sent): the same URL goes back (a `data:` URL, a stored blob's
 * reference, a dropped path), so sending again sends the same bytes.
 */
export function sentAttachments(parts: readonly Part[]): Attachment[] {
  return parts
    .filter((part): part is Extract<Part, { type: "file" }> => part.type === "file")
    .map((part, index) => ({
      key: `${part.url}#${String(index)}`,
      name: part.filename ?? part.url,
      kind: part.mime === "application/x-directory" ? "folder" : part.mime.startsWith("image/") ? "image" : part.mime === "application/pdf" ? "pdf" : "text",
      mime: part.mime,
      url: part.url,
    }));
}

/** A fork, export or import under way (a big session takes a while); one at a time. */
export type ReshapingWork = "fork" | "export" | "import";

export interface ReshapingHooks {
  /** Puts text and files back in the composer (after undo, or in a fork made at a message you sent). */
  restoreDraft: (text: string, attachments: Attachment[]) => void;
  /** What the open session's composer holds now. */
  currentDraft: () => ComposerDraft;
  /** A short confirmation ("Saved to …"), shown in a toast. */
  announce: (text: string) => void;
}

export function createReshaping(chat: Chat, hooks: ReshapingHooks) {
  const backend = chat.backend;
  const messagesOf = (sessionId: string): readonly Message[] => chat.state.messages[sessionId] ?? [];
  const revertOf = (sessionId: string): RevertMarker | undefined => chat.state.sessions[sessionId]?.revert;
  /** The prompt of a message you sent, as a composer draft (what Undo to it puts there). */
  const draftOf = (messageId: string): ComposerDraft => {
    const parts = chat.state.parts[messageId] ?? [];
    return { text: typedText(parts), attachments: sentAttachments(parts) };
  };
  /** Per session, what each Undo seen in this window did to the composer. */
  const undoSteps = new Map<string, ComposerUndoStep[]>();

  async function attempt<T>(sessionId: string | undefined, action: () => Promise<T>): Promise<T | undefined> {
    try {
      return await action();
    } catch (error) {
      chat.reportError(sessionId, toBackendError(error));
      return undefined;
    }
  }

  const [working, setWorking] = createSignal<ReshapingWork | undefined>();
  /** Runs `action` as `work`, so the header can say so and refuse a second one meanwhile. */
  async function during<T>(work: ReshapingWork, action: () => Promise<T>): Promise<T | undefined> {
    if (working() !== undefined) return undefined;
    setWorking(work);
    try {
      return await action();
    } finally {
      setWorking(undefined);
    }
  }

  const remember = (session: Session | undefined) => {
    if (session !== undefined) chat.takeSession(session);
    return session;
  };

  return {
    working,
    canUndo: (sessionId: string) => !chat.isBusy(sessionId) && undoTarget(messagesOf(sessionId), revertOf(sessionId)) !== undefined,
    canRedo: (sessionId: string) => !chat.isBusy(sessionId) && revertOf(sessionId) !== undefined,
    /** Whether there is anything to fork or export: a message on screen, or older ones to load. */
    hasContent: (sessionId: string) => messagesOf(sessionId).length > 0 || chat.hasOlderMessages(sessionId),
    /** How many messages the marker hides. */
    undoneCount: (sessionId: string) => {
      const messages = messagesOf(sessionId);
      return messages.length - revertBoundary(messages, revertOf(sessionId));
    },

    async undo(sessionId: string): Promise<void> {
      const target = undoTarget(messagesOf(sessionId), revertOf(sessionId));
      if (target === undefined) return;
      const markerBefore = revertOf(sessionId)?.messageID;
      const before = hooks.currentDraft();
      const session = remember(await attempt(sessionId, () => backend.revertSession(sessionId, target.id)));
      if (session === undefined) return;
      const restored = draftOf(target.id);
      undoSteps.set(sessionId, afterUndo(undoSteps.get(sessionId) ?? [], markerBefore, { markerMessageID: target.id, before, restored }));
      hooks.restoreDraft(restored.text, restored.attachments);
    },

    async redo(sessionId: string): Promise<void> {
      const marker = revertOf(sessionId)?.messageID;
      const step = redoStep(messagesOf(sessionId), revertOf(sessionId));
      if (step.kind === "none" || marker === undefined) return;
      const session = remember(
        await attempt(sessionId, () =>
          step.kind === "revert" ? backend.revertSession(sessionId, step.messageID) : backend.unrevertSession(sessionId),
        ),
      );
      if (session === undefined) return;
      // Without the Undo's record, the composer gets what an Undo to the new marker would show.
      const fallback = step.kind === "revert" ? draftOf(step.messageID) : emptyDraft;
      const outcome = redoComposer(undoSteps.get(sessionId) ?? [], marker, hooks.currentDraft(), draftOf(marker), fallback);
      undoSteps.set(sessionId, outcome.steps);
      if (outcome.draft !== undefined) hooks.restoreDraft(outcome.draft.text, outcome.draft.attachments);
    },

    async fork(sessionId: string, message: Message | undefined): Promise<void> {
      const point = message === undefined ? undefined : forkPoint(messagesOf(sessionId), message);
      const carriedParts = message?.role === "user" ? (chat.state.parts[message.id] ?? []) : undefined;
      const fork = remember(await during("fork", () => attempt(sessionId, () => backend.forkSession(sessionId, point))));
      if (fork === undefined) return;
      await chat.openSession(fork.id);
      if (carriedParts !== undefined) hooks.restoreDraft(typedText(carriedParts), sentAttachments(carriedParts));
    },

    async resend(sessionId: string, messageId: string, text: string): Promise<void> {
      chat.markSending(sessionId, true);
      try {
        await attempt(sessionId, () => backend.resendMessage(sessionId, messageId, text));
      } finally {
        chat.markSending(sessionId, false);
      }
    },

    async regenerate(sessionId: string, messageId: string): Promise<void> {
      chat.markSending(sessionId, true);
      try {
        await attempt(sessionId, () => backend.regenerateReply(sessionId, messageId));
      } finally {
        chat.markSending(sessionId, false);
      }
    },

    async exportSession(sessionId: string, format: ExportFormat): Promise<ExportOutcome | undefined> {
      const outcome = await during("export", () => attempt(sessionId, () => backend.exportSession(sessionId, format)));
      if (outcome?.outcome === "saved") hooks.announce(outcome.path);
      return outcome;
    },

    /** Imports through the native dialog (desktop) or the given file (browser), then opens it. */
    async importSession(file?: File): Promise<Session | undefined> {
      const session = remember(
        await during("import", () =>
          attempt(chat.selectedId(), async () => {
            if (backend.importWithDialog !== undefined) return backend.importWithDialog();
            if (file === undefined || backend.importFile === undefined) return undefined;
            return backend.importFile(file);
          }),
        ),
      );
      if (session !== undefined) await chat.openSession(session.id);
      return session;
    },
  };
}

export type Reshaping = ReturnType<typeof createReshaping>;
