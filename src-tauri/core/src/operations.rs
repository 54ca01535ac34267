//! Every operation the adapters offer through the operation table, declared once. An entry names
//! the operation, its HTTP method and path (OpenCode's where the route is OpenCode's, Dossier's
//! own under `/dossier/` otherwise), its path parameters, its input, its output and the core
//! function that does it: `ledger.<handle>().<function>(&param…, body)`, which is `async` and
//! returns `Result<output, LedgerError>` (so its errors are the core's, crossing as
//! `{kind, message}`). The input is a GET's query string and any other method's JSON body; the
//! Tauri command takes it as its `body` argument. `relayed` lets the desktop window attached to
//! a server send it there; `writes` makes the HTTP server finish it even when the client goes
//! away; `http answers true` (optional) answers `true` over HTTP in the output's place, where
//! OpenCode's route does; `http pages <list> by "<key>"` (optional, last) answers a page's list
//! over HTTP with the next page's cursor in OpenCode's headers (`X-Next-Cursor`, `Link`), the
//! cursor going back as the query key `<key>`.
//!
//! The table is a macro that hands its entries to a callback, and each adapter expands them its
//! way: the shell into Tauri commands and their registration, and the relay's allow-list
//! (`src-tauri/src/declared_operations.rs`), the server into axum routes
//! (`src-tauri/server/src/declared_routes.rs`), and the shell's test into the typed TypeScript
//! client both UI transports call (`ui/src/lib/shell-bindings/operations.ts`). The core itself
//! stays free of Tauri and HTTP: here a method and a path are only data. Adding an operation is
//! an entry here, its core function and its test. Two entries with one name fail to compile
//! (each adapter defines a function per name). Entries stand in blocks by topic.
//!
//! Declared (42): sessions and messages (the listing, children, read, update, archive, delete,
//! the status map, one message, delete a message, delete or replace a part, search, the agents),
//! replies (abort, summarize, the pending permission requests and their answer, Continue),
//! reshaping (fork, revert, unrevert, edit and resend, Regenerate) and MCP (status, connect,
//! disconnect, restart, the settings view's list, save and remove, resources, prompts, a
//! prompt's text, the tools' "Always allow" switches) and the local model library (the list,
//! start, pause, resume and cancel a download, delete a model, add a model file). Some are OpenCode routes the window does
//! not call (read, the status map, one message, parts, summarize, the pending requests):
//! declared, the desktop gets the same operation as a command, unused until the UI wants it.
//!
//! Hand-written, and why:
//! - listing messages: over HTTP the page is the core's ready-made JSON listing, so a thousand
//!   messages are not parsed into structs only to be encoded again, and `before` without
//!   `limit` is refused as OpenCode does; the table's paging answer would encode the typed page.
//! - creating a session: over HTTP the folder comes from `?directory=` or a header, and the
//!   access token's name is recorded on the session.
//! - prompts (`POST /session/:id/message`, `prompt_async`) and the event stream: the desktop
//!   checks `file:` drafts against the files the person dropped or picked; HTTP reads OpenCode's
//!   body and answers `prompt_async` with 204 at once.
//! - the model listing: HTTP answers OpenCode's `/config/providers` shape.
//! - export and import, backups and restore, the data folder, the Claude Desktop import: the
//!   desktop asks a native dialog for the path (the webview never sends one) while a browser
//!   downloads or sends the file's text.
//! - providers and storage use: desktop only by design (keys go to this computer's keychain);
//!   the server has no route for them.
//! - OpenCode's listings with no core function behind them (config, paths, project, health, the
//!   empty lists) and the shell's own commands (files, drops, links, updates, start-up, the
//!   attached server).
//! - a file's outline (`/dossier/symbols`): the desktop reads only a file the person dropped or
//!   picked (the shell's allow-list); the server reads a path on its own machine.

