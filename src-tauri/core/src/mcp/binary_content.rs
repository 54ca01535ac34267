//! OpenCode's rule for binary MCP content (a resource's `blob`, an embedded resource in a tool
//! result): attached only when it is a PDF or a GIF, JPEG, PNG or WebP image of at most 10 MiB,
//! otherwise replaced by a note saying what was left out and why. The sizes are said OpenCode's
//! way ("12 KB", rounded up).

pub const MAX_BLOB_BYTES: u64 = 10 * 1024 * 1024;

pub const SUPPORTED_MIMES: [&str; 5] = [
    "application/pdf",
    "image/gif",
    "image/jpeg",
    "image/png",
    "image/webp",
];

/// The decoded size of base64 text, without decoding it.
pub fn base64_size(value: &str) -> u64 {
    let trimmed: String = value
        .chars()
        .filter(|symbol| !symbol.is_whitespace())
        .collect();
    let padding = if trimmed.ends_with("==") {
        2
    } else if trimmed.ends_with('=') {
        1
    } else {
        0
    };
    ((trimmed.len() as u64 * 3) / 4).saturating_sub(padding)
}

pub fn format_bytes(value: u64) -> String {
    if value < 1024 {
        format!("{value} B")
    } else if value < 1024 * 1024 {
        format!("{} KB", value.div_ceil(1024))
    } else {
        format!("{} MB", value.div_ceil(1024 * 1024))
    }
}

/// Why a blob was left out. Its text is the note that takes the blob's place, OpenCode's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OmittedBinary {
    #[error("[Binary MCP resource omitted: {label} ({mime}, {}) is not a supported attachment type]", format_bytes(*size))]
    UnsupportedType {
        label: String,
        mime: String,
        size: u64,
    },
    #[error("[Binary MCP resource omitted: {label} ({mime}, {}) exceeds {}]", format_bytes(*size), format_bytes(MAX_BLOB_BYTES))]
    TooLarge {
        label: String,
        mime: String,
        size: u64,
    },
}

/// `Ok(())` when the blob may be attached, else why not (its text is the note that replaces it).
pub fn check(label: &str, mime: &str, base64: &str) -> Result<(), OmittedBinary> {
    let size = base64_size(base64);
    if !SUPPORTED_MIMES.contains(&mime) {
        return Err(OmittedBinary::UnsupportedType {
            label: label.to_string(),
            mime: mime.to_string(),
            size,
        });
    }
    if size > MAX_BLOB_BYTES {
        return Err(OmittedBinary::TooLarge {
            label: label.to_string(),
            mime: mime.to_string(),
            size,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_notes_as_opencode_says_them() {
        assert_eq!(base64_size("YWJjZA=="), 4);
        assert_eq!(base64_size("YWJj"), 3);
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1025), "2 KB");
        assert_eq!(format_bytes(MAX_BLOB_BYTES), "10 MB");
        assert_eq!(check("x://a", "image/png", "YWJjZA=="), Ok(()));
        assert_eq!(
            check("x://a", "audio/wav", "YWJjZA==").map_err(|note| note.to_string()),
            Err("[Binary MCP resource omitted: x://a (audio/wav, 4 B) is not a supported attachment type]".into())
        );
        let big = "A".repeat(15 * 1024 * 1024);
        assert_eq!(
            check("x://big", "application/pdf", &big).map_err(|note| note.to_string()),
            Err(
                "[Binary MCP resource omitted: x://big (application/pdf, 12 MB) exceeds 10 MB]"
                    .into()
            )
        );
    }
}
