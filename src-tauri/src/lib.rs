//! The Dossier desktop shell: builds the Tauri app around the web UI in `ui/`.
//!
//! The shell stays thin: it opens the one `Ledger`, exposes it as commands (`commands`),
//! forwards its events to the webview (`events`), turns native drops into allowed paths (`drop`)
//! and maps errors to `{kind, message}` (`error`). No business rules live here.

pub mod attached_server;
pub mod blob_protocol;
pub mod commands;
pub mod declared_operations;
pub mod drop;
pub mod error;
pub mod events;
pub mod link_opening;
pub mod logging;
pub mod single_instance;
pub mod software_rendering;
pub mod start_up_error;
pub mod start_up_problem;
pub mod updates;
pub mod webview_names;

use dossier_core::{Ledger, LedgerOptions};
use tauri::{Manager, Runtime};

/// Builds and runs the desktop app until its last window closes.
///
/// If the ledger cannot be opened (unreadable config, a database we cannot open) the window opens
/// on a page that says so (`start_up_problem`); a plain error box is left for a window that
/// could not be made.
pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    // Before anything starts a thread or a webview: WebKit reads it when the webview is made.
    software_rendering::apply();
    commands::LAUNCHED.get_or_init(std::time::Instant::now);
    let simulated_drops = std::env::var_os("DOSSIER_E2E_SIMULATED_DROPS").is_some_and(|v| v == "1");
    let context = tauri::generate_context!();
    // First, so a second launch hands over and exits before anything else starts (opening the
    // ledger sweeps "interrupted" replies, which would be the running app's).
    #[cfg(unix)]
    let socket = single_instance::socket_path(&single_instance::instance_name(
        &context.config().identifier,
        std::env::var_os("DOSSIER_DATA_DIR")
            .as_deref()
            .map(std::path::Path::new),
    ));
    #[cfg(unix)]
    let claimed = match single_instance::claim(&socket) {
        Ok(single_instance::Claim::HandedOver) => return Ok(()),
        Ok(single_instance::Claim::First(instance)) => Ok(instance),
        Err(error) => Err(error),
    };
    let base = tauri::Builder::default();
    #[cfg(windows)]
    let base = base.plugin(single_instance::plugin());
    let base = base.plugin(tauri_plugin_window_state::Builder::default().build());
    // Reads `plugins.updater` (public key, endpoints) from tauri.conf.json; only the shell's
    // commands in `updates` use it, the webview has no updater permission.
    let base = base.plugin(tauri_plugin_updater::Builder::new().build());
    // The webview cannot call a command before `app.run` starts the event loop, by which time
    // the ledger is managed.
    let app = shell(base, simulated_drops).build(context)?;
    logging::init(app.path().app_log_dir().ok().as_deref());
    // The socket file to remove on exit: only our own, never one we failed to take over.
    #[cfg(unix)]
    let listening = match claimed {
        Ok(instance) => {
            let handle = app.handle().clone();
            instance.serve(move || single_instance::focus_main_window(&handle));
            Some(socket)
        }
        Err(error) => {
            tracing::warn!(
                %error,
                socket = %socket.display(),
                "cannot listen for second launches; a second launch will open a second window"
            );
            None
        }
    };
    let options_source: start_up_problem::OptionsSource = Box::new(LedgerOptions::from_env);
    match tauri::async_runtime::block_on(dossier_core::start_up::open(options_source())) {
        Ok(ledger) => {
            app.manage(ledger);
            app.manage(start_up_problem::StartUp::opened(options_source));
        }
        // The config's window is made once the event loop starts, not by `build`: an app with
        // one opens on the start-up page; only one with none falls back to the native box.
        Err(error) if !app.config().app.windows.is_empty() => {
            eprintln!(
                "dossier: could not open the ledger; the window explains: {}",
                start_up_error::description(&error)
            );
            tracing::error!(%error, "could not open the ledger; the window shows the start-up page");
            app.manage(start_up_problem::StartUp::refused(&error, options_source));
        }
        Err(error) => {
            show_start_up_error(&start_up_error::description(&error));
            return Err(error.into());
        }
    }
    let schedule_file = app
        .path()
        .app_config_dir()
        .map(|folder| folder.join("updates.json"))
        .unwrap_or_else(|_| std::env::temp_dir().join("dossier-updates.json"));
    app.manage(updates::Updates::new(
        schedule_file,
        updates::install_kind::InstallKind::of_this_process(),
    ));
    app.manage(link_opening::SystemOpener::system());
    app.manage(commands::ExitWhenInteractive(
        std::env::var_os("DOSSIER_EXIT_WHEN_INTERACTIVE").is_some_and(|value| value == "1"),
    ));
    // The package version (tauri.conf.json over Cargo.toml): what an update replaced is visible here.
    tracing::info!(version = %app.package_info().version, "Dossier started");
    if app.try_state::<Ledger>().is_some() {
        start(&app);
    }
    // Before the webview asks which ledger to show: the server of the last run, if any.
    let attached = app.state::<attached_server::AttachedServer>();
    attached.keep_in(
        app.path()
            .app_config_dir()
            .map(|folder| folder.join("server.json"))
            .unwrap_or_else(|_| std::env::temp_dir().join("dossier-server.json")),
        std::sync::Arc::new(dossier_core::models::credentials::OsKeychain::SERVER_TOKENS),
    );
    attached.resume(app.handle());
    updates::spawn_automatic_check(app.handle().clone());
    // `_event` is only read on Unix; Windows' plugin cleans up after itself.
    app.run(move |_, _event| {
        #[cfg(unix)]
        if let (tauri::RunEvent::Exit, Some(socket)) = (_event, &listening) {
            single_instance::remove_on_exit(socket);
        }
    });
    Ok(())
}

