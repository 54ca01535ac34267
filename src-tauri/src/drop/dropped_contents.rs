//! Files dropped or picked while attached to a server: the server cannot read this computer's
//! disk, so each file goes as its contents — a `data:` URL, as the browser build sends a picked
//! file — read here, in the shell, right after the drop. The caps are the local ones (the Read
//! tool's attachment limit, which the server's pipeline also enforces), and every file that
//! cannot go keeps its own chip with the reason, so the rest of the prompt is untouched.

use crate::drop::classification::{DropKind, DroppedFile};
use base64::Engine;
use dossier_core::pipeline::read_tool::MAX_ATTACHMENT_BYTES;
use dossier_core::wire::human_size::human_size;
use std::path::Path;

pub const FOLDER_REASON: &str = "folders cannot be sent to a server yet: drop the files in it";

/// The classified files as the server can take them. Files that could not be sent locally
/// either are passed through unchanged.
pub fn for_server(files: Vec<DroppedFile>) -> Vec<DroppedFile> {
    files.into_iter().map(contents_of).collect()
}

fn contents_of(file: DroppedFile) -> DroppedFile {
    match file.kind {
        DropKind::Folder => DroppedFile {
            kind: DropKind::Unreadable,
            reason: Some(FOLDER_REASON.into()),
            ..file
        },
        DropKind::Text | DropKind::Image | DropKind::Pdf => {
            if file.size.is_some_and(|size| size > MAX_ATTACHMENT_BYTES) {
                return too_large(file);
            }
            match std::fs::read(Path::new(&file.path)) {
                Ok(bytes) if bytes.len() as u64 > MAX_ATTACHMENT_BYTES => too_large(file),
                Ok(bytes) => DroppedFile {
                    url: format!(
                        "data:{};base64,{}",
                        file.mime,
                        base64::engine::general_purpose::STANDARD.encode(&bytes)
                    ),
                    size: Some(bytes.len() as u64),
                    ..file
                },
                Err(error) => DroppedFile {
                    kind: DropKind::Unreadable,
                    reason: Some(error.to_string()),
                    ..file
                },
            }
        }
        DropKind::Binary | DropKind::TooLarge | DropKind::Unreadable => file,
    }
}

fn too_large(file: DroppedFile) -> DroppedFile {
    DroppedFile {
        kind: DropKind::TooLarge,
        reason: Some(format!(
            "files sent to a server are limited to {}",
            human_size(MAX_ATTACHMENT_BYTES)
        )),
        ..file
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;
    use crate::drop::classification::classify;

    #[test]
    fn text_and_images_go_as_data_urls_of_their_bytes() {
        let folder = tempfile::tempdir().unwrap();
        let notes = folder.path().join("notes.txt");
        std::fs::write(&notes, "alpha\nbeta\n").unwrap();
        let image = folder.path().join("dot.png");
        std::fs::write(&image, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        let sent = for_server(vec![classify(&notes), classify(&image)]);
        assert_eq!(sent[0].kind, DropKind::Text);
        assert_eq!(sent[0].url, "data:text/plain;base64,YWxwaGEKYmV0YQo=");
        assert_eq!(sent[0].path, notes.display().to_string());
        assert_eq!(sent[1].kind, DropKind::Image);
        assert!(
            sent[1].url.starts_with("data:image/png;base64,iVBORw0KGgo"),
            "{}",
            sent[1].url
        );
    }

    #[test]
    fn folders_big_and_vanished_files_get_their_own_reason_and_the_rest_still_goes() {
        let folder = tempfile::tempdir().unwrap();
        let kept = folder.path().join("kept.txt");
        std::fs::write(&kept, "kept").unwrap();
        let big = folder.path().join("big.log");
        // Text at the start (what classification samples), then room up to one byte over.
        std::fs::write(&big, "a".repeat(8192)).unwrap();
        let file = std::fs::OpenOptions::new().write(true).open(&big).unwrap();
        file.set_len(MAX_ATTACHMENT_BYTES + 1).unwrap();
        drop(file);
        let vanished = folder.path().join("vanished.txt");
        std::fs::write(&vanished, "soon gone").unwrap();
        let classified = vec![
            classify(folder.path()),
            classify(&big),
            classify(&vanished),
            classify(&kept),
        ];
        std::fs::remove_file(&vanished).unwrap();
        let sent = for_server(classified);
        assert_eq!(sent[0].kind, DropKind::Unreadable);
        assert_eq!(sent[0].reason.as_deref(), Some(FOLDER_REASON));
        assert_eq!(sent[1].kind, DropKind::TooLarge);
        assert!(sent[1].reason.as_deref().unwrap().contains("limited to"));
        assert_eq!(sent[2].kind, DropKind::Unreadable);
        assert!(
            sent[2].reason.as_deref().unwrap().contains("No such file"),
            "{:?}",
            sent[2].reason
        );
        assert_eq!(sent[3].url, "data:text/plain;base64,a2VwdA==");
    }
}
