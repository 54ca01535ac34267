//! `data:` URLs: any text either parses or is refused with a message; what parses builds back
//! into a URL that parses to the same media type and bytes; and whatever media type and bytes
//! are built (attachments are inlined this way on export) parse back to the same bytes.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use dossier_core::wire::data_url;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Built {
    mime: String,
    bytes: Vec<u8>,
}

fuzz_target!(|data: &[u8]| {
    let Some((mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 4 == 0 {
        let Ok(built) = Built::arbitrary(&mut Unstructured::new(rest)) else {
            return;
        };
        let url = data_url::build(&built.mime, &built.bytes);
        let parsed = data_url::parse(&url)
            .unwrap_or_else(|error| panic!("a built data: URL is refused: {error}: {url}"));
        assert_eq!(parsed.bytes, built.bytes, "bytes changed through {url}");
        return;
    }
    let text = String::from_utf8_lossy(rest);
    let Ok(parsed) = data_url::parse(&text) else {
        return;
    };
    assert!(!parsed.mime.is_empty());
    let rebuilt = data_url::build(&parsed.mime, &parsed.bytes);
    assert_eq!(data_url::parse(&rebuilt), Ok(parsed));
});
