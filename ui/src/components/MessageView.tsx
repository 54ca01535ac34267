// One message. A user's: their text, the files and agents they attached, and the context the
// backend added, folded to one line each ("Read package.json · 42 lines") that opens to the exact
// text the model sees. An assistant's: Markdown (sanitised), reasoning folded, tools with their
// state, tokens and cost, and its error in place.
import { type Component, createEffect, For, Index, Match, Show, Switch } from "solid-js";
import { decorateCodeBlocks } from "../lib/copying";
import type { AssistantError } from "../lib/bindings/AssistantError";
import type { Message } from "../lib/bindings/Message";
import type { Part } from "../lib/bindings/Part";
import { groupUserParts, type UserItem } from "../lib/context-summary";

import { incrementalMarkdown, type IncrementalMarkdown } from "../lib/incremental-markdown";
import { errorMessage, replyOutcome } from "../lib/reply-outcome";
import { Icon } from "./Icon";
import { useLanguage } from "../lib/language";

type PartOf<T extends Part["type"]> = Extract<Part, { type: T }>;

export interface MessageViewProps {
  message: Message;
  parts: readonly Part[];
  /** Where an attachment's bytes can be loaded from, for image previews. */
  mediaUrl: (url: string) => string | undefined;
  /** Why this reply stopped, when the reply itself could not record it (the session's error). */
  unrecordedError?: AssistantError | undefined;
  /** This message is the conversation's one Tab stop (`lib/message-focus.ts`). */
  tabStop: boolean;
}

export const MessageView: Component<MessageViewProps> = (props) => {
  const { t } = useLanguage();
  return (
    <Show
      when={props.message.role === "user"}
      fallback={<AssistantView message={props.message} parts={props.parts} unrecordedError={props.unrecordedError} tabStop={props.tabStop} />}
    >
      <article class="message message--user" data-testid="message" data-role="user" aria-label={t("common.you")} tabIndex={props.tabStop ? 0 : -1} aria-describedby={props.tabStop ? "message-list-keys" : undefined}>
        <For each={groupUserParts(props.parts)}>{(item) => <UserItemView item={item} mediaUrl={props.mediaUrl} />}</For>
      </article>
    </Show>
  );
};

const UserItemView: Component<{ item: UserItem; mediaUrl: MessageViewProps["mediaUrl"] }> = (props) => {
  const { t } = useLanguage();
  return (
    <Switch>
      <Match when={props.item.kind === "text" && props.item}>
        {(item) => <p class="user-text">{item().text}</p>}
      </Match>
      <Match when={props.item.kind === "context" && props.item}>
        {(item) => (
          <details class="context" data-testid="context">
            <summary title={t("message.contextShow")}>
              <Icon name="context" />
              <Show when={item().name !== ""} fallback={t("message.contextShow")}>
                {t("message.contextRead", { name: item().name })}
                <Show when={item().lines !== undefined}>
                  {" · "}
                  {item().lines === 1 ? t("message.contextLine") : t("message.contextLines", { count: item().lines ?? 0 })}
                </Show>
                <Show when={item().entries !== undefined}>
                  {" · "}
                  {t("message.contextEntries", { count: item().entries ?? 0 })}
                </Show>
              </Show>
            </summary>
            <pre class="context-text">{item().text}</pre>
          </details>
        )}
      </Match>
      <Match when={props.item.kind === "failure" && props.item}>
        {(item) => (
          <details class="context context--failed" data-testid="context-failure">
            <summary>{t("message.contextFailed", { name: item().name })}</summary>
            <pre class="context-text">{item().text}</pre>
          </details>
        )}
      </Match>
      <Match when={props.item.kind === "file" && props.item}>
        {(item) => (
          <>
          <Show when={item().part.mime.startsWith("image/") && props.mediaUrl(item().part.url)}>
            {(source) => <img class="attachment-preview" src={source()} alt={item().part.filename ?? ""} />}
          </Show>
          <span class="chip chip--sent" data-testid="file-chip">
            <Icon name={item().part.mime === "application/x-directory" ? "folder" : item().part.mime.startsWith("image/") ? "image" : "file"} />
            {item().part.filename ?? item().part.url}
          </span>
          </>
        )}
      </Match>
      <Match when={props.item.kind === "agent" && props.item}>
        {(item) => <span class="chip chip--agent">@{item().part.name}</span>}
      </Match>
    </Switch>
  );
};

