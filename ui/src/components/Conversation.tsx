// The open session: its messages, oldest at the top, virtualised (only what is on screen is in
// the DOM, so a thousand-message session scrolls smoothly), following the newest message while
// you are at the bottom. Failed sends and the "replies are not available" notice show in place.
import { createVirtualizer, type VirtualItem } from "@tanstack/solid-virtual";
import { type Component, createEffect, createMemo, createSignal, For, on, onCleanup, onMount, Show } from "solid-js";
import type { Message } from "../lib/bindings/Message";
import type { Chat, Notice } from "../lib/chat";

import { focusWhenPresent } from "../lib/keyboard-focus";
import { clickedLink } from "../lib/links";
import { keepControlsQuiet, messageKeyHandler, messageSelector } from "../lib/message-focus";
import { heldScrollTop, nearTop, newestInView, nextPinned, readerScrollMs } from "../lib/pinning";
import { displayTitle } from "../lib/session-title";
import { type Reshaping, visibleMessages } from "../lib/reshaping";
import { measureOr, observeRectOr } from "../lib/virtual-list";
import { MessageActions } from "./MessageActions";
import { MessageView } from "./MessageView";
import { useLanguage } from "../lib/language";

const noMessages: Message[] = [];
/** A message's height before it is measured, in pixels. */
const estimatedHeight = 120;

