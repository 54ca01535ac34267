use super::*;
use serde_json::json;

/// A template from `tests/fixtures/chat-templates/` (where each came from is said there).
pub(crate) fn fixture_template(file: &str, bos_token: &str, eos_token: &str) -> ChatTemplate {
    let path = format!(
        "{}/tests/fixtures/chat-templates/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let chat_template =
        std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
    ChatTemplate::new(
        file,
        TemplateFacts {
            chat_template,
            bos_token: bos_token.into(),
            eos_token: eos_token.into(),
        },
    )
    .unwrap_or_else(|error| panic!("{error}"))
}

pub(crate) fn qwen() -> ChatTemplate {
    fixture_template("Qwen-Qwen2.5-7B-Instruct.jinja", "", "<|im_end|>")
}

pub(crate) fn llama() -> ChatTemplate {
    fixture_template(
        "meta-llama-Llama-3.2-3B-Instruct.jinja",
        "<|begin_of_text|>",
        "<|eot_id|>",
    )
}

fn read_tool() -> serde_json::Value {
    json!({
        "type": "function",
        "function": {
            "name": "read",
            "description": "Reads a file.",
            "parameters": {
                "type": "object",
                "properties": {"filePath": {"type": "string"}},
                "required": ["filePath"],
            },
        },
    })
}

/// A question, the model's call of `read`, and the tool's result.
fn conversation_with_a_call() -> Vec<serde_json::Value> {
    vec![
        json!({"role": "system", "content": "You are terse."}),
        json!({"role": "user", "content": "Read notes.txt"}),
        json!({"role": "assistant", "content": "", "tool_calls": [{
            "id": "call_1",
            "type": "function",
            "function": {"name": "read", "arguments": {"filePath": "notes.txt"}},
        }]}),
        json!({"role": "tool", "tool_call_id": "call_1", "name": "read", "content": "1: alpha"}),
    ]
}

#[test]
fn qwen_writes_the_tools_an_earlier_call_and_its_result_as_hugging_face_does() {
    let prompt = qwen()
        .render(&conversation_with_a_call(), &[read_tool()], true)
        .unwrap_or_else(|error| panic!("{error}"));
    let expected = concat!(
        "<|im_start|>system\nYou are terse.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n",
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n",
        r#"{"type": "function", "function": {"name": "read", "description": "Reads a file.", "parameters": {"type": "object", "properties": {"filePath": {"type": "string"}}, "required": ["filePath"]}}}"#,
        "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n",
        "<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n",
        "<|im_start|>user\nRead notes.txt<|im_end|>\n",
        "<|im_start|>assistant\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"filePath\": \"notes.txt\"}}\n</tool_call><|im_end|>\n",
        "<|im_start|>user\n<tool_response>\n1: alpha\n</tool_response><|im_end|>\n",
        "<|im_start|>assistant\n",
    );
    assert_eq!(prompt, expected);
}

#[test]
fn qwen_without_tools_is_the_plain_chat_format() {
    let prompt = qwen()
        .render(&[json!({"role": "user", "content": "Hello"})], &[], true)
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        prompt,
        "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n"
    );
}

#[test]
fn llama_writes_indented_tools_in_the_first_user_message_and_calls_as_json() {
    let prompt = llama()
        .render(&conversation_with_a_call(), &[read_tool()], true)
        .unwrap_or_else(|error| panic!("{error}"));
    let expected = concat!(
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n",
        "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n",
        "You are terse.<|eot_id|>",
        "<|start_header_id|>user<|end_header_id|>\n\n",
        "Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n",
        "Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}.Do not use variables.\n\n",
        "{\n    \"type\": \"function\",\n    \"function\": {\n        \"name\": \"read\",\n        \"description\": \"Reads a file.\",\n",
        "        \"parameters\": {\n            \"type\": \"object\",\n            \"properties\": {\n                \"filePath\": {\n                    \"type\": \"string\"\n                }\n            },\n",
        "            \"required\": [\n                \"filePath\"\n            ]\n        }\n    }\n}\n\n",
        "Read notes.txt<|eot_id|>",
        "<|start_header_id|>assistant<|end_header_id|>\n\n{\"name\": \"read\", \"parameters\": {\"filePath\": \"notes.txt\"}}<|eot_id|>",
        "<|start_header_id|>ipython<|end_header_id|>\n\n\"1: alpha\"<|eot_id|>",
        "<|start_header_id|>assistant<|end_header_id|>\n\n",
    );
    assert_eq!(prompt, expected);
}

#[test]
fn a_template_that_refuses_the_conversation_is_a_typed_error_naming_the_model() {
    let mut messages = conversation_with_a_call();
    messages[2]["tool_calls"] = json!([
        {"type": "function", "function": {"name": "read", "arguments": {"filePath": "a"}}},
        {"type": "function", "function": {"name": "read", "arguments": {"filePath": "b"}}},
    ]);
    match llama().render(&messages, &[read_tool()], true) {
        Err(LocalEngineError::TemplateRender { model, reason }) => {
            assert_eq!(model, "meta-llama-Llama-3.2-3B-Instruct.jinja");
            assert!(
                reason.contains("This model only supports single tool-calls at once!"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_template_that_is_not_jinja_is_a_typed_error_naming_the_model() {
    let made = ChatTemplate::new(
        "broken-model",
        TemplateFacts {
            chat_template: "{% for message in messages %}{{ message.content }".into(),
            bos_token: String::new(),
            eos_token: String::new(),
        },
    );
    match made {
        Err(error @ LocalEngineError::TemplateRender { .. }) => {
            let said = error.to_string();
            assert!(
                said.starts_with("The chat template of the model broken-model cannot be applied:"),
                "{said}"
            );
        }
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("a broken template compiled"),
    }
}

#[test]
fn python_string_methods_and_tojson_options_work() {
    let template = ChatTemplate::new(
        "methods",
        TemplateFacts {
            chat_template: "{{ messages[0].content.strip().upper() }}|{{ messages[0].content.startswith(' a') }}|{{ {'b': 1, 'a': [1, 2], 'c': 'é<'} | tojson }}|{{ bos_token }}{{ eos_token }}".into(),
            bos_token: "<s>".into(),
            eos_token: "</s>".into(),
        },
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let written = template
        .render(&[json!({"role": "user", "content": " a b "})], &[], true)
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        written,
        r#"A B|True|{"b": 1, "a": [1, 2], "c": "é<"}|<s></s>"#
    );
}