/// Calls `$callback! { entries }` with every declared operation.
#[macro_export]
macro_rules! declared_operations {
    ($callback:ident) => {
        $callback! {
            // Sessions and messages.

            /// Sessions newest first, a page at a time. Over HTTP OpenCode's answer: the array,
            /// with the next page's cursor in `X-Next-Cursor` and a `Link: <…>; rel="next"`.
            list_sessions: GET "/session",
                params(), body($crate::ledger::sessions::SessionListQuery),
                output $crate::store::rows::session_page::SessionPage,
                calls sessions.list_page, relayed true, writes false,
                http pages sessions by "cursor";

            /// Sub-sessions of a session (agents that ran as subtasks), oldest first.
            child_sessions: GET "/session/{session_id}/children",
                params(session_id), body(),
                output Vec<$crate::wire::session::Session>,
                calls sessions.children, relayed true, writes false;

            /// Rename, pin or set permission rules (OpenCode's `PATCH /session/:id`).
            update_session: PATCH "/session/{session_id}",
                params(session_id), body($crate::wire::session::SessionPatch),
                output $crate::wire::session::Session,
                calls sessions.update, relayed true, writes true;

            /// Archives the session now, by the ledger's clock, or brings it back. (OpenCode's
            /// `PATCH /session/:id` with `time.archived` stays for clients that stamp the time.)
            archive_session: POST "/dossier/session/{session_id}/archive",
                params(session_id), body($crate::ledger::sessions::ArchiveChange),
                output $crate::wire::session::Session,
                calls sessions.set_archived, relayed true, writes true;

            /// Deletes the session, its messages and its sub-sessions, for good.
            delete_session: DELETE "/session/{session_id}",
                params(session_id), body(),
                output (),
                calls sessions.delete, relayed true, writes true, http answers true;

            /// A message and its parts, for good (a pasted secret, a wrong attachment); refused
            /// while the session replies.
            delete_message: DELETE "/session/{session_id}/message/{message_id}",
                params(session_id, message_id), body(),
                output (),
                calls reshaping.delete_message, relayed true, writes true, http answers true;

            /// Full-text search over every session, or within one (`sessionID`): the palette
            /// and find.
            search: GET "/dossier/search",
                params(), body($crate::ledger::sessions::SearchRequest),
                output Vec<$crate::store::search::search_query::SearchResult>,
                calls sessions.search_text, relayed true, writes false;

            /// One session (OpenCode's `GET /session/:id`).
            get_session: GET "/session/{session_id}",
                params(session_id), body(),
                output $crate::wire::session::Session,
                calls sessions.get, relayed false, writes false;

            /// The sessions with a running reply (`busy` / `retry`) on this server or any other
            /// sharing its database; idle ones are left out, as in OpenCode.
            session_statuses: GET "/session/status",
                params(), body(),
                output std::collections::BTreeMap<String, $crate::wire::event::SessionStatus>,
                calls replies.status_on_every_server, relayed false, writes false;

            /// One message with its parts.
            get_message: GET "/session/{session_id}/message/{message_id}",
                params(session_id, message_id), body(),
                output $crate::wire::message::MessageWithParts,
                calls sessions.message, relayed false, writes false;

            /// Removes one part of a message, for good.
            delete_part: DELETE "/session/{session_id}/message/{message_id}/part/{part_id}",
                params(session_id, message_id, part_id), body(),
                output (),
                calls reshaping.delete_part, relayed false, writes true, http answers true;

            /// Replaces one part of a message with the body, a whole part whose ids are the
            /// path's.
            update_part: PATCH "/session/{session_id}/message/{message_id}/part/{part_id}",
                params(session_id, message_id, part_id), body($crate::wire::part::Part),
                output $crate::wire::part::Part,
                calls reshaping.update_part, relayed false, writes true;

            /// The agents a prompt can name, the default first.
            list_agents: GET "/agent",
                params(), body(),
                output Vec<$crate::models::agent::Agent>,
                calls providers.agent_list, relayed true, writes false;

            // Replies.

            /// Stops the session's streaming reply; whether something was running (over HTTP
            /// `true` either way, as OpenCode answers).
            abort_reply: POST "/session/{session_id}/abort",
                params(session_id), body(),
                output bool,
                calls replies.stop, relayed true, writes false, http answers true;

            /// Answers a tool's permission request: once, always (for this session) or reject.
            reply_permission: POST "/session/{session_id}/permissions/{permission_id}",
                params(session_id, permission_id), body($crate::ledger::replies::PermissionAnswer),
                output (),
                calls replies.answer_permission, relayed true, writes false, http answers true;

            /// Compacts the session into a summary written by the body's model; waits for it.
            summarize_session: POST "/session/{session_id}/summarize",
                params(session_id), body($crate::ledger::replies::SummarizeRequest),
                output bool,
                calls replies.summarize_with, relayed false, writes true;

            /// The permission requests waiting for an answer, on every server sharing the
            /// database, oldest first.
            permission_requests: GET "/permission",
                params(), body(),
                output Vec<$crate::wire::permission::PermissionRequest>,
                calls replies.permission_requests_on_every_server, relayed false, writes false;

            // Reshaping.

            /// A new session with the messages before `messageID` (all of them when absent).
            fork_session: POST "/session/{session_id}/fork",
                params(session_id), body($crate::ledger::reshaping::ForkRequest),
                output $crate::wire::session::Session,
                calls reshaping.fork, relayed true, writes true;

            /// Undo: hides `messageID` (from `partID` on) and everything after it until redo or
            /// the next prompt.
            revert_session: POST "/session/{session_id}/revert",
                params(session_id), body($crate::ledger::reshaping::RevertRequest),
                output $crate::wire::session::Session,
                calls reshaping.revert_to, relayed true, writes true;

            /// Redo everything: clears the revert marker.
            unrevert_session: POST "/session/{session_id}/unrevert",
                params(session_id), body(),
                output $crate::wire::session::Session,
                calls reshaping.unrevert, relayed true, writes true;

            /// Edit and resend a message you sent: reverts to it, sends it again (with `text` in
            /// place of its text when given) and its attachments.
            resend_message: POST "/session/{session_id}/message/{message_id}/resend",
                params(session_id, message_id), body($crate::ledger::reshaping::ResendRequest),
                output $crate::wire::message::MessageWithParts,
                calls reshaping.resend_edited, relayed true, writes true;

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

            // MCP servers.

            /// Every configured server's status, in the config's order.
            mcp_status: GET "/mcp",
                params(), body(),
                output $crate::wire::mcp_status::McpStatuses,
                calls mcp.statuses, relayed false, writes false;

            /// Connects a configured server.
            connect_mcp: POST "/mcp/{name}/connect",
                params(name), body(),
                output $crate::wire::mcp_status::McpStatus,
                calls mcp.connect, relayed false, writes false, http answers true;

            /// Disconnects a server; it stays `disabled` until connected again.
            disconnect_mcp: POST "/mcp/{name}/disconnect",
                params(name), body(),
                output $crate::wire::mcp_status::McpStatus,
                calls mcp.disconnect, relayed false, writes false, http answers true;

            /// Stops a server and starts it again.
            restart_mcp: POST "/dossier/mcp/{name}/restart",
                params(name), body(),
                output $crate::wire::mcp_status::McpStatus,
                calls mcp.restart, relayed false, writes false, http answers true;

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
            calls $handle:ident . $function:ident, relayed $relayed:literal, writes $writes:literal
            $(, http answers $answer:literal)? $(, http pages $items:ident by $cursor:literal)?;
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
