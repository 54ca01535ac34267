use super::*;

fn call(name: &str, arguments: &str) -> ReadPiece {
    ReadPiece::Call {
        name: name.into(),
        arguments: arguments.into(),
    }
}

fn text(value: &str) -> ReadPiece {
    ReadPiece::Text(value.into())
}

/// Feeds `pieces` one after the other, then the end; adjacent text pieces are joined so the
/// outcome does not depend on how the text was cut.
fn read(format: ToolCallFormat, pieces: &[&str]) -> Vec<ReadPiece> {
    let mut reader = ToolCallReader::new(format);
    let mut out = Vec::new();
    for piece in pieces {
        out.extend(reader.push(piece));
    }
    out.extend(reader.finish());
    let mut joined: Vec<ReadPiece> = Vec::new();
    for piece in out {
        match (joined.last_mut(), piece) {
            (Some(ReadPiece::Text(before)), ReadPiece::Text(more)) => before.push_str(&more),
            (_, piece) => joined.push(piece),
        }
    }
    joined
}

/// Every way of cutting `whole` in two at a character boundary reads the same as `whole`,
/// and so does one byte... one character at a time.
fn same_at_every_cut(format: ToolCallFormat, whole: &str, expected: &[ReadPiece]) {
    assert_eq!(read(format, &[whole]), expected, "in one piece");
    for cut in (1..whole.len()).filter(|cut| whole.is_char_boundary(*cut)) {
        assert_eq!(
            read(format, &[&whole[..cut], &whole[cut..]]),
            expected,
            "cut at byte {cut}"
        );
    }
    let characters: Vec<String> = whole.chars().map(String::from).collect();
    let pieces: Vec<&str> = characters.iter().map(String::as_str).collect();
    assert_eq!(read(format, &pieces), expected, "one character at a time");
}

