// Every user-visible string, in English and Simplified Chinese, and the choice between them.
// Placeholders are written `{name}` and filled with `fill()`.

/** The locales we ship a table for. */
export type Locale = "en" | "zh-CN";

const en = {
  appName: "Dossier",
  sessionsTitle: "Sessions",
  sessionsEmptyTitle: "No sessions yet",
  sessionsEmptyBody: "Start one with New session, or press Ctrl+N.",
  sessionsSearchEmpty: "No session matches your search.",
  sessionsLoadMore: "Load more",
  sessionsLoading: "Loading…",
  newSession: "New session",
  searchSessions: "Filter sessions by title",
  searchPlaceholder: "Filter by title",
  renameSession: "Rename",
  renameSessionField: "New title",
  archiveSession: "Archive",
  restoreSession: "Restore",
  archivedTitle: "Archived",
  showArchived: "Archived",
  showCurrent: "Back to sessions",
  deleteSession: "Delete",
  deleteConfirm: "Delete “{title}” and its messages for good?",
  deleteConfirmYes: "Delete",
  deleteConfirmNo: "Keep",
  pinnedMark: "Pinned",
  searchAll: "Search everything",
  searchAllHint: "Search every session's titles, messages and attachment names (Ctrl+K)",
  paletteTitle: "Search all sessions",
  palettePlaceholder: "Search titles, messages, reasoning and attachment names…",
  paletteIncludeArchived: "Include archived",
  paletteHint: "Type to search every session you have had.",
  paletteSearching: "Searching…",
  paletteEmpty: "Nothing matches “{query}”.",
  paletteError: "Search failed: {message}",
  paletteKeys: "↑ ↓ to move · Enter to open · Esc to close",
  paletteArchived: "Archived",
  searchFieldTitle: "Title",
  searchFieldText: "Message",
  searchFieldReasoning: "Reasoning",
  searchFieldFile: "Attachment",
  findButton: "Find",
  findLabel: "Find in this session",
  findPlaceholder: "Find in this session (Ctrl+F)",
  findCount: "{current} of {total}",
  findCountMore: "{current} of {total}+",
  findNone: "No matches",
  findOlder: "Older match (Enter)",
  findNewer: "Newer match (Shift+Enter)",
  findClose: "Close find (Esc)",
  pinSession: "Pin to the top",
  unpinSession: "Unpin",
  selectSession: "Select “{title}”",
  selectedCount: "{count} selected",
  bulkLabel: "Selected sessions",
  bulkClear: "Clear selection",
  bulkDeleteConfirm: "Delete {count} sessions and their messages for good?",
  childSessions: "Sub-sessions",
  childSession: "Sub-session",
  parentSession: "Back to the parent session",
  conversationLabel: "Conversation",
  conversationEmptyTitle: "Nothing here yet",
  conversationEmptyBody: "Write a message below, or drop files and folders anywhere on the window.",
  noSessionTitle: "Pick a session or start a new one",
  noSessionBody: "Your past sessions are on the left. Drop files on the window to start with them.",
  loadOlder: "Show older messages",
  you: "You",
  assistant: "Dossier",
  contextRead: "Read {name}",
  contextLines: "{count} lines",
  contextLine: "1 line",
  contextEntries: "{count} entries",
  contextFailed: "Could not read {name}",
  contextShow: "Show what the model sees",
  reasoning: "Reasoning",
  toolPending: "Waiting",
  toolRunning: "Running",
  toolCompleted: "Done",
  toolError: "Failed",
  tokensUsage: "{input} in · {output} out · {cost}",
  replyError: "The reply failed: {message}",
  retry: "Retry",
  permissionAsked: "The agent asks to use {permission} on {patterns}",
  permissionOnce: "Allow once",
  permissionAlways: "Always allow",
  permissionReject: "Refuse",
  composerLabel: "Message",
  composerPlaceholder: "Write a message… (Enter sends, Shift+Enter for a new line, @ to mention an agent)",
  sendButton: "Send",
  stopButton: "Stop",
  stopUnavailable: "Stopping a reply is not available in this build yet.",
  attachButton: "Attach files",
  removeAttachment: "Remove {name}",
  dropOverlay: "Drop files or folders to add them to your message",
  agentLabel: "Agent",
  modelLabel: "Model",
  modelSearch: "Search models",
  variantLabel: "Thinking effort",
  modelNone: "No model matches.",
  kindText: "Text",
  kindFolder: "Folder",
  kindImage: "Image",
  kindPdf: "PDF",
  kindBinary: "Cannot send: binary file (only text, folders, images and PDFs)",
  kindTooLarge: "Cannot send: larger than the 20 MB limit",
  kindUnreadable: "Cannot send: unreadable ({reason})",
  sending: "Sending…",
  replying: "Replying…",
  errorUnavailable: "Your message was saved, but replies are not available in this build yet.",
  errorGeneric: "Something went wrong: {message}",
  statusNotConnected: "Not connected",
  transportTauri: "Desktop app",
  transportHttp: "Browser",
  bytes: "{count} bytes",
  kilobytes: "{count} KB",
  megabytes: "{count} MB",
} as const;

/** A key of the string table; the English table is the source of truth for which keys exist. */
export type MessageKey = keyof typeof en;

/** A complete string table: the type makes a missing translation a compile error. */
export type Messages = Readonly<Record<MessageKey, string>>;

