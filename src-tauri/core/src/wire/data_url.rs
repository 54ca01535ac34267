//! `data:` URLs: parsing (base64 or percent-encoded) and building.

use base64::Engine;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataUrl {
    pub mime: String,
    pub bytes: Vec<u8>,
}

/// Why a `data:` URL could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataUrlError {
    #[error("not a data: URL")]
    NotDataUrl,
    #[error("the data: URL has no comma before its content")]
    NoComma,
    #[error("the data: URL's base64 is invalid: {0}")]
    InvalidBase64(#[from] base64::DecodeError),
}

pub fn parse(url: &str) -> Result<DataUrl, DataUrlError> {
    let rest = url.strip_prefix("data:").ok_or(DataUrlError::NotDataUrl)?;
    let (header, payload) = rest.split_once(',').ok_or(DataUrlError::NoComma)?;
    let mut pieces = header.split(';');
    let mime = pieces
        .next()
        .filter(|mime| !mime.is_empty())
        .unwrap_or("text/plain");
    let is_base64 = pieces.any(|piece| piece.eq_ignore_ascii_case("base64"));
    let bytes = if is_base64 {
        let cleaned: String = percent_encoding::percent_decode_str(payload)
            .decode_utf8_lossy()
            .chars()
            .filter(|symbol| !symbol.is_whitespace())
            .collect();
        base64::engine::general_purpose::STANDARD
            .decode(cleaned.trim_end_matches('='))
            .or_else(|_| {
                base64::engine::general_purpose::STANDARD_NO_PAD
                    .decode(cleaned.trim_end_matches('='))
            })
            .map_err(DataUrlError::InvalidBase64)?
    } else {
        percent_encoding::percent_decode_str(payload).collect()
    };
    Ok(DataUrl {
        mime: mime.to_ascii_lowercase(),
        bytes,
    })
}

/// The `data:` URL of `bytes`. The media type is the caller's (a prompt's file part names it),
/// so a comma in it is escaped: unescaped, it would end the header early and the rest of the
/// media type would be read as the content.
pub fn build(mime: &str, bytes: &[u8]) -> String {
    format!(
        "data:{};base64,{}",
        mime.replace(',', "%2C"),
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_urls_decode_base64_and_percent_forms() {
        let base64 = parse("data:text/plain;base64,aGVsbG8gd29ybGQ=");
        assert_eq!(
            base64.map(|url| (url.mime, url.bytes)),
            Ok(("text/plain".into(), b"hello world".to_vec()))
        );
        let percent = parse("data:,hello%20there");
        assert_eq!(
            percent.map(|url| (url.mime, url.bytes)),
            Ok(("text/plain".into(), b"hello there".to_vec()))
        );
        let unpadded = parse("data:image/png;base64,aGk");
        assert_eq!(unpadded.map(|url| url.bytes), Ok(b"hi".to_vec()));
        assert!(parse("data:text/plain;base64,!!!").is_err());
        assert!(parse("data:text/plain").is_err());
        assert_eq!(
            parse(&build("image/png", b"\x89PNG")).map(|url| url.bytes),
            Ok(b"\x89PNG".to_vec())
        );
    }

    #[test]
    fn a_comma_in_the_media_type_does_not_change_the_bytes() {
        // Found by the `data_url` fuzz target: `data:d,ata;base64,…` read back as the bytes
        // `ata;base64,…`.
        let url = build("text/plain,evil", b"hi");
        assert_eq!(
            parse(&url).map(|url| (url.mime, url.bytes)),
            Ok(("text/plain%2cevil".into(), b"hi".to_vec()))
        );
    }
}
