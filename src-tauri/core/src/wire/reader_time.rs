//! Times in a readable export, as the person reading it tells the time: their own date and
//! clock with the offset beside it ("2026-12-05 14:03 (UTC+01:00)"), not the stored UTC
//! instant. The lossless JSON export keeps the stored milliseconds.

use chrono::{DateTime, FixedOffset, Local, Offset, Utc};

/// Whose clock a readable export uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderTimeZone {
    /// The computer Dossier runs on: the desktop app, where the reader sits at that computer.
    /// Each time gets the offset that applied on its own date (summer time included).
    ThisComputer,
    /// A fixed offset from UTC, in minutes east: what a browser reports for a download from a
    /// server in another time zone (JavaScript's `-new Date().getTimezoneOffset()`).
    OffsetMinutes(i32),
}

/// The widest offsets in use are −12:00 and +14:00; anything beyond ±18 hours is not one.
const LARGEST_OFFSET_MINUTES: i32 = 18 * 60;

impl ReaderTimeZone {
    /// A browser's offset in minutes east of UTC, or `None` when it cannot be one.
    pub fn from_offset_minutes(minutes: i32) -> Option<Self> {
        (minutes.abs() <= LARGEST_OFFSET_MINUTES).then_some(Self::OffsetMinutes(minutes))
    }
}

/// `millis` (since 1970, UTC) as date, hour and minute in `zone`, with the offset.
pub fn reader_time(millis: i64, zone: ReaderTimeZone) -> String {
    let instant = DateTime::<Utc>::from_timestamp_millis(millis).unwrap_or_default();
    let local: DateTime<FixedOffset> = match zone {
        ReaderTimeZone::ThisComputer => instant.with_timezone(&Local).fixed_offset(),
        ReaderTimeZone::OffsetMinutes(minutes) => {
            let offset = FixedOffset::east_opt(minutes * 60).unwrap_or_else(|| Utc.fix());
            instant.with_timezone(&offset)
        }
    };
    let offset_seconds = local.offset().local_minus_utc();
    let sign = if offset_seconds < 0 { '-' } else { '+' };
    let offset_minutes = offset_seconds.unsigned_abs() / 60;
    format!(
        "{} (UTC{sign}{:02}:{:02})",
        local.format("%Y-%m-%d %H:%M"),
        offset_minutes / 60,
        offset_minutes % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_in_the_readers_offset() {
        // 2026-12-05T13:03:09Z
        let millis = 1_796_475_789_000;
        let table = [
            (0, "2026-12-05 13:03 (UTC+00:00)"),
            (60, "2026-12-05 14:03 (UTC+01:00)"),
            (330, "2026-12-05 18:33 (UTC+05:30)"),
            (-300, "2026-12-05 08:03 (UTC-05:00)"),
            (14 * 60, "2026-12-06 03:03 (UTC+14:00)"),
            (-12 * 60, "2026-12-05 01:03 (UTC-12:00)"),
        ];
        for (minutes, expected) in table {
            let zone = ReaderTimeZone::from_offset_minutes(minutes)
                .unwrap_or_else(|| panic!("{minutes} refused"));
            assert_eq!(reader_time(millis, zone), expected, "{minutes}");
        }
    }

    #[test]
    fn offsets_no_clock_uses_are_refused() {
        assert_eq!(ReaderTimeZone::from_offset_minutes(18 * 60 + 1), None);
        assert_eq!(ReaderTimeZone::from_offset_minutes(-100_000), None);
        assert_eq!(
            ReaderTimeZone::from_offset_minutes(-18 * 60),
            Some(ReaderTimeZone::OffsetMinutes(-18 * 60))
        );
    }

    #[test]
    fn this_computers_clock_says_its_offset() {
        let shown = reader_time(1_796_475_789_000, ReaderTimeZone::ThisComputer);
        // Whatever the machine's zone, the form is the same and the offset is said.
        assert_eq!(shown.len(), "2026-12-05 13:03 (UTC+00:00)".len(), "{shown}");
        assert!(shown.contains(" (UTC"), "{shown}");
    }
}
