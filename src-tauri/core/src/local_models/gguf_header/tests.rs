use super::*;

/// Writes a small GGUF v3 file: the given string keys, one u32 context length, a tokenizer
/// array of strings (skipped by the reader) and no tensors.
pub(crate) fn gguf_bytes(architecture: &str, context_length: u32) -> Vec<u8> {
    let mut bytes = b"GGUF".to_vec();
    bytes.extend(3_u32.to_le_bytes());
    bytes.extend(0_u64.to_le_bytes());
    bytes.extend(6_u64.to_le_bytes());
    let key = |bytes: &mut Vec<u8>, key: &str| {
        bytes.extend((key.len() as u64).to_le_bytes());
        bytes.extend(key.as_bytes());
    };
    let text = |bytes: &mut Vec<u8>, value: &str| {
        bytes.extend(8_u32.to_le_bytes());
        bytes.extend((value.len() as u64).to_le_bytes());
        bytes.extend(value.as_bytes());
    };
    key(&mut bytes, "general.architecture");
    text(&mut bytes, architecture);
    key(&mut bytes, "general.name");
    text(&mut bytes, "Tiny Test");
    key(&mut bytes, &format!("{architecture}.context_length"));
    bytes.extend(4_u32.to_le_bytes());
    bytes.extend(context_length.to_le_bytes());
    key(&mut bytes, "general.file_type");
    bytes.extend(4_u32.to_le_bytes());
    bytes.extend(15_u32.to_le_bytes());
    key(&mut bytes, "tokenizer.ggml.tokens");
    bytes.extend(9_u32.to_le_bytes());
    bytes.extend(8_u32.to_le_bytes());
    bytes.extend(3_u64.to_le_bytes());
    for token in ["<s>", "hello", "world"] {
        bytes.extend((token.len() as u64).to_le_bytes());
        bytes.extend(token.as_bytes());
    }
    key(&mut bytes, "tokenizer.chat_template");
    text(&mut bytes, "{{ messages }}");
    bytes
}

fn written(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let path = folder.path().join("model.gguf");
    std::fs::write(&path, bytes).unwrap_or_else(|error| panic!("{error}"));
    (folder, path)
}

#[test]
fn a_small_gguf_file_reads_its_architecture_context_and_quantisation() {
    let bytes = gguf_bytes("qwen2", 32768);
    let (_folder, path) = written(&bytes);
    let header = read_gguf_header(&path).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(header.version, 3);
    assert_eq!(header.architecture, "qwen2");
    assert_eq!(header.name.as_deref(), Some("Tiny Test"));
    assert_eq!(header.context_length, Some(32768));
    assert_eq!(header.quantization.as_deref(), Some("Q4_K_M"));
    assert!(header.has_chat_template);
    assert_eq!(header.file_bytes, bytes.len() as u64);
}

#[test]
fn an_empty_file_is_said_to_be_empty() {
    let (_folder, path) = written(&[]);
    assert!(matches!(
        read_gguf_header(&path),
        Err(LocalModelError::EmptyFile { .. })
    ));
}

#[test]
fn a_file_without_the_magic_is_not_gguf() {
    let (_folder, path) = written(b"PK\x03\x04 a zip, not a model at all");
    assert!(matches!(
        read_gguf_header(&path),
        Err(LocalModelError::NotGguf { .. })
    ));
    let (_folder, path) = written(b"GG");
    assert!(matches!(
        read_gguf_header(&path),
        Err(LocalModelError::NotGguf { .. })
    ));
}

#[test]
fn a_header_cut_anywhere_is_truncated_not_a_panic() {
    let bytes = gguf_bytes("llama", 8192);
    for cut in [6, 12, 30, 50, bytes.len() - 1] {
        let (_folder, path) = written(&bytes[..cut]);
        match read_gguf_header(&path) {
            Err(LocalModelError::Truncated { .. }) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
}

#[test]
fn an_architecture_the_engine_does_not_know_is_refused_by_name() {
    let (_folder, path) = written(&gguf_bytes("warp-drive", 4096));
    match read_gguf_header(&path) {
        Err(LocalModelError::UnknownArchitecture { architecture, .. }) => {
            assert_eq!(architecture, "warp-drive");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_array_claiming_more_items_than_the_file_holds_is_truncated() {
    let mut bytes = b"GGUF".to_vec();
    bytes.extend(3_u32.to_le_bytes());
    bytes.extend(0_u64.to_le_bytes());
    bytes.extend(1_u64.to_le_bytes());
    bytes.extend(4_u64.to_le_bytes());
    bytes.extend(b"huge");
    bytes.extend(9_u32.to_le_bytes());
    bytes.extend(4_u32.to_le_bytes());
    bytes.extend(u64::MAX.to_le_bytes());
    let (_folder, path) = written(&bytes);
    assert!(matches!(
        read_gguf_header(&path),
        Err(LocalModelError::Truncated { .. } | LocalModelError::UnsupportedGguf { .. })
    ));
}

/// The real test model the engine's tests use, when the cache holds it
/// (`DOSSIER_TEST_MODEL`, see docs/local-models.md).
#[test]
fn the_real_smollm2_test_model_reads_as_llama_when_present() {
    let Some(path) = std::env::var_os("DOSSIER_TEST_MODEL") else {
        return;
    };
    let header = read_gguf_header(Path::new(&path)).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(header.architecture, "llama");
    assert!(header.has_chat_template);
    assert!(header.context_length.is_some_and(|length| length >= 2048));
}

#[test]
fn the_template_and_the_begin_and_end_tokens_are_read_by_their_ids() {
    let mut bytes = gguf_bytes("llama", 4096);
    // Two more keys after the vocabulary: the begin token is id 0, the end token id 2.
    bytes[16..24].copy_from_slice(&8_u64.to_le_bytes());
    for (key, id) in [
        ("tokenizer.ggml.bos_token_id", 0_u32),
        ("tokenizer.ggml.eos_token_id", 2),
    ] {
        bytes.extend((key.len() as u64).to_le_bytes());
        bytes.extend(key.as_bytes());
        bytes.extend(4_u32.to_le_bytes());
        bytes.extend(id.to_le_bytes());
    }
    let (_folder, path) = written(&bytes);
    let facts = read_template_facts(&path)
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|| panic!("no template"));
    assert_eq!(
        facts,
        TemplateFacts {
            chat_template: "{{ messages }}".into(),
            bos_token: "<s>".into(),
            eos_token: "world".into(),
        }
    );
    // The header itself reads as before.
    assert_eq!(
        read_gguf_header(&path)
            .unwrap_or_else(|error| panic!("{error}"))
            .architecture,
        "llama"
    );
}

#[test]
fn a_file_without_a_template_has_no_template_facts() {
    let mut bytes = gguf_bytes("llama", 4096);
    // Drop the last key (the template): five keys.
    bytes[16..24].copy_from_slice(&5_u64.to_le_bytes());
    let template_key = b"tokenizer.chat_template";
    let at = bytes
        .windows(template_key.len())
        .position(|window| window == template_key)
        .unwrap_or_else(|| panic!("no template key"));
    bytes.truncate(at - 8);
    let (_folder, path) = written(&bytes);
    assert_eq!(read_template_facts(&path).ok(), Some(None));
}
