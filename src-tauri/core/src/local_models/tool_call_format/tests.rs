use super::*;
use crate::local_models::chat_template::tests::{llama, qwen};
use crate::local_models::gguf_header::TemplateFacts;

fn template(source: &str) -> ChatTemplate {
    ChatTemplate::new(
        "test-model",
        TemplateFacts {
            chat_template: source.into(),
            bos_token: String::new(),
            eos_token: String::new(),
        },
    )
    .unwrap_or_else(|error| panic!("{error}"))
}

/// SmolLM2's template (ChatML, which never looks at `tools`), as its GGUF file carries it.
const SMOLLM2: &str = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

#[test]
fn qwen_writes_hermes_calls() {
    assert_eq!(tool_call_format(&qwen()), Some(ToolCallFormat::Hermes));
}

#[test]
fn llama_three_writes_bare_json_calls() {
    assert_eq!(tool_call_format(&llama()), Some(ToolCallFormat::LlamaJson));
}

#[test]
fn a_template_that_ignores_tools_is_offered_none() {
    assert_eq!(tool_call_format(&template(SMOLLM2)), None);
}

#[test]
fn a_template_that_takes_tools_but_writes_calls_in_another_form_is_offered_none() {
    // Mistral-like: the tools are listed, but a call is written `[TOOL_CALLS]name`.
    let other = "{% if tools %}[AVAILABLE_TOOLS]{{ tools | tojson }}[/AVAILABLE_TOOLS]{% endif %}{% for message in messages %}{% if message.tool_calls %}[TOOL_CALLS]{{ message.tool_calls[0].function.name }}{% else %}{{ message.content }}{% endif %}{% endfor %}";
    assert_eq!(tool_call_format(&template(other)), None);
}

#[test]
fn a_template_that_mentions_tools_only_in_a_comment_is_offered_none() {
    // The crude test this replaces ("does the text say tools?") said yes to this one.
    let commented = format!("{{# tools and tool_call are not supported #}}{SMOLLM2}");
    assert_eq!(tool_call_format(&template(&commented)), None);
}
