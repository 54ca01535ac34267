//! Expanding drafts into stored parts, contract §3 step 4: a dropped text file becomes the Read
//! tool's output (a one-line range widened to the symbol on that line, `symbol_range.rs`), a
//! folder its listing, an image or PDF an attachment, an `@agent` a hint for
//! the task tool, and a failure an honest synthetic note. Drafts resolve concurrently and the
//! output keeps their input order. A failed read never fails the prompt.

use crate::mcp::binary_content;
use crate::models::agent::Agent;
use crate::pipeline::mcp_resource::{McpResources, ResourceContent};
use crate::pipeline::read_at_once::read_at_once;
use crate::pipeline::read_tool::{self, ReadKind, ReadRequest, MAX_ATTACHMENT_BYTES};
use crate::pipeline::symbol_range;
use crate::wire::assistant_error::AssistantError;
use crate::wire::data_url;
use crate::wire::draft::Draft;
use crate::wire::human_size::human_size;
use crate::wire::part::{FilePart, FileSource, PartBody};
use crate::wire::permission::{evaluate, Action};
use std::path::{Path, PathBuf};

pub const DIRECTORY_MIME: &str = "application/x-directory";

/// One resolved part; `id` is the draft's own id for the part that stands for the draft.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedPart {
    pub id: Option<String>,
    pub body: PartBody,
}

#[derive(Debug, Default)]
pub struct Resolution {
    pub parts: Vec<ResolvedPart>,
    /// `session.error` payloads to publish once the prompt is saved.
    pub errors: Vec<AssistantError>,
}

pub struct DraftContext<'a> {
    pub agent: &'a Agent,
    pub mcp: &'a dyn McpResources,
}

fn synthetic(text: impl Into<String>) -> ResolvedPart {
    ResolvedPart {
        id: None,
        body: PartBody::synthetic_text(text),
    }
}

fn read_call(input: &serde_json::Value) -> String {
    format!("Called the Read tool with the following input: {input}")
}

/// Resolves every draft concurrently; the result is in input order.
pub async fn resolve_all(context: &DraftContext<'_>, drafts: Vec<Draft>) -> Resolution {
    let resolutions =
        futures::future::join_all(drafts.into_iter().map(|draft| resolve_one(context, draft)))
            .await;
    let mut combined = Resolution::default();
    for resolution in resolutions {
        combined.parts.extend(resolution.parts);
        combined.errors.extend(resolution.errors);
    }
    combined
}

async fn resolve_one(context: &DraftContext<'_>, draft: Draft) -> Resolution {
    match draft {
        Draft::Text(draft) => Resolution {
            parts: vec![ResolvedPart {
                id: draft.id,
                body: PartBody::Text(draft.part),
            }],
            errors: Vec::new(),
        },
        Draft::Subtask(draft) => Resolution {
            parts: vec![ResolvedPart {
                id: draft.id,
                body: PartBody::Subtask(draft.part),
            }],
            errors: Vec::new(),
        },
        Draft::Agent(draft) => {
            let name = draft.part.name.clone();
            let denied = evaluate("task", &name, &[&context.agent.permission]) == Action::Deny;
            let hint = if denied {
                " . Invoked by user; guaranteed to exist."
            } else {
                ""
            };
            Resolution {
                parts: vec![
                    ResolvedPart {
                        id: draft.id,
                        body: PartBody::Agent(draft.part),
                    },
                    synthetic(format!(
                        " Use the above message and context to generate a prompt and call the task tool with subagent: {name}{hint}"
                    )),
                ],
                errors: Vec::new(),
            }
        }
        Draft::File(draft) => resolve_file(context, draft.id, draft.part).await,
    }
}

