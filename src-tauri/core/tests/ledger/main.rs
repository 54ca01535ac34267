//! Integration tests of dossier-core against real temporary SQLite databases. One test binary
//! (faster to build); each behaviour lives in its own file under `ledger/`.

mod support;

mod crash_consistency;
mod hooks;
mod prompt_pipeline;
mod reshaping;
mod search;
mod storage;
