//! The Read tool: numbered lines of a text file, a directory listing, or an image/PDF as an
//! attachment — with OpenCode's caps, trailers and error strings, so the model sees exactly
//! what it would see under OpenCode. Used by the prompt pipeline and, later, the agent loop.

use crate::wire::human_size::human_size;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

pub const DEFAULT_READ_LIMIT: usize = 2000;
pub const MAX_LINE_LENGTH: usize = 2000;
pub const MAX_BYTES: usize = 50 * 1024;
const MAX_BYTES_LABEL: &str = "50 KB";
const SAMPLE_BYTES: usize = 4096;
/// Images and PDFs above this are refused rather than read into memory whole.
pub const MAX_ATTACHMENT_BYTES: u64 = 20 * 1024 * 1024;

const BINARY_EXTENSIONS: &[&str] = &[
    "zip", "tar", "gz", "exe", "dll", "so", "class", "jar", "war", "7z", "doc", "docx", "xls",
    "xlsx", "ppt", "pptx", "odt", "ods", "odp", "bin", "dat", "obj", "o", "a", "lib", "wasm",
    "pyc", "pyo",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRequest {
    pub file_path: PathBuf,
    /// 1-based first line (or entry) to show.
    pub offset: Option<usize>,
    pub limit: Option<usize>,
}

impl ReadRequest {
    pub fn whole(path: impl Into<PathBuf>) -> Self {
        Self {
            file_path: path.into(),
            offset: None,
            limit: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub mime: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOutput {
    pub title: String,
    pub output: String,
    /// The first 20 lines shown, for previews.
    pub preview: String,
    pub truncated: bool,
    pub attachments: Vec<Attachment>,
    pub kind: ReadKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    Text,
    Directory,
    Image,
    Pdf,
}

/// The Read tool's failures, each displayed with OpenCode's exact wording.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("File not found: {path}{}", suggestion_text(suggestions))]
    NotFound {
        path: String,
        suggestions: Vec<String>,
    },
    #[error("Cannot read binary file: {0}")]
    Binary(String),
    #[error("Offset {offset} is out of range for this file ({total} lines)")]
    OffsetOutOfRange { offset: usize, total: usize },
    #[error("{path} is {size}; images and PDFs are limited to {limit}")]
    AttachmentTooLarge {
        path: String,
        size: String,
        limit: String,
    },
    #[error("{message}")]
    Io { message: String },
}

fn suggestion_text(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!("\n\nDid you mean one of these?\n{}", suggestions.join("\n"))
    }
}

pub fn read(request: &ReadRequest) -> Result<ReadOutput, ReadError> {
    let path = &request.file_path;
    let display = path.display().to_string();
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(ReadError::NotFound {
                path: display,
                suggestions: suggestions_for(path),
            })
        }
        Err(error) => return Err(io_error(&display, &error)),
    };
    if metadata.is_dir() {
        return read_directory(path, request);
    }
    let mut file = fs::File::open(path).map_err(|error| io_error(&display, &error))?;
    let mut sample = vec![0; SAMPLE_BYTES];
    let sampled =
        read_sample(&mut file, &mut sample).map_err(|error| io_error(&display, &error))?;
    sample.truncate(sampled);
    if let Some((mime, kind)) = sniff_media(&sample) {
        if metadata.len() > MAX_ATTACHMENT_BYTES {
            return Err(ReadError::AttachmentTooLarge {
                path: display,
                size: human_size(metadata.len()),
                limit: human_size(MAX_ATTACHMENT_BYTES),
            });
        }
        let bytes = fs::read(path).map_err(|error| io_error(&display, &error))?;
        return Ok(media_output(display, mime, kind, bytes));
    }
    if is_binary(path, &sample) {
        return Err(ReadError::Binary(display));
    }
    let file = fs::File::open(path).map_err(|error| io_error(&display, &error))?;
    read_text(BufReader::new(file), &display, request)
}

/// `read` of a regular file whose whole content the caller already holds (`content`, read from
/// `request.file_path` at once): the same output, without opening the file again.
pub fn read_content(request: &ReadRequest, content: &[u8]) -> Result<ReadOutput, ReadError> {
    let path = &request.file_path;
    let display = path.display().to_string();
    let sample = &content[..content.len().min(SAMPLE_BYTES)];
    if let Some((mime, kind)) = sniff_media(sample) {
        // Callers hold small files only, far below MAX_ATTACHMENT_BYTES.
        return Ok(media_output(display, mime, kind, content.to_vec()));
    }
    if is_binary(path, sample) {
        return Err(ReadError::Binary(display));
    }
    read_text(content, &display, request)
}

/// An image or PDF read whole: attached, with OpenCode's one-line output.
fn media_output(display: String, mime: &str, kind: ReadKind, bytes: Vec<u8>) -> ReadOutput {
    let output = if kind == ReadKind::Pdf {
        "PDF read successfully"
    } else {
        "Image read successfully"
    };
    ReadOutput {
        title: display,
        output: output.into(),
        preview: output.into(),
        truncated: false,
        attachments: vec![Attachment {
            mime: mime.into(),
            bytes,
        }],
        kind,
    }
}

fn read_sample(file: &mut fs::File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            count => filled += count,
        }
    }
    Ok(filled)
}

fn io_error(path: &str, error: &std::io::Error) -> ReadError {
    ReadError::Io {
        message: format!("Cannot read {path}: {error}"),
    }
}

