//! Integration tests over real HTTP on 127.0.0.1: the server runs in-process on port 0 (and,
//! in `binary`, as the real `dossier-server` executable).

// Tests may unwrap: a panic with the value is the clearest failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http {
    pub mod support;

    mod abandoned_requests;
    mod access_tokens;
    mod authentication;
    mod binary;
    mod catalog;
    mod events;
    // Linux only: it finds the MCP children through `/proc` and ends the server with `kill -KILL`.
    // On macOS and Windows the children go with the server through their process group or job
    // object (core's `mcp/child_command.rs`); no test here kills the server there.
    mod many_servers;
    #[cfg(target_os = "linux")]
    mod mcp;
    mod mcp_offers;
    mod messages;
    mod prompts;
    mod request_origin;
    mod reshaping;
    mod sessions;
    mod shut_down;
    mod start_up;
    mod tls;
    mod web_ui;
}
