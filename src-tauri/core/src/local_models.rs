//! Models that run on this computer: GGUF files in one models folder, run by llama.cpp in a
//! worker process of Dossier's own (`src-tauri/local-model-worker`). It uses only `wire` (and the
//! standard library); `models::provider::local_model` is the glue that makes each installed file a
//! model of provider `local`. A floor of its own between `store` and `models`.

// The engine: the worker process, the manager that starts, stops and unloads it, and what the
// computer and the models folder offer.
pub mod computer_memory;
pub mod installed_models;
pub mod local_engine;
pub mod local_model_error;
pub mod worker_process;
pub mod worker_protocol;
