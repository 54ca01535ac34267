//! The worker as the app sees it: the real binary over stdin/stdout. (Also makes `cargo test` build
//! the binary itself into the target folder, where the core's tests find it.)

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn event(reader: &mut impl BufRead) -> serde_json::Value {
    let mut line = String::new();
    reader
        .read_line(&mut line)
        .unwrap_or_else(|error| panic!("{error}"));
    serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line:?}"))
}

#[test]
fn it_answers_bad_requests_with_typed_errors_and_exits_when_stdin_closes() {
    let mut worker = Command::new(env!("CARGO_BIN_EXE_dossier-local-model-worker"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("{error}"));
    let mut stdin = worker.stdin.take().unwrap_or_else(|| unreachable!());
    let mut stdout = BufReader::new(worker.stdout.take().unwrap_or_else(|| unreachable!()));
    let ready = event(&mut stdout);
    assert_eq!(ready["type"], "ready", "{ready}");
    assert!(
        ready["physical_cores"].as_u64().unwrap_or(0) >= 1,
        "{ready}"
    );

    writeln!(stdin, "not json").unwrap_or_else(|error| panic!("{error}"));
    let refused = event(&mut stdout);
    assert_eq!(
        (refused["type"].as_str(), refused["kind"].as_str()),
        (Some("error"), Some("bad_request")),
        "{refused}"
    );

    writeln!(
        stdin,
        r#"{{"type":"generate","id":"a","messages":[{{"role":"user","content":"hi"}}]}}"#
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let no_model = event(&mut stdout);
    assert_eq!(no_model["kind"], "no_model_loaded", "{no_model}");
    assert_eq!(no_model["id"], "a", "{no_model}");

    writeln!(stdin, r#"{{"type":"load","path":"/no/such/model.gguf"}}"#)
        .unwrap_or_else(|error| panic!("{error}"));
    let missing = event(&mut stdout);
    assert_eq!(missing["kind"], "load_failed", "{missing}");
    assert!(
        missing["message"]
            .as_str()
            .unwrap_or("")
            .contains("does not exist"),
        "{missing}"
    );

    drop(stdin);
    let started = Instant::now();
    loop {
        if let Some(status) = worker.try_wait().unwrap_or_else(|error| panic!("{error}")) {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the worker outlived its stdin"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
