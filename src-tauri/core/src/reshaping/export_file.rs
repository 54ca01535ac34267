//! Exports written to a file and imports read from one, for adapters that hold a path the person
//! chose (the desktop app's save and open dialogs). The server streams the same documents over
//! HTTP instead and never touches a file.

use crate::reshaping::Reshaping;
use crate::wire::error::LedgerError;
use crate::wire::reader_time::ReaderTimeZone;
use crate::wire::session::Session;
use std::path::Path;

/// An import larger than this is refused before it is read: the whole document is parsed in
/// memory, and no real session export comes near it.
pub const IMPORT_SIZE_LIMIT: u64 = 512 * 1024 * 1024;

/// What an export file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFileKind {
    /// Lossless: every message and part, attachment bytes included.
    Json,
    /// Readable: who said what, attachments listed, tool calls summarised.
    Markdown,
}

impl ExportFileKind {
    pub fn extension(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Markdown => "md",
        }
    }
}

impl Reshaping<'_> {
    /// Renders the export and writes it whole: to a temporary file beside the target first, so
    /// a failure half-way never leaves a truncated file under the name the person chose.
    pub async fn write_export(
        &self,
        session_id: &str,
        kind: ExportFileKind,
        path: &Path,
    ) -> Result<(), LedgerError> {
        let bytes = match kind {
            ExportFileKind::Json => {
                let export = self.export_json(session_id).await?;
                serde_json::to_vec_pretty(&export)
                    .map_err(|error| LedgerError::file(path, error.to_string()))?
            }
            // Written on this computer, for the person sitting at it.
            ExportFileKind::Markdown => self
                .export_markdown(session_id, ReaderTimeZone::ThisComputer)
                .await?
                .into_bytes(),
        };
        let partial = path.with_extension(format!("{}.partial", kind.extension()));
        tokio::fs::write(&partial, &bytes)
            .await
            .map_err(|error| LedgerError::file(path, error.to_string()))?;
        if let Err(error) = tokio::fs::rename(&partial, path).await {
            if let Err(left) = std::fs::remove_file(&partial) {
                tracing::warn!(path = %partial.display(), %left, "a partial export stays behind");
            }
            return Err(LedgerError::file(path, error.to_string()));
        }
        Ok(())
    }

    /// Reads a Dossier or `opencode export` JSON file and imports it as a new session.
    pub async fn import_file(&self, path: &Path) -> Result<Session, LedgerError> {
        let size = tokio::fs::metadata(path)
            .await
            .map_err(|error| LedgerError::file(path, error.to_string()))?
            .len();
        if size > IMPORT_SIZE_LIMIT {
            return Err(LedgerError::file(
                path,
                format!(
                    "it is {} MB, more than the {} MB an export can be",
                    size / (1024 * 1024),
                    IMPORT_SIZE_LIMIT / (1024 * 1024)
                ),
            ));
        }
        let bytes = tokio::fs::read(path)
            .await
            .map_err(|error| LedgerError::file(path, error.to_string()))?;
        let document: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|error| LedgerError::file(path, format!("it is not JSON ({error})")))?;
        self.import_session(document).await
    }
}