/// Up to three siblings whose names contain the missing name or are contained in it.
fn suggestions_for(path: &Path) -> Vec<String> {
    let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let wanted = name.to_string_lossy().to_lowercase();
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().to_string())
        .filter(|entry| {
            let lower = entry.to_lowercase();
            lower.contains(&wanted) || wanted.contains(&lower)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .take(3)
        .map(|entry| folder.join(entry).display().to_string())
        .collect()
}

/// Images the models accept, and PDFs, recognised by their magic bytes (never by extension).
pub fn sniff_media(sample: &[u8]) -> Option<(&'static str, ReadKind)> {
    if sample.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(("image/png", ReadKind::Image))
    } else if sample.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(("image/jpeg", ReadKind::Image))
    } else if sample.starts_with(b"GIF87a") || sample.starts_with(b"GIF89a") {
        Some(("image/gif", ReadKind::Image))
    } else if sample.len() >= 12 && sample.starts_with(b"RIFF") && &sample[8..12] == b"WEBP" {
        Some(("image/webp", ReadKind::Image))
    } else if sample.starts_with(b"%PDF-") {
        Some(("application/pdf", ReadKind::Pdf))
    } else {
        None
    }
}

/// Known binary extensions, a NUL byte in the first 4 KB, or more than 30 % non-printable bytes.
pub fn is_binary(path: &Path, sample: &[u8]) -> bool {
    let extension = path
        .extension()
        .map(|extension| extension.to_string_lossy().to_lowercase());
    if extension.is_some_and(|extension| BINARY_EXTENSIONS.contains(&extension.as_str())) {
        return true;
    }
    if sample.is_empty() {
        return false;
    }
    if sample.contains(&0) {
        return true;
    }
    let non_printable = sample
        .iter()
        .filter(|byte| **byte < 9 || (**byte > 13 && **byte < 32))
        .count();
    non_printable * 10 > sample.len() * 3
}

fn read_directory(path: &Path, request: &ReadRequest) -> Result<ReadOutput, ReadError> {
    let display = path.display().to_string();
    let entries = fs::read_dir(path).map_err(|error| io_error(&display, &error))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().to_string();
            // fs::metadata follows symlinks, so a link to a folder is listed as a folder.
            if fs::metadata(entry.path()).is_ok_and(|metadata| metadata.is_dir()) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    names.sort();
    let offset = request.offset.unwrap_or(1).max(1);
    let limit = request.limit.unwrap_or(DEFAULT_READ_LIMIT);
    let start = offset - 1;
    let shown: Vec<&String> = names.iter().skip(start).take(limit).collect();
    let truncated = start + shown.len() < names.len();
    let listing = shown
        .iter()
        .map(|name| name.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let trailer = if truncated {
        format!(
            "\n(Showing {} of {} entries. Use 'offset' parameter to read beyond entry {})",
            shown.len(),
            names.len(),
            offset + shown.len()
        )
    } else {
        format!("\n({} entries)", names.len())
    };
    let output = [
        format!("<path>{display}</path>"),
        "<type>directory</type>".into(),
        "<entries>".into(),
        listing.clone(),
        trailer,
        "</entries>".into(),
    ]
    .join("\n");
    Ok(ReadOutput {
        title: display,
        output,
        preview: shown
            .iter()
            .take(20)
            .map(|name| name.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        truncated,
        attachments: Vec::new(),
        kind: ReadKind::Directory,
    })
}

fn read_text(
    mut reader: impl BufRead,
    display: &str,
    request: &ReadRequest,
) -> Result<ReadOutput, ReadError> {
    let offset = request.offset.unwrap_or(1).max(1);
    let limit = request.limit.unwrap_or(DEFAULT_READ_LIMIT);
    let mut shown: Vec<String> = Vec::new();
    let mut total = 0usize;
    let mut bytes = 0usize;
    let mut cut = false;
    let mut more = false;
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        let read = reader
            .read_until(b'\n', &mut buffer)
            .map_err(|error| io_error(display, &error))?;
        if read == 0 {
            break;
        }
        total += 1;
        if total < offset {
            continue;
        }
        if shown.len() >= limit || cut {
            // Keep counting so the trailer can say how many lines there are in all.
            more = true;
            continue;
        }
        let line = String::from_utf8_lossy(&buffer);
        let line = line.strip_suffix('\n').unwrap_or(&line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = if line.chars().count() > MAX_LINE_LENGTH {
            let kept: String = line.chars().take(MAX_LINE_LENGTH).collect();
            format!("{kept}... (line truncated to {MAX_LINE_LENGTH} chars)")
        } else {
            line.to_string()
        };
        let size = line.len() + usize::from(!shown.is_empty());
        if bytes + size > MAX_BYTES {
            cut = true;
            more = true;
            continue;
        }
        bytes += size;
        shown.push(line);
    }
    if total < offset && !(total == 0 && offset == 1) {
        return Err(ReadError::OffsetOutOfRange { offset, total });
    }
    let numbered: Vec<String> = shown
        .iter()
        .enumerate()
        .map(|(index, line)| format!("{}: {line}", index + offset))
        .collect();
    let last_read = offset + shown.len() - 1;
    let next = last_read + 1;
    let trailer = if cut {
        format!("(Output capped at {MAX_BYTES_LABEL}. Showing lines {offset}-{last_read}. Use offset={next} to continue.)")
    } else if more {
        format!("(Showing lines {offset}-{last_read} of {total}. Use offset={next} to continue.)")
    } else {
        format!("(End of file - total {total} lines)")
    };
    let output = format!(
        "<path>{display}</path>\n<type>file</type>\n<content>\n{}\n\n{trailer}\n</content>",
        numbered.join("\n")
    );
    Ok(ReadOutput {
        title: display.to_string(),
        output,
        preview: shown
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n"),
        truncated: more,
        attachments: Vec::new(),
        kind: ReadKind::Text,
    })
}

#[cfg(test)]
mod tests;
