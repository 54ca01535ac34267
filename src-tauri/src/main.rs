//! Entry point of the Dossier desktop app: hands over to the library so tests and the binary
//! share one builder.

// Keep release builds on Windows from opening a console next to the window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

fn main() -> ExitCode {
    // Before any thread exists: a thread keeps the malloc arena it first got.
    dossier_allocator_arenas::limit_allocator_arenas();
    dossier_allocator_arenas::return_free_memory_periodically();
    match dossier_lib::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("dossier: the desktop shell stopped with an error: {error}");
            ExitCode::FAILURE
        }
    }
}
