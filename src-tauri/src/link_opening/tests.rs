//! The link check, table-driven, and the command over Tauri's mock runtime with a recording
//! opener in place of the system's (no browser starts).

use super::*;
use crate::commands::tests::harness;
use serde_json::json;
use std::sync::Mutex;
use tauri::Manager;

#[test]
fn only_http_and_https_links_are_web_links() {
    // (link, what is handed to the browser, or the refusal's start)
    let cases: &[(&str, Result<&str, &str>)] = &[
        ("https://example.com/guide", Ok("https://example.com/guide")),
        ("http://example.com", Ok("http://example.com/")),
        (
            "HTTPS://Example.COM/a?b=c#d",
            Ok("https://example.com/a?b=c#d"),
        ),
        // Spaces and double quotes never reach the launcher raw: the serialised URL encodes them
        // (a single quote is kept, harmless in one argument to a program that no shell reads).
        (
            "https://example.com/a b\"c'd",
            Ok("https://example.com/a%20b%22c'd"),
        ),
        (
            "  https://example.com/padded  ",
            Ok("https://example.com/padded"),
        ),
        ("file:///etc/passwd", Err("scheme file")),
        ("javascript:alert(1)", Err("scheme javascript")),
        (
            "data:text/html,<script>alert(1)</script>",
            Err("scheme data"),
        ),
        ("mailto:someone@example.com", Err("scheme mailto")),
        ("dossier-blob://localhost/abc", Err("scheme dossier-blob")),
        ("/guide", Err("not a url")),
        ("guide.html", Err("not a url")),
        ("", Err("not a url")),
        ("not a link at all", Err("not a url")),
        ("https://exa mple.com/", Err("not a url")),
        ("https://", Err("not a url")),
    ];
    for (link, expected) in cases {
        let outcome = web_link(link);
        match (expected, &outcome) {
            (Ok(handed), Ok(url)) => assert_eq!(url.as_str(), *handed, "{link}"),
            (Err(refusal), Err(LinkRefusal::Scheme(scheme))) => {
                assert_eq!(*refusal, format!("scheme {scheme}"), "{link}")
            }
            (Err(refusal), Err(LinkRefusal::NotAUrl(_))) => {
                assert_eq!(*refusal, "not a url", "{link}")
            }
            _ => panic!("{link}: expected {expected:?}, got {outcome:?}"),
        }
    }
}

#[test]
fn a_refused_link_is_quoted_short() {
    let long = format!("data:text/plain,{}", "x".repeat(10_000));
    let quoted = shortened(&long);
    assert_eq!(quoted.chars().count(), 81, "{quoted}");
    assert!(quoted.ends_with('…'));
    assert_eq!(shortened("file:///etc/passwd"), "file:///etc/passwd");
    // Cut on a character, not a byte.
    assert_eq!(shortened(&"é".repeat(100)).chars().count(), 81);
}

/// An opener that writes down every target instead of starting a program.
fn recording() -> (SystemOpener, Arc<Mutex<Vec<String>>>) {
    let opened = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&opened);
    let opener = SystemOpener::with(move |target| {
        seen.lock()
            .expect("not poisoned")
            .push(target.to_string_lossy().into_owned());
        Ok(())
    });
    (opener, opened)
}

#[test]
fn open_link_hands_web_links_to_the_browser_and_refuses_the_rest() {
    let harness = harness(false);
    let (opener, opened) = recording();
    assert!(harness.app.manage(opener));

    assert_eq!(
        harness.invoke("open_link", json!({"url": "https://example.com/guide"})),
        Ok(serde_json::Value::Null)
    );
    let refused = harness
        .invoke("open_link", json!({"url": "file:///etc/passwd"}))
        .expect_err("file: is refused");
    assert_eq!(refused["kind"], "invalid");
    assert_eq!(
        refused["message"],
        "Dossier opens only web links (http and https) in your browser, so it did not open \"file:///etc/passwd\": links of the kind \"file:\" are never opened"
    );
    let relative = harness
        .invoke("open_link", json!({"url": "../dossier.db"}))
        .expect_err("a relative link is refused");
    assert_eq!(relative["kind"], "invalid");
    assert!(
        relative["message"]
            .as_str()
            .is_some_and(|message| message.contains("not a complete web address")),
        "{relative}"
    );
    assert_eq!(
        harness.invoke("open_link", json!({"url": "http://example.com/a b"})),
        Ok(serde_json::Value::Null)
    );

    assert_eq!(
        *opened.lock().expect("not poisoned"),
        ["https://example.com/guide", "http://example.com/a%20b"],
        "only the web links reached the opener"
    );
}

#[test]
fn a_browser_that_cannot_start_is_reported_with_why() {
    let harness = harness(false);
    assert!(harness.app.manage(SystemOpener::with(|_| {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no xdg-open, gio, gnome-open or kde-open",
        ))
    })));
    let failed = harness
        .invoke("open_link", json!({"url": "https://example.com/"}))
        .expect_err("fails");
    assert_eq!(failed["kind"], "internal");
    assert_eq!(
        failed["message"],
        "Could not open https://example.com/: no xdg-open, gio, gnome-open or kde-open"
    );
}

#[test]
fn open_data_folder_hands_the_ledgers_folder_to_the_file_manager() {
    let harness = harness(false);
    let (opener, opened) = recording();
    assert!(harness.app.manage(opener));
    let folder = harness
        .app
        .state::<dossier_core::Ledger>()
        .store()
        .data_dir()
        .display()
        .to_string();
    assert_eq!(
        harness.invoke("open_data_folder", json!({})),
        Ok(serde_json::Value::Null)
    );
    assert_eq!(*opened.lock().expect("not poisoned"), [folder]);
}
