//! The config file (JSON or JSONC, OpenCode's shape): any text is parsed or refused with a
//! message, and the JSONC comment stripping never changes what plain JSON means.

#![no_main]

use dossier_core::models::config::Config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = Config::parse(&text);
    if let Ok(plain) = serde_json::from_str::<Config>(&text) {
        let parsed = parsed.unwrap_or_else(|error| {
            panic!("valid JSON config refused once comments are stripped: {error}")
        });
        assert_eq!(format!("{parsed:?}"), format!("{plain:?}"));
    }
});