export const Conversation: Component<{
  chat: Chat;
  reshaping: Reshaping;
  sessionId: string;
  onRetry: (retry: NonNullable<Notice["retry"]>) => void;
}> = (props) => {
  const { t, locale } = useLanguage();
  let scroller: HTMLDivElement | undefined;
  let messageList: HTMLDivElement | undefined;
  /**
   * Pinned to the newest message: the view follows it as messages arrive, a reply streams and
   * rows are measured, until the person scrolls up (then "Jump to newest" brings them back).
   */
  const [pinned, setPinned] = createSignal(true);
  let lastScrollTop = 0;
  /** When the reader last touched the wheel, a key, the pointer or a touch in the conversation. */
  let readerActedAt = Number.NEGATIVE_INFINITY;
  const readerActed = () => { readerActedAt = performance.now(); };
  /** Growth the reader caused (opening folded context) does not scroll the page away. */
  let readerGrowth = false;
  // Undone messages stay in the ledger until the next prompt; they are hidden, not gone.
  const messages = () => visibleMessages(props.chat.state.messages[props.sessionId] ?? noMessages, props.chat.state.sessions[props.sessionId]?.revert);
  const virtualizer = createVirtualizer({
    get count() {
      return messages().length;
    },
    getScrollElement: () => scroller ?? null,
    estimateSize: () => estimatedHeight,
    overscan: 6,
    getItemKey: (index) => messages()[index]?.id ?? index,
    initialRect: { width: 800, height: 600 },
    observeElementRect: observeRectOr({ width: 800, height: 600 }),
    measureElement: measureOr(estimatedHeight),
  });

  // The rows on screen by message id. The virtualiser hands out a new row object whenever a row
  // is measured again (a streaming reply: every frame) or moves (an older page shifts every
  // index); rendering by id keeps each message's DOM, its focus and its rendered Markdown
  // instead of building the slot again for every new row object.
  const rows = createMemo(() => {
    const byId = new Map<string, VirtualItem & { message: Message }>();
    for (const row of virtualizer.getVirtualItems()) {
      const message = messages()[row.index];
      if (message !== undefined) byId.set(message.id, { ...row, message });
    }
    return byId;
  });
  const renderedIds = createMemo(() => [...rows().keys()]);
  const rowOf = (id: string) => rows().get(id);

  // The messages are one Tab stop (`lib/message-focus.ts`): the message last focused while it
  // is rendered, else the lowest one on screen, so Tab lands where the reader is looking.
  const [focusedMessage, setFocusedMessage] = createSignal<string | undefined>();
  const tabStopId = createMemo(() => {
    const rendered = rows();
    const focused = focusedMessage();
    if (focused !== undefined && rendered.has(focused)) return focused;
    // The virtualiser's own reading of the scroll position: no layout forced while rendering.
    const bottom = (virtualizer.scrollOffset ?? 0) + (virtualizer.scrollRect?.height ?? 0);
    let stop: string | undefined;
    for (const [id, row] of rendered) if (stop === undefined || row.start < bottom) stop = id;
    return stop;
  });
  const focusMessage = (index: number) => {
    const id = messages()[index]?.id;
    if (id === undefined) return;
    setFocusedMessage(id);
    // Found by id: an older page landing meanwhile moves every index.
    const find = () => scroller?.querySelector<HTMLElement>(`.message-slot[data-message-id="${id}"] ${messageSelector}`);
    // Virtualised away (Home, or a long way up): scroll it into the rendered range first.
    if (find() === null) virtualizer.scrollToIndex(index, { align: "start" });
    focusWhenPresent(find, 60);
  };
  let loadOlderButton: HTMLButtonElement | undefined;
  const onMessageKeyDown = messageKeyHandler({
    count: () => messages().length,
    focusIndex: focusMessage,
    // "Show older messages" is reached from the oldest loaded message, not as a Tab stop of its own.
    aboveFirst: () => loadOlderButton?.focus(),
  });
  onMount(() => {
    if (messageList === undefined) return;
    const stopQuieting = keepControlsQuiet(messageList);
    onCleanup(stopQuieting);
  });

  const scrollToEnd = () => {
    if (scroller === undefined) return;
    scroller.scrollTop = scroller.scrollHeight;
    lastScrollTop = scroller.scrollTop;
  };
  // Each scroll repaints the whole view in software (the window without a GPU: following the
  // bottom costs a streaming reply about a fifth of its frame, docs/benchmarks.md). What asks to
  // follow within one task (a row measured, the total size, a notice) scrolls once, after it all.
  let followQueued = false;
  const followSoon = () => {
    if (followQueued) return;
    followQueued = true;
    queueMicrotask(() => {
      followQueued = false;
      scrollToEnd();
    });
  };
  // Whether the newest message is on screen (`newestInView`), read only while not pinned (when pinned the
  // button is hidden anyway): "Jump to newest" is for when there is somewhere to jump to.
  const [newestShown, setNewestShown] = createSignal(true);
  const measureNewest = () => {
    const newest = messages().at(-1);
    if (scroller === undefined || newest === undefined || pinned()) return;
    const slot = scroller.querySelector<HTMLElement>(`.message-slot[data-message-id="${newest.id}"]`);
    const view = scroller.getBoundingClientRect();
    setNewestShown(newestInView(slot?.getBoundingClientRect(), view.top, view.bottom));
  };
  createEffect(on([pinned, () => virtualizer.getTotalSize(), () => messages().length], () => { requestAnimationFrame(measureNewest); }));
  const jumpToNewest = () => {
    setPinned(true);
    scrollToEnd();
  };

  // Follow the newest message while pinned: new messages, a streaming reply, rows measured
  // taller than their estimate (a long session lands on its newest message, not short of it).
  createEffect(
    on([() => messages().length, () => virtualizer.getTotalSize(), () => props.chat.notices[props.sessionId], () => props.chat.isBusy(props.sessionId)], () => {
      if (readerGrowth) {
        readerGrowth = false;
        return;
      }
      if (pinned()) followSoon();
    }),
  );
  createEffect(
    on(
      () => props.sessionId,
      () => {
        setPinned(true);
        followSoon();
      },
    ),
  );

  // Older pages load as the reader scrolls up, before the top is reached, and what they look at
  // stays where it was. The button stays for anyone who prefers it (and for the keyboard).
  const [loadingOlder, setLoadingOlder] = createSignal(false);
  const loadOlder = async () => {
    const element = scroller;
    if (loadingOlder() || !props.chat.hasOlderMessages(props.sessionId) || element === undefined) return;
    const sessionId = props.sessionId;
    setLoadingOlder(true);
    try {
      const before = { scrollTop: element.scrollTop, scrollHeight: element.scrollHeight };
      // A message with keyboard focus leaves the rendered range for a moment while the page
      // lands above it (the list renders before the place is held): it gets focus back.
      const hadFocus = messageList?.contains(document.activeElement) === true ? focusedMessage() : undefined;
      await props.chat.loadOlderMessages(sessionId);
      if (sessionId !== props.sessionId) return;
      // After Solid has rendered the new rows (synchronously, on the store's update) and the rows
      // that came into the rendered range have been measured (in the microtasks their refs
      // queued, already waiting ahead of this one): still before the next paint.
      await new Promise<void>((resolve) => { queueMicrotask(resolve); });
      element.scrollTop = heldScrollTop(before, element.scrollHeight);
      lastScrollTop = element.scrollTop;
      if (hadFocus !== undefined && messageList?.contains(document.activeElement) !== true) {
        focusWhenPresent(() => scroller?.querySelector<HTMLElement>(`.message-slot[data-message-id="${hadFocus}"] ${messageSelector}`));
      }
    } catch (error) {
      props.chat.reportError(sessionId, error);
    } finally {
      setLoadingOlder(false);
    }
    // Still near the top (a short page, a fast flick): the next page too.
    if (!pinned() && nearTop(element)) void loadOlder();
  };

  // `toggle` does not bubble: listen in the capture phase for any <details> the reader opens.
  const readerToggled = () => {
    readerGrowth = true;
    requestAnimationFrame(() => { readerGrowth = false; });
  };
  onMount(() => { scroller?.addEventListener("toggle", readerToggled, true); });
  onCleanup(() => { scroller?.removeEventListener("toggle", readerToggled, true); });

  const notice = () => props.chat.notices[props.sessionId];
  const typingLabel = () =>
    props.chat.sending[props.sessionId] === true && props.chat.state.status[props.sessionId]?.type !== "busy" ? t("conversation.sending") : t("conversation.replying");
  /** Busy, and the newest message is not yet a reply with something in it to read. */
  const awaitingWords = () => {
    if (!props.chat.isBusy(props.sessionId)) return false;
    const last = messages().at(-1);
    if (last === undefined || last.role !== "assistant") return true;
    return !(props.chat.state.parts[last.id] ?? []).some((part) => (part.type === "text" || part.type === "reasoning" ? part.text.trim() !== "" : part.type === "tool"));
  };
  /**
   * The session's error, for its newest reply when that reply stopped unfinished without an
   * error of its own: the loop failed where it could not write one (a full disk, for one).
   */
  const unrecordedError = (message: Message) => {
    // A failed send of yours already says why in its notice.
    if (notice() !== undefined) return undefined;
    const error = props.chat.state.errors[props.sessionId];
    if (error === undefined || message.role !== "assistant" || message.error !== undefined || message.time.completed !== undefined) return undefined;
    if (props.chat.isBusy(props.sessionId) || messages().at(-1)?.id !== message.id) return undefined;
    return error;
  };

  // A search result or a find match: scroll it to the middle and mark it (briefly for a jump,
  // for as long as find stays on it). Deferred, so a remount never replays an old jump.
  const [marked, setMarked] = createSignal<string | undefined>();
  let unmark: ReturnType<typeof setTimeout> | undefined;
  createEffect(
    on(
      () => props.chat.focus(),
      (focus) => {
        clearTimeout(unmark);
        if (focus?.sessionId !== props.sessionId) {
          setMarked(undefined);
          return;
        }
        const index = messages().findIndex((message) => message.id === focus.messageId);
        if (index < 0) return;
        setPinned(false);
        setMarked(focus.messageId);
        // After the scroll to the end that opening a session queues.
        requestAnimationFrame(() => { virtualizer.scrollToIndex(index, { align: "center" }); });
        if (focus.reason === "jump") unmark = setTimeout(() => { setMarked(undefined); }, 2400);
      },
      { defer: true },
    ),
  );
  onCleanup(() => { clearTimeout(unmark); });

  return (
    <div
      class="conversation"
      ref={scroller}
      data-testid="conversation"
      onClick={(event) => {
        // A link in a reply never navigates the app's own view: the backend opens it outside.
        const link = clickedLink(event.target);
        if (link === undefined) return;
        event.preventDefault();
        if (link.url !== undefined) void props.chat.openLink(props.sessionId, link.url);
      }}
      onAuxClick={(event) => {
        if (clickedLink(event.target) !== undefined) event.preventDefault();
      }}
      onWheel={readerActed}
      onKeyDown={readerActed}
      onPointerDown={readerActed}
      onTouchMove={readerActed}
      onScroll={(event) => {
        const element = event.currentTarget;
        const byReader = performance.now() - readerActedAt < readerScrollMs;
        // While a search result or find match is marked, only the reader moves the view: the
        // scroll to the end that opening the session queued must not pin it back.
        if (byReader || marked() === undefined) setPinned(nextPinned(pinned(), element, lastScrollTop, byReader));
        lastScrollTop = element.scrollTop;
        measureNewest();
        if (!pinned() && nearTop(element)) void loadOlder();
      }}
    >
      <Show when={props.chat.state.sessions[props.sessionId]?.parentID}>
        {(parentId) => (
          <button type="button" class="plain-button load-older" onClick={() => void props.chat.openSession(parentId())}>
            {t("conversation.parentSession")}
          </button>
        )}
      </Show>
      <Show when={(props.chat.children[props.sessionId] ?? []).length > 0}>
        <nav class="children" aria-label={t("conversation.childSessions")}>
          <span>{t("conversation.childSessions")}:</span>
          <For each={props.chat.children[props.sessionId]}>
            {(child) => (
              <button type="button" class="plain-button" onClick={() => void props.chat.openSession(child.id)}>
                {displayTitle(child.title, t, locale())}
              </button>
            )}
          </For>
        </nav>
      </Show>
      <Show when={props.chat.hasOlderMessages(props.sessionId)}>
        <button
          type="button"
          class="plain-button load-older"
          data-testid="load-older"
          ref={loadOlderButton}
          tabIndex={-1}
          disabled={loadingOlder()}
          onClick={() => void loadOlder()}
          onKeyDown={(event) => {
            if (event.key !== "ArrowDown") return;
            event.preventDefault();
            focusMessage(0);
          }}
        >
          {loadingOlder() ? t("conversation.loadingOlder") : t("conversation.loadOlder")}
        </button>
      </Show>
      <p id="message-list-keys" class="visually-hidden">
        {t("conversation.keys")}
      </p>
      {/* Everything undone is not an empty session: the undone notice says what there is. */}
      <Show when={messages().length === 0 && notice() === undefined && props.reshaping.undoneCount(props.sessionId) === 0}>
        <div class="empty-state">
          <p class="empty-state-title">{t("conversation.emptyTitle")}</p>
          <p class="empty-state-body">{t("conversation.emptyBody")}</p>
        </div>
      </Show>
      <div
        class="message-list"
        ref={messageList}
        style={{ height: `${String(virtualizer.getTotalSize())}px` }}
        onKeyDown={onMessageKeyDown}
        onFocusIn={(event) => {
          const slot = (event.target as HTMLElement).closest<HTMLElement>(".message-slot");
          if (slot?.dataset.messageId !== undefined) setFocusedMessage(slot.dataset.messageId);
        }}
      >
        <For each={renderedIds()}>
          {(id) => (
            <Show when={rowOf(id)}>
              {(row) => (
                <div class="message-slot" classList={{ "message-slot--marked": marked() === id }} data-index={row().index} data-message-id={id} ref={(element) => { queueMicrotask(() => { virtualizer.measureElement(element); }); }} style={{ transform: `translateY(${String(row().start)}px)` }}>
                  {/* The newest reply, before its first words: the typing indicator in its place. */}
                  <Show when={!(awaitingWords() && row().message.role === "assistant" && messages().at(-1)?.id === id)} fallback={<TypingIndicator label={typingLabel()} />}>
                    <MessageView message={row().message} parts={props.chat.state.parts[id] ?? []} mediaUrl={(url) => props.chat.mediaUrl(url)} unrecordedError={unrecordedError(row().message)} tabStop={tabStopId() === id} />
                    <MessageActions chat={props.chat} reshaping={props.reshaping} sessionId={props.sessionId} message={row().message} unrecordedError={unrecordedError(row().message)} />
                  </Show>
                </div>
              )}
            </Show>
          )}
        </For>
      </div>
      <Show when={props.reshaping.undoneCount(props.sessionId) > 0}>
        <div class="notice notice--undone" role="status" data-testid="undone">
          <p>
            {props.reshaping.undoneCount(props.sessionId) === 1
              ? t("toolbar.undoneMessage")
              : t("toolbar.undoneMessages", { count: props.reshaping.undoneCount(props.sessionId) })}
          </p>
          <button type="button" class="plain-button" data-writes disabled={!props.reshaping.canRedo(props.sessionId)} onClick={() => void props.reshaping.redo(props.sessionId)}>
            {t("toolbar.redo")}
          </button>
        </div>
      </Show>
      {/* Where the reply will appear, until it exists (then in its own place, above). */}
      <Show when={awaitingWords() && messages().at(-1)?.role !== "assistant"}>
        <TypingIndicator label={typingLabel()} />
      </Show>
      <Show when={!pinned() && !newestShown() && messages().length > 0}>
        <button type="button" class="jump-to-newest" data-testid="jump-to-newest" onClick={jumpToNewest}>
          {t("conversation.jumpToNewest")}
        </button>
      </Show>
      <For each={props.chat.permissionsFor(props.sessionId)}>
        {(request) => (
          <div class="notice notice--permission" role="alertdialog" data-testid="permission-request">
            <p>{t("message.permissionAsked", { permission: request.permission, patterns: request.patterns.join(", ") })}</p>
            <button type="button" class="plain-button" onClick={() => void props.chat.answerPermission(request, "once")}>
              {t("message.permissionOnce")}
            </button>
            <button type="button" class="plain-button" onClick={() => void props.chat.answerPermission(request, "always")}>
              {t("message.permissionAlways")}
            </button>
            <button type="button" class="plain-button" onClick={() => void props.chat.answerPermission(request, "reject")}>
              {t("message.permissionReject")}
            </button>
          </div>
        )}
      </For>
      <Show when={notice()}>
        {(current) => (
          <div class={`notice notice--${current().kind}`} role="alert" data-testid="notice" data-kind={current().kind} title={current().message}>
            <p>
              {current().kind === "unavailable"
                ? t("common.errorUnavailable")
                : current().kind === "network"
                  ? t("common.errorOffline")
                  : current().kind === "unauthorized" && props.chat.backend.transport === "attached"
                    ? t("common.errorTokenRefused")
                    : t("common.errorGeneric", { message: current().message })}
            </p>
            <Show when={current().retry}>
              {(retry) => (
                <button type="button" class="plain-button" data-writes onClick={() => { props.onRetry(retry()); }}>
                  {t("common.retry")}
                </button>
              )}
            </Show>
          </div>
        )}
      </Show>
    </div>
  );
};

/** Three dots where a reply is about to appear; screen readers hear "Replying…". */
const TypingIndicator: Component<{ label: string }> = (props) => (
  <div class="typing" role="status" data-testid="typing-indicator">
    <span class="typing-dots" aria-hidden="true">
      <span />
      <span />
      <span />
    </span>
    <span class="visually-hidden">{props.label}</span>
  </div>
);
