use super::*;
use std::sync::atomic::AtomicI64;

fn fixed_clock(start: i64) -> (Clock, Arc<AtomicI64>) {
    let now = Arc::new(AtomicI64::new(start));
    let reader = now.clone();
    (Arc::new(move || reader.load(Ordering::SeqCst)), now)
}

fn millis(iso: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(iso)
        .map(|time| time.timestamp_millis())
        .unwrap_or_else(|error| panic!("bad test instant {iso}: {error}"))
}

#[test]
fn ids_stay_sorted_across_opencode_wrap_instant() {
    // OpenCode's 48-bit field wraps between these two milliseconds.
    let (clock, now) = fixed_clock(millis("2026-08-14T11:19:55.134Z"));
    let generator = IdGenerator::new(clock);
    let mut ids = Vec::new();
    for step in 0..4 {
        now.store(millis("2026-08-14T11:19:55.134Z") + step, Ordering::SeqCst);
        ids.push(generator.next(IdKind::Message));
        ids.push(generator.next(IdKind::Message));
    }
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    assert_eq!(
        timestamp_of(&ids[6]),
        Some(millis("2026-08-14T11:19:55.137Z"))
    );
}

#[test]
fn ids_sort_by_time_for_centuries() {
    let instants = [
        "1999-12-31T23:59:59.999Z",
        "2026-08-14T11:19:55.135Z",
        "2026-08-14T11:19:55.136Z",
        "2028-10-17T00:00:00.000Z",
        "2199-01-01T00:00:00.000Z",
        "2500-06-30T12:00:00.000Z",
        "9999-12-31T23:59:59.999Z",
    ];
    let mut ids = Vec::new();
    for instant in instants {
        // A fresh generator per instant: order must come from the time, not from the counter.
        let (clock, _) = fixed_clock(millis(instant));
        let id = IdGenerator::new(clock).next(IdKind::Part);
        assert_eq!(timestamp_of(&id), Some(millis(instant)), "{instant}");
        ids.push(id);
    }
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
}

#[test]
fn ids_never_go_backwards_when_the_clock_does() {
    let (clock, now) = fixed_clock(millis("2030-01-01T00:00:00.000Z"));
    let generator = IdGenerator::new(clock);
    let first = generator.next(IdKind::Event);
    now.store(millis("2029-01-01T00:00:00.000Z"), Ordering::SeqCst);
    let second = generator.next(IdKind::Event);
    assert!(second > first);
}

#[test]
fn many_ids_in_one_millisecond_are_distinct_and_increasing() {
    let (clock, _) = fixed_clock(millis("2026-11-30T00:00:00.000Z"));
    let generator = IdGenerator::new(clock);
    let ids: Vec<String> = (0..10_000)
        .map(|_| generator.next(IdKind::Message))
        .collect();
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
}

#[test]
fn ids_have_prefix_and_opencode_length() {
    let generator = IdGenerator::system();
    for kind in [
        IdKind::Session,
        IdKind::Message,
        IdKind::Part,
        IdKind::Event,
    ] {
        let id = generator.next(kind);
        assert!(id.starts_with(&format!("{}_", kind.prefix())));
        assert_eq!(id.len(), 4 + 26, "{id}");
        assert_eq!(validate_given(kind, &id), Ok(()));
    }
}

#[test]
fn given_ids_need_the_right_prefix_and_plain_characters() {
    assert_eq!(
        validate_given(IdKind::Message, "msg_229fd5e52001hp5OmXjpSJ7GOu"),
        Ok(())
    );
    assert!(validate_given(IdKind::Message, "prt_229fd5e52001").is_err());
    assert!(validate_given(IdKind::Part, "prt_").is_err());
    assert!(validate_given(IdKind::Part, "prt_abc/../x").is_err());
    assert!(validate_given(IdKind::Part, &format!("prt_{}", "a".repeat(65))).is_err());
}