async fn resolve_file(
    context: &DraftContext<'_>,
    id: Option<String>,
    part: FilePart,
) -> Resolution {
    if let Some(FileSource::Resource {
        client_name, uri, ..
    }) = &part.source
    {
        return resolve_mcp_resource(context, id, client_name.clone(), uri.clone(), part).await;
    }
    if part.url.starts_with("data:") {
        return resolve_data_url(id, part);
    }
    if part.url.starts_with("file:") {
        return resolve_file_url(id, part).await;
    }
    // http(s) and anything else validated upstream: stored as given, never fetched.
    Resolution {
        parts: vec![ResolvedPart {
            id,
            body: PartBody::File(part),
        }],
        errors: Vec::new(),
    }
}

async fn resolve_mcp_resource(
    context: &DraftContext<'_>,
    id: Option<String>,
    client_name: String,
    uri: String,
    part: FilePart,
) -> Resolution {
    let filename = part.filename.clone().unwrap_or_else(|| uri.clone());
    let mut parts = vec![synthetic(format!(
        "Reading MCP resource: {filename} ({uri})"
    ))];
    match context.mcp.read(&client_name, &uri).await {
        Ok(contents) => {
            for content in contents {
                match content {
                    ResourceContent::Text(text) => parts.push(synthetic(text)),
                    ResourceContent::Blob {
                        uri: item_uri,
                        mime,
                        base64,
                    } => {
                        let mime = mime.unwrap_or_else(|| part.mime.clone());
                        let label = item_uri.unwrap_or_else(|| filename.clone());
                        match binary_content::check(&label, &mime, &base64) {
                            Err(note) => parts.push(synthetic(note.to_string())),
                            Ok(()) => {
                                parts.push(synthetic(format!(
                                    "[Binary MCP resource attached: {label} ({mime})]"
                                )));
                                parts.push(ResolvedPart {
                                    id: None,
                                    body: PartBody::File(FilePart {
                                        url: format!("data:{mime};base64,{base64}"),
                                        mime,
                                        filename: Some(label),
                                        source: None,
                                    }),
                                });
                            }
                        }
                    }
                }
            }
            parts.push(ResolvedPart {
                id,
                body: PartBody::File(part),
            });
        }
        Err(message) => parts.push(synthetic(format!(
            "Failed to read MCP resource {filename}: {message}"
        ))),
    }
    Resolution {
        parts,
        errors: Vec::new(),
    }
}

fn failure(path: &str, message: impl std::fmt::Display) -> Resolution {
    let message = message.to_string();
    Resolution {
        parts: vec![synthetic(format!(
            "Read tool failed to read {path} with the following error: {message}"
        ))],
        errors: vec![AssistantError::unknown(&message)],
    }
}

fn resolve_data_url(id: Option<String>, part: FilePart) -> Resolution {
    let label = part.filename.clone().unwrap_or_else(|| "attachment".into());
    let decoded = match data_url::parse(&part.url) {
        Ok(decoded) => decoded,
        Err(message) => return failure(&label, &message),
    };
    if decoded.bytes.len() as u64 > MAX_ATTACHMENT_BYTES {
        return failure(
            &label,
            format!(
                "{label} is {}; attachments are limited to {}",
                human_size(decoded.bytes.len() as u64),
                human_size(MAX_ATTACHMENT_BYTES)
            ),
        );
    }
    if part.mime != "text/plain" {
        return Resolution {
            parts: vec![ResolvedPart {
                id,
                body: PartBody::File(part),
            }],
            errors: Vec::new(),
        };
    }
    let input = match &part.filename {
        Some(filename) => serde_json::json!({ "filePath": filename }),
        None => serde_json::json!({}),
    };
    Resolution {
        parts: vec![
            synthetic(read_call(&input)),
            synthetic(String::from_utf8_lossy(&decoded.bytes).to_string()),
            ResolvedPart {
                id,
                body: PartBody::File(part),
            },
        ],
        errors: Vec::new(),
    }
}

