// The app's frame: the sessions sidebar on the left; the open conversation and the composer on
// the right; the drop overlay over everything while files hover; transient results in a toast.
// Keyboard: Ctrl/Cmd+N new session, Ctrl/Cmd+K search everything (the palette), Ctrl/Cmd+F find
// in the open session, Ctrl/Cmd+B hide or show the sidebar (a window under 700 px hides it on its
// own, and then it opens over the conversation), Ctrl/Cmd+, settings, Esc stops a
// streaming reply (or closes whatever handled it first).
import { type Component, createEffect, createSignal, on, onCleanup, onMount, Show, untrack } from "solid-js";
import { Composer } from "./components/Composer";
import { Conversation } from "./components/Conversation";
import { SessionToolbar } from "./components/SessionToolbar";
import { FindInSession } from "./components/FindInSession";
import { SearchPalette } from "./components/SearchPalette";
import { Settings, type SettingsStart } from "./components/Settings";
import { Icon } from "./components/Icon";
import { Sidebar } from "./components/Sidebar";
import { ToastView } from "./components/Toast";
import { Welcome } from "./components/Welcome";
import { createChat, type Notice } from "./lib/chat";
import { noSessionKey } from "./lib/composer-drafts";
import { type Attachment, attachmentFromBrowserFile, attachmentFromDrop } from "./lib/drafts";
import type { Locale, ShortcutKeys } from "./lib/i18n";
import { language, LanguageContext } from "./lib/language";
import { narrowed } from "./lib/symbol-outline";
import type { ReadOnlyLedger } from "./lib/bindings/ReadOnlyLedger";
import { ReadOnlyContext, readOnlyBanner } from "./lib/read-only";
import { createReshaping } from "./lib/reshaping";
import { createRovingRow } from "./lib/roving-row";
import { narrowWindowQuery, sidebarLayout } from "./lib/sidebar-layout";
import { displayTitle } from "./lib/session-title";
import { createToasts } from "./lib/toasts";
import { type Backend, toBackendError } from "./lib/transport";
import { isModelFile } from "./lib/local-models";
import { addDroppedModel, recommendedModelSize } from "./lib/local-models-store";
import { createUpdateNotice } from "./lib/update-notice";
import { desktopUpdateCommands, type UpdateCommands } from "./lib/updates";

/** Where the sidebar's hidden or shown state is remembered between launches. */
const sidebarKey = "dossier.sidebarCollapsed";

/** The browser cannot ask the backend to classify a file, so it applies the same attachment cap. */
const browserAttachmentLimit = 20 * 1024 * 1024;

