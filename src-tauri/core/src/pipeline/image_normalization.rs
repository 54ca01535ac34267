//! Images are normalised before they are stored: at most 2000×2000 px and 5 MB of base64 (the
//! limits providers enforce), tried as PNG first, then JPEG at falling quality, shrinking by a
//! quarter at a time. An image that cannot be decoded is kept as it was — nothing is lost.

use image::codecs::jpeg::JpegEncoder;
use image::{DynamicImage, GenericImageView, ImageFormat};
use std::io::Cursor;

pub const MAX_DIMENSION: u32 = 2000;
pub const MAX_BASE64_BYTES: usize = 5 * 1024 * 1024;
const JPEG_QUALITIES: [u8; 4] = [85, 70, 55, 40];
const MAX_SHRINKS: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizedImage {
    pub mime: String,
    pub bytes: Vec<u8>,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Already within the limits: the original bytes.
    Unchanged,
    /// Re-encoded to fit, with the final pixel size.
    Resized { width: u32, height: u32 },
    /// Could not be decoded or brought within the limits: the original bytes, and why.
    KeptOriginal(String),
}

fn base64_length(bytes: usize) -> usize {
    bytes.div_ceil(3) * 4
}

pub fn normalize(mime: &str, bytes: Vec<u8>) -> NormalizedImage {
    let kept = |bytes: Vec<u8>, reason: String| NormalizedImage {
        mime: mime.to_string(),
        bytes,
        outcome: Outcome::KeptOriginal(reason),
    };
    let image = match image::load_from_memory(&bytes) {
        Ok(image) => image,
        Err(error) => return kept(bytes, format!("the image could not be decoded: {error}")),
    };
    let (width, height) = image.dimensions();
    if width <= MAX_DIMENSION
        && height <= MAX_DIMENSION
        && base64_length(bytes.len()) <= MAX_BASE64_BYTES
    {
        return NormalizedImage {
            mime: mime.to_string(),
            bytes,
            outcome: Outcome::Unchanged,
        };
    }
    let scale = f64::min(
        1.0,
        f64::min(
            f64::from(MAX_DIMENSION) / f64::from(width),
            f64::from(MAX_DIMENSION) / f64::from(height),
        ),
    );
    let mut target = (scaled(width, scale), scaled(height, scale));
    for _ in 0..MAX_SHRINKS {
        let resized = if target == (width, height) {
            image.clone()
        } else {
            image.resize_exact(target.0, target.1, image::imageops::FilterType::Lanczos3)
        };
        if let Some((mime, encoded)) = encode_within_limit(&resized) {
            let (width, height) = resized.dimensions();
            return NormalizedImage {
                mime: mime.to_string(),
                bytes: encoded,
                outcome: Outcome::Resized { width, height },
            };
        }
        target = (scaled(target.0, 0.75), scaled(target.1, 0.75));
    }
    kept(bytes, "the image could not be made small enough".into())
}

fn scaled(size: u32, scale: f64) -> u32 {
    // Sizes stay far below u32::MAX, and at least one pixel.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let value = (f64::from(size) * scale).floor() as u32;
    value.max(1)
}

fn encode_within_limit(image: &DynamicImage) -> Option<(&'static str, Vec<u8>)> {
    let mut png = Cursor::new(Vec::new());
    if image.write_to(&mut png, ImageFormat::Png).is_ok()
        && base64_length(png.get_ref().len()) <= MAX_BASE64_BYTES
    {
        return Some(("image/png", png.into_inner()));
    }
    let rgb = image.to_rgb8();
    for quality in JPEG_QUALITIES {
        let mut jpeg = Vec::new();
        if JpegEncoder::new_with_quality(&mut jpeg, quality)
            .encode_image(&rgb)
            .is_ok()
            && base64_length(jpeg.len()) <= MAX_BASE64_BYTES
        {
            return Some(("image/jpeg", jpeg));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgb};

    fn png(width: u32, height: u32) -> Vec<u8> {
        let buffer = ImageBuffer::from_fn(width, height, |x, y| {
            Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        });
        let mut bytes = Cursor::new(Vec::new());
        DynamicImage::ImageRgb8(buffer)
            .write_to(&mut bytes, ImageFormat::Png)
            .unwrap_or_else(|error| panic!("{error}"));
        bytes.into_inner()
    }

    #[test]
    fn small_image_is_kept_byte_for_byte() {
        let original = png(40, 30);
        let normalized = normalize("image/png", original.clone());
        assert_eq!(normalized.outcome, Outcome::Unchanged);
        assert_eq!(normalized.bytes, original);
    }

    #[test]
    fn oversized_image_is_scaled_within_2000_px_keeping_aspect() {
        let normalized = normalize("image/png", png(4000, 1000));
        assert_eq!(
            normalized.outcome,
            Outcome::Resized {
                width: 2000,
                height: 500
            }
        );
        let decoded =
            image::load_from_memory(&normalized.bytes).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(decoded.dimensions(), (2000, 500));
        assert!(base64_length(normalized.bytes.len()) <= MAX_BASE64_BYTES);
    }

    #[test]
    fn undecodable_image_keeps_original_bytes() {
        let garbage = b"\x89PNG\r\n\x1a\nnot really a png".to_vec();
        let normalized = normalize("image/png", garbage.clone());
        assert_eq!(normalized.bytes, garbage);
        assert!(matches!(normalized.outcome, Outcome::KeptOriginal(_)));
    }

    #[test]
    fn noisy_image_over_five_megabytes_becomes_jpeg_under_the_cap() {
        // Noise defeats PNG compression: 1900×1900 RGB noise is ~10 MB as PNG.
        let mut state = 0x2545_f491_u32;
        let buffer = ImageBuffer::from_fn(1900, 1900, |_, _| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            Rgb([state as u8, (state >> 8) as u8, (state >> 16) as u8])
        });
        let mut bytes = Cursor::new(Vec::new());
        DynamicImage::ImageRgb8(buffer)
            .write_to(&mut bytes, ImageFormat::Png)
            .unwrap_or_else(|error| panic!("{error}"));
        let original = bytes.into_inner();
        assert!(base64_length(original.len()) > MAX_BASE64_BYTES);
        let normalized = normalize("image/png", original);
        assert_eq!(normalized.mime, "image/jpeg");
        assert!(base64_length(normalized.bytes.len()) <= MAX_BASE64_BYTES);
    }
}
