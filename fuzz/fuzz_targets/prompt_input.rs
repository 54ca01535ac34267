//! The prompt request body: JSON → `PromptInput::from_json` (the per-part checks and serde) →
//! `check_input` (ids, repeated ids, file URL schemes), everything that runs before the prompt
//! touches storage. What is accepted must survive its own JSON unchanged.

#![no_main]

use dossier_core::fuzzing::check_prompt_input;
use dossier_core::wire::draft::PromptInput;
use dossier_core::ErrorKind;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let input = match PromptInput::from_json(value) {
        Ok(input) => input,
        Err(error) => {
            assert_eq!(error.kind(), ErrorKind::Invalid, "{error}");
            return;
        }
    };
    let checked = check_prompt_input(&input);
    if let Err(error) = &checked {
        assert_eq!(error.kind(), ErrorKind::Invalid, "{error}");
    }
    let json = serde_json::to_value(&input).expect("an accepted prompt serialises");
    let again = PromptInput::from_json(json.clone()).unwrap_or_else(|error| {
        panic!("an accepted prompt's own JSON is refused: {error}\n{json}")
    });
    assert_eq!(again, input);
    assert_eq!(check_prompt_input(&again).is_ok(), checked.is_ok());
});
