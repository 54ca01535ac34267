//! The two formats a session is exported in, as the webview names them: a local export writes
//! the file itself (`commands::reshaping`), an attached one asks the server for it
//! (`attached_server::server_export`), so the type sits below both.

use dossier_core::reshaping::export_file::ExportFileKind;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// Lossless: every message and part, attachment bytes included.
    Json,
    /// Readable: who said what, attachments listed, tool calls summarised.
    Markdown,
}

impl ExportFormat {
    pub fn kind(self) -> ExportFileKind {
        match self {
            Self::Json => ExportFileKind::Json,
            Self::Markdown => ExportFileKind::Markdown,
        }
    }

    pub fn extension(self) -> &'static str {
        self.kind().extension()
    }

    /// The server's `?format=` value.
    pub fn query_value(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Markdown => "markdown",
        }
    }
}

pub fn export_file_name(title: &str, format: ExportFormat) -> String {
    dossier_core::reshaping::export::export_file_name(title, format.extension())
}
