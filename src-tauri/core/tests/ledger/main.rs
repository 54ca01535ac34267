//! Integration tests of dossier-core against real temporary SQLite databases. One test binary
//! (faster to build); each behaviour lives in its own file under `ledger/`.

mod support;

mod agent_loop;
mod crash_consistency;
mod fake_provider;
mod hooks;
mod prompt_pipeline;
mod reply_crash;
mod storage;