#[test]
fn hermes_one_call() {
    same_at_every_cut(
        ToolCallFormat::Hermes,
        "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\": \"a.md\"}}\n</tool_call>",
        &[call("read", r#"{"filePath":"a.md"}"#)],
    );
}

#[test]
fn hermes_two_calls() {
    same_at_every_cut(
        ToolCallFormat::Hermes,
        "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\": \"a.md\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.md\"}}\n</tool_call>",
        &[
            call("read", r#"{"filePath":"a.md"}"#),
            call("glob", r#"{"pattern":"*.md"}"#),
        ],
    );
}

#[test]
fn hermes_text_before_a_call_streams_and_the_call_follows() {
    same_at_every_cut(
        ToolCallFormat::Hermes,
        "Let me look — ça va.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\": \"é.md\"}}\n</tool_call>",
        &[
            text("Let me look — ça va."),
            call("read", r#"{"filePath":"é.md"}"#),
        ],
    );
}

#[test]
fn hermes_text_streams_before_the_reply_ends() {
    let mut reader = ToolCallReader::new(ToolCallFormat::Hermes);
    assert_eq!(reader.push("Hello"), [text("Hello")]);
    // A tail that may be the start of a call waits, and comes out once it is not.
    assert_eq!(reader.push(" there <tool"), [text(" there")]);
    assert_eq!(reader.push("box>"), [text(" <toolbox>")]);
    assert_eq!(reader.finish(), []);
}

#[test]
fn hermes_plain_text_with_angle_brackets_is_only_text() {
    same_at_every_cut(
        ToolCallFormat::Hermes,
        "Use <b>bold</b> and a <tool> tag, 2 < 3.",
        &[text("Use <b>bold</b> and a <tool> tag, 2 < 3.")],
    );
}

#[test]
fn hermes_text_after_a_call_is_kept() {
    same_at_every_cut(
        ToolCallFormat::Hermes,
        "<tool_call>\n{\"name\": \"read\", \"arguments\": {}}\n</tool_call>\nDone.",
        &[call("read", "{}"), text("Done.")],
    );
}

#[test]
fn hermes_a_call_the_reply_ends_inside_is_still_read() {
    assert_eq!(
        read(
            ToolCallFormat::Hermes,
            &["<tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\": \"a\"}}\n"]
        ),
        [call("read", r#"{"filePath":"a"}"#)]
    );
}

#[test]
fn hermes_malformed_json_keeps_the_raw_text_and_says_why() {
    let raw = "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\": }\n</tool_call>";
    for pieces in [vec![raw], vec![&raw[..20], &raw[20..]]] {
        let read = read(ToolCallFormat::Hermes, &pieces);
        assert_eq!(read.len(), 2, "{read:?}");
        assert_eq!(read[0], text(raw));
        match &read[1] {
            ReadPiece::Malformed { reason } => {
                assert!(reason.starts_with("not valid JSON"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn hermes_a_call_without_a_name_is_malformed() {
    let read = read(
        ToolCallFormat::Hermes,
        &["<tool_call>\n{\"arguments\": {}}\n</tool_call>"],
    );
    assert!(
        matches!(&read[..], [ReadPiece::Text(_), ReadPiece::Malformed { reason }] if reason == "the call has no tool name"),
        "{read:?}"
    );
}

#[test]
fn arguments_written_as_a_json_string_are_read() {
    assert_eq!(
        read(
            ToolCallFormat::Hermes,
            &["<tool_call>{\"name\": \"read\", \"arguments\": \"{\\\"filePath\\\": \\\"a\\\"}\"}</tool_call>"]
        ),
        [call("read", r#"{"filePath":"a"}"#)]
    );
}

#[test]
fn llama_a_whole_reply_call() {
    same_at_every_cut(
        ToolCallFormat::LlamaJson,
        "{\"name\": \"read\", \"parameters\": {\"filePath\": \"a.md\"}}",
        &[call("read", r#"{"filePath":"a.md"}"#)],
    );
}

#[test]
fn llama_a_call_after_the_python_tag() {
    same_at_every_cut(
        ToolCallFormat::LlamaJson,
        "<|python_tag|>{\"name\": \"read\", \"parameters\": {\"filePath\": \"a.md\"}}",
        &[call("read", r#"{"filePath":"a.md"}"#)],
    );
}

#[test]
fn llama_two_calls_separated_by_a_semicolon() {
    same_at_every_cut(
        ToolCallFormat::LlamaJson,
        "{\"name\": \"read\", \"parameters\": {\"filePath\": \"a\"}}; {\"name\": \"glob\", \"parameters\": {\"pattern\": \"*\"}}",
        &[
            call("read", r#"{"filePath":"a"}"#),
            call("glob", r#"{"pattern":"*"}"#),
        ],
    );
}

#[test]
fn llama_a_text_reply_streams_as_text() {
    same_at_every_cut(
        ToolCallFormat::LlamaJson,
        "Paris is the capital of France. {\"name\": \"x\"} is JSON.",
        &[text(
            "Paris is the capital of France. {\"name\": \"x\"} is JSON.",
        )],
    );
    same_at_every_cut(
        ToolCallFormat::LlamaJson,
        "{braces} first",
        &[text("{braces} first")],
    );
    let mut reader = ToolCallReader::new(ToolCallFormat::LlamaJson);
    assert_eq!(reader.push("Paris"), [text("Paris")]);
}

#[test]
fn llama_malformed_json_keeps_the_raw_text_and_says_why() {
    let raw = "{\"name\": \"read\", \"parameters\": {\"filePath\": \"a\"";
    let read = read(ToolCallFormat::LlamaJson, &[raw]);
    assert_eq!(read[0], text(raw));
    assert!(
        matches!(&read[1], ReadPiece::Malformed { reason } if reason.starts_with("not valid JSON")),
        "{read:?}"
    );
}

#[test]
fn held_text_is_given_back_when_the_reply_is_cut() {
    let mut reader = ToolCallReader::new(ToolCallFormat::Hermes);
    assert_eq!(reader.push("Look <tool_call>\n{\"name\": "), [text("Look")]);
    assert_eq!(reader.take_held(), " <tool_call>\n{\"name\": ");
}
