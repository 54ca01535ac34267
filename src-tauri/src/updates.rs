//! Signed updates, as a person expects them: Dossier looks for a new version at start (at most
//! once a day, quietly when offline, never if turned off) and when asked in Settings; it shows the
//! version and its notes, downloads with progress, refuses a download whose signature does not
//! match the public key in `tauri.conf.json`, and restarts into the new version only when no
//! reply is being written (or when the person says so).
//!
//! `tauri-plugin-updater` does the network, the minisign check and the install for each kind of
//! package; this module decides when, keeps what was found between the webview's calls, and turns
//! the plugin's errors into the shell's `{kind, message}`. The webview gets no updater or process
//! permission: everything goes through these commands, and the restart is Tauri's own.

pub mod check_schedule;
pub mod install_kind;

use crate::error::ShellError;
use check_schedule::{now_ms, CheckSchedule, ScheduleFile};
use dossier_core::Ledger;
use install_kind::InstallKind;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tauri::ipc::Channel;
use tauri::{AppHandle, Emitter, Manager, Runtime, State};
use tauri_plugin_updater::{Update, UpdaterExt};
use ts_rs::TS;

/// Sent when the start-up check finds a newer version (payload: `AvailableUpdate`).
pub const UPDATE_AVAILABLE_EVENT: &str = crate::webview_names::EventName::UpdateAvailable.as_str();

/// A slow server should not keep the check button spinning for minutes; the download itself has
/// no overall limit (a large package on a slow line is still progress).
const CHECK_TIMEOUT: Duration = Duration::from_secs(30);

/// How often the download reports progress, in bytes (the last chunk is always reported).
const PROGRESS_STEP: u64 = 64 * 1024;

/// A newer version than this one, as the release's `latest.json` announces it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase")]
pub struct AvailableUpdate {
    pub version: String,
    /// The release notes, as written in the release (Markdown or plain text).
    pub notes: Option<String>,
    /// RFC 3339.
    pub published_at: Option<String>,
}

/// What Settings shows when it opens.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase")]
pub struct UpdateStatus {
    pub current_version: String,
    pub install_kind: InstallKind,
    pub automatic_checks: bool,
    /// Milliseconds since the Unix epoch of the last check that reached the server.
    #[ts(type = "number | null")]
    pub last_checked_at: Option<i64>,
    /// Found and not yet installed.
    pub available: Option<AvailableUpdate>,
    /// The available update is downloaded and its signature checked.
    pub downloaded: bool,
}

#[derive(Debug, Clone, Copy, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase")]
pub struct DownloadProgress {
    #[ts(type = "number")]
    pub downloaded: u64,
    /// Unknown when the server sends no length.
    #[ts(type = "number | null")]
    pub total: Option<u64>,
}

/// What "Restart to update" did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(tag = "plan", rename_all = "camelCase")]
pub enum RestartPlan {
    /// Restarting now.
    Now,
    /// Replies are being written; Dossier restarts by itself once every session is idle.
    WhenRepliesFinish { streaming: u32 },
}

/// Never cut a reply short unasked: with replies streaming, wait for them unless told otherwise.
pub fn restart_plan(streaming: usize, now: bool) -> RestartPlan {
    if streaming == 0 || now {
        RestartPlan::Now
    } else {
        RestartPlan::WhenRepliesFinish {
            streaming: u32::try_from(streaming).unwrap_or(u32::MAX),
        }
    }
}

/// Where an update is between the webview's calls. The plugin's `Update` holds the announced
/// signature, so what is installed is always what was verified against it.
enum Pending {
    Nothing,
    Found(Box<Update>),
    Downloaded(Box<Update>, Vec<u8>),
    /// Installed on disk (macOS, Linux); the running process is still the old version.
    Installed(AvailableUpdate),
}

/// The updater's state, managed once.
pub struct Updates {
    schedule: ScheduleFile,
    install_kind: InstallKind,
    pending: Mutex<Pending>,
}