/// The local path behind a `file:` URL, and the `?start=&end=` line range if any. A `#` in a
/// file name that a client forgot to escape arrives as a fragment; it is put back when only the
/// joined name exists on disk.
pub fn file_url_target(url: &str) -> Result<(PathBuf, Option<usize>, Option<usize>), FileUrlError> {
    let parsed = url::Url::parse(url).map_err(|source| FileUrlError::Invalid {
        url: url.to_string(),
        source,
    })?;
    let mut path = parsed.to_file_path().map_err(|()| FileUrlError::NotLocal {
        url: url.to_string(),
    })?;
    if let Some(fragment) = parsed.fragment() {
        let decoded = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy();
        let joined = PathBuf::from(format!("{}#{decoded}", path.display()));
        if !path.exists() && joined.exists() {
            path = joined;
        }
    }
    let mut start = None;
    let mut end = None;
    for (key, value) in parsed.query_pairs() {
        match key.as_ref() {
            "start" => start = value.parse().ok(),
            "end" => end = value.parse().ok(),
            _ => {}
        }
    }
    Ok((path, start, end))
}

/// `offset = max(start, 1)`, `limit = end − offset + 1`, as the Read tool's input. As in the
/// seed, a range is read only when `start` is given (`if (range.start != null)`), and a limit is
/// set only for an `end` other than 0 (`if (end)`: 0 is false in JavaScript, so `?start=0&end=0`
/// reads from line 1 with the Read tool's own window, as OpenCode records it — measured beside
/// OpenCode, `docs/symbols.md`).
pub fn range_to_read_window(
    start: Option<usize>,
    end: Option<usize>,
) -> (Option<usize>, Option<usize>) {
    let Some(start) = start else {
        return (None, None);
    };
    let offset = start.max(1);
    let limit = end
        .filter(|end| *end != 0)
        .map(|end| end.saturating_add(1).saturating_sub(offset).max(1));
    (Some(offset), limit)
}

async fn resolve_file_url(id: Option<String>, part: FilePart) -> Resolution {
    let (path, start, end) = match file_url_target(&part.url) {
        Ok(target) => target,
        Err(message) => return failure(&part.url, &message),
    };
    let display = path.display().to_string();
    let wants_text = part.mime == "text/plain" || part.mime.is_empty();
    // A range may widen to a symbol, which parses the file: always on a blocking thread.
    let at_once = (start.is_none() && end.is_none())
        .then(|| read_at_once(&path))
        .flatten();
    let inspected = match at_once {
        Some(content) => inspect_content(&path, wants_text, &content),
        None => {
            let path = path.clone();
            match tokio::task::spawn_blocking(move || inspect(&path, wants_text, start, end)).await
            {
                Ok(inspected) => inspected,
                Err(error) => {
                    return failure(&display, format!("the read was interrupted: {error}"))
                }
            }
        }
    };
    match inspected {
        Inspected::Directory => resolve_directory(id, part, path).await,
        Inspected::Media => resolve_media(id, part, path).await,
        Inspected::Binary => failure(
            &display,
            format!(
                "{display} is a binary file ({}); only text files, folders, images and PDFs can be attached",
                part.mime
            ),
        ),
        // Text, media or binary labelled text/plain, or a missing file: the Read tool decided
        // and worded the outcome ("File not found", "Cannot read binary file", an attachment).
        Inspected::Text { start, end, read } => {
            text_resolution(id, part, path, start, end, read.map_err(ReadFailure::from))
        }
    }
}

/// What one trip to a blocking thread learned about a dropped file: what it is, and for a file
/// read as text the Read tool's answer. One trip instead of one per step (look, widen the range,
/// read): each is a wake-up of a sleeping thread, the most of what a prompt with a file cost
/// (docs/benchmarks.md).
enum Inspected {
    Directory,
    /// An image or PDF the draft did not ask to read as text.
    Media,
    /// A binary file the draft did not ask to read as text.
    Binary,
    Text {
        start: Option<usize>,
        end: Option<usize>,
        read: Result<read_tool::ReadOutput, read_tool::ReadError>,
    },
}

