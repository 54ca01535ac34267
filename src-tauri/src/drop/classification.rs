//! What a dropped or picked path is, decided before anything is sent: a text file, a folder, an
//! image, a PDF — or something that cannot be sent (binary, too large, unreadable) and why. The
//! sniffing rules are the Read tool's own (`sniff_media`, `is_binary`, the attachment cap), so a
//! chip never promises what the send would then refuse.

use dossier_core::pipeline::read_tool::{is_binary, sniff_media, ReadKind, MAX_ATTACHMENT_BYTES};
use serde::Serialize;
use std::fs;
use std::io::Read;
use std::path::Path;
use ts_rs::TS;

const SAMPLE_BYTES: u64 = 4096;
pub const DIRECTORY_MIME: &str = "application/x-directory";
const TEXT_MIME: &str = "text/plain";
const UNKNOWN_MIME: &str = "application/octet-stream";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "kebab-case")]
pub enum DropKind {
    Text,
    Folder,
    Image,
    Pdf,
    Binary,
    TooLarge,
    Unreadable,
}

impl DropKind {
    /// Whether a prompt may carry this path (the others are shown with their reason only).
    pub fn is_sendable(self) -> bool {
        matches!(self, Self::Text | Self::Folder | Self::Image | Self::Pdf)
    }
}

/// One dropped or picked path as the composer shows it, with the `file://` URL and MIME type a
/// file draft needs (OpenCode's client sends exactly these).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
pub struct DroppedFile {
    pub path: String,
    pub name: String,
    pub url: String,
    pub mime: String,
    /// Bytes on disk; absent for folders.
    #[ts(optional, type = "number")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    pub kind: DropKind,
    /// Why the file cannot be sent (the operating system's words for unreadable files).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Looks at the path on disk: metadata, then the first 4 KB.
pub fn classify(path: &Path) -> DroppedFile {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().to_string())
        .unwrap_or_else(|| path.display().to_string());
    let url = url::Url::from_file_path(path)
        .map(|url| url.to_string())
        .unwrap_or_default();
    let (kind, mime, size, reason) = match inspect(path) {
        Ok(inspection) => inspection,
        Err(error) => (
            DropKind::Unreadable,
            UNKNOWN_MIME.to_string(),
            None,
            Some(error.to_string()),
        ),
    };
    DroppedFile {
        path: path.display().to_string(),
        name,
        url,
        mime,
        size,
        kind,
        reason,
    }
}

type Inspection = (DropKind, String, Option<u64>, Option<String>);

fn inspect(path: &Path) -> std::io::Result<Inspection> {
    let metadata = fs::metadata(path)?;
    if metadata.is_dir() {
        // Listing it now proves it is readable; the Read tool lists it again on send.
        fs::read_dir(path)?;
        return Ok((DropKind::Folder, DIRECTORY_MIME.into(), None, None));
    }
    let size = metadata.len();
    let mut sample = Vec::new();
    fs::File::open(path)?
        .take(SAMPLE_BYTES)
        .read_to_end(&mut sample)?;
    Ok(match sniff_media(&sample) {
        Some((mime, kind)) => {
            let kind = if kind == ReadKind::Pdf {
                DropKind::Pdf
            } else {
                DropKind::Image
            };
            if size > MAX_ATTACHMENT_BYTES {
                (DropKind::TooLarge, mime.into(), Some(size), None)
            } else {
                (kind, mime.into(), Some(size), None)
            }
        }
        None if is_binary(path, &sample) => {
            (DropKind::Binary, UNKNOWN_MIME.into(), Some(size), None)
        }
        None => (DropKind::Text, TEXT_MIME.into(), Some(size), None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    fn write(folder: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = folder.join(name);
        fs::write(&path, bytes).expect("write fixture");
        path
    }

    #[test]
    fn each_kind_of_path_is_classified_with_its_mime() {
        let folder = tempfile::tempdir().expect("temp dir");
        let cases: Vec<(std::path::PathBuf, DropKind, &str)> = vec![
            (
                write(folder.path(), "notes.md", b"# Notes\nhello\n"),
                DropKind::Text,
                "text/plain",
            ),
            (
                write(folder.path(), "empty.txt", b""),
                DropKind::Text,
                "text/plain",
            ),
            (
                write(folder.path(), "shot.png", PNG),
                DropKind::Image,
                "image/png",
            ),
            (
                write(folder.path(), "paper.pdf", b"%PDF-1.7\n"),
                DropKind::Pdf,
                "application/pdf",
            ),
            (
                write(folder.path(), "tool.bin", b"\0\x01\x02"),
                DropKind::Binary,
                UNKNOWN_MIME,
            ),
            (
                write(folder.path(), "archive.zip", b"PK text"),
                DropKind::Binary,
                UNKNOWN_MIME,
            ),
            (
                folder.path().to_path_buf(),
                DropKind::Folder,
                DIRECTORY_MIME,
            ),
        ];
        for (path, kind, mime) in cases {
            let dropped = classify(&path);
            assert_eq!(
                (dropped.kind, dropped.mime.as_str()),
                (kind, mime),
                "{path:?}"
            );
            assert_eq!(dropped.reason, None, "{path:?}");
        }
    }

    #[test]
    fn text_file_carries_name_size_and_file_url() {
        let folder = tempfile::tempdir().expect("temp dir");
        let path = write(folder.path(), "a b#c.txt", b"12345");
        let dropped = classify(&path);
        assert_eq!(dropped.name, "a b#c.txt");
        assert_eq!(dropped.size, Some(5));
        assert!(dropped.url.starts_with("file:///"), "{}", dropped.url);
        assert!(dropped.url.ends_with("/a%20b%23c.txt"), "{}", dropped.url);
        assert!(dropped.kind.is_sendable());
    }

    #[test]
    fn missing_path_is_unreadable_with_the_system_reason() {
        let folder = tempfile::tempdir().expect("temp dir");
        let dropped = classify(&folder.path().join("gone.txt"));
        assert_eq!(dropped.kind, DropKind::Unreadable);
        assert!(!dropped.kind.is_sendable());
        let reason = dropped.reason.expect("a reason");
        assert!(reason.contains("No such file"), "{reason}");
    }

    #[test]
    fn image_over_the_attachment_cap_is_too_large() {
        let folder = tempfile::tempdir().expect("temp dir");
        let path = folder.path().join("huge.png");
        let file = fs::File::create(&path).expect("create");
        file.set_len(MAX_ATTACHMENT_BYTES + 1).expect("grow");
        drop(file);
        let mut bytes = fs::read(&path).expect("read");
        bytes[..PNG.len()].copy_from_slice(PNG);
        fs::write(&path, bytes).expect("write");
        let dropped = classify(&path);
        assert_eq!(dropped.kind, DropKind::TooLarge);
        assert_eq!(dropped.size, Some(MAX_ATTACHMENT_BYTES + 1));
    }
}