const AssistantView: Component<{ message: Message; parts: readonly Part[]; unrecordedError?: AssistantError | undefined; tabStop: boolean }> = (props) => {
  const { t } = useLanguage();
  const outcome = () => replyOutcome(props.message, props.unrecordedError);
  return (
    <article class="message message--assistant" data-testid="message" data-role="assistant" aria-label={t("common.assistant")} tabIndex={props.tabStop ? 0 : -1} aria-describedby={props.tabStop ? "message-list-keys" : undefined}>
      {/* By place, not by object: a part's final copy (the reply done) replaces the streamed one
          in the store, and keyed by object the reply would be built again, whole, in one frame
          (80 ms for the window bench's shaped reply); in its place the copy is a text that did
          not change, and nothing is rebuilt. */}
      <Index each={props.parts}>{(part) => <AssistantPart part={part()} />}</Index>
      <Switch>
        {/* Stopped is not a failure: said quietly, the text above kept. */}
        <Match when={outcome()?.kind === "stopped" && outcome()}>
          {(stopped) => (
            <p class="reply-stopped" data-testid="reply-stopped" title={errorMessage(stopped().error)}>
              {t("message.replyStopped")}
            </p>
          )}
        </Match>
        <Match when={outcome()?.kind === "failed" && outcome()}>
          {(failure) => (
            <p class="reply-error" role="alert">
              {t("message.replyError", { message: errorMessage(failure().error) })}
            </p>
          )}
        </Match>
      </Switch>
    </article>
  );
};

const AssistantPart: Component<{ part: Part }> = (props) => {
  const { t } = useLanguage();
  return (
    <Switch>
      <Match when={props.part.type === "text" && (props.part)}>
        {(part) => <ReplyText text={part().text} />}
      </Match>
      <Match when={props.part.type === "reasoning" && (props.part)}>
        {(part) => (
          <details class="reasoning">
            <summary>{t("conversation.reasoning")}</summary>
            {/* Streamed like a reply's text, and as long: rendering it whole on every delta made
                a reasoning model's reply slower with every word. */}
            <ReplyText text={part().text} testId="reasoning-text" />
          </details>
        )}
      </Match>
      <Match when={props.part.type === "tool" && (props.part)}>
        {(part) => <ToolView part={part()} />}
      </Match>
      <Match when={props.part.type === "step-finish" && (props.part)}>
        {(part) => (
          <p class="usage" data-testid="usage">
            {/* A cost is shown only when known and not zero: a free or local model costs nothing to say. */}
            {part().cost > 0
              ? t("message.tokensUsage", { input: part().tokens.input, output: part().tokens.output, cost: `$${part().cost.toFixed(4)}` })
              : t("message.tokensOnly", { input: part().tokens.input, output: part().tokens.output })}
          </p>
        )}
      </Match>
      <Match when={props.part.type === "file" && (props.part)}>
        {(part) => <span class="chip chip--sent">{part().filename ?? part().mime}</span>}
      </Match>
    </Switch>
  );
};

/**
 * A reply's Markdown, sanitised, with a language label and Copy on each code block. While it
 * streams only the blocks that changed are replaced (`lib/incremental-markdown.ts`).
 */
const ReplyText: Component<{ text: string; testId?: string }> = (props) => {
  const { t } = useLanguage();
  let element: HTMLDivElement | undefined;
  let renderer: IncrementalMarkdown | undefined;
  let labelsUsed = "";
  createEffect(() => {
    if (element === undefined) return;
    const labels = { copy: t("common.copy"), copied: t("common.copied"), code: t("conversation.codeBlock") };
    // Another language: the code blocks' labels change, so every block is built again.
    const labelsKey = JSON.stringify(labels);
    if (renderer === undefined || labelsKey !== labelsUsed) {
      labelsUsed = labelsKey;
      renderer = incrementalMarkdown(element, (block) => { decorateCodeBlocks(block, labels); });
      renderer.reset();
    }
    renderer.render(props.text);
  });
  return <div class="markdown" data-testid={props.testId ?? "reply-text"} ref={element} />;
};

const ToolView: Component<{ part: PartOf<"tool"> }> = (props) => {
  const { t } = useLanguage();
  const label = () => {
    switch (props.part.state.status) {
      case "pending":
        return t("message.toolPending");
      case "running":
        return t("message.toolRunning");
      case "completed":
        return t("message.toolCompleted");
      case "error":
        return t("message.toolError");
    }
  };
  const title = () => ("title" in props.part.state ? (props.part.state.title ?? "") : "");
  return (
    <details class={`tool tool--${props.part.state.status}`} data-testid="tool">
      <summary>
        <span class="tool-name">{props.part.tool}</span>
        <Show when={title() !== ""}>
          <span class="tool-title">{title()}</span>
        </Show>
        <span class="tool-status">{label()}</span>
      </summary>
      <pre class="tool-io">{JSON.stringify(props.part.state.input, null, 2)}</pre>
      <Show when={props.part.state.status === "completed" && props.part.state}>
        {(state) => <pre class="tool-io">{state().output}</pre>}
      </Show>
      <Show when={props.part.state.status === "error" && props.part.state}>
        {(state) => <pre class="tool-io tool-io--error">{state().error}</pre>}
      </Show>
    </details>
  );
};
