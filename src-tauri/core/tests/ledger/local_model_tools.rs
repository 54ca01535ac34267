//! Tools for models on this computer, through the whole loop. The worker here is a scripted
//! stand-in (a shell script speaking the worker's JSON lines and replaying canned replies), so the
//! test is about Dossier's side — which models are offered tools, the prompt written with Qwen's
//! real template, the call read out of the streamed text and recorded as a tool part — and runs
//! without a model. The real worker with the real SmolLM2 model checks the capability.
// The scripted worker is a `#!/bin/sh` script, so its tests are Unix-only; on Windows its helpers
// are left unused (built there with warnings denied, by scripts/test-windows.sh).
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

use crate::reply_support::*;
use crate::support::*;
use dossier_core::local_models::computer_memory::ComputerMemory;
use dossier_core::local_models::local_engine::LocalEngineOptions;
use dossier_core::wire::message::ModelRef;
use dossier_core::wire::part::{PartBody, ToolState};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const QWEN_TEMPLATE: &str =
    include_str!("../fixtures/chat-templates/Qwen-Qwen2.5-7B-Instruct.jinja");
const LLAMA_TEMPLATE: &str =
    include_str!("../fixtures/chat-templates/meta-llama-Llama-3.2-3B-Instruct.jinja");
/// SmolLM2's template as its GGUF file carries it: ChatML that never looks at `tools`.
const CHATML_WITHOUT_TOOLS: &str = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

/// A GGUF file with a header only: the architecture, a three-token vocabulary and `template`.
fn gguf_with_template(template: &str) -> Vec<u8> {
    let mut bytes = b"GGUF".to_vec();
    bytes.extend(3_u32.to_le_bytes());
    bytes.extend(0_u64.to_le_bytes());
    bytes.extend(4_u64.to_le_bytes());
    let string = |bytes: &mut Vec<u8>, value: &str| {
        bytes.extend((value.len() as u64).to_le_bytes());
        bytes.extend(value.as_bytes());
    };
    string(&mut bytes, "general.architecture");
    bytes.extend(8_u32.to_le_bytes());
    string(&mut bytes, "qwen2");
    string(&mut bytes, "tokenizer.ggml.tokens");
    bytes.extend(9_u32.to_le_bytes());
    bytes.extend(8_u32.to_le_bytes());
    bytes.extend(3_u64.to_le_bytes());
    for token in ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] {
        string(&mut bytes, token);
    }
    string(&mut bytes, "tokenizer.ggml.eos_token_id");
    bytes.extend(4_u32.to_le_bytes());
    bytes.extend(2_u32.to_le_bytes());
    string(&mut bytes, "tokenizer.chat_template");
    bytes.extend(8_u32.to_le_bytes());
    string(&mut bytes, template);
    bytes
}

/// A folder with a model file and a scripted worker that answers the n-th reply with the
/// `replies[n]` texts as deltas, and writes every request it gets to `requests.jsonl`.
struct ScriptedWorker {
    folder: tempfile::TempDir,
    worker: PathBuf,
}