function isTextField(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

export interface AppProps {
  /** The reader's language: the app provides it to every component below (lib/language.ts). */
  locale: Locale;
  backend: Backend;
  /** How shortcuts are spelled (⌘ on a Mac); Ctrl+ when absent. */
  keys?: ShortcutKeys;
  /** The shell's update commands (tests pass a fake); the desktop app's by default, none in a browser. */
  updates?: UpdateCommands;
  /** Set when the ledger was opened read-only: a banner says why, and nothing that writes is shown. */
  readOnly?: ReadOnlyLedger | undefined;
}

export const App: Component<AppProps> = (props) => {
  // eslint-disable-next-line solid/reactivity -- the locale is read on every lookup; the shortcut spelling is fixed for the app's lifetime
  const spoken = language(() => props.locale, props.keys);
  const { t } = spoken;
  // eslint-disable-next-line solid/reactivity -- the backend is fixed for the app's lifetime
  const chat = createChat(props.backend);
  // eslint-disable-next-line solid/reactivity -- decided before the app mounts (main.tsx), never changed after
  const readOnly = props.readOnly;
  // What the composer shows is the open session's draft; every change is kept as that draft
  // (`composer-drafts.ts`), and opening another session shows its own.
  const [text, showText] = createSignal("");
  const [attachments, showAttachments] = createSignal<Attachment[]>([]);
  const draftKey = () => chat.selectedId() ?? noSessionKey;
  // Called from event handlers; `untrack` keeps them from subscribing anything that calls them.
  const setText = (value: string) => {
    showText(value);
    untrack(() => { chat.drafts.keep(draftKey(), { text: value, attachments: attachments() }); });
  };
  const setAttachments = (change: Attachment[] | ((current: Attachment[]) => Attachment[])) => {
    const value = showAttachments(change);
    untrack(() => { chat.drafts.keep(draftKey(), { text: text(), attachments: value }); });
  };
  createEffect(
    on(draftKey, (sessionKey, previousKey) => {
      const draft = chat.drafts.open(sessionKey, previousKey);
      showText(draft.text);
      showAttachments(draft.attachments);
    }),
  );
  const [hovering, setHovering] = createSignal(false);
  const [paletteOpen, setPaletteOpen] = createSignal(false);
  const [findOpen, setFindOpen] = createSignal(false);
  const [settingsOpen, setSettingsOpen] = createSignal(false);
  /** Settings opened from the update notice starts at Updates; from the refused-token notice, at the server connection. */
  const [settingsStart, setSettingsStart] = createSignal<SettingsStart>();
  // eslint-disable-next-line solid/reactivity -- chosen once, like the backend
  const updateCommands = props.updates ?? desktopUpdateCommands();
  const updateNotice = createUpdateNotice(updateCommands, localStorage);
  const openSettings = (startAt?: SettingsStart) => {
    setSettingsStart(startAt);
    setSettingsOpen(true);
  };
  const closeSettings = () => {
    setSettingsOpen(false);
    // A check in Settings may have found an update, or installed the one the notice was about.
    updateNotice.refresh();
    // A server removed there sends no status of its own; read them all again.
    void chat.readMcpStatuses();
  };
  let composerField: HTMLTextAreaElement | undefined;
  let header: HTMLElement | undefined;
  // The header's buttons (sidebar, Undo, Redo, Find, the session's menu) are one Tab stop, ←/→
  // between them: with the skip link, the sidebar and the messages, the composer stays within
  // ten Tab presses of a fresh load with a session open.
  const onHeaderKeyDown = createRovingRow(() => header, "button");
  let fileInput: HTMLInputElement | undefined;
  let importInput: HTMLInputElement | undefined;
  const toasts = createToasts();
  const reshaping = createReshaping(chat, {
    restoreDraft: (restored, files) => {
      setText(restored);
      setAttachments(files);
      composerField?.focus();
    },
    currentDraft: () => ({ text: text(), attachments: attachments() }),
    announce: (path) => { toasts.show(t("sessions.exportSaved", { path })); },
  });
  const [sidebarCollapsed, setSidebarCollapsed] = createSignal(localStorage.getItem(sidebarKey) === "true");
  // A window narrower than ~700 px hides the sidebar on its own; the toggle then opens it over
  // the conversation, not remembered (`sidebar-layout.ts`). A test page may have no matchMedia.
  const narrowWindow = typeof window.matchMedia === "function" ? window.matchMedia(narrowWindowQuery) : undefined;
  const [narrow, setNarrow] = createSignal(narrowWindow?.matches ?? false);
  const [openedWhileNarrow, setOpenedWhileNarrow] = createSignal(false);
  const onNarrowChange = (event: MediaQueryListEvent) => {
    setNarrow(event.matches);
    setOpenedWhileNarrow(false);
  };
  narrowWindow?.addEventListener("change", onNarrowChange);
  onCleanup(() => { narrowWindow?.removeEventListener("change", onNarrowChange); });
  const layout = () => sidebarLayout({ narrow: narrow(), collapsedByChoice: sidebarCollapsed(), openedWhileNarrow: openedWhileNarrow() });
  // Over the conversation, the sidebar is a passing visit: choosing a session puts it away.
  createEffect(on(() => chat.selectedId(), () => { setOpenedWhileNarrow(false); }, { defer: true }));
  const toggleSidebar = () => {
    if (narrow()) {
      const opening = !openedWhileNarrow();
      setOpenedWhileNarrow(opening);
      // Over the conversation the sidebar takes the keyboard, as a dialog would: the open
      // session's row, else New session (a frame later, once it is shown).
      if (opening) {
        requestAnimationFrame(() => {
          const target =
            document.querySelector<HTMLElement>("#sidebar .session-row--selected .session-open") ??
            document.querySelector<HTMLElement>("#sidebar [data-testid=new-session]");
          target?.focus();
        });
      }
      return;
    }
    const collapsed = !sidebarCollapsed();
    setSidebarCollapsed(collapsed);
    localStorage.setItem(sidebarKey, String(collapsed));
  };
  const titleOf = (sessionId: string) => displayTitle(chat.state.sessions[sessionId]?.title ?? "", t, props.locale);
  /** Archives, then says so in a toast whose Undo restores the sessions. */
  const archive = async (sessionIds: readonly string[]): Promise<string[]> => {
    const title = sessionIds.length === 1 && sessionIds[0] !== undefined ? titleOf(sessionIds[0]) : "";
    const wasOpen = chat.selectedId();
    const failed = await chat.archiveSessions(sessionIds);
    const archived = sessionIds.filter((id) => !failed.includes(id));
    if (archived.length > 0) {
      toasts.show(archived.length === 1 && title !== "" ? t("sessions.archivedToast", { title }) : t("sessions.archivedManyToast", { count: archived.length }), () => {
        void Promise.all(archived.map((id) => chat.restoreSession(id))).then(() => {
          // Undo puts back what was on screen too.
          if (wasOpen !== undefined && archived.includes(wasOpen) && chat.selectedId() === undefined) void chat.openSession(wasOpen);
        });
      });
    }
    return failed;
  };
  const startImport = () => {
    if (chat.backend.importWithDialog !== undefined) void reshaping.importSession();
    else importInput?.click();
  };

  const addAttachments = (added: Attachment[]) => {
    // A read-only ledger has no composer to attach to.
    if (readOnly !== undefined) return;
    setAttachments((current) => [...current.filter((existing) => !added.some((item) => item.key === existing.key)), ...added]);
    composerField?.focus();
  };
  const addBrowserFiles = async (files: FileList | File[]) => {
    addAttachments(await Promise.all(Array.from(files, (file) => attachmentFromBrowserFile(file, browserAttachmentLimit))));
  };

  const send = async () => {
    const message = text();
    const files = attachments();
    let sessionId = chat.selectedId();
    if (sessionId === undefined) {
      await chat.newSession();
      sessionId = chat.selectedId();
      if (sessionId === undefined) return;
      const draftChoice = chat.choiceFor("");
      chat.setChoice(sessionId, draftChoice);
    }
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
    // Esc and Enter that a dialog, the find bar or the sidebar already acted on.
    if (event.defaultPrevented) return;
    const command = event.ctrlKey || event.metaKey;
    const writable = readOnly === undefined;
    if (command && event.key.toLowerCase() === "n" && writable) {
      event.preventDefault();
      void chat.newSession().then(() => composerField?.focus());
    } else if (command && event.key.toLowerCase() === "k") {
      event.preventDefault();
      setPaletteOpen(true);
    } else if (command && event.key.toLowerCase() === "f" && chat.selectedId() !== undefined) {
      event.preventDefault();
      if (findOpen()) document.querySelector<HTMLInputElement>("[data-testid=find-input]")?.select();
      setFindOpen(true);
    } else if (command && event.key.toLowerCase() === "z" && !isTextField(event.target) && writable) {
      // In a text field Ctrl+Z undoes typing; elsewhere it undoes the last turn.
      const open = chat.selectedId();
      if (open === undefined) return;
      event.preventDefault();
      void (event.shiftKey ? reshaping.redo(open) : reshaping.undo(open));
    } else if (command && event.key.toLowerCase() === "b" && !event.shiftKey) {
      event.preventDefault();
      toggleSidebar();
    } else if (command && event.key === ",") {
      event.preventDefault();
      openSettings();
    } else if (event.key === "Escape" && settingsOpen()) {
      closeSettings();
    } else if (event.key === "Escape" && layout() === "over") {
      setOpenedWhileNarrow(false);
      document.querySelector<HTMLElement>("[data-testid=toggle-sidebar]")?.focus();
    } else if (event.key === "Escape") {
      const open = chat.selectedId();
      if (open !== undefined && chat.isBusy(open)) void chat.stop(open);
    }
  };

  onMount(() => {
    let stopEvents: (() => void) | undefined;
    void chat.start().then((stop) => {
      stopEvents = stop;
      chat.reportInteractive();
    });
    window.addEventListener("keydown", onKeyDown);
    // A reload or a closing window saves the last words typed at once.
    const saveDrafts = () => { chat.drafts.flush(); };
    window.addEventListener("pagehide", saveDrafts);
    const stopNativeDrop = chat.onNativeDrop?.(
      (hover) => setHovering(hover.hovering),
      (files) => {
        // A dropped .gguf is a model to add to this computer's models, not a file to attach.
        const models = files.filter((file) => file.kind !== "folder" && isModelFile(file.name));
        const others = files.filter((file) => !models.includes(file));
        for (const model of models) {
          addDroppedModel(chat.backend, model.path).then(
            (added) => {
              toasts.show(t("localModels.added", { name: added.modelId }));
              // The model picker offers it at once.
              void chat.reloadModels();
            },
            (error: unknown) => { toasts.show(toBackendError(error).message); },
          );
        }
        if (others.length > 0) addAttachments(others.map(attachmentFromDrop));
      },
    );
    // In a browser, files arrive through HTML drag and drop instead.
    const onDragOver = (event: DragEvent) => {
      if (chat.onNativeDrop !== undefined || !event.dataTransfer?.types.includes("Files")) return;
      event.preventDefault();
      setHovering(true);
    };
    const onDragLeave = (event: DragEvent) => {
      if (event.relatedTarget === null) setHovering(false);
    };
    const onDrop = (event: DragEvent) => {
      if (chat.onNativeDrop !== undefined) return;
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
      window.removeEventListener("pagehide", saveDrafts);
      window.removeEventListener("dragover", onDragOver);
      window.removeEventListener("dragleave", onDragLeave);
      window.removeEventListener("drop", onDrop);
    });
  });

  const attach = () => {
    const pick = chat.pickFiles;
    if (pick === undefined) fileInput?.click();
    else void pick().then((files) => { addAttachments(files.map(attachmentFromDrop)); });
  };

  const openTitle = () => {
    const id = chat.selectedId();
    const title = id === undefined ? undefined : chat.state.sessions[id]?.title;
    return title === undefined ? undefined : displayTitle(title, t, props.locale);
  };

  // The model the library recommends for this computer, for the welcome's "Run a model on this
  // computer" (desktop only: a browser's models would run on the server).
  const [localModelSize, setRecommendedModelSize] = createSignal<number>();
  onMount(() => {
    if (chat.backend.transport !== "tauri" || chat.backend.server !== undefined) return;
    recommendedModelSize(chat.backend).then(
      (size) => {
        setRecommendedModelSize(size);
      },
      (error: unknown) => {
        console.warn("could not read the model library", error);
      },
    );
  });
  const offlineOnly = () => chat.catalog().providers.every((provider) => provider.id === "dossier");

  return (
    <LanguageContext.Provider value={spoken}>
    <ReadOnlyContext.Provider value={readOnly}>
    <div
      class="app"
      classList={{ "app--sidebar-collapsed": layout() === "hidden", "app--sidebar-over": layout() === "over", "app--read-only": readOnly !== undefined }}
      onPaste={(event) => {
        const files = event.clipboardData?.files;
        if (files !== undefined && files.length > 0) {
          event.preventDefault();
          void addBrowserFiles(files);
        }
      }}
    >
      {/* The first Tab stop: straight to the composer, shown only while it has focus. */}
      <a
        class="skip-link"
        href="#composer-input"
        data-testid="skip-to-composer"
        onClick={(event) => {
          event.preventDefault();
          composerField?.focus();
        }}
      >
        {t("conversation.skip")}
      </a>
      <Sidebar
        chat={chat}
        onOpenSearch={() => setPaletteOpen(true)}
        onOpenSettings={() => { openSettings(); }}
        updateReady={(() => {
          const update = updateNotice.shown();
          return update === undefined ? undefined : { update, open: () => { openSettings("updates"); }, dismiss: () => { updateNotice.dismiss(update.version); } };
        })()}
        onImport={startImport}
        working={reshaping.working()}
        onArchive={archive}
      />
      <main
        class="main"
        aria-label={t("conversation.label")}
        onPointerDown={(event) => {
          // A click on the conversation puts away the sidebar opened over it (the toggle's own click does that itself).
          const onToggle = (event.target as HTMLElement).closest("[data-testid=toggle-sidebar]") !== null;
          if (layout() === "over" && !onToggle) setOpenedWhileNarrow(false);
        }}
      >
        <header class="main-header" ref={header} onKeyDown={onHeaderKeyDown}>
          <button
            type="button"
            class="icon-button toolbar-button"
            data-testid="toggle-sidebar"
            aria-controls="sidebar"
            aria-expanded={layout() !== "hidden"}
            aria-label={layout() === "hidden" ? t("app.sidebarShow") : t("app.sidebarHide")}
            title={layout() === "hidden" ? t("app.sidebarShow") : t("app.sidebarHide")}
            onClick={toggleSidebar}
          >
            <Icon name="sidebar" size={16} />
          </button>
          <Show when={layout() !== "beside"}>
            <button
              type="button"
              class="icon-button toolbar-button"
              data-testid="header-new-session"
              data-writes
              aria-label={t("sessions.newSession")}
              title={t("sessions.newSession")}
              onClick={() => void chat.newSession().then(() => composerField?.focus())}
            >
              <Icon name="new-session" size={16} />
            </button>
          </Show>
          {/* Kept for the layout when no session is open, but then not a heading to read (axe: empty-heading). */}
          <h2 class="session-heading" data-testid="session-heading" aria-hidden={openTitle() === undefined ? "true" : undefined} title={openTitle()}>
            {openTitle() ?? ""}
          </h2>
          <SessionToolbar
            chat={chat}
            reshaping={reshaping}
            sessionId={chat.selectedId()}
            onArchive={(id) => void archive([id])}
            {...(findOpen() ? {} : { onFind: () => setFindOpen(true) })}
          />
        </header>
        <Show when={chat.connection() === "reconnecting"}>
          <p class="connection-banner" role="status" data-testid="connection-status" data-state="reconnecting">
            <span class="connection-dot" aria-hidden="true" />
            {t("app.connectionLost")}
          </p>
        </Show>
        {/* Not "retrying": waiting does not bring a revoked token back, so the person is asked to act. */}
        <Show when={chat.connection() === "refused"}>
          <div class="connection-banner" role="alert" data-testid="connection-status" data-state="refused">
            <p>{t("app.connectionRefused")}</p>
            <button type="button" class="plain-button" data-testid="open-server-settings" onClick={() => { openSettings("server"); }}>
              {t("app.connectionRefusedSettings")}
            </button>
          </div>
        </Show>
        <Show when={readOnly}>
          {(why) => (
            <p class="read-only-banner" role="status" data-testid="read-only-banner">
              {readOnlyBanner(t, why())}
            </p>
          )}
        </Show>
        <Show when={findOpen() ? chat.selectedId() : undefined} keyed>
          {(sessionId) => <FindInSession chat={chat} sessionId={sessionId} onClose={() => setFindOpen(false)} />}
        </Show>
        <Show
          when={chat.selectedId()}
          keyed
          fallback={
            <Welcome
              offlineOnly={offlineOnly()}
              serverProviders={chat.backend.transport !== "tauri"}
              onExample={(example, pickFiles) => {
                setText(example);
                composerField?.focus();
                // "Summarise a document I attach" needs the document: the picker opens, as the attach button's does.
                if (pickFiles) attach();
              }}
              onAddProvider={() => { openSettings(); }}
              localModelSize={localModelSize()}
              onRunLocally={chat.backend.transport === "tauri" && chat.backend.server === undefined ? () => { openSettings("models"); } : undefined}
            />
          }
        >
          {(sessionId) => <Conversation chat={chat} reshaping={reshaping} sessionId={sessionId} onRetry={retry} />}
        </Show>
        <ToastView toasts={toasts} />
        <Show when={readOnly === undefined}>
        <Composer
          chat={chat}
          sessionId={chat.selectedId() ?? ""}
          text={text()}
          onText={setText}
          attachments={attachments()}
          onRemove={(key) => {
            setAttachments((current) => current.filter((attachment) => attachment.key !== key));
          }}
          onNarrow={(key, range) => {
            setAttachments((current) => current.map((attachment) => (attachment.key === key ? narrowed(attachment, range) : attachment)));
          }}
          onAttach={attach}
          onAttachResource={(attachment) => { addAttachments([attachment]); }}
          onSend={() => void send()}
          inputRef={(element) => (composerField = element)}
        />
        </Show>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          data-testid="attach-file-input"
          onChange={(event) => {
            const files = event.currentTarget.files;
            if (files !== null) void addBrowserFiles(files);
            event.currentTarget.value = "";
          }}
        />
        <input
          ref={importInput}
          type="file"
          accept="application/json,.json"
          hidden
          data-testid="import-file"
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            if (file !== undefined) void reshaping.importSession(file);
            event.currentTarget.value = "";
          }}
        />
      </main>
      <Show when={paletteOpen()}>
        <SearchPalette chat={chat} onClose={() => setPaletteOpen(false)} onChosen={() => composerField?.focus()} />
      </Show>
      <Show when={settingsOpen()}>
        <Settings
          backend={props.backend}
          onClose={closeSettings}
          onChanged={() => void chat.reloadModels()}
          {...(updateCommands === undefined ? {} : { updates: updateCommands })}
          startAt={settingsStart()}
          tokenRefused={chat.connection() === "refused"}
        />
      </Show>
      <Show when={hovering()}>
        <div class="drop-overlay" data-testid="drop-overlay" aria-live="polite">
          <p>{t("composer.dropOverlay")}</p>
        </div>
      </Show>
    </div>
    </ReadOnlyContext.Provider>
    </LanguageContext.Provider>
  );
};
