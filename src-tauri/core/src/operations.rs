//! Every operation the adapters offer through the operation table, declared once. An entry names
//! the operation, its HTTP method and path (OpenCode's where the route is OpenCode's, Dossier's
//! own under `/dossier/` otherwise), its path parameters, its JSON body, its output and the core
//! function that does it: `ledger.<handle>().<function>(&param…, body)`, which is `async` and
//! returns `Result<output, LedgerError>` (so its errors are the core's, crossing as
//! `{kind, message}`). `relayed` lets the desktop window attached to a server send it there;
//! `writes` makes the HTTP server finish it even when the client goes away.
//!
//! The table is a macro that hands its entries to a callback, and each adapter expands them its
//! way: the shell into Tauri commands and their registration, and the relay's allow-list
//! (`src-tauri/src/declared_operations.rs`), the server into axum routes
//! (`src-tauri/server/src/declared_routes.rs`), and the shell's test into the typed TypeScript
//! client both UI transports call (`ui/src/lib/shell-bindings/operations.ts`). The core itself
//! stays free of Tauri and HTTP: here a method and a path are only data. Adding an operation is
//! an entry here, its core function and its test. Two entries with one name fail to compile
//! (each adapter defines a function per name).
//!
//! Declared so far: Continue, Regenerate, the MCP settings, offers and tool switches, and the
//! local model library (Settings → Models on this computer). The others keep
//! their hand-written command, route, relay rule and TypeScript call until they move here:
//! sessions and messages, prompts, reshaping but Regenerate, export and import, search, permissions, providers,
//! data and backups, and MCP status, connect, disconnect, restart and import. Several of those
//! differ between the transports today (OpenCode's routes answer `true` where the command
//! answers the status, list with query strings and paging headers, name the body differently),
//! so each needs its HTTP shape kept exactly when it moves.

/// Calls `$callback! { entries }` with every declared operation.
#[macro_export]
macro_rules! declared_operations {
    ($callback:ident) => {
        $callback! {
            /// Takes up a stopped reply where it stopped: a prompt "Continue" with the stopped
            /// reply's agent and model, its kept text in the history. Refused unless the
            /// session's last message is a reply that was stopped.
            continue_reply: POST "/dossier/session/{session_id}/continue",
                params(session_id), body(),
                output $crate::wire::message::MessageWithParts,
                calls replies.continue_after_stop, relayed true, writes true;

            /// Answers again the message behind reply `message_id` (Regenerate, and Retry after a
            /// failed reply).
            regenerate_reply: POST "/session/{session_id}/message/{message_id}/regenerate",
                params(session_id, message_id), body(),
                output $crate::wire::message::MessageWithParts,
                calls reshaping.regenerate, relayed true, writes true;

            /// The settings view's MCP servers (value names only, never a secret).
            mcp_settings: GET "/dossier/mcp/settings",
                params(), body(),
                output $crate::mcp::mcp_settings::McpSettings,
                calls mcp.settings, relayed false, writes false;

            /// Adds or changes an MCP server; typed values go to the keychain, and the server
            /// follows at once.
            save_mcp_server: POST "/dossier/mcp/settings",
                params(), body($crate::mcp::mcp_settings::McpServerInput),
                output $crate::mcp::mcp_settings::McpSettings,
                calls mcp.save_server, relayed false, writes true;

            /// Removes an MCP server from the config file and stops it.
            remove_mcp_server: DELETE "/dossier/mcp/settings/{name}",
                params(name), body(),
                output $crate::mcp::mcp_settings::McpSettings,
                calls mcp.remove_server, relayed false, writes true;

            /// Connected servers' resources, for the composer's resource picker.
            mcp_resources: GET "/dossier/mcp/resources",
                params(), body(),
                output Vec<$crate::mcp::server_offers::McpResourceItem>,
                calls mcp.resources, relayed false, writes false;

            /// Connected servers' prompts, for the composer's `/` menu.
            mcp_prompts: GET "/dossier/mcp/prompts",
                params(), body(),
                output Vec<$crate::mcp::server_offers::McpPromptItem>,
                calls mcp.prompts, relayed false, writes false;

            /// A prompt fetched from its server with its arguments, as the text that goes into
            /// the message.
            mcp_prompt_text: POST "/dossier/mcp/prompt",
                params(), body($crate::ledger::mcp::McpPromptRequest),
                output $crate::mcp::server_offers::McpPromptText,
                calls mcp.prompt_text, relayed false, writes false;

            /// Connected servers' tools with their "Always allow" switches.
            mcp_tool_permissions: GET "/dossier/mcp/tools",
                params(), body(),
                output Vec<$crate::mcp::tool_permissions::McpToolPermission>,
                calls mcp.tool_permissions, relayed false, writes false;

            /// Turns "Always allow" for the tool `name` (`<server>_<tool>`) on or off in the
            /// config file.
            set_mcp_tool_always_allowed: POST "/dossier/mcp/tools/{name}",
                params(name), body($crate::ledger::mcp::AlwaysAllowChange),
                output Vec<$crate::mcp::tool_permissions::McpToolPermission>,
                calls mcp.set_tool_always_allowed, relayed false, writes true;

            /// Settings → Models on this computer: the library with what is installed,
            /// recommended for this computer and downloading, and the other model files.
            local_model_library: GET "/dossier/local-models",
                params(), body(),
                output $crate::local_models::model_library::ModelLibraryView,
                calls local_models.library, relayed false, writes false;

            /// Starts downloading a library model (or joins its download under way); its
            /// progress follows as `dossier.model.download` events.
            start_model_download: POST "/dossier/local-models/{model_id}/download",
                params(model_id), body(),
                output $crate::wire::model_download::ModelDownloadProgress,
                calls local_models.start_download, relayed false, writes true;

            /// Pauses a download; its bytes stay for Resume.
            pause_model_download: POST "/dossier/local-models/{model_id}/download/pause",
                params(model_id), body(),
                output $crate::wire::model_download::ModelDownloadProgress,
                calls local_models.pause_download, relayed false, writes true;

            /// Resumes a paused download, or one an error stopped.
            resume_model_download: POST "/dossier/local-models/{model_id}/download/resume",
                params(model_id), body(),
                output $crate::wire::model_download::ModelDownloadProgress,
                calls local_models.resume_download, relayed false, writes true;

            /// Cancels a download and deletes its partial file.
            cancel_model_download: DELETE "/dossier/local-models/{model_id}/download",
                params(model_id), body(),
                output $crate::wire::model_download::ModelDownloadProgress,
                calls local_models.cancel_download, relayed false, writes true;

            /// Deletes an installed model, saying how much space it gave back.
            delete_local_model: DELETE "/dossier/local-models/{model_id}",
                params(model_id), body(),
                output $crate::local_models::installed_models::DeletedModel,
                calls local_models.delete_model, relayed false, writes true;

            /// Adds a model file by path, once its header and architecture check out.
            add_local_model_file: POST "/dossier/local-models/add",
                params(), body($crate::local_models::installed_models::AddModelFile),
                output $crate::local_models::installed_models::InstalledModel,
                calls local_models.add_model_file, relayed false, writes true;
        }
    };
}