impl Updates {
    pub fn new(schedule_file: PathBuf, install_kind: InstallKind) -> Self {
        Self {
            schedule: ScheduleFile::new(schedule_file),
            install_kind,
            pending: Mutex::new(Pending::Nothing),
        }
    }

    fn pending(&self) -> MutexGuard<'_, Pending> {
        // Nothing in `Pending` can be left half-changed by a panic: take the value as it is.
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn status(&self, current_version: String) -> UpdateStatus {
        let schedule = self.schedule.load();
        let (available, downloaded) = match &*self.pending() {
            Pending::Nothing | Pending::Installed(_) => (None, false),
            Pending::Found(update) => (Some(describe(update)), false),
            Pending::Downloaded(update, _) => (Some(describe(update)), true),
        };
        UpdateStatus {
            current_version,
            install_kind: self.install_kind,
            automatic_checks: schedule.automatic_checks,
            last_checked_at: schedule.last_checked_at,
            available,
            downloaded,
        }
    }

    fn save_schedule(&self, schedule: &CheckSchedule) -> Result<(), ShellError> {
        self.schedule
            .save(schedule)
            .map_err(|error| ShellError::File {
                path: self.schedule.path().display().to_string(),
                reason: error.to_string(),
            })
    }

    /// Asks the release server; remembers the time when it answered, and what it offered.
    async fn check<R: Runtime>(
        &self,
        app: &AppHandle<R>,
    ) -> Result<Option<AvailableUpdate>, ShellError> {
        let updater = app
            .updater_builder()
            .timeout(CHECK_TIMEOUT)
            .build()
            .map_err(update_error)?;
        let found = updater.check().await.map_err(update_error)?;
        let mut schedule = self.schedule.load();
        schedule.last_checked_at = Some(now_ms());
        if let Err(error) = self.schedule.save(&schedule) {
            tracing::warn!(%error, "could not remember when updates were checked");
        }
        let mut pending = self.pending();
        Ok(match found {
            Some(update) => {
                let available = describe(&update);
                // The same version already downloaded or installed stays as it is.
                let known = match &*pending {
                    Pending::Downloaded(held, _) => held.version == update.version,
                    Pending::Installed(installed) => installed.version == update.version,
                    Pending::Found(_) | Pending::Nothing => false,
                };
                if !known {
                    *pending = Pending::Found(Box::new(update));
                }
                Some(available)
            }
            None => {
                if matches!(*pending, Pending::Found(_)) {
                    *pending = Pending::Nothing;
                }
                None
            }
        })
    }

    /// Hands the verified package to the plugin's installer for this kind of install. The
    /// package is checked against its signature once more first (`Update::install`).
    fn install(&self) -> Result<AvailableUpdate, ShellError> {
        if !self.install_kind.can_install_updates() {
            return Err(ShellError::BuiltFromSource);
        }
        let mut pending = self.pending();
        match std::mem::replace(&mut *pending, Pending::Nothing) {
            Pending::Downloaded(update, bytes) => match update.install(&bytes) {
                Ok(()) => {
                    let installed = describe(&update);
                    tracing::info!(version = %installed.version, "update installed");
                    *pending = Pending::Installed(installed.clone());
                    Ok(installed)
                }
                Err(error) => {
                    let error = install_error(self.install_kind, &update.version, error);
                    *pending = Pending::Downloaded(update, bytes);
                    Err(error)
                }
            },
            Pending::Installed(installed) => {
                *pending = Pending::Installed(installed.clone());
                Ok(installed)
            }
            other => {
                *pending = other;
                Err(ShellError::NoUpdateToInstall)
            }
        }
    }
}

fn describe(update: &Update) -> AvailableUpdate {
    AvailableUpdate {
        version: update.version.clone(),
        notes: update.body.clone().filter(|notes| !notes.trim().is_empty()),
        published_at: update.date.and_then(|date| {
            date.format(&time::format_description::well_known::Rfc3339)
                .ok()
        }),
    }
}

