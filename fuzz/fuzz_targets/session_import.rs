//! Importing a Dossier export or an `opencode export` file: the JSON either is an export or is
//! refused as invalid, and an imported session is written through the real import (one
//! transaction into a scratch ledger) and reads back and exports with every message and part.

#![no_main]

use dossier_core::reshaping::export::SessionExport;
use dossier_core::ErrorKind;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(document) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let parsed = serde_json::from_value::<SessionExport>(document.clone());
    let scratch = dossier_fuzz::scratch_ledger("import");
    let imported = scratch.block_on(scratch.ledger.reshaping().import_session(document));
    let (export, session) = match (parsed, imported) {
        (Ok(export), Ok(session)) => (export, session),
        (Err(_), Ok(session)) => panic!("imported {} from a file that is no export", session.id),
        (_, Err(error)) => {
            assert_eq!(error.kind(), ErrorKind::Invalid, "{error}");
            return;
        }
    };
    let again = scratch
        .block_on(scratch.ledger.reshaping().export_json(&session.id))
        .unwrap_or_else(|error| panic!("an imported session does not export: {error}"));
    assert_eq!(again.info.title, export.info.title);
    let shape = |export: &SessionExport| -> Vec<usize> {
        export
            .messages
            .iter()
            .map(|message| message.parts.len())
            .collect()
    };
    assert_eq!(shape(&again), shape(&export));
    scratch
        .block_on(scratch.ledger.sessions().delete(&session.id))
        .unwrap_or_else(|error| panic!("an imported session cannot be deleted: {error}"));
});
