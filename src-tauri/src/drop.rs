//! Files reaching the window from outside: the native drag-and-drop event (real paths from the
//! operating system), the file dialog, and — only under the end-to-end test — a simulated drop.
//! Every route ends in [`receive`]: classify each path, allow the sendable ones, tell the
//! webview. The webview itself never gets file-system access.

pub mod allow_list;
pub mod classification;
pub mod dropped_contents;

use crate::attached_server::AttachedServer;
use crate::webview_names::EventName;
use allow_list::AllowList;
use classification::{classify, DroppedFile};
use serde::Serialize;
use std::path::PathBuf;
use tauri::{AppHandle, DragDropEvent, Emitter, Manager, Runtime, WindowEvent};
use ts_rs::TS;

/// Emitted while files hover over the window (the UI shows its drop overlay).
pub const DRAG_EVENT: &str = EventName::Drag.as_str();
/// Emitted with the classified files once a native drop lands.
pub const DROPPED_EVENT: &str = EventName::Dropped.as_str();

#[derive(Debug, Clone, Copy, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
pub struct DragHover {
    pub hovering: bool,
}

/// Classifies the paths and allows the sendable ones for later prompts.
pub fn receive(allow_list: &AllowList, paths: &[PathBuf]) -> Vec<DroppedFile> {
    paths
        .iter()
        .map(|path| {
            let dropped = classify(path);
            if dropped.kind.is_sendable() {
                allow_list.allow(path);
            }
            dropped
        })
        .collect()
}

/// `receive`, then — while attached to a server, which cannot read this disk — each file as its
/// contents (`dropped_contents`).
pub fn receive_for_ledger_in_use(
    allow_list: &AllowList,
    attached: &AttachedServer,
    paths: &[PathBuf],
) -> Vec<DroppedFile> {
    let dropped = receive(allow_list, paths);
    if attached.is_attached() {
        dropped_contents::for_server(dropped)
    } else {
        dropped
    }
}

/// The window's drag-and-drop events, turned into hover and dropped-files events for the UI.
pub fn on_window_event<R: Runtime>(app: &AppHandle<R>, event: &WindowEvent) {
    let WindowEvent::DragDrop(drag) = event else {
        return;
    };
    match drag {
        // `Over` repeats on every pointer move; the overlay only needs to know it started.
        DragDropEvent::Enter { .. } => emit(app, DRAG_EVENT, DragHover { hovering: true }),
        DragDropEvent::Leave => emit(app, DRAG_EVENT, DragHover { hovering: false }),
        DragDropEvent::Drop { paths, .. } => {
            emit(app, DRAG_EVENT, DragHover { hovering: false });
            let app = app.clone();
            let paths = paths.clone();
            // Classification reads the disk; keep it off the event loop.
            tauri::async_runtime::spawn_blocking(move || {
                let dropped = receive_for_ledger_in_use(
                    &app.state::<AllowList>(),
                    &app.state::<AttachedServer>(),
                    &paths,
                );
                emit(&app, DROPPED_EVENT, dropped);
            });
        }
        _ => {}
    }
}

fn emit<R: Runtime, T: Serialize + Clone>(app: &AppHandle<R>, name: &str, payload: T) {
    if let Err(error) = app.emit(name, payload) {
        tracing::warn!(%error, event = name, "could not tell the webview about a drop");
    }
}