/// Everything but the context, on top of `base` (Tauri's default builder, or its mock builder in
/// tests), so tests build the same app on the mock runtime.
pub fn builder<R: Runtime>(
    base: tauri::Builder<R>,
    ledger: Ledger,
    simulated_drops: bool,
) -> tauri::Builder<R> {
    shell(base, simulated_drops).manage(ledger)
}

/// The builder without the ledger, which the app manages once `build` has run.
pub fn shell<R: Runtime>(base: tauri::Builder<R>, simulated_drops: bool) -> tauri::Builder<R> {
    base.manage(drop::allow_list::AllowList::default())
        .manage(attached_server::AttachedServer::default())
        .manage(commands::SimulatedDrops(simulated_drops))
        .manage(commands::data::DialogAnswer::from_env())
        .manage(commands::data::ChosenBackup::default())
        .on_window_event(|window, event| drop::on_window_event(window.app_handle(), event))
        .register_asynchronous_uri_scheme_protocol(blob_protocol::SCHEME, blob_protocol::handle)
        // The declared operations' commands (`declared_operations`), then the hand-written ones.
        .invoke_handler(gated(declared_operations::with_declared(
            tauri::generate_handler![
                commands::create_session,
                commands::list_messages,
                commands::send_prompt,
                commands::list_models,
                commands::pick_files,
                commands::simulate_drop,
                commands::reshaping::export_session,
                commands::reshaping::import_session,
                commands::symbols::file_symbols,
                commands::read_settings,
                commands::storage_use,
                commands::save_provider,
                commands::remove_provider,
                commands::remove_provider_key,
                commands::report_interactive,
                commands::mcp::import_claude_desktop,
                commands::local_models::add_model_file_with_dialog,
                commands::data::data_overview,
                commands::data::back_up_now,
                commands::data::choose_backup,
                commands::data::restore_chosen_backup,
                commands::data::open_data_folder,
                commands::data::folder_move::move_data_folder,
                commands::data::folder_move::remove_previous_data_folder,
                commands::data::folder_move::keep_previous_data_folder,
                updates::update_status,
                updates::set_automatic_update_checks,
                updates::check_for_update,
                updates::download_update,
                updates::restart_to_update,
                commands::start_up::start_up_state,
                commands::start_up::open_read_only,
                commands::start_up::restore_newest_backup,
                commands::start_up::open_start_up_data_folder,
                commands::start_up::quit_dossier,
                commands::server_connection::ledger_in_use,
                commands::server_connection::test_server_connection,
                commands::server_connection::connect_to_server,
                commands::server_connection::use_local_ledger,
                commands::server_connection::relay_request,
                commands::server_connection::export_from_server,
                commands::server_connection::copy_local_sessions,
                link_opening::open_link,
            ],
        )))
}

/// The commands behind the start-up gate: while no ledger is open, one that needs it is
/// answered with a typed `{kind, message}` (`start_up_problem::refusal`) instead of running.
fn gated<R: Runtime>(
    commands: impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static,
) -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
    move |invoke| {
        let refused = start_up_problem::refusal::<R, _>(
            invoke.message.webview_ref(),
            invoke.message.command(),
        );
        match refused {
            Some(error) => {
                invoke.resolver.reject(error);
                true
            }
            None => commands(invoke),
        }
    }
}