const zhCN: Messages = {
  appName: "Dossier",
  sessionsTitle: "会话",
  sessionsEmptyTitle: "还没有会话",
  sessionsEmptyBody: "点击“新建会话”，或按 Ctrl+N 开始。",
  sessionsSearchEmpty: "没有匹配的会话。",
  sessionsLoadMore: "加载更多",
  sessionsLoading: "正在加载…",
  newSession: "新建会话",
  searchSessions: "按标题筛选会话",
  searchPlaceholder: "按标题筛选",
  renameSession: "重命名",
  renameSessionField: "新标题",
  archiveSession: "归档",
  restoreSession: "恢复",
  archivedTitle: "已归档",
  showArchived: "查看归档",
  showCurrent: "返回会话",
  deleteSession: "删除",
  deleteConfirm: "永久删除“{title}”及其全部消息？",
  deleteConfirmYes: "删除",
  deleteConfirmNo: "保留",
  pinnedMark: "已置顶",
  searchAll: "搜索全部",
  searchAllHint: "搜索所有会话的标题、消息和附件名（Ctrl+K）",
  paletteTitle: "搜索所有会话",
  palettePlaceholder: "搜索标题、消息、推理过程和附件名…",
  paletteIncludeArchived: "包括已归档",
  paletteHint: "输入关键词，搜索你的全部会话。",
  paletteSearching: "正在搜索…",
  paletteEmpty: "没有与“{query}”匹配的内容。",
  paletteError: "搜索失败：{message}",
  paletteKeys: "↑ ↓ 选择 · Enter 打开 · Esc 关闭",
  paletteArchived: "已归档",
  searchFieldTitle: "标题",
  searchFieldText: "消息",
  searchFieldReasoning: "推理过程",
  searchFieldFile: "附件",
  findButton: "查找",
  findLabel: "在本会话中查找",
  findPlaceholder: "在本会话中查找（Ctrl+F）",
  findCount: "第 {current} 个，共 {total} 个",
  findCountMore: "第 {current} 个，共 {total}+ 个",
  findNone: "无匹配",
  findOlder: "更早的匹配（Enter）",
  findNewer: "更新的匹配（Shift+Enter）",
  findClose: "关闭查找（Esc）",
  pinSession: "置顶",
  unpinSession: "取消置顶",
  selectSession: "选择“{title}”",
  selectedCount: "已选 {count} 个",
  bulkLabel: "已选会话",
  bulkClear: "取消选择",
  bulkDeleteConfirm: "永久删除这 {count} 个会话及其全部消息？",
  childSessions: "子会话列表",
  childSession: "子会话",
  parentSession: "返回上级会话",
  conversationLabel: "对话",
  conversationEmptyTitle: "这里还没有内容",
  conversationEmptyBody: "在下方输入消息，或把文件和文件夹拖到窗口任意位置。",
  noSessionTitle: "选择一个会话，或新建一个",
  noSessionBody: "以往的会话在左侧。把文件拖到窗口上即可开始。",
  loadOlder: "显示更早的消息",
  you: "你",
  assistant: "Dossier 助手",
  contextRead: "已读取 {name}",
  contextLines: "{count} 行",
  contextLine: "1 行",
  contextEntries: "{count} 项",
  contextFailed: "无法读取 {name}",
  contextShow: "查看模型看到的内容",
  reasoning: "推理过程",
  toolPending: "等待中",
  toolRunning: "运行中",
  toolCompleted: "已完成",
  toolError: "失败",
  tokensUsage: "输入 {input} · 输出 {output} · {cost}",
  replyError: "回复失败：{message}",
  retry: "重试",
  permissionAsked: "智能体请求对 {patterns} 使用 {permission}",
  permissionOnce: "允许一次",
  permissionAlways: "始终允许",
  permissionReject: "拒绝",
  composerLabel: "消息",
  composerPlaceholder: "输入消息…（Enter 发送，Shift+Enter 换行，@ 提及智能体）",
  sendButton: "发送",
  stopButton: "停止",
  stopUnavailable: "此版本尚不能停止回复。",
  attachButton: "添加文件",
  removeAttachment: "移除 {name}",
  dropOverlay: "松开即可把文件或文件夹添加到消息中",
  agentLabel: "智能体",
  modelLabel: "模型",
  modelSearch: "搜索模型",
  variantLabel: "思考强度",
  modelNone: "没有匹配的模型。",
  kindText: "文本",
  kindFolder: "文件夹",
  kindImage: "图片",
  kindPdf: "PDF 文档",
  kindBinary: "无法发送：二进制文件（仅支持文本、文件夹、图片和 PDF）",
  kindTooLarge: "无法发送：超过 20 MB 上限",
  kindUnreadable: "无法发送：无法读取（{reason}）",
  sending: "正在发送…",
  replying: "正在回复…",
  errorUnavailable: "你的消息已保存，但此版本尚不能生成回复。",
  errorGeneric: "出错了：{message}",
  statusNotConnected: "未连接",
  transportTauri: "桌面应用",
  transportHttp: "浏览器",
  bytes: "{count} 字节",
  kilobytes: "{count} KB",
  megabytes: "{count} MB",
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
export type Translate = (key: MessageKey, values?: Readonly<Record<string, string | number>>) => string;

/** Replaces `{name}` placeholders. */
export function fill(template: string, values: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : String(value);
  });
}

/** Returns the lookup function for `locale`. */
export function translator(locale: Locale): Translate {
  const table = messages[locale];
  return (key, values) => fill(table[key], values);
}

/** "512 bytes", "3.4 KB", "1.2 MB" in the reader's language. */
export function humanSize(t: Translate, bytes: number): string {
  if (bytes < 1024) return t("bytes", { count: bytes });
  if (bytes < 1024 * 1024) return t("kilobytes", { count: (bytes / 1024).toFixed(1) });
  return t("megabytes", { count: (bytes / (1024 * 1024)).toFixed(1) });
}
