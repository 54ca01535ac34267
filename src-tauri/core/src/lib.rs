//! dossier-core: the session ledger and the prompt pipeline, with no knowledge of Tauri or HTTP.
