// Generated from the operation table (src-tauri/core/src/operations.rs) by
// src-tauri/src/declared_operations/typescript_client.rs when the Rust tests run; do not edit.
import type { AddModelFile } from "../bindings/AddModelFile";
import type { Agent } from "../bindings/Agent";
import type { AlwaysAllowChange } from "../bindings/AlwaysAllowChange";
import type { ArchiveChange } from "../bindings/ArchiveChange";
import type { DeletedModel } from "../bindings/DeletedModel";
import type { ForkRequest } from "../bindings/ForkRequest";
import type { InstalledModel } from "../bindings/InstalledModel";
import type { McpPromptItem } from "../bindings/McpPromptItem";
import type { McpPromptRequest } from "../bindings/McpPromptRequest";
import type { McpPromptText } from "../bindings/McpPromptText";
import type { McpResourceItem } from "../bindings/McpResourceItem";
import type { McpServerInput } from "../bindings/McpServerInput";
import type { McpSettings } from "../bindings/McpSettings";
import type { McpStatuses } from "../bindings/McpStatuses";
import type { McpToolPermission } from "../bindings/McpToolPermission";
import type { MessageWithParts } from "../bindings/MessageWithParts";
import type { ModelDownloadProgress } from "../bindings/ModelDownloadProgress";
import type { ModelLibraryView } from "../bindings/ModelLibraryView";
import type { Part } from "../bindings/Part";
import type { PermissionAnswer } from "../bindings/PermissionAnswer";
import type { PermissionRequest } from "../bindings/PermissionRequest";
import type { ResendRequest } from "../bindings/ResendRequest";
import type { RevertRequest } from "../bindings/RevertRequest";
import type { SearchRequest } from "../bindings/SearchRequest";
import type { SearchResult } from "../bindings/SearchResult";
import type { Session } from "../bindings/Session";
import type { SessionListQuery } from "../bindings/SessionListQuery";
import type { SessionPage } from "../bindings/SessionPage";
import type { SessionPatch } from "../bindings/SessionPatch";
import type { SessionStatus } from "../bindings/SessionStatus";
import type { SummarizeRequest } from "../bindings/SummarizeRequest";