/// One declared operation as data, for the adapters' tests and the relay's allow-list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    pub name: &'static str,
    pub method: &'static str,
    pub path: &'static str,
    pub params: &'static [&'static str],
    pub relayed: bool,
}

macro_rules! operation_list {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident : $method:ident $path:literal,
            params($($param:ident),*), body($($body:ty)?),
            output $output:ty,
            calls $handle:ident . $function:ident, relayed $relayed:literal, writes $writes:literal;
    )*) => {
        /// Every declared operation, in the table's order.
        pub const OPERATIONS: &[Operation] = &[$(
            Operation {
                name: stringify!($name),
                method: stringify!($method),
                path: $path,
                params: &[$(stringify!($param)),*],
                relayed: $relayed,
            },
        )*];
    };
}

declared_operations!(operation_list);

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The `{…}` segments of a path, in order.
    fn placeholders(path: &str) -> Vec<&str> {
        path.split('/')
            .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
            .collect()
    }

    #[test]
    fn each_path_names_exactly_its_operation_s_parameters() {
        for operation in OPERATIONS {
            assert_eq!(
                placeholders(operation.path),
                operation.params,
                "{}: the path's {{…}} segments and params(…) differ",
                operation.name
            );
        }
    }

    #[test]
    fn names_and_routes_are_each_declared_once() {
        let names: BTreeSet<_> = OPERATIONS.iter().map(|operation| operation.name).collect();
        assert_eq!(names.len(), OPERATIONS.len(), "a name is declared twice");
        let routes: BTreeSet<_> = OPERATIONS
            .iter()
            .map(|operation| (operation.method, operation.path))
            .collect();
        assert_eq!(routes.len(), OPERATIONS.len(), "a route is declared twice");
    }

    #[test]
    fn methods_are_http_methods_and_paths_are_absolute() {
        for operation in OPERATIONS {
            assert!(
                ["GET", "POST", "PATCH", "DELETE"].contains(&operation.method),
                "{}: {}",
                operation.name,
                operation.method
            );
            assert!(operation.path.starts_with('/'), "{}", operation.name);
        }
    }
}
