//! Models that run on this computer: the `*.gguf` files in one models folder (`<data
//! folder>/models/` for the app, `--models-dir` for the server), how they get there, and how they
//! run. This room owns the folder's contents — reading a file's GGUF header, the curated library
//! (a data file in the repository, `local-model-library.json`), which entry suits this computer,
//! and downloads that resume, retry, verify their SHA-256 and only then become a `.gguf` — and
//! the engine: llama.cpp in a worker process of Dossier's own (`src-tauri/local-model-worker`),
//! started, stopped and unloaded by `local_engine`. It uses `wire` (events, errors), `store` (free
//! disk space) and `models` (the shared HTTP client); `models::provider::local_model` makes each
//! installed file a model of provider `local`, and the facade's `local_models()` handle serves the
//! library.

// The model library: header, curated list, recommendation, downloads, installed files.
pub mod download;
pub mod download_progress;
pub mod download_record;
pub mod download_transfer;
pub mod gguf_header;
pub mod installed_models;
pub mod library;
pub mod local_model_error;
pub mod model_library;
pub mod recommendation;

// The engine: the worker process, the manager that starts, stops and unloads it, and what the
// computer and the models folder offer it.
pub mod computer_memory;
pub mod local_engine;
pub mod local_engine_error;
pub mod model_files;
pub mod worker_location;
pub mod worker_process;
pub mod worker_protocol;

// Tools for local models: the template run as Jinja, whether it takes tools and in what form,
// and reading the calls out of the streamed text.
pub mod chat_template;
pub mod tool_call_format;
pub mod tool_call_reading;
