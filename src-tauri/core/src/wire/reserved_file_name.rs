//! File names Windows keeps for its devices. `CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9` and
//! `LPT0`–`LPT9` (with the superscript digits ¹²³ too) name a device in every folder, in any
//! case and whatever follows the first dot: a session titled "CON" exported as `CON.md` would
//! write to the console, and `aux.md` cannot be created at all. Linux and macOS accept these
//! names, but an export made there may be copied to Windows, so every platform avoids them.
//! (<https://learn.microsoft.com/windows/win32/fileio/naming-a-file>)

const DEVICES: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];
const NUMBERED: [&str; 2] = ["COM", "LPT"];
const DIGITS: &str = "0123456789¹²³";

/// Whether Windows takes `name` for a device: its part before the first dot, without the
/// spaces Windows drops at the end, is a reserved word in any case.
pub fn is_reserved_on_windows(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    if DEVICES.contains(&upper.as_str()) {
        return true;
    }
    NUMBERED.iter().any(|prefix| {
        upper.strip_prefix(prefix).is_some_and(|rest| {
            let mut characters = rest.chars();
            matches!((characters.next(), characters.next()), (Some(digit), None) if DIGITS.contains(digit))
        })
    })
}

/// `stem` made safe as the start of a file name on Windows: a reserved word gets a `_` after
/// it (`CON` → `CON_`), anything else is returned as it was.
pub fn unreserved_stem(stem: &str) -> String {
    if is_reserved_on_windows(stem) {
        format!("{stem}_")
    } else {
        stem.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_device_names_are_reserved_in_any_case_and_with_any_extension() {
        let table = [
            ("CON", true),
            ("con", true),
            ("Con.md", true),
            ("aux.md", true),
            ("NUL.tar.gz", true),
            ("nul ", true),
            ("PRN", true),
            ("COM1", true),
            ("com9.json", true),
            ("LPT0", true),
            ("COM¹", true),
            ("lpt³.md", true),
            ("COM10", false),
            ("COM", false),
            ("CONSOLE", false),
            ("CON_", false),
            ("my con", false),
            ("icon.md", false),
            ("", false),
        ];
        for (name, reserved) in table {
            assert_eq!(is_reserved_on_windows(name), reserved, "{name:?}");
        }
    }

    #[test]
    fn a_reserved_stem_gets_an_underscore_and_others_stay() {
        assert_eq!(unreserved_stem("CON"), "CON_");
        assert_eq!(unreserved_stem("aux"), "aux_");
        assert_eq!(unreserved_stem("Tax return"), "Tax return");
    }
}
