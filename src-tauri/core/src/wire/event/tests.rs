use super::*;

fn bus(capacity: usize) -> EventBus {
    EventBus::with_replay_capacity(Arc::new(IdGenerator::system()), capacity)
}

fn idle(session: &str) -> EventPayload {
    EventPayload::SessionIdle {
        session_id: session.into(),
    }
}

#[test]
fn envelope_is_id_type_properties() {
    let event = bus(8).publish(idle("ses_1"));
    let value = serde_json::to_value(&event).unwrap_or_default();
    assert_eq!(value["type"], "session.idle");
    assert_eq!(
        value["properties"],
        serde_json::json!({"sessionID": "ses_1"})
    );
    assert!(value["id"]
        .as_str()
        .is_some_and(|id| id.starts_with("evt_")));
    assert_eq!(value.as_object().map(|fields| fields.len()), Some(3));
    assert_eq!(event.payload.type_name(), "session.idle");
}

#[test]
fn sequences_increase_by_one() {
    let bus = bus(8);
    let sequences: Vec<u64> = (0..5).map(|_| bus.publish(idle("s")).sequence).collect();
    assert_eq!(sequences, [1, 2, 3, 4, 5]);
    assert_eq!(bus.next_sequence(), 6);
}

#[tokio::test]
async fn subscriber_receives_published_events_in_order() {
    let bus = bus(8);
    let mut receiver = bus.subscribe();
    bus.publish(idle("a"));
    bus.publish(idle("b"));
    let first = receiver
        .recv()
        .await
        .map(|event| event.sequence)
        .unwrap_or_default();
    let second = receiver
        .recv()
        .await
        .map(|event| event.sequence)
        .unwrap_or_default();
    assert_eq!((first, second), (1, 2));
}

#[test]
fn replay_returns_only_what_was_missed() {
    let bus = bus(8);
    for _ in 0..5 {
        bus.publish(idle("s"));
    }
    let (replay, _receiver) = bus.subscribe_after(3);
    match replay {
        Replay::Events(events) => {
            assert_eq!(
                events
                    .iter()
                    .map(|event| event.sequence)
                    .collect::<Vec<_>>(),
                [4, 5]
            );
        }
        Replay::Gap { .. } => panic!("unexpected gap"),
    }
}

#[test]
fn replay_reports_a_gap_older_than_the_buffer() {
    let bus = bus(3);
    for _ in 0..10 {
        bus.publish(idle("s"));
    }
    let (replay, _receiver) = bus.subscribe_after(2);
    assert!(matches!(
        replay,
        Replay::Gap {
            oldest_available: 8
        }
    ));
    let (replay, _receiver) = bus.subscribe_after(7);
    assert!(matches!(replay, Replay::Events(events) if events.len() == 3));
}

#[test]
fn replay_reports_a_gap_for_an_id_from_an_earlier_run() {
    let bus = bus(8);
    bus.publish(idle("s"));
    let (replay, _receiver) = bus.subscribe_after(500);
    assert!(matches!(replay, Replay::Gap { .. }));
    let (current, _receiver) = bus.subscribe_after(1);
    assert!(matches!(current, Replay::Events(events) if events.is_empty()));
}