impl ScriptedWorker {
    fn new(model_id: &str, template: &str, replies: &[&[&str]]) -> Self {
        let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let models = folder.path().join("models");
        std::fs::create_dir(&models).unwrap_or_else(|error| panic!("{error}"));
        std::fs::write(
            models.join(format!("{model_id}.gguf")),
            gguf_with_template(template),
        )
        .unwrap_or_else(|error| panic!("{error}"));
        for (index, texts) in replies.iter().enumerate() {
            let mut lines = String::new();
            for text in *texts {
                lines.push_str(&json!({"type": "delta", "id": "r", "text": text}).to_string());
                lines.push('\n');
            }
            lines.push_str(r#"{"type":"done","id":"r","prompt_tokens":30,"completion_tokens":9,"stop_reason":"end_of_text"}"#);
            lines.push('\n');
            std::fs::write(
                folder.path().join(format!("reply-{}.jsonl", index + 1)),
                lines,
            )
            .unwrap_or_else(|error| panic!("{error}"));
        }
        let worker = folder.path().join("worker.sh");
        std::fs::write(
            &worker,
            r#"#!/bin/sh
folder="$(dirname "$0")"
echo '{"type":"ready","simd":[],"physical_cores":1}'
count=0
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$folder/requests.jsonl"
  case "$line" in
    *'"type":"load"'*) echo '{"type":"loaded","context_length":4096,"train_context_length":4096,"threads":1,"model_bytes":1,"parameters":1,"chat_template_supports_tools":false}' ;;
    *'"type":"generate"'*) count=$((count + 1)); cat "$folder/reply-$count.jsonl" ;;
  esac
done
"#,
        )
        .unwrap_or_else(|error| panic!("{error}"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&worker, std::fs::Permissions::from_mode(0o755))
                .unwrap_or_else(|error| panic!("{error}"));
        }
        Self { folder, worker }
    }

    fn engine_options(&self) -> LocalEngineOptions {
        let mut options = LocalEngineOptions::new(self.folder.path().join("models"));
        options.worker_binary = Some(self.worker.clone());
        options.memory = Some(ComputerMemory {
            total_bytes: 8 << 30,
            available_bytes: 4 << 30,
        });
        options
    }

    /// The `generate` requests the worker received.
    fn generate_requests(&self) -> Vec<Value> {
        std::fs::read_to_string(self.folder.path().join("requests.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|request| request["type"] == "generate")
            .collect()
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_qwen_templated_local_model_calls_the_read_tool_and_the_tool_part_is_recorded() {
    let worker = ScriptedWorker::new(
        "qwen-tools",
        QWEN_TEMPLATE,
        &[
            &[
                "Let me look.",
                "\n<tool",
                "_call>\n{\"name\": \"read\", \"argu",
                "ments\": {\"filePath\": \"notes.txt\"}}\n</tool_call>",
            ],
            &["The notes ", "say alpha."],
        ],
    );
    let options = worker.engine_options();
    let test = open_with("{}", move |ledger_options| {
        ledger_options.local_models = Some(options);
    })
    .await;
    let catalog = test.ledger.providers().models();
    let listed = catalog
        .find(&ModelRef::new("local", "qwen-tools"))
        .unwrap_or_else(|| panic!("the model is not listed"));
    assert!(listed.tool_call, "Qwen's template takes tools");

    test.write("notes.txt", "alpha\nbeta\n");
    let session = test.session().await;
    let reply = ask(&test, &session.id, "what do the notes say?").await;
    assert!(
        assistant_of(&reply).error.is_none(),
        "{:?}",
        assistant_of(&reply).error
    );
    assert_eq!(text_of(&reply), "The notes say alpha.");

    let stored = test.history(&session.id).await;
    assert_eq!(stored.len(), 3, "user, the tool step, the answer");
    let first = &stored[1];
    assert_eq!(assistant_of(first).provider_id, "local");
    assert_eq!(assistant_of(first).finish.as_deref(), Some("tool-calls"));
    assert_eq!(text_of(first), "Let me look.");
    let tool = first
        .parts
        .iter()
        .find_map(|part| match &part.body {
            PartBody::Tool(tool) => Some(tool.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no tool part"));
    assert_eq!(tool.tool, "read");
    match &tool.state {
        ToolState::Completed { input, output, .. } => {
            assert_eq!(input["filePath"], "notes.txt");
            assert!(output.contains("1: alpha\n2: beta"), "{output}");
        }
        other => panic!("tool not completed: {other:?}"),
    }

    // Both prompts were written by Dossier with Qwen's template: the tools offered first, then
    // the call and its result in Qwen's own form.
    let requests = worker.generate_requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let first_prompt = requests[0]["prompt"].as_str().unwrap_or_default();
    assert!(
        first_prompt.starts_with("<|im_start|>system\n"),
        "{first_prompt}"
    );
    assert!(first_prompt.contains("# Tools\n\nYou may call one or more functions"));
    assert!(
        first_prompt
            .contains(r#"{"type": "function", "function": {"name": "read", "description": "#),
        "{first_prompt}"
    );
    assert!(
        first_prompt.contains("what do the notes say?"),
        "{first_prompt}"
    );
    assert!(first_prompt.ends_with("<|im_end|>\n<|im_start|>assistant\n"));
    assert_eq!(requests[0]["messages"], json!([]));
    let second_prompt = requests[1]["prompt"].as_str().unwrap_or_default();
    assert!(
        second_prompt.contains("<|im_start|>assistant\nLet me look.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\": \"notes.txt\"}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n"),
        "{second_prompt}"
    );
    assert!(second_prompt.contains("1: alpha"), "{second_prompt}");
    assert!(second_prompt.ends_with("</tool_response><|im_end|>\n<|im_start|>assistant\n"));
}

#[cfg(unix)]
#[tokio::test]
async fn a_llama_templated_local_model_calls_a_tool_with_a_whole_reply_of_json() {
    let worker = ScriptedWorker::new(
        "llama-tools",
        LLAMA_TEMPLATE,
        &[
            &[
                "{\"name\": \"read\", ",
                "\"parameters\": {\"filePath\": \"notes.txt\"}}",
            ],
            &["The notes say alpha."],
        ],
    );
    let options = worker.engine_options();
    let test = open_with("{}", move |ledger_options| {
        ledger_options.local_models = Some(options);
    })
    .await;
    test.write("notes.txt", "alpha\n");
    let session = test.session().await;
    let reply = ask(&test, &session.id, "what do the notes say?").await;
    assert!(
        assistant_of(&reply).error.is_none(),
        "{:?}",
        assistant_of(&reply).error
    );
    assert_eq!(text_of(&reply), "The notes say alpha.");
    let stored = test.history(&session.id).await;
    assert_eq!(stored.len(), 3, "user, the tool step, the answer");
    assert_eq!(text_of(&stored[1]), "", "the call is not shown as text");
    assert!(stored[1].parts.iter().any(|part| matches!(
        &part.body,
        PartBody::Tool(tool) if tool.tool == "read" && matches!(tool.state, ToolState::Completed { .. })
    )));
    let requests = worker.generate_requests();
    let second_prompt = requests[1]["prompt"].as_str().unwrap_or_default();
    assert!(
        second_prompt.contains("<|start_header_id|>assistant<|end_header_id|>\n\n{\"name\": \"read\", \"parameters\": {\"filePath\": \"notes.txt\"}}<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\n"),
        "{second_prompt}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_model_whose_template_takes_no_tools_is_offered_none_and_its_text_stays_text() {
    let worker = ScriptedWorker::new(
        "chatml-plain",
        CHATML_WITHOUT_TOOLS,
        &[&["<tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\": \"notes.txt\"}}\n</tool_call>"]],
    );
    let options = worker.engine_options();
    let test = open_with("{}", move |ledger_options| {
        ledger_options.local_models = Some(options);
    })
    .await;
    let listed = test
        .ledger
        .providers()
        .models()
        .find(&ModelRef::new("local", "chatml-plain"))
        .cloned()
        .unwrap_or_else(|| panic!("the model is not listed"));
    assert!(!listed.tool_call);
    test.write("notes.txt", "alpha\n");
    let session = test.session().await;
    let reply = ask(&test, &session.id, "what do the notes say?").await;
    assert!(assistant_of(&reply).error.is_none());
    assert_eq!(assistant_of(&reply).finish.as_deref(), Some("stop"));
    assert!(text_of(&reply).starts_with("<tool_call>"));
    assert!(!reply
        .parts
        .iter()
        .any(|part| matches!(part.body, PartBody::Tool(_))));
    // llama.cpp's own template engine formats it, from role + text; no tools anywhere.
    let requests = worker.generate_requests();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].get("prompt").is_none(), "{:?}", requests[0]);
    assert_eq!(requests[0]["messages"].as_array().map(Vec::len), Some(2));
}

#[cfg(unix)]
#[tokio::test]
async fn a_malformed_call_from_a_local_model_ends_the_reply_in_plain_words_with_its_text() {
    let worker = ScriptedWorker::new(
        "qwen-broken",
        QWEN_TEMPLATE,
        &[&["I will read it. <tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\"}\n</tool_call>"]],
    );
    let options = worker.engine_options();
    let test = open_with("{}", move |ledger_options| {
        ledger_options.local_models = Some(options);
    })
    .await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "read notes.txt").await;
    let error = format!("{:?}", assistant_of(&reply).error);
    assert!(
        error.contains("The model qwen-broken tried to call a tool but wrote the call in a form Dossier cannot read"),
        "{error}"
    );
    assert_eq!(
        text_of(&reply),
        "I will read it. <tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\"}\n</tool_call>"
    );
}

/// The real SmolLM2-135M (`scripts/test-model.sh`): its template takes no tools, so none are
/// offered, in the catalog and on the server's listing alike.
#[tokio::test]
async fn the_real_smollm2_model_is_not_offered_tools() {
    let Some(model) = std::env::var_os("DOSSIER_TEST_MODEL").map(PathBuf::from) else {
        eprintln!("skipped: DOSSIER_TEST_MODEL is not set (scripts/test-model.sh sets it)");
        return;
    };
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    link(
        &model,
        &folder.path().join("SmolLM2-135M-Instruct.Q4_1.gguf"),
    );
    let models = folder.path().to_path_buf();
    let test = open_with("{}", move |ledger_options| {
        ledger_options.local_models = Some(LocalEngineOptions::new(models));
    })
    .await;
    let listed = test
        .ledger
        .providers()
        .models()
        .find(&ModelRef::new("local", "SmolLM2-135M-Instruct.Q4_1"))
        .cloned()
        .unwrap_or_else(|| panic!("the model is not listed"));
    assert!(!listed.tool_call);
    let started = std::time::Instant::now();
    let facts = dossier_core::local_models::gguf_header::read_template_facts(&model)
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|| panic!("SmolLM2's file has a chat template"));
    eprintln!(
        "the template and vocabulary of SmolLM2 read in {:?}",
        started.elapsed()
    );
    assert!(facts.chat_template.contains("<|im_start|>"));
    assert_eq!(facts.eos_token, "<|im_end|>");
}

fn link(model: &Path, at: &Path) {
    #[cfg(unix)]
    std::os::unix::fs::symlink(model, at).unwrap_or_else(|error| panic!("{error}"));
    #[cfg(not(unix))]
    std::fs::copy(model, at).unwrap_or_else(|error| panic!("{error}"));
}

/// The real worker takes a prompt written by Dossier as it is: SmolLM2's ChatML written out by
/// hand gives the same tokens and the same greedy reply as llama.cpp's own template engine.
#[tokio::test]
async fn the_real_worker_answers_a_written_prompt_as_it_answers_the_same_messages() {
    use dossier_core::local_models::local_engine::{GenerationSettings, LocalEngine, ReplyEvent};
    use dossier_core::local_models::worker_protocol::{Conversation, WorkerMessage};
    use futures::StreamExt;
    let Some(model) = std::env::var_os("DOSSIER_TEST_MODEL").map(PathBuf::from) else {
        eprintln!("skipped: DOSSIER_TEST_MODEL is not set (scripts/test-model.sh sets it)");
        return;
    };
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    link(&model, &folder.path().join("smollm2.gguf"));
    let mut options = LocalEngineOptions::new(folder.path().to_path_buf());
    options.context_length = Some(1024);
    options.threads = Some(1);
    let engine = LocalEngine::new(options);
    let question = "What is the capital of France?";
    let mut replies = Vec::new();
    for conversation in [
        Conversation::Messages(vec![WorkerMessage {
            role: "user".into(),
            content: question.into(),
        }]),
        Conversation::Prompt(format!(
            "<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n"
        )),
    ] {
        let settings = GenerationSettings {
            max_tokens: Some(16),
            temperature: Some(0.0),
            seed: None,
        };
        let mut stream = engine
            .generate("smollm2", conversation, settings)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let mut text = String::new();
        let mut prompt_tokens = 0;
        while let Some(event) = stream.next().await {
            match event.unwrap_or_else(|error| panic!("{error}")) {
                ReplyEvent::Text(piece) => text.push_str(&piece),
                ReplyEvent::Finished {
                    prompt_tokens: tokens,
                    ..
                } => prompt_tokens = tokens,
            }
        }
        replies.push((text, prompt_tokens));
    }
    assert!(!replies[0].0.trim().is_empty());
    assert_eq!(replies[0], replies[1]);
}