/// The plugin's errors, sorted by what the person can do about them.
fn update_error(error: tauri_plugin_updater::Error) -> ShellError {
    use tauri_plugin_updater::Error as Plugin;
    match error {
        Plugin::Reqwest(_) | Plugin::Network(_) | Plugin::ReleaseNotFound | Plugin::Io(_) => {
            ShellError::UpdateServerUnreachable {
                reason: error.to_string(),
            }
        }
        Plugin::Minisign(_)
        | Plugin::Base64(_)
        | Plugin::SignatureUtf8(_)
        | Plugin::SignedVersionMismatch { .. }
        | Plugin::MissingSignedVersion => ShellError::UpdateSignatureRejected {
            reason: error.to_string(),
        },
        other => ShellError::Updater(other.to_string()),
    }
}

fn install_error(
    kind: InstallKind,
    version: &str,
    error: tauri_plugin_updater::Error,
) -> ShellError {
    if matches!(
        error,
        tauri_plugin_updater::Error::Minisign(_)
            | tauri_plugin_updater::Error::SignedVersionMismatch { .. }
    ) {
        return update_error(error);
    }
    let reason = if kind.belongs_to_package_manager() {
        format!(
            "the package manager did not install Dossier {version} ({error}); install the new package with your package manager instead"
        )
    } else {
        error.to_string()
    };
    ShellError::UpdateInstallFailed { reason }
}

/// What the start-up check did; only `Found` reaches the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AutomaticCheck {
    /// Built from source, turned off, or checked less than a day ago: nothing was asked.
    NotDue,
    Found(AvailableUpdate),
    UpToDate,
    /// Offline (or the server is down): said in the log only, and tried again at a later start.
    Unreachable,
    Failed,
}

/// Start-up: checks once a day when turned on, in the background, and says nothing when the
/// server cannot be reached (offline is normal). A copy built from source never checks.
pub fn spawn_automatic_check<R: Runtime>(app: AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        automatic_check(&app).await;
    });
}

/// The start-up check itself; an update found is announced to the window
/// (`UPDATE_AVAILABLE_EVENT`), anything else only logged.
pub async fn automatic_check<R: Runtime>(app: &AppHandle<R>) -> AutomaticCheck {
    let Some(updates) = app.try_state::<Updates>() else {
        return AutomaticCheck::NotDue;
    };
    if !updates.install_kind.can_install_updates() {
        return AutomaticCheck::NotDue;
    }
    if !updates.schedule.load().is_due(now_ms()) {
        tracing::debug!("automatic update check not due");
        return AutomaticCheck::NotDue;
    }
    match updates.check(app).await {
        Ok(Some(available)) => {
            tracing::info!(version = %available.version, "an update is available");
            if let Err(error) = app.emit(UPDATE_AVAILABLE_EVENT, &available) {
                tracing::warn!(%error, "could not tell the window about the update");
            }
            AutomaticCheck::Found(available)
        }
        Ok(None) => {
            tracing::info!("no update available");
            AutomaticCheck::UpToDate
        }
        Err(ShellError::UpdateServerUnreachable { reason }) => {
            tracing::info!(%reason, "update server not reachable; will try at a later start");
            AutomaticCheck::Unreachable
        }
        Err(error) => {
            tracing::warn!(%error, "automatic update check failed");
            AutomaticCheck::Failed
        }
    }
}

/// Waits until no session is writing a reply. Subscribes before looking, so an idle event
/// between the look and the wait is not missed.
async fn replies_finished(ledger: Ledger) {
    let events = ledger.events().subscribe();
    until_idle(events, || ledger.replies().status().len()).await;
}

/// Returns once `streaming()` counts no reply, looking again after every event (a session going
/// idle is one); when the events end (the ledger closed) there is nothing left to wait for.
async fn until_idle<T: Clone>(
    mut events: tokio::sync::broadcast::Receiver<T>,
    streaming: impl Fn() -> usize,
) {
    loop {
        if streaming() == 0 {
            return;
        }
        if let Err(tokio::sync::broadcast::error::RecvError::Closed) = events.recv().await {
            return;
        }
    }
}

