//! Core events → the webview. Every ledger event is forwarded under one Tauri event name with
//! the `{id, type, properties}` envelope the HTTP event stream uses, so one reducer in the UI
//! serves both transports. Tauri event names may not contain dots, hence one fixed name.

use crate::attached_server::AttachedServer;
use crate::webview_names::EventName;
use dossier_core::wire::event::Event;
use dossier_core::Ledger;
use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tokio::sync::broadcast::{self, error::RecvError};
use ts_rs::TS;

pub const CORE_EVENT: &str = EventName::Core.as_str();
/// Sent when this forwarder fell behind and events were lost: the UI reloads what it shows.
pub const RESYNC_EVENT: &str = EventName::Resync.as_str();

#[derive(Debug, Clone, Copy, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
pub struct Resync {
    #[ts(type = "number")]
    pub missed: u64,
}

/// Subscribes now (so nothing published after start-up is missed, however late the task is
/// scheduled) and forwards until the ledger's event bus closes. Spawned once at start-up.
pub fn spawn_forwarding<R: Runtime>(app: AppHandle<R>, ledger: &Ledger) {
    let receiver = ledger.events().subscribe();
    tauri::async_runtime::spawn(forward(app, receiver));
}

async fn forward<R: Runtime>(
    app: AppHandle<R>,
    mut receiver: broadcast::Receiver<std::sync::Arc<Event>>,
) {
    loop {
        let received = receiver.recv().await;
        // Attached to a server, the window shows the server's events (`attached_server`);
        // the local ledger's would land in the wrong sessions list.
        if app
            .try_state::<AttachedServer>()
            .is_some_and(|attached| attached.is_attached())
        {
            if matches!(received, Err(RecvError::Closed)) {
                break;
            }
            continue;
        }
        match received {
            Ok(event) => emit(&app, CORE_EVENT, &event),
            Err(RecvError::Lagged(missed)) => emit(&app, RESYNC_EVENT, &Resync { missed }),
            Err(RecvError::Closed) => break,
        }
    }
}

fn emit<R: Runtime, T: Serialize>(app: &AppHandle<R>, name: &str, payload: &T) {
    if let Err(error) = app.emit(name, payload) {
        tracing::warn!(%error, "could not forward an event to the webview");
    }
}
