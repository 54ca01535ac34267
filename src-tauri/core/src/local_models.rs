//! Models that run on this computer: the `*.gguf` files in one models folder (`<data
//! folder>/models/` for the app, `--models-dir` for the server), and how they get there. This
//! room owns the folder's contents — reading a file's GGUF header, the curated library (a data
//! file in the repository, `local-model-library.json`), which entry suits this computer, and
//! downloads that resume, retry, verify their SHA-256 and only then become a `.gguf`. It uses
//! `wire` (events, errors), `store` (free disk space) and `models` (the shared HTTP client);
//! the floors above and the facade's `local_models()` handle use it.

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
pub mod system_memory;
