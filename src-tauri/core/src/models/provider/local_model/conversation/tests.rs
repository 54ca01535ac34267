use super::*;
use crate::local_models::chat_template::tests::llama;
use serde_json::json;

fn call(id: &str, path: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": "read", "arguments": {"filePath": path}}})
}

#[test]
fn two_calls_in_one_turn_become_two_turns_each_followed_by_its_result() {
    let messages = vec![
        json!({"role": "user", "content": "Read a and b"}),
        json!({"role": "assistant", "content": "", "tool_calls": [call("c1", "a"), call("c2", "b")]}),
        json!({"role": "tool", "tool_call_id": "c2", "name": "read", "content": "B"}),
        json!({"role": "tool", "tool_call_id": "c1", "name": "read", "content": "A"}),
    ];
    let reordered = one_call_per_turn(messages.clone());
    assert_eq!(
        reordered,
        vec![
            messages[0].clone(),
            json!({"role": "assistant", "content": "", "tool_calls": [call("c1", "a")]}),
            messages[3].clone(),
            json!({"role": "assistant", "content": "", "tool_calls": [call("c2", "b")]}),
            messages[2].clone(),
        ]
    );
    // Llama 3.2's template refuses the first and takes the second.
    let tools = [
        json!({"type": "function", "function": {"name": "read", "description": "Reads.", "parameters": {}}}),
    ];
    assert!(llama().render(&messages, &tools, true).is_err());
    let prompt = llama()
        .render(&reordered, &tools, true)
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(prompt.contains("{\"name\": \"read\", \"parameters\": {\"filePath\": \"b\"}}<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\n\"B\""), "{prompt}");
}

#[test]
fn one_call_turns_are_left_as_they_are() {
    let messages = vec![
        json!({"role": "user", "content": "Read a"}),
        json!({"role": "assistant", "content": "Looking.", "tool_calls": [call("c1", "a")]}),
        json!({"role": "tool", "tool_call_id": "c1", "name": "read", "content": "A"}),
        json!({"role": "assistant", "content": "It says A."}),
    ];
    assert_eq!(one_call_per_turn(messages.clone()), messages);
}