fn inspect(path: &Path, wants_text: bool, start: Option<usize>, end: Option<usize>) -> Inspected {
    match sniff(path) {
        Sniffed::Directory => return Inspected::Directory,
        Sniffed::Media if !wants_text => return Inspected::Media,
        Sniffed::Binary if !wants_text => return Inspected::Binary,
        _ => {}
    }
    let (start, end) = widen_to_symbol(path, start, end);
    let (offset, limit) = range_to_read_window(start, end);
    let read = read_tool::read(&ReadRequest {
        file_path: path.to_path_buf(),
        offset,
        limit,
    });
    Inspected::Text { start, end, read }
}

/// `inspect` of a small regular file whose whole content was read at once (`read_at_once`),
/// read as a whole (no range).
fn inspect_content(path: &Path, wants_text: bool, content: &[u8]) -> Inspected {
    let sample = &content[..content.len().min(SNIFF_BYTES)];
    if !wants_text {
        if read_tool::sniff_media(sample).is_some() {
            return Inspected::Media;
        }
        if read_tool::is_binary(path, sample) {
            return Inspected::Binary;
        }
    }
    Inspected::Text {
        start: None,
        end: None,
        read: read_tool::read_content(&ReadRequest::whole(path), content),
    }
}

/// How much of a file `sniff` looks at.
const SNIFF_BYTES: usize = 4096;

enum Sniffed {
    Directory,
    Media,
    Binary,
    Text,
    Unknown,
}

fn sniff(path: &Path) -> Sniffed {
    use std::io::Read;
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => return Sniffed::Directory,
        Ok(_) => {}
        Err(_) => return Sniffed::Unknown,
    }
    let mut sample = vec![0; SNIFF_BYTES];
    let read = std::fs::File::open(path).and_then(|mut file| file.read(&mut sample));
    let Ok(read) = read else {
        return Sniffed::Unknown;
    };
    sample.truncate(read);
    if read_tool::sniff_media(&sample).is_some() {
        Sniffed::Media
    } else if read_tool::is_binary(path, &sample) {
        Sniffed::Binary
    } else {
        Sniffed::Text
    }
}

/// A `file:` URL that names no local file.
#[derive(Debug, thiserror::Error)]
pub enum FileUrlError {
    #[error("\"{url}\" is not a valid file URL: {source}")]
    Invalid {
        url: String,
        source: url::ParseError,
    },
    #[error("\"{url}\" does not name a local file")]
    NotLocal { url: String },
}

