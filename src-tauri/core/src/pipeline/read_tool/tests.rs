use super::*;

struct Folder(tempfile::TempDir);

impl Folder {
    fn new() -> Self {
        Self(tempfile::tempdir().unwrap_or_else(|error| panic!("{error}")))
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.path().join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|error| panic!("{error}"));
        }
        fs::write(&path, bytes).unwrap_or_else(|error| panic!("{error}"));
        path
    }
}

fn read_ok(request: &ReadRequest) -> ReadOutput {
    read(request).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn text_file_is_numbered_with_end_of_file_trailer() {
    let folder = Folder::new();
    let path = folder.write("a.txt", "first\nsecond\n");
    let output = read_ok(&ReadRequest::whole(&path));
    assert_eq!(
        output.output,
        format!("<path>{}</path>\n<type>file</type>\n<content>\n1: first\n2: second\n\n(End of file - total 2 lines)\n</content>", path.display())
    );
    assert_eq!(output.kind, ReadKind::Text);
    assert!(!output.truncated);
}

#[test]
fn crlf_and_missing_final_newline_are_handled() {
    let folder = Folder::new();
    let path = folder.write("crlf.txt", "one\r\ntwo");
    let output = read_ok(&ReadRequest::whole(&path));
    assert!(
        output
            .output
            .contains("1: one\n2: two\n\n(End of file - total 2 lines)"),
        "{}",
        output.output
    );
}

#[test]
fn offset_and_limit_show_a_window_with_continue_hint() {
    let folder = Folder::new();
    let text: String = (1..=10).map(|line| format!("line {line}\n")).collect();
    let path = folder.write("ten.txt", text);
    let output = read_ok(&ReadRequest {
        file_path: path,
        offset: Some(3),
        limit: Some(4),
    });
    assert!(output.output.contains("\n3: line 3\n4: line 4\n5: line 5\n6: line 6\n\n(Showing lines 3-6 of 10. Use offset=7 to continue.)\n</content>"), "{}", output.output);
    assert!(output.truncated);
}

#[test]
fn default_limit_is_2000_lines() {
    let folder = Folder::new();
    let text: String = (1..=2500).map(|line| format!("{line}\n")).collect();
    let path = folder.write("long.txt", text);
    let output = read_ok(&ReadRequest::whole(&path));
    assert!(output
        .output
        .contains("\n2000: 2000\n\n(Showing lines 1-2000 of 2500. Use offset=2001 to continue.)"));
    assert!(!output.output.contains("2001: 2001"));
}

#[test]
fn long_lines_are_cut_at_2000_chars() {
    let folder = Folder::new();
    let path = folder.write("wide.txt", format!("{}\n", "é".repeat(2500)));
    let output = read_ok(&ReadRequest::whole(&path));
    let expected = format!(
        "1: {}... (line truncated to 2000 chars)\n",
        "é".repeat(2000)
    );
    assert!(output.output.contains(&expected));
}

#[test]
fn output_is_capped_at_50_kb() {
    let folder = Folder::new();
    let line = "x".repeat(1023);
    let text: String = (0..100).map(|_| format!("{line}\n")).collect();
    let path = folder.write("big.txt", text);
    let output = read_ok(&ReadRequest::whole(&path));
    // 50 lines of 1023 bytes plus separators are 51,199 bytes; a 51st would pass 51,200.
    assert!(
        output.output.contains("\n50: x"),
        "{}",
        &output.output[output.output.len() - 200..]
    );
    assert!(!output.output.contains("\n51: x"));
    assert!(output
        .output
        .contains("(Output capped at 50 KB. Showing lines 1-50. Use offset=51 to continue.)"));
}

#[test]
fn offset_beyond_the_end_is_an_error_but_empty_file_is_fine() {
    let folder = Folder::new();
    let path = folder.write("three.txt", "a\nb\nc\n");
    let error = read(&ReadRequest {
        file_path: path,
        offset: Some(9),
        limit: None,
    })
    .err();
    assert_eq!(
        error.map(|error| error.to_string()).as_deref(),
        Some("Offset 9 is out of range for this file (3 lines)")
    );
    let empty = folder.write("empty.txt", "");
    let output = read_ok(&ReadRequest::whole(&empty));
    assert!(
        output
            .output
            .ends_with("<content>\n\n\n(End of file - total 0 lines)\n</content>"),
        "{}",
        output.output
    );
}

#[test]
fn missing_file_suggests_up_to_three_siblings() {
    let folder = Folder::new();
    for name in [
        "config.json",
        "config.json.bak",
        "my-config.json",
        "other.txt",
        "config.json.old",
    ] {
        folder.write(name, "x");
    }
    let missing = folder.0.path().join("config");
    let error = read(&ReadRequest::whole(&missing))
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    let sibling = |name: &str| folder.0.path().join(name).display().to_string();
    assert_eq!(
        error,
        format!(
            "File not found: {}\n\nDid you mean one of these?\n{}\n{}\n{}",
            missing.display(),
            sibling("config.json"),
            sibling("config.json.bak"),
            sibling("config.json.old")
        )
    );
    let lonely = folder.0.path().join("zzz.txt");
    let error = read(&ReadRequest::whole(&lonely))
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert_eq!(error, format!("File not found: {}", lonely.display()));
}

#[test]
fn binary_files_are_refused_by_extension_nul_or_control_bytes() {
    let folder = Folder::new();
    let by_extension = folder.write("archive.zip", "plain text really");
    let with_nul = folder.write("data.txt", b"abc\0def");
    let noisy: Vec<u8> = (0..100u8)
        .map(|index| if index % 2 == 0 { 1 } else { b'a' })
        .collect();
    let control = folder.write("noise.txt", noisy);
    for path in [by_extension, with_nul, control] {
        let error = read(&ReadRequest::whole(&path))
            .err()
            .map(|error| error.to_string());
        assert_eq!(
            error,
            Some(format!("Cannot read binary file: {}", path.display()))
        );
    }
    let schema = folder.write("schema.fbs", "table Monster { hp: short; }\n");
    assert_eq!(read_ok(&ReadRequest::whole(&schema)).kind, ReadKind::Text);
}

#[test]
fn images_and_pdfs_become_attachments_by_magic_bytes() {
    let folder = Folder::new();
    let png = folder.write("picture.dat.txt", b"\x89PNG\r\n\x1a\nrest");
    let output = read_ok(&ReadRequest::whole(&png));
    assert_eq!(output.output, "Image read successfully");
    assert_eq!(output.attachments[0].mime, "image/png");
    assert_eq!(output.attachments[0].bytes, b"\x89PNG\r\n\x1a\nrest");
    let pdf = folder.write("doc.pdf", b"%PDF-1.7\n...");
    let output = read_ok(&ReadRequest::whole(&pdf));
    assert_eq!(
        (output.output.as_str(), output.kind),
        ("PDF read successfully", ReadKind::Pdf)
    );
    assert_eq!(output.attachments[0].mime, "application/pdf");
}

#[test]
fn directory_lists_sorted_entries_with_slashes() {
    let folder = Folder::new();
    folder.write("b.txt", "b");
    folder.write("a/inner.txt", "a");
    folder.write("c.md", "c");
    let output = read_ok(&ReadRequest::whole(folder.0.path()));
    assert_eq!(
        output.output,
        format!("<path>{}</path>\n<type>directory</type>\n<entries>\na/\nb.txt\nc.md\n\n(3 entries)\n</entries>", folder.0.path().display())
    );
    let window = read_ok(&ReadRequest {
        file_path: folder.0.path().into(),
        offset: Some(2),
        limit: Some(1),
    });
    assert!(window.output.contains("<entries>\nb.txt\n\n(Showing 1 of 3 entries. Use 'offset' parameter to read beyond entry 3)\n</entries>"), "{}", window.output);
}

#[test]
fn human_sizes_read_naturally() {
    assert_eq!(human_size(512), "512 bytes");
    assert_eq!(human_size(2048), "2.0 KB");
    assert_eq!(human_size(31 * 1024 * 1024 + 200 * 1024), "31.2 MB");
}

#[test]
fn a_file_read_from_its_content_reads_as_from_its_path() {
    let folder = Folder::new();
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let files = [
        folder.write("notes.txt", "one\ntwo\r\nthree"),
        folder.write("empty.txt", ""),
        folder.write("package.json", "{\n  \"name\": \"demo\"\n}\n"),
        folder.write("long.txt", "x".repeat(3000) + "\nshort\n"),
        folder.write("many.txt", "line\n".repeat(2500)),
        folder.write("control.txt", [1u8, 2, 3, 4, 5, 6, b'a']),
        folder.write("zero-byte.txt", b"text\0more"),
        folder.write("archive.zip", "plain words"),
        folder.write("picture.txt", &png),
        folder.write("document.pdf", "%PDF-1.4\n%%EOF\n"),
        folder.write("latin1.txt", [b'c', b'a', b'f', 0xE9, b'\n']),
    ];
    for path in files {
        let content = fs::read(&path).unwrap_or_else(|error| panic!("{error}"));
        for (offset, limit) in [(None, None), (Some(2), Some(1)), (Some(9999), None)] {
            let request = ReadRequest {
                file_path: path.clone(),
                offset,
                limit,
            };
            assert_eq!(
                read_content(&request, &content),
                read(&request),
                "{} from line {offset:?}, {limit:?} lines",
                path.display()
            );
        }
    }
}
