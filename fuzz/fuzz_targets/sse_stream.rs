//! The OpenAI-compatible and Anthropic streaming decoders, fed a body cut into chunks at
//! fuzz-chosen points. Network reads split a body anywhere (mid-line, mid-`\r\n`, mid-UTF-8
//! character), so the decoded events must be the same whatever the cutting: the body whole, cut
//! as the input says, and cut into single bytes.

#![no_main]

use dossier_core::models::provider::anthropic::EventDecoder;
use dossier_core::models::provider::openai_compatible::ChunkDecoder;
use dossier_core::models::provider::server_sent_events::{decode_body, EventDecoding};
use dossier_core::models::provider::{ProviderFailure, StreamEvent};
use futures::StreamExt;
use libfuzzer_sys::fuzz_target;

type Decoded = Vec<Result<StreamEvent, ProviderFailure>>;

fn decode<Decoder: EventDecoding + Default>(pieces: &[&[u8]]) -> Decoded {
    let chunks: Vec<Result<bytes::Bytes, reqwest::Error>> = pieces
        .iter()
        .map(|piece| Ok(bytes::Bytes::copy_from_slice(piece)))
        .collect();
    futures::executor::block_on(
        decode_body(futures::stream::iter(chunks).boxed(), Decoder::default()).collect(),
    )
}

fn same_whatever_the_chunking<Decoder: EventDecoding + Default>(body: &[u8], cuts: &[u16]) {
    let whole = decode::<Decoder>(&[body]);
    let cut = decode::<Decoder>(&dossier_fuzz::chunks(body, cuts));
    assert_eq!(cut, whole, "cut at {cuts:?}");
    if body.len() <= 512 {
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(decode::<Decoder>(&bytes), whole, "cut into single bytes");
    }
    // A stream ends once: after a failure, nothing more.
    if let Some(position) = whole.iter().position(Result::is_err) {
        assert_eq!(position + 1, whole.len());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&header, rest)) = data.split_first() else {
        return;
    };
    // The header picks the protocol and how many cut points (two bytes each) precede the body.
    let cut_count = usize::from(header >> 1).min(rest.len() / 2);
    let (cut_bytes, body) = rest.split_at(cut_count * 2);
    let cuts: Vec<u16> = cut_bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    if header & 1 == 0 {
        same_whatever_the_chunking::<ChunkDecoder>(body, &cuts);
    } else {
        same_whatever_the_chunking::<EventDecoder>(body, &cuts);
    }
});