/** One call of a declared operation, in the terms of either transport. */
export interface OperationCall {
  /** The Tauri command. */
  command: string;
  /** The command's named arguments (the Rust names in camelCase, as Tauri takes them). */
  args: Record<string, unknown>;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The HTTP path, its ids encoded (and a GET's input as its query string). */
  path: string;
  /** The JSON body over HTTP but for a GET (also among `args` as `body`). */
  body?: unknown;
  /**
   * A paged listing: the output's list field. Over HTTP the answer is that list alone, the
   * next page's cursor in the `X-Next-Cursor` header (OpenCode's shape).
   */
  page?: string;
}

/** Makes one call and resolves with its output; each transport has one. */
export type OperationCaller = <T>(call: OperationCall) => Promise<T>;

/** A GET's input as its query string: each field that is set, as text. */
function queryString(input: object): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

/** The declared operations over `call`. */
export function operations(call: OperationCaller) {
  return {
    /**
     * Sessions newest first, a page at a time. Over HTTP OpenCode's answer: the array,
     * with the next page's cursor in `X-Next-Cursor` and a `Link: <…>; rel="next"`.
     */
    listSessions: (body: SessionListQuery) =>
      call<SessionPage>({ command: "list_sessions", args: { body }, method: "GET", path: `/session${queryString(body)}`, page: "sessions" }),
    /**
     * Sub-sessions of a session (agents that ran as subtasks), oldest first.
     */
    childSessions: (sessionId: string) =>
      call<Array<Session>>({ command: "child_sessions", args: { sessionId }, method: "GET", path: `/session/${encodeURIComponent(sessionId)}/children` }),
    /**
     * Rename, pin or set permission rules (OpenCode's `PATCH /session/:id`).
     */
    updateSession: (sessionId: string, body: SessionPatch) =>
      call<Session>({ command: "update_session", args: { sessionId, body }, method: "PATCH", path: `/session/${encodeURIComponent(sessionId)}`, body }),
    /**
     * Archives the session now, by the ledger's clock, or brings it back. (OpenCode's
     * `PATCH /session/:id` with `time.archived` stays for clients that stamp the time.)
     */
    archiveSession: (sessionId: string, body: ArchiveChange) =>
      call<Session>({ command: "archive_session", args: { sessionId, body }, method: "POST", path: `/dossier/session/${encodeURIComponent(sessionId)}/archive`, body }),
    /**
     * Deletes the session, its messages and its sub-sessions, for good.
     *
     * Resolves with nothing to read: the command answers `null`, OpenCode's route `true`.
     */
    deleteSession: (sessionId: string) =>
      call<void>({ command: "delete_session", args: { sessionId }, method: "DELETE", path: `/session/${encodeURIComponent(sessionId)}` }),
    /**
     * A message and its parts, for good (a pasted secret, a wrong attachment); refused
     * while the session replies.
     *
     * Resolves with nothing to read: the command answers `null`, OpenCode's route `true`.
     */
    deleteMessage: (sessionId: string, messageId: string) =>
      call<void>({ command: "delete_message", args: { sessionId, messageId }, method: "DELETE", path: `/session/${encodeURIComponent(sessionId)}/message/${encodeURIComponent(messageId)}` }),
    /**
     * Full-text search over every session, or within one (`sessionID`): the palette
     * and find.
     */
    search: (body: SearchRequest) =>
      call<Array<SearchResult>>({ command: "search", args: { body }, method: "GET", path: `/dossier/search${queryString(body)}` }),
    /**
     * One session (OpenCode's `GET /session/:id`).
     */
    getSession: (sessionId: string) =>
      call<Session>({ command: "get_session", args: { sessionId }, method: "GET", path: `/session/${encodeURIComponent(sessionId)}` }),
    /**
     * The sessions with a running reply (`busy` / `retry`) on this server or any other
     * sharing its database; idle ones are left out, as in OpenCode.
     */
    sessionStatuses: () =>
      call<{ [key in string]?: SessionStatus }>({ command: "session_statuses", args: {}, method: "GET", path: `/session/status` }),
    /**
     * One message with its parts.
     */
    getMessage: (sessionId: string, messageId: string) =>
      call<MessageWithParts>({ command: "get_message", args: { sessionId, messageId }, method: "GET", path: `/session/${encodeURIComponent(sessionId)}/message/${encodeURIComponent(messageId)}` }),
    /**
     * Removes one part of a message, for good.
     *
     * Resolves with nothing to read: the command answers `null`, OpenCode's route `true`.
     */
    deletePart: (sessionId: string, messageId: string, partId: string) =>
      call<void>({ command: "delete_part", args: { sessionId, messageId, partId }, method: "DELETE", path: `/session/${encodeURIComponent(sessionId)}/message/${encodeURIComponent(messageId)}/part/${encodeURIComponent(partId)}` }),
    /**
     * Replaces one part of a message with the body, a whole part whose ids are the
     * path's.
     */
    updatePart: (sessionId: string, messageId: string, partId: string, body: Part) =>
      call<Part>({ command: "update_part", args: { sessionId, messageId, partId, body }, method: "PATCH", path: `/session/${encodeURIComponent(sessionId)}/message/${encodeURIComponent(messageId)}/part/${encodeURIComponent(partId)}`, body }),
    /**
     * The agents a prompt can name, the default first.
     */
    listAgents: () =>
      call<Array<Agent>>({ command: "list_agents", args: {}, method: "GET", path: `/agent` }),
    /**
     * Stops the session's streaming reply; whether something was running (over HTTP
     * `true` either way, as OpenCode answers).
     *
     * Resolves with nothing to read: the command answers `boolean`, OpenCode's route `true`.
     */
    abortReply: (sessionId: string) =>
      call<void>({ command: "abort_reply", args: { sessionId }, method: "POST", path: `/session/${encodeURIComponent(sessionId)}/abort` }),
    /**
     * Answers a tool's permission request: once, always (for this session) or reject.
     *
     * Resolves with nothing to read: the command answers `null`, OpenCode's route `true`.
     */
    replyPermission: (sessionId: string, permissionId: string, body: PermissionAnswer) =>
      call<void>({ command: "reply_permission", args: { sessionId, permissionId, body }, method: "POST", path: `/session/${encodeURIComponent(sessionId)}/permissions/${encodeURIComponent(permissionId)}`, body }),
    /**
     * Compacts the session into a summary written by the body's model; waits for it.
     */
    summarizeSession: (sessionId: string, body: SummarizeRequest) =>
      call<boolean>({ command: "summarize_session", args: { sessionId, body }, method: "POST", path: `/session/${encodeURIComponent(sessionId)}/summarize`, body }),
    /**
     * The permission requests waiting for an answer, on every server sharing the
     * database, oldest first.
     */
    permissionRequests: () =>
      call<Array<PermissionRequest>>({ command: "permission_requests", args: {}, method: "GET", path: `/permission` }),
    /**
     * A new session with the messages before `messageID` (all of them when absent).
     */
    forkSession: (sessionId: string, body: ForkRequest) =>
      call<Session>({ command: "fork_session", args: { sessionId, body }, method: "POST", path: `/session/${encodeURIComponent(sessionId)}/fork`, body }),
    /**
     * Undo: hides `messageID` (from `partID` on) and everything after it until redo or
     * the next prompt.
     */
    revertSession: (sessionId: string, body: RevertRequest) =>
      call<Session>({ command: "revert_session", args: { sessionId, body }, method: "POST", path: `/session/${encodeURIComponent(sessionId)}/revert`, body }),
    /**
     * Redo everything: clears the revert marker.
     */
    unrevertSession: (sessionId: string) =>
      call<Session>({ command: "unrevert_session", args: { sessionId }, method: "POST", path: `/session/${encodeURIComponent(sessionId)}/unrevert` }),
    /**
     * Edit and resend a message you sent: reverts to it, sends it again (with `text` in
     * place of its text when given) and its attachments.
     */
    resendMessage: (sessionId: string, messageId: string, body: ResendRequest) =>
      call<MessageWithParts>({ command: "resend_message", args: { sessionId, messageId, body }, method: "POST", path: `/session/${encodeURIComponent(sessionId)}/message/${encodeURIComponent(messageId)}/resend`, body }),
    /**
     * Takes up a stopped reply where it stopped: a prompt "Continue" with the stopped
     * reply's agent and model, its kept text in the history. Refused unless the
     * session's last message is a reply that was stopped.
     */
    continueReply: (sessionId: string) =>
      call<MessageWithParts>({ command: "continue_reply", args: { sessionId }, method: "POST", path: `/dossier/session/${encodeURIComponent(sessionId)}/continue` }),
    /**
     * Answers again the message behind reply `message_id` (Regenerate, and Retry after a
     * failed reply).
     */
    regenerateReply: (sessionId: string, messageId: string) =>
      call<MessageWithParts>({ command: "regenerate_reply", args: { sessionId, messageId }, method: "POST", path: `/session/${encodeURIComponent(sessionId)}/message/${encodeURIComponent(messageId)}/regenerate` }),
    /**
     * Every configured server's status, in the config's order.
     */
    mcpStatus: () =>
      call<McpStatuses>({ command: "mcp_status", args: {}, method: "GET", path: `/mcp` }),
    /**
     * Connects a configured server.
     *
     * Resolves with nothing to read: the command answers `McpStatus`, OpenCode's route `true`.
     */
    connectMcp: (name: string) =>
      call<void>({ command: "connect_mcp", args: { name }, method: "POST", path: `/mcp/${encodeURIComponent(name)}/connect` }),
    /**
     * Disconnects a server; it stays `disabled` until connected again.
     *
     * Resolves with nothing to read: the command answers `McpStatus`, OpenCode's route `true`.
     */
    disconnectMcp: (name: string) =>
      call<void>({ command: "disconnect_mcp", args: { name }, method: "POST", path: `/mcp/${encodeURIComponent(name)}/disconnect` }),
    /**
     * Stops a server and starts it again.
     *
     * Resolves with nothing to read: the command answers `McpStatus`, OpenCode's route `true`.
     */
    restartMcp: (name: string) =>
      call<void>({ command: "restart_mcp", args: { name }, method: "POST", path: `/dossier/mcp/${encodeURIComponent(name)}/restart` }),
    /**
     * The settings view's MCP servers (value names only, never a secret).
     */
    mcpSettings: () =>
      call<McpSettings>({ command: "mcp_settings", args: {}, method: "GET", path: `/dossier/mcp/settings` }),
    /**
     * Adds or changes an MCP server; typed values go to the keychain, and the server
     * follows at once.
     */
    saveMcpServer: (body: McpServerInput) =>
      call<McpSettings>({ command: "save_mcp_server", args: { body }, method: "POST", path: `/dossier/mcp/settings`, body }),
    /**
     * Removes an MCP server from the config file and stops it.
     */
    removeMcpServer: (name: string) =>
      call<McpSettings>({ command: "remove_mcp_server", args: { name }, method: "DELETE", path: `/dossier/mcp/settings/${encodeURIComponent(name)}` }),
    /**
     * Connected servers' resources, for the composer's resource picker.
     */
    mcpResources: () =>
      call<Array<McpResourceItem>>({ command: "mcp_resources", args: {}, method: "GET", path: `/dossier/mcp/resources` }),
    /**
     * Connected servers' prompts, for the composer's `/` menu.
     */
    mcpPrompts: () =>
      call<Array<McpPromptItem>>({ command: "mcp_prompts", args: {}, method: "GET", path: `/dossier/mcp/prompts` }),
    /**
     * A prompt fetched from its server with its arguments, as the text that goes into
     * the message.
     */
    mcpPromptText: (body: McpPromptRequest) =>
      call<McpPromptText>({ command: "mcp_prompt_text", args: { body }, method: "POST", path: `/dossier/mcp/prompt`, body }),
    /**
     * Connected servers' tools with their "Always allow" switches.
     */
    mcpToolPermissions: () =>
      call<Array<McpToolPermission>>({ command: "mcp_tool_permissions", args: {}, method: "GET", path: `/dossier/mcp/tools` }),
    /**
     * Turns "Always allow" for the tool `name` (`<server>_<tool>`) on or off in the
     * config file.
     */
    setMcpToolAlwaysAllowed: (name: string, body: AlwaysAllowChange) =>
      call<Array<McpToolPermission>>({ command: "set_mcp_tool_always_allowed", args: { name, body }, method: "POST", path: `/dossier/mcp/tools/${encodeURIComponent(name)}`, body }),
    /**
     * Settings → Models on this computer: the library with what is installed,
     * recommended for this computer and downloading, and the other model files.
     */
    localModelLibrary: () =>
      call<ModelLibraryView>({ command: "local_model_library", args: {}, method: "GET", path: `/dossier/local-models` }),
    /**
     * Starts downloading a library model (or joins its download under way); its
     * progress follows as `dossier.model.download` events.
     */
    startModelDownload: (modelId: string) =>
      call<ModelDownloadProgress>({ command: "start_model_download", args: { modelId }, method: "POST", path: `/dossier/local-models/${encodeURIComponent(modelId)}/download` }),
    /**
     * Pauses a download; its bytes stay for Resume.
     */
    pauseModelDownload: (modelId: string) =>
      call<ModelDownloadProgress>({ command: "pause_model_download", args: { modelId }, method: "POST", path: `/dossier/local-models/${encodeURIComponent(modelId)}/download/pause` }),
    /**
     * Resumes a paused download, or one an error stopped.
     */
    resumeModelDownload: (modelId: string) =>
      call<ModelDownloadProgress>({ command: "resume_model_download", args: { modelId }, method: "POST", path: `/dossier/local-models/${encodeURIComponent(modelId)}/download/resume` }),
    /**
     * Cancels a download and deletes its partial file.
     */
    cancelModelDownload: (modelId: string) =>
      call<ModelDownloadProgress>({ command: "cancel_model_download", args: { modelId }, method: "DELETE", path: `/dossier/local-models/${encodeURIComponent(modelId)}/download` }),
    /**
     * Deletes an installed model, saying how much space it gave back.
     */
    deleteLocalModel: (modelId: string) =>
      call<DeletedModel>({ command: "delete_local_model", args: { modelId }, method: "DELETE", path: `/dossier/local-models/${encodeURIComponent(modelId)}` }),
    /**
     * Adds a model file by path, once its header and architecture check out.
     */
    addLocalModelFile: (body: AddModelFile) =>
      call<InstalledModel>({ command: "add_local_model_file", args: { body }, method: "POST", path: `/dossier/local-models/add`, body }),
  };
}

export type Operations = ReturnType<typeof operations>;
