//! The Dossier desktop shell: builds the Tauri app around the web UI in `ui/`.
//!
//! The shell stays thin. It owns the window, the webview's capabilities and (later) the glue that
//! forwards calls and events to `dossier-core`; no business rules live here.

/// Builds and runs the desktop app until its last window closes.
///
/// The window, CSP and bundled assets come from the top-level `tauri.conf.json`; what the
/// webview may call comes from `src-tauri/capabilities/`.
pub fn run() -> tauri::Result<()> {
    tauri::Builder::default().run(tauri::generate_context!())
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    fn config() -> Value {
        serde_json::from_str(include_str!("../../tauri.conf.json"))
            .expect("tauri.conf.json is valid JSON")
    }

    fn default_capability() -> Value {
        serde_json::from_str(include_str!("../capabilities/default.json"))
            .expect("the default capability is valid JSON")
    }

    #[test]
    fn default_capability_targets_the_main_window() {
        assert_eq!(config()["app"]["windows"][0]["label"], "main");
        assert_eq!(default_capability()["windows"], json!(["main"]));
    }

    #[test]
    fn webview_gets_core_defaults_only() {
        assert_eq!(default_capability()["permissions"], json!(["core:default"]));
    }

    #[test]
    fn content_security_policy_is_strict_not_null() {
        let config = config();
        let csp = config["app"]["security"]["csp"]
            .as_str()
            .expect("csp is a string, not null");
        assert!(csp.starts_with("default-src 'self'"), "csp was {csp}");
        // No script-src: scripts fall back to default-src 'self', so no inline or eval'd code.
        assert!(!csp.contains("script-src"), "csp was {csp}");
        assert!(!csp.contains("unsafe-eval"), "csp was {csp}");
    }
}
