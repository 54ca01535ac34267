//! The hand-written Tauri commands: each deserialises, calls one core function and returns.
//! Errors reach the webview as `{kind, message}` (see `error.rs`); the webview's types for the
//! few shapes that only the shell has are generated into `ui/src/lib/shell-bindings/`. The
//! commands of the operation table are generated (`declared_operations.rs`); those here are the
//! ones it cannot express (see the list in `dossier_core::operations`).

use crate::attached_server::AttachedServer;
use crate::drop::allow_list::AllowList;
use crate::drop::classification::DroppedFile;
use crate::error::ShellError;
use dossier_core::models::model_catalog::ModelCatalog;
use dossier_core::store::rows::message_page::{MessagePage, MessageQuery};
use dossier_core::wire::draft::PromptInput;
use dossier_core::wire::message::MessageWithParts;
use dossier_core::wire::session::{CreateSession, Session};
use dossier_core::Ledger;
use tauri::{AppHandle, Emitter, Manager, Runtime, State};

#[tauri::command]
pub async fn create_session(
    ledger: State<'_, Ledger>,
    input: CreateSession,
) -> Result<Session, ShellError> {
    Ok(ledger.sessions().create(input).await?)
}

#[tauri::command]
pub async fn list_messages(
    ledger: State<'_, Ledger>,
    session_id: String,
    limit: Option<u32>,
    before: Option<String>,
) -> Result<MessagePage, ShellError> {
    Ok(ledger
        .sessions()
        .messages(&session_id, &MessageQuery { limit, before })
        .await?)
}

/// Sends drafts built like OpenCode's client. `file:` drafts must name a dropped or picked path.
#[tauri::command]
pub async fn send_prompt(
    ledger: State<'_, Ledger>,
    allow_list: State<'_, AllowList>,
    session_id: String,
    input: PromptInput,
) -> Result<MessageWithParts, ShellError> {
    allow_list.check_prompt(&input)?;
    Ok(ledger.sessions().prompt(&session_id, input).await?)
}

#[tauri::command]
pub fn list_models(ledger: State<'_, Ledger>) -> ModelCatalog {
    ledger.providers().models().as_ref().clone()
}

/// The attach button: the native file dialog, then the same path a drop takes.
#[tauri::command]
pub async fn pick_files(
    allow_list: State<'_, AllowList>,
    attached: State<'_, AttachedServer>,
) -> Result<Vec<DroppedFile>, ShellError> {
    let picked = rfd::AsyncFileDialog::new().pick_files().await;
    let paths: Vec<_> = picked
        .unwrap_or_default()
        .iter()
        .map(|handle| handle.path().to_path_buf())
        .collect();
    Ok(crate::drop::receive_for_ledger_in_use(
        &allow_list,
        &attached,
        &paths,
    ))
}

/// Whether the end-to-end test may simulate drops; read once from the environment at start-up.
pub struct SimulatedDrops(pub bool);

/// Test hook: what a native drop of `paths` does once the operating system has handed them over
/// (classify, allow, emit `dossier://dropped`); only the OS drag gesture itself is skipped.
/// Refused unless the app was started with `DOSSIER_E2E_SIMULATED_DROPS=1`.
#[tauri::command]
pub fn simulate_drop<R: Runtime>(
    app: AppHandle<R>,
    enabled: State<'_, SimulatedDrops>,
    allow_list: State<'_, AllowList>,
    attached: State<'_, AttachedServer>,
    paths: Vec<std::path::PathBuf>,
) -> Result<(), ShellError> {
    if !enabled.0 {
        return Err(ShellError::TestHookDisabled {
            what: "Simulated drops".into(),
        });
    }
    let dropped = crate::drop::receive_for_ledger_in_use(&allow_list, &attached, &paths);
    app.emit(crate::drop::DROPPED_EVENT, dropped)
        .map_err(|error| ShellError::Window(error.to_string()))
}

pub mod data;
pub mod local_models;
pub mod mcp;
pub mod reshaping;
pub mod server_connection;
pub mod start_up;
pub mod symbols;
#[cfg(test)]
pub(crate) mod tests;

/// The settings view: configured providers with key hints (never a key) and the keychain's state.
#[tauri::command]
pub async fn read_settings(
    ledger: State<'_, Ledger>,
) -> Result<dossier_core::models::provider_settings::ProviderSettings, ShellError> {
    Ok(ledger.providers().provider_settings().await?)
}

/// The settings view's "your sessions take … in …" line.
#[tauri::command]
pub fn storage_use(
    ledger: State<'_, Ledger>,
) -> Result<dossier_core::store::sqlite::disk_space::StorageUse, ShellError> {
    Ok(ledger.data().storage_use()?)
}

/// Adds or changes a provider in the config file; a new key goes to the OS keychain. The model
/// catalog is reloaded, so the next `list_models` shows the change.
#[tauri::command]
pub async fn save_provider(
    ledger: State<'_, Ledger>,
    input: dossier_core::models::provider_settings::ProviderInput,
) -> Result<dossier_core::models::provider_settings::ProviderSettings, ShellError> {
    Ok(ledger.providers().save_provider(input).await?)
}

#[tauri::command]
pub async fn remove_provider(
    ledger: State<'_, Ledger>,
    provider_id: String,
) -> Result<dossier_core::models::provider_settings::ProviderSettings, ShellError> {
    Ok(ledger.providers().remove_provider(&provider_id).await?)
}

#[tauri::command]
pub async fn remove_provider_key(
    ledger: State<'_, Ledger>,
    provider_id: String,
) -> Result<dossier_core::models::provider_settings::ProviderSettings, ShellError> {
    Ok(ledger.providers().remove_provider_key(&provider_id).await?)
}

/// When the process started, for the launch-time figure (set first thing in `run`).
pub static LAUNCHED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Set from `DOSSIER_EXIT_WHEN_INTERACTIVE=1`: the app quits as soon as its window is usable.
/// The test run starts the README's run command this way to prove it opens a working window.
pub struct ExitWhenInteractive(pub bool);

/// The webview calls this once, when the sidebar is loaded and the window can be used; the log
/// line is what `tests/window-e2e/measure.py` waits for to time a launch without WebDriver.
#[tauri::command]
pub fn report_interactive<R: Runtime>(app: AppHandle<R>) {
    let milliseconds = LAUNCHED
        .get()
        .map(|launched| launched.elapsed().as_millis());
    tracing::info!(?milliseconds, "window interactive");
    if app
        .try_state::<ExitWhenInteractive>()
        .is_some_and(|exit| exit.0)
    {
        // On stderr as well as in the log file: whoever started the app this way is watching it.
        eprintln!("dossier: window interactive; exiting as DOSSIER_EXIT_WHEN_INTERACTIVE asks");
        app.exit(0);
    }
}
