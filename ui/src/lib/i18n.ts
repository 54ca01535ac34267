// Every user-visible string, in English and Simplified Chinese, and the choice between them.

/** The locales we ship a table for. */
export type Locale = "en" | "zh-CN";

const en = {
  appName: "Dossier",
  sessionsTitle: "Sessions",
  sessionsEmptyTitle: "No sessions yet",
  sessionsEmptyBody: "Your sessions will be listed here once the chat is connected.",
  conversationLabel: "Conversation",
  conversationEmptyTitle: "Nothing to show yet",
  conversationEmptyBody:
    "This build is the desktop shell only. Once the chat is connected, your conversation will appear here.",
  composerLabel: "Message",
  composerPlaceholder: "Write a message…",
  sendButton: "Send",
  sendDisabledNotice: "Sending is turned off: the chat is not connected in this build yet.",
  statusNotConnected: "Not connected",
  transportTauri: "Desktop app",
  transportHttp: "Browser",
} as const;

/** A key of the string table; the English table is the source of truth for which keys exist. */
export type MessageKey = keyof typeof en;

/** A complete string table: the type makes a missing translation a compile error. */
export type Messages = Readonly<Record<MessageKey, string>>;

const zhCN: Messages = {
  appName: "Dossier",
  sessionsTitle: "会话",
  sessionsEmptyTitle: "还没有会话",
  sessionsEmptyBody: "连接聊天后，你的会话会列在这里。",
  conversationLabel: "对话",
  conversationEmptyTitle: "这里还没有内容",
  conversationEmptyBody: "此版本只包含桌面外壳。连接聊天后，对话会显示在这里。",
  composerLabel: "消息",
  composerPlaceholder: "输入消息…",
  sendButton: "发送",
  sendDisabledNotice: "发送已停用：此版本尚未连接聊天。",
  statusNotConnected: "未连接",
  transportTauri: "桌面应用",
  transportHttp: "浏览器",
};

/** All tables by locale. */
export const messages: Readonly<Record<Locale, Messages>> = { en, "zh-CN": zhCN };

/**
 * Picks the locale for a BCP 47 language tag such as `navigator.language`.
 *
 * Any Chinese tag (`zh`, `zh-CN`, `zh-Hans-SG`, and also `zh-TW`) gets the Simplified Chinese
 * table, because it is the only Chinese one we have and reads better than English for most
 * Chinese readers. Everything else, including a missing tag, falls back to English.
 */
export function pickLocale(languageTag: string | undefined): Locale {
  const primary = languageTag?.trim().toLowerCase().split(/[-_]/)[0];
  return primary === "zh" ? "zh-CN" : "en";
}

/** A lookup function bound to one locale. */
export type Translate = (key: MessageKey) => string;

/** Returns the lookup function for `locale`. */
export function translator(locale: Locale): Translate {
  const table = messages[locale];
  return (key) => table[key];
}
