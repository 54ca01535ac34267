//! The speed a download shows: bytes over the last few seconds, and none at all once nothing has
//! arrived for a moment — so a stall reads "waiting for the server", never a frozen figure.
//! Pure: every call is given the time.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How far back the speed looks.
const WINDOW: Duration = Duration::from_secs(5);

#[derive(Debug)]
pub struct SpeedMeter {
    arrivals: VecDeque<(Instant, u64)>,
    quiet_after: Duration,
}

impl SpeedMeter {
    /// A meter that calls the download quiet once nothing arrived for `quiet_after`.
    pub fn new(quiet_after: Duration) -> Self {
        Self {
            arrivals: VecDeque::new(),
            quiet_after,
        }
    }

    pub fn record(&mut self, now: Instant, bytes: u64) {
        self.arrivals.push_back((now, bytes));
        while self
            .arrivals
            .front()
            .is_some_and(|(at, _)| now.duration_since(*at) > WINDOW)
        {
            self.arrivals.pop_front();
        }
    }

    /// Whether nothing has arrived for `quiet_after` (or ever).
    pub fn is_quiet(&self, now: Instant) -> bool {
        self.arrivals
            .back()
            .is_none_or(|(at, _)| now.duration_since(*at) >= self.quiet_after)
    }

    /// Bytes per second over the window; `None` while quiet.
    pub fn bytes_per_second(&self, now: Instant) -> Option<u64> {
        if self.is_quiet(now) {
            return None;
        }
        let (first, _) = self.arrivals.front()?;
        let bytes: u64 = self.arrivals.iter().map(|(_, bytes)| bytes).sum();
        // At least a quarter of a second, so the first chunk does not read as a huge speed.
        let seconds = now.duration_since(*first).as_secs_f64().max(0.25);
        Some((bytes as f64 / seconds) as u64)
    }

    /// Seconds until `remaining` bytes are in at the current speed; `None` while quiet.
    pub fn seconds_left(&self, now: Instant, remaining: u64) -> Option<u64> {
        let speed = self.bytes_per_second(now)?;
        (speed > 0).then(|| remaining.div_ceil(speed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_and_time_left_follow_arrivals_and_vanish_when_quiet() {
        let start = Instant::now();
        let mut meter = SpeedMeter::new(Duration::from_secs(2));
        assert_eq!(meter.bytes_per_second(start), None);
        assert!(meter.is_quiet(start));
        for second in 0..4 {
            meter.record(start + Duration::from_secs(second), 1000);
        }
        let now = start + Duration::from_secs(4);
        assert_eq!(meter.bytes_per_second(now), Some(1000));
        assert_eq!(meter.seconds_left(now, 10_000), Some(10));
        // Two seconds without a byte: no speed, no time left, quiet.
        let later = start + Duration::from_secs(5);
        assert!(meter.is_quiet(later));
        assert_eq!(meter.bytes_per_second(later), None);
        assert_eq!(meter.seconds_left(later, 10_000), None);
    }
}
