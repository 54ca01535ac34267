//! `file:` URLs with a line range (`?start=&end=`), as a file part or an `@file` mention sends
//! them: the URL becomes a path and a range, the range becomes the Read tool's window, and the
//! Read tool reads a real file through that window. Built URLs must give their range back.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use dossier_core::pipeline::draft_resolution::{file_url_target, range_to_read_window};
use dossier_core::pipeline::read_tool::{read, ReadRequest};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

#[derive(Debug, Arbitrary)]
struct Built {
    segments: Vec<String>,
    start: Option<u64>,
    end: Option<u64>,
    fragment: Option<String>,
}

/// A small text file with a long line, blank lines and non-ASCII text to read windows of.
fn sample_file() -> &'static PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let path =
            std::env::temp_dir().join(format!("dossier-fuzz-read-{}.txt", std::process::id()));
        let mut text = String::from("first line\n\nthird: 这个文件很大\r\n");
        text.push_str(&"long ".repeat(600));
        text.push('\n');
        for line in 5..=40 {
            text.push_str(&format!("line {line}\n"));
        }
        std::fs::write(&path, text).expect("sample file");
        path
    })
}

fn check_window(start: Option<usize>, end: Option<usize>) {
    let (offset, limit) = range_to_read_window(start, end);
    assert_eq!(offset.is_some(), start.is_some());
    assert_eq!(
        limit.is_some(),
        start.is_some() && end.is_some_and(|end| end != 0)
    );
    assert!(offset.map_or(true, |offset| offset >= 1));
    assert!(limit.map_or(true, |limit| limit >= 1));
    let output = read(&ReadRequest {
        file_path: sample_file().clone(),
        offset,
        limit,
    });
    if let Err(error) = output {
        // Only a window past the end may be refused; the file is there and is text.
        assert!(offset.unwrap_or(1) > 1, "{error:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 4 == 0 {
        let Ok(built) = Built::arbitrary(&mut Unstructured::new(rest)) else {
            return;
        };
        let mut url = url::Url::parse("file:///").expect("a constant URL");
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.clear().extend(built.segments.iter());
        }
        let mut query = Vec::new();
        if let Some(start) = built.start {
            query.push(format!("start={start}"));
        }
        if let Some(end) = built.end {
            query.push(format!("end={end}"));
        }
        url.set_query(Some(&query.join("&")));
        url.set_fragment(built.fragment.as_deref());
        let Ok((_, start, end)) = file_url_target(url.as_str()) else {
            // A segment the platform cannot hold as a path (a NUL byte) is refused, with a message.
            return;
        };
        let expected = |value: Option<u64>| value.and_then(|value| usize::try_from(value).ok());
        assert_eq!(start, expected(built.start), "{url}");
        assert_eq!(end, expected(built.end), "{url}");
        check_window(start, end);
        return;
    }
    let text = String::from_utf8_lossy(rest);
    if let Ok((path, start, end)) = file_url_target(&text) {
        assert!(path.is_absolute(), "{text} gave {}", path.display());
        check_window(start, end);
    }
});