/// Why the Read tool produced nothing for a draft.
#[derive(Debug, thiserror::Error)]
enum ReadFailure {
    #[error(transparent)]
    Read(#[from] read_tool::ReadError),
    #[error("the read was interrupted: {0}")]
    Interrupted(#[from] tokio::task::JoinError),
}

/// `symbol_range::widen_to_symbol`, on the blocking thread `inspect` runs on (it may read and
/// parse the file). A lookup that panics reads the one line, as the seed does when the language
/// server fails.
fn widen_to_symbol(
    path: &Path,
    start: Option<usize>,
    end: Option<usize>,
) -> (Option<usize>, Option<usize>) {
    if start.is_none() || start != end {
        return (start, end);
    }
    std::panic::catch_unwind(|| symbol_range::widen_to_symbol(path, start, end))
        .unwrap_or((start, end))
}

async fn run_read(request: ReadRequest) -> Result<read_tool::ReadOutput, ReadFailure> {
    Ok(tokio::task::spawn_blocking(move || read_tool::read(&request)).await??)
}

fn default_filename(part: &FilePart, path: &Path) -> String {
    part.filename.clone().unwrap_or_else(|| {
        path.file_name().map_or_else(
            || path.display().to_string(),
            |name| name.to_string_lossy().to_string(),
        )
    })
}

/// The parts of a file read as text: the Read tool's call, its output, and the file (or what
/// the read attached instead), from what `inspect` read with the window it settled on.
fn text_resolution(
    id: Option<String>,
    part: FilePart,
    path: PathBuf,
    start: Option<usize>,
    end: Option<usize>,
    read: Result<read_tool::ReadOutput, ReadFailure>,
) -> Resolution {
    let display = path.display().to_string();
    let (offset, limit) = range_to_read_window(start, end);
    let mut input = serde_json::Map::new();
    input.insert("filePath".into(), display.clone().into());
    if let Some(offset) = offset {
        input.insert("offset".into(), offset.into());
    }
    if let Some(limit) = limit {
        input.insert("limit".into(), limit.into());
    }
    let call = synthetic(read_call(&serde_json::Value::Object(input)));
    let output = match read {
        Ok(output) => output,
        Err(message) => {
            // The seed records the call before trying it, so a model reading the history sees
            // which read failed, not a failure out of nowhere (the folder branch does not).
            let mut failed = failure(&display, &message);
            failed.parts.insert(0, call);
            return failed;
        }
    };
    let mut parts = vec![call, synthetic(output.output)];
    if output.attachments.is_empty() {
        parts.push(ResolvedPart {
            id,
            body: PartBody::File(part),
        });
    } else {
        let filename = default_filename(&part, &path);
        let mut attachments = output.attachments.into_iter();
        if let Some(first) = attachments.next() {
            parts.push(ResolvedPart {
                id,
                body: PartBody::File(FilePart {
                    mime: first.mime.clone(),
                    filename: Some(filename.clone()),
                    url: data_url::build(&first.mime, &first.bytes),
                    source: part.source.clone(),
                }),
            });
        }
        for attachment in attachments {
            parts.push(ResolvedPart {
                id: None,
                body: PartBody::File(FilePart {
                    mime: attachment.mime.clone(),
                    filename: Some(filename.clone()),
                    url: data_url::build(&attachment.mime, &attachment.bytes),
                    source: None,
                }),
            });
        }
    }
    Resolution {
        parts,
        errors: Vec::new(),
    }
}

async fn resolve_directory(id: Option<String>, part: FilePart, path: PathBuf) -> Resolution {
    let display = path.display().to_string();
    let output = match run_read(ReadRequest::whole(path.clone())).await {
        Ok(output) => output,
        Err(message) => return failure(&display, &message),
    };
    Resolution {
        parts: vec![
            synthetic(read_call(&serde_json::json!({ "filePath": display }))),
            synthetic(output.output),
            ResolvedPart {
                id,
                body: PartBody::File(FilePart {
                    mime: DIRECTORY_MIME.into(),
                    filename: Some(default_filename(&part, &path)),
                    url: part.url,
                    source: part.source,
                }),
            },
        ],
        errors: Vec::new(),
    }
}

async fn resolve_media(id: Option<String>, part: FilePart, path: PathBuf) -> Resolution {
    let display = path.display().to_string();
    let output = match run_read(ReadRequest::whole(path.clone())).await {
        Ok(output) => output,
        Err(message) => return failure(&display, &message),
    };
    let Some(attachment) = output.attachments.into_iter().next() else {
        return failure(&display, "the file is not an image or PDF after all");
    };
    debug_assert!(matches!(output.kind, ReadKind::Image | ReadKind::Pdf));
    Resolution {
        parts: vec![
            // OpenCode interpolates the path here without JSON escaping; so do we.
            synthetic(format!(
                "Called the Read tool with the following input: {{\"filePath\":\"{display}\"}}"
            )),
            ResolvedPart {
                id,
                body: PartBody::File(FilePart {
                    mime: attachment.mime.clone(),
                    filename: Some(default_filename(&part, &path)),
                    url: data_url::build(&attachment.mime, &attachment.bytes),
                    source: part.source,
                }),
            },
        ],
        errors: Vec::new(),
    }
}
