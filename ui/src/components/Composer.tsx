// The message box: attachment chips (name, size, kind; removable; the reason when a file cannot
// be sent; a text file narrowed to one symbol through its outline picker), the text (Enter sends, Shift+Enter is a new line, `@` offers agents), the attach
// button, the agent and model pickers, and Send — or Stop while a reply streams. With MCP servers:
// the Resources picker (while a connected server offers resources) and the `/` prompt menu
// (their own components).
import { type Component, createMemo, createSignal, For, Show } from "solid-js";
import type { Chat } from "../lib/chat";
import { type Attachment, isSendable } from "../lib/drafts";
import { agentDescription, agentName } from "../lib/display-names";
import { humanSize, type MessageKey } from "../lib/i18n";
import { offersResources, resourceAttachment } from "../lib/mcp-offers";
import { Icon } from "./Icon";
import { McpResourcePicker } from "./McpResourcePicker";
import { hasOutline } from "../lib/symbol-outline";
import { SymbolPicker } from "./SymbolPicker";
import { ModelPicker } from "./ModelPicker";
import { PromptMenu } from "./PromptMenu";
import { useLanguage } from "../lib/language";

export interface ComposerProps {
  chat: Chat;
  sessionId: string;
  text: string;
  onText: (text: string) => void;
  attachments: Attachment[];
  onRemove: (key: string) => void;
  /** Narrows a text file's chip to a symbol's lines (`undefined`: the whole file again). */
  onNarrow?: (key: string, range: { start: number; end: number } | undefined) => void;
  onAttach: () => void;
  /** Adds a chip for an MCP server's resource (chosen in the Resources picker). */
  onAttachResource?: (attachment: Attachment) => void;
  onSend: () => void;
  inputRef?: (element: HTMLTextAreaElement) => void;
}

const kindLabels: Record<Attachment["kind"], MessageKey> = {
  text: "composer.kindText",
  folder: "composer.kindFolder",
  image: "composer.kindImage",
  pdf: "composer.kindPdf",
  binary: "composer.kindBinary",
  "too-large": "composer.kindTooLarge",
  unreadable: "composer.kindUnreadable",
};