/// What runs once the app is built, before its event loop: forwarding core events to the
/// webview. (Not in `setup`, which Tauri only calls from the event loop, so tests get it too.)
pub fn start<R: Runtime>(app: &tauri::App<R>) {
    events::spawn_forwarding(app.handle().clone(), app.state::<Ledger>().inner());
}

fn show_start_up_error(description: &str) {
    eprintln!("dossier: could not open the ledger: {description}");
    // English only: the i18n table lives in the webview, which never started.
    let shown = rfd::MessageDialog::new()
        .set_level(rfd::MessageLevel::Error)
        .set_title("Dossier cannot start")
        .set_description(description)
        .set_buttons(rfd::MessageButtons::Ok)
        .show();
    tracing::debug!(?shown, "start-up error shown");
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
        // Nothing else: no file system, no shell, no plugin. Links leave through the shell's own
        // `open_link`, which refuses every scheme but http(s) (`link_opening`).
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

    #[test]
    fn bundle_builds_every_installer() {
        let config = config();
        let targets: Vec<&str> = config["bundle"]["targets"]
            .as_array()
            .expect("bundle.targets is a list")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(
            targets,
            ["deb", "rpm", "appimage", "app", "dmg", "nsis", "msi"]
        );
        // The version comes from Cargo.toml alone.
        assert!(
            config.get("version").is_none(),
            "tauri.conf.json sets a version"
        );
        assert_eq!(config["identifier"], "app.dossier.desktop");
    }

    #[test]
    fn bundle_icons_cover_every_system_and_exist() {
        let config = config();
        let icons: Vec<&str> = config["bundle"]["icon"]
            .as_array()
            .expect("bundle.icon is a list")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let missing: Vec<&&str> = icons
            .iter()
            .filter(|icon| !root.join(icon).is_file())
            .collect();
        assert!(missing.is_empty(), "icons missing on disk: {missing:?}");
        for needed in [
            "icons/icon.icns",
            "icons/icon.ico",
            "icons/32x32.png",
            "icons/128x128@2x.png",
        ] {
            assert!(icons.contains(&needed), "bundle.icon lacks {needed}");
        }
    }

    #[test]
    fn linux_desktop_entry_exists_and_speaks_english_and_chinese() {
        let config = config();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for package in ["deb", "rpm"] {
            let template = config["bundle"]["linux"][package]["desktopTemplate"]
                .as_str()
                .expect("a desktop template is set");
            let entry = std::fs::read_to_string(root.join(template)).expect("template readable");
            assert!(entry.contains("\nComment="), "{template}: {entry}");
            assert!(entry.contains("\nComment[zh_CN]="), "{template}: {entry}");
            assert!(
                entry.contains("\nCategories=Office;\n"),
                "{template}: {entry}"
            );
        }
    }

    #[test]
    fn updater_has_a_public_key_and_only_https_release_endpoints() {
        let config = config();
        let updater = &config["plugins"]["updater"];
        let pubkey = updater["pubkey"].as_str().expect("a public key");
        // `tauri signer generate` writes the minisign public key file base64-encoded.
        assert!(pubkey.starts_with("dW50cnVzdGVkIGNvbW1lbnQ6IG1pbmlzaWduIHB1YmxpYyBrZXk6"));
        let endpoints = updater["endpoints"].as_array().expect("endpoints");
        assert!(!endpoints.is_empty());
        for endpoint in endpoints.iter().filter_map(Value::as_str) {
            assert!(
                endpoint.starts_with("https://") && endpoint.ends_with("/latest.json"),
                "{endpoint}"
            );
        }
        // Plain HTTP is for the update test's own builds only (scripts/test-packages.sh).
        assert!(updater.get("dangerousInsecureTransportProtocol").is_none());
        // The webview gets no updater or process permission: the shell's commands do it all.
        let permissions = default_capability()["permissions"].to_string();
        assert!(!permissions.contains("updater"), "{permissions}");
        assert!(!permissions.contains("process"), "{permissions}");
    }

    #[test]
    fn windows_installer_needs_no_administrator() {
        let config = config();
        assert_eq!(
            config["bundle"]["windows"]["nsis"]["installMode"],
            "currentUser"
        );
        assert_eq!(
            config["bundle"]["windows"]["webviewInstallMode"]["type"],
            "downloadBootstrapper"
        );
    }
}