/// The restart itself. On Windows the installer replaces the app and starts it again, so the
/// install step is what ends this process; elsewhere the files are already replaced.
fn restart_now<R: Runtime>(app: &AppHandle<R>) -> Result<(), ShellError> {
    if cfg!(windows) {
        app.state::<Updates>().install()?;
    }
    tracing::info!("restarting into the update");
    app.request_restart();
    Ok(())
}

#[tauri::command]
pub fn update_status<R: Runtime>(app: AppHandle<R>, updates: State<'_, Updates>) -> UpdateStatus {
    updates.status(app.package_info().version.to_string())
}

#[tauri::command]
pub fn set_automatic_update_checks<R: Runtime>(
    app: AppHandle<R>,
    updates: State<'_, Updates>,
    enabled: bool,
) -> Result<UpdateStatus, ShellError> {
    let mut schedule = updates.schedule.load();
    schedule.automatic_checks = enabled;
    updates.save_schedule(&schedule)?;
    Ok(updates.status(app.package_info().version.to_string()))
}

/// Settings → "Check for updates": `null` when this is the newest version.
#[tauri::command]
pub async fn check_for_update<R: Runtime>(
    app: AppHandle<R>,
    updates: State<'_, Updates>,
) -> Result<Option<AvailableUpdate>, ShellError> {
    updates.check(&app).await
}

/// Downloads the update found by the last check and checks its signature; nothing is
/// installed yet. A package whose signature does not verify is dropped and reported.
#[tauri::command]
pub async fn download_update(
    updates: State<'_, Updates>,
    on_progress: Channel<DownloadProgress>,
) -> Result<AvailableUpdate, ShellError> {
    let update = match &*updates.pending() {
        Pending::Found(update) | Pending::Downloaded(update, _) => update.clone(),
        Pending::Nothing | Pending::Installed(_) => return Err(ShellError::NoUpdateToDownload),
    };
    let mut downloaded = 0u64;
    let mut reported = 0u64;
    let report = |progress: DownloadProgress| {
        if let Err(error) = on_progress.send(progress) {
            tracing::debug!(%error, "the window stopped listening to the download");
        }
    };
    let bytes = update
        .download(
            |chunk, total| {
                downloaded += chunk as u64;
                if downloaded - reported >= PROGRESS_STEP || Some(downloaded) == total {
                    reported = downloaded;
                    report(DownloadProgress { downloaded, total });
                }
            },
            || {},
        )
        .await
        .map_err(update_error)?;
    let available = describe(&update);
    tracing::info!(version = %available.version, bytes = bytes.len(), "update downloaded and verified");
    *updates.pending() = Pending::Downloaded(update, bytes);
    Ok(available)
}

/// "Restart to update": installs the downloaded update and restarts, now if no reply is being
/// written or `now` is set, else as soon as every session is idle.
#[tauri::command]
pub async fn restart_to_update<R: Runtime>(
    app: AppHandle<R>,
    ledger: State<'_, Ledger>,
    now: bool,
) -> Result<RestartPlan, ShellError> {
    // Installed first (except on Windows, where installing ends the app), so a refused password
    // or a broken package is reported now, while the old version keeps running untouched. Off
    // the async workers: a `.deb` waits for the person to type a password into pkexec's dialog.
    if !cfg!(windows) {
        let installer = app.clone();
        tauri::async_runtime::spawn_blocking(move || installer.state::<Updates>().install())
            .await
            .map_err(|error| ShellError::Updater(error.to_string()))??;
    } else if !app.state::<Updates>().install_kind.can_install_updates() {
        return Err(ShellError::BuiltFromSource);
    }
    let plan = restart_plan(ledger.replies().status().len(), now);
    match plan {
        RestartPlan::Now => restart_now(&app)?,
        RestartPlan::WhenRepliesFinish { streaming } => {
            tracing::info!(
                streaming,
                "update ready; restarting when the replies finish"
            );
            let ledger = ledger.inner().clone();
            tauri::async_runtime::spawn(async move {
                replies_finished(ledger).await;
                if let Err(error) = restart_now(&app) {
                    tracing::error!(%error, "could not restart into the update");
                }
            });
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests;