export const Composer: Component<ComposerProps> = (props) => {
  const { t } = useLanguage();
  const [mentionIndex, setMentionIndex] = createSignal(0);
  const busy = () => props.chat.isBusy(props.sessionId);
  const canSend = () => !busy() && (props.text.trim() !== "" || props.attachments.some(isSendable));
  const primaryAgents = createMemo(() => props.chat.agents().filter((agent) => agent.mode !== "subagent" && !agent.hidden));
  const choice = () => props.chat.choiceFor(props.sessionId);
  let field: HTMLTextAreaElement | undefined;
  let promptMenuKeys: ((event: KeyboardEvent) => boolean) | undefined;

  /** The `@partial` being typed at the end of the text, if any, and the agents it could be. */
  const mention = createMemo(() => {
    const match = /(^|\s)@([\w-]*)$/.exec(props.text);
    if (match === null) return undefined;
    const partial = match[2] ?? "";
    const candidates = props.chat.agents().filter((agent) => !agent.hidden && agent.name.startsWith(partial));
    return candidates.length === 0 ? undefined : { partial, candidates };
  });

  const completeMention = (name: string) => {
    const current = mention();
    if (current === undefined) return;
    props.onText(`${props.text.slice(0, props.text.length - current.partial.length)}${name} `);
    setMentionIndex(0);
  };

  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        if (canSend()) props.onSend();
      }}
    >
      <Show when={props.attachments.length > 0}>
        <ul class="chips" aria-label={t("composer.attachButton")}>
          <For each={props.attachments}>
            {(attachment) => (
              <li class="chip" classList={{ "chip--refused": !isSendable(attachment) }} data-testid="attachment-chip" data-kind={attachment.kind}>
                <Icon name={attachment.kind === "folder" ? "folder" : attachment.kind === "image" ? "image" : "file"} />
                <span class="chip-name">{attachment.name}</span>
                <Show when={attachment.size !== undefined}>
                  <span class="chip-size">{humanSize(t, attachment.size ?? 0)}</span>
                </Show>
                <span class="chip-kind">
                  {attachment.resource === undefined
                    ? t(kindLabels[attachment.kind], { reason: attachment.reason ?? "" })
                    : t("mcp.resourceChip", { server: attachment.resource.clientName })}
                </span>
                <Show when={hasOutline(attachment) && props.onNarrow !== undefined ? props.chat.fileSymbols : undefined}>
                  {(fileSymbols) => (
                    <SymbolPicker
                      name={attachment.name}
                      path={attachment.key}
                      range={attachment.range}
                      fileSymbols={fileSymbols()}
                      onNarrow={(range) => props.onNarrow?.(attachment.key, range)}
                    />
                  )}
                </Show>
                <button
                  type="button"
                  class="chip-remove"
                  aria-label={t("composer.removeAttachment", { name: attachment.name })}
                  title={t("composer.removeAttachment", { name: attachment.name })}
                  onClick={() => { props.onRemove(attachment.key); }}
                >
                  ×
                </button>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <label for="composer-input" class="visually-hidden">
        {t("composer.label")}
      </label>
      <div class="composer-field">
        <textarea
          id="composer-input"
          ref={(element) => {
            field = element;
            props.inputRef?.(element);
          }}
          class="composer-input"
          rows={3}
          placeholder={t("composer.placeholder")}
          value={props.text}
          onInput={(event) => { props.onText(event.currentTarget.value); }}
          onKeyDown={(event) => {
            if (promptMenuKeys?.(event) === true) return;
            const current = mention();
            if (current !== undefined && (event.key === "Tab" || (event.key === "Enter" && !event.shiftKey))) {
              event.preventDefault();
              const chosen = current.candidates[mentionIndex() % current.candidates.length];
              if (chosen !== undefined) completeMention(chosen.name);
              return;
            }
            if (current !== undefined && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
              event.preventDefault();
              setMentionIndex((index) => index + (event.key === "ArrowDown" ? 1 : current.candidates.length - 1));
              return;
            }
            if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              if (canSend()) props.onSend();
            }
          }}
        />
        <Show when={props.chat.mcpOffers}>
          {(mcp) => <PromptMenu mcp={mcp()} text={props.text} onText={props.onText} keys={(handler) => (promptMenuKeys = handler)} onDone={() => field?.focus()} />}
        </Show>
        <Show when={mention()}>
          {(current) => (
            <ul class="mention-menu" role="listbox" aria-label={t("composer.agentLabel")}>
              <For each={current().candidates}>
                {(agent, index) => (
                  <li
                    role="option"
                    aria-selected={index() === mentionIndex() % current().candidates.length}
                    class="mention-option"
                    onMouseDown={(event) => {
                      event.preventDefault();
                      completeMention(agent.name);
                    }}
                  >
                    <span>
                      <strong>@{agent.name}</strong>
                      <Show when={agentName(t, agent) !== agent.name}>
                        {" "}
                        <span class="mention-name">{agentName(t, agent)}</span>
                      </Show>
                    </span>
                    <Show when={agentDescription(t, agent)}>
                      {(description) => <span class="mention-description">{description()}</span>}
                    </Show>
                  </li>
                )}
              </For>
            </ul>
          )}
        </Show>
      </div>
      <div class="composer-footer">
        <button type="button" class="plain-button composer-attach" data-testid="attach" title={t("composer.attachButton")} onClick={() => { props.onAttach(); }}>
          <Icon name="clip" /> <span class="composer-attach-label">{t("composer.attachButton")}</span>
        </button>
        <Show when={props.onAttachResource !== undefined && offersResources(Object.values(props.chat.mcpStatuses)) ? props.chat.mcpOffers : undefined}>
          {(mcp) => <McpResourcePicker mcp={mcp()} onChoose={(item) => props.onAttachResource?.(resourceAttachment(item))} onClosed={() => field?.focus()} />}
        </Show>
        <label class="picker">
          <span class="visually-hidden">{t("composer.agentLabel")}</span>
          <select
            data-testid="agent-picker"
            value={choice().agent ?? ""}
            onChange={(event) => { props.chat.setChoice(props.sessionId, { agent: event.currentTarget.value }); }}
          >
            <For each={primaryAgents()}>
              {(agent) => (
                <option value={agent.name} title={agentDescription(t, agent)}>
                  {agentName(t, agent)}
                </option>
              )}
            </For>
          </select>
        </label>
        <ModelPicker chat={props.chat} sessionId={props.sessionId} onPicked={() => field?.focus()} />
        <span class="spacer" />
        <Show
          when={busy()}
          fallback={
            <button type="submit" class="send-button" data-testid="send" disabled={!canSend()}>
              {t("composer.sendButton")}
            </button>
          }
        >
          <Show
            when={props.chat.backend.abort !== undefined}
            fallback={
              <>
                <span id="stop-unavailable" class="visually-hidden">
                  {t("composer.stopUnavailable")}
                </span>
                <button type="button" class="send-button" disabled aria-describedby="stop-unavailable" title={t("composer.stopUnavailable")}>
                  {t("composer.stopButton")}
                </button>
              </>
            }
          >
            <button type="button" class="send-button send-button--stop" data-testid="stop" onClick={() => void props.chat.stop(props.sessionId)}>
              {t("composer.stopButton")}
            </button>
          </Show>
        </Show>
      </div>
    </form>
  );
};
