// The app's frame: the sessions sidebar on the left; the open conversation and the composer on
// the right; the drop overlay over everything while files hover. Keyboard: Ctrl/Cmd+N new
// session, Ctrl/Cmd+K search sessions, Ctrl/Cmd+, settings, Esc stops a streaming reply (or
// closes the settings).
import { type Component, createSignal, onCleanup, onMount, Show } from "solid-js";
import { Composer } from "./components/Composer";
import { Conversation } from "./components/Conversation";
import { Settings } from "./components/Settings";
import { Sidebar } from "./components/Sidebar";
import { createChat, type Notice } from "./lib/chat";
import { type Attachment, attachmentFromBrowserFile, attachmentFromDrop } from "./lib/drafts";
import { type Locale, type Translate, translator } from "./lib/i18n";
import { displayTitle } from "./lib/session-title";
import type { Backend } from "./lib/transport";

/** The browser cannot ask the backend to classify a file, so it applies the same attachment cap. */
const browserAttachmentLimit = 20 * 1024 * 1024;

export interface AppProps {
  locale: Locale;
  backend: Backend;
}

export const App: Component<AppProps> = (props) => {
  const t: Translate = (key, values) => translator(props.locale)(key, values);
  // eslint-disable-next-line solid/reactivity -- the backend is fixed for the app's lifetime
  const chat = createChat(props.backend);
  const [text, setText] = createSignal("");
  const [attachments, setAttachments] = createSignal<Attachment[]>([]);
  const [hovering, setHovering] = createSignal(false);
  const [settingsOpen, setSettingsOpen] = createSignal(false);
  let searchField: HTMLInputElement | undefined;
  let composerField: HTMLTextAreaElement | undefined;
  let fileInput: HTMLInputElement | undefined;

  const addAttachments = (added: Attachment[]) => {
    setAttachments((current) => [...current.filter((existing) => !added.some((item) => item.key === existing.key)), ...added]);
    composerField?.focus();
  };
  const addBrowserFiles = async (files: FileList | File[]) => {
    addAttachments(await Promise.all(Array.from(files, (file) => attachmentFromBrowserFile(file, browserAttachmentLimit))));
  };

  const send = async () => {
    let sessionId = chat.selectedId();
    if (sessionId === undefined) {
      await chat.newSession();
      sessionId = chat.selectedId();
      if (sessionId === undefined) return;
      const draftChoice = chat.choiceFor("");
      chat.setChoice(sessionId, draftChoice);
    }
    const message = text();
    const files = attachments();
    setText("");
    setAttachments([]);
    await chat.send(sessionId, message, files);
  };

  const retry = (again: NonNullable<Notice["retry"]>) => {
    setText(again.text);
    setAttachments(again.attachments);
    composerField?.focus();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const command = event.ctrlKey || event.metaKey;
    if (command && event.key.toLowerCase() === "n") {
      event.preventDefault();
      void chat.newSession().then(() => composerField?.focus());
    } else if (command && event.key.toLowerCase() === "k") {
      event.preventDefault();
      searchField?.focus();
    } else if (command && event.key === ",") {
      event.preventDefault();
      setSettingsOpen(true);
    } else if (event.key === "Escape" && settingsOpen()) {
      setSettingsOpen(false);
    } else if (event.key === "Escape") {
      const open = chat.selectedId();
      if (open !== undefined && chat.isBusy(open)) void chat.stop(open);
    }
  };

  onMount(() => {
    let stopEvents: (() => void) | undefined;
    void chat.start().then((stop) => {
      stopEvents = stop;
      chat.backend.reportInteractive?.();
    });
    window.addEventListener("keydown", onKeyDown);
    const stopNativeDrop = props.backend.onNativeDrop?.(
      (hover) => setHovering(hover.hovering),
      (files) => {
        addAttachments(files.map(attachmentFromDrop));
      },
    );
    // In a browser, files arrive through HTML drag and drop instead.
    const onDragOver = (event: DragEvent) => {
      if (props.backend.onNativeDrop !== undefined || !event.dataTransfer?.types.includes("Files")) return;
      event.preventDefault();
      setHovering(true);
    };
    const onDragLeave = (event: DragEvent) => {
      if (event.relatedTarget === null) setHovering(false);
    };
    const onDrop = (event: DragEvent) => {
      if (props.backend.onNativeDrop !== undefined) return;
      event.preventDefault();
      setHovering(false);
      if (event.dataTransfer !== null) void addBrowserFiles(event.dataTransfer.files);
    };
    window.addEventListener("dragover", onDragOver);
    window.addEventListener("dragleave", onDragLeave);
    window.addEventListener("drop", onDrop);
    onCleanup(() => {
      stopEvents?.();
      stopNativeDrop?.();
      window.removeEventListener("keydown", onKeyDown);
      window.removeEventListener("dragover", onDragOver);
      window.removeEventListener("dragleave", onDragLeave);
      window.removeEventListener("drop", onDrop);
    });
  });

  const attach = () => {
    const pick = props.backend.pickFiles;
    if (pick === undefined) fileInput?.click();
    else void pick().then((files) => { addAttachments(files.map(attachmentFromDrop)); });
  };

  const openTitle = () => {
    const id = chat.selectedId();
    const title = id === undefined ? undefined : chat.state.sessions[id]?.title;
    return title === undefined ? undefined : displayTitle(title, t, props.locale);
  };

  return (
    <div
      class="app"
      onPaste={(event) => {
        const files = event.clipboardData?.files;
        if (files !== undefined && files.length > 0) {
          event.preventDefault();
          void addBrowserFiles(files);
        }
      }}
    >
      <Sidebar t={t} locale={props.locale} chat={chat} searchRef={(element) => (searchField = element)} onOpenSettings={() => setSettingsOpen(true)} />
      <main class="main" aria-label={t("conversationLabel")}>
        <header class="main-header">
          <h2 class="session-heading" data-testid="session-heading">
            {openTitle() ?? ""}
          </h2>
          <p class="status" data-testid="connection-status">
            <span class="status-dot" aria-hidden="true" />
            {props.backend.transport === "tauri" ? t("transportTauri") : t("transportHttp")}
          </p>
        </header>
        <Show
          when={chat.selectedId()}
          keyed
          fallback={
            <div class="conversation conversation--empty">
              <div class="empty-state">
                <p class="empty-state-title">{t("noSessionTitle")}</p>
                <p class="empty-state-body">{t("noSessionBody")}</p>
              </div>
            </div>
          }
        >
          {(sessionId) => <Conversation t={t} locale={props.locale} chat={chat} sessionId={sessionId} onRetry={retry} />}
        </Show>
        <Composer
          t={t}
          chat={chat}
          sessionId={chat.selectedId() ?? ""}
          text={text()}
          onText={setText}
          attachments={attachments()}
          onRemove={(key) => setAttachments((current) => current.filter((attachment) => attachment.key !== key))}
          onAttach={attach}
          onSend={() => void send()}
          inputRef={(element) => (composerField = element)}
        />
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          onChange={(event) => {
            const files = event.currentTarget.files;
            if (files !== null) void addBrowserFiles(files);
            event.currentTarget.value = "";
          }}
        />
      </main>
      <Show when={settingsOpen()}>
        <Settings t={t} backend={props.backend} onClose={() => setSettingsOpen(false)} onChanged={() => void chat.reloadModels()} />
      </Show>
      <Show when={hovering()}>
        <div class="drop-overlay" data-testid="drop-overlay" aria-live="polite">
          <p>{t("dropOverlay")}</p>
        </div>
      </Show>
    </div>
  );
};
