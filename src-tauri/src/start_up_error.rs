//! What the box shown when the ledger cannot be opened says. The core's refusals of the
//! database file (newer, damaged, an update that failed) already say what happened, which copy
//! is safe and what to do; any other failure gets the general advice.

use dossier_core::wire::error::LedgerError;

/// The text of the start-up error box. English only: the i18n table lives in the webview,
/// which never started.
pub fn description(error: &LedgerError) -> String {
    if error.says_what_to_do() {
        format!("Dossier did not open its saved sessions.\n\n{error}")
    } else {
        format!(
            "Dossier could not open its saved sessions.\n\n{error}\n\nSet DOSSIER_DATA_DIR to \
             another folder, or fix the file named above, then start Dossier again."
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_database_file_keeps_the_cores_advice_alone() {
        let newer = LedgerError::NewerDatabase {
            database: "/data/dossier.db".into(),
            schema_version: 12,
            known_version: 8,
            made_by: Some("2.0.0".into()),
        };
        let text = description(&newer);
        assert!(text.contains("last updated by Dossier 2.0.0"), "{text}");
        assert!(text.contains("Install Dossier 2.0.0 or later"), "{text}");
        assert!(!text.contains("DOSSIER_DATA_DIR"), "{text}");
    }

    #[test]
    fn other_failures_get_the_general_advice() {
        let config = LedgerError::Config {
            path: "/config/dossier.json".into(),
            message: "expected value at line 1".into(),
        };
        let text = description(&config);
        assert!(text.contains("/config/dossier.json"), "{text}");
        assert!(text.contains("Set DOSSIER_DATA_DIR"), "{text}");
    }
}
