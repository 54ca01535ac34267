// Generated from the operation table (src-tauri/core/src/operations.rs) by
// src-tauri/src/declared_operations/typescript_client.rs when the Rust tests run; do not edit.
import type { AddModelFile } from "../bindings/AddModelFile";
import type { AlwaysAllowChange } from "../bindings/AlwaysAllowChange";
import type { DeletedModel } from "../bindings/DeletedModel";
import type { InstalledModel } from "../bindings/InstalledModel";
import type { McpPromptItem } from "../bindings/McpPromptItem";
import type { McpPromptRequest } from "../bindings/McpPromptRequest";
import type { McpPromptText } from "../bindings/McpPromptText";
import type { McpResourceItem } from "../bindings/McpResourceItem";
import type { McpServerInput } from "../bindings/McpServerInput";
import type { McpSettings } from "../bindings/McpSettings";
import type { McpToolPermission } from "../bindings/McpToolPermission";
import type { MessageWithParts } from "../bindings/MessageWithParts";
import type { ModelDownloadProgress } from "../bindings/ModelDownloadProgress";
import type { ModelLibraryView } from "../bindings/ModelLibraryView";

/** One call of a declared operation, in the terms of either transport. */
export interface OperationCall {
  /** The Tauri command. */
  command: string;
  /** The command's named arguments (the Rust names in camelCase, as Tauri takes them). */
  args: Record<string, unknown>;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The HTTP path, its ids encoded. */
  path: string;
  /** The JSON body over HTTP (also among `args` as `body`). */
  body?: unknown;
}

/** Makes one call and resolves with its output; each transport has one. */
export type OperationCaller = <T>(call: OperationCall) => Promise<T>;

/** The declared operations over `call`. */
export function operations(call: OperationCaller) {
  return {
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
