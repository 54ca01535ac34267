//! When and how long to wait before calling a provider again: retryable failures (rate limits,
//! overload, 5xx; never context overflow or bad keys), and the delay from `retry-after-ms`, then
//! `retry-after` (seconds or an HTTP date), else 2 s·2ⁿ⁻¹ capped at 30 s. Pure, table-tested.

use crate::models::provider::ProviderFailure;
use std::collections::BTreeMap;
use std::time::Duration;

/// Attempts after the first call; then the failure is recorded on the reply.
pub const MAX_RETRIES: u32 = 8;
const INITIAL_DELAY: Duration = Duration::from_secs(2);
const MAX_DELAY_WITHOUT_HEADERS: Duration = Duration::from_secs(30);

pub fn is_retryable(failure: &ProviderFailure) -> bool {
    match failure {
        ProviderFailure::Api {
            retryable, status, ..
        } => *retryable || status.is_some_and(|status| status == 429 || status >= 500),
        _ => false,
    }
}

/// The wait before retry number `attempt` (1 for the first retry). `now_millis` is used for
/// HTTP-date headers.
pub fn delay(attempt: u32, headers: &BTreeMap<String, String>, now_millis: i64) -> Duration {
    if let Some(millis) = headers
        .get("retry-after-ms")
        .and_then(|value| value.trim().parse::<f64>().ok())
        .filter(|millis| millis.is_finite() && *millis >= 0.0)
    {
        return Duration::from_millis(millis.ceil() as u64);
    }
    if let Some(value) = headers.get("retry-after") {
        if let Some(seconds) = value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
        {
            return Duration::from_millis((seconds * 1000.0).ceil() as u64);
        }
        if let Ok(date) = chrono::DateTime::parse_from_rfc2822(value.trim()) {
            let wait = date.timestamp_millis() - now_millis;
            return Duration::from_millis(u64::try_from(wait).unwrap_or(0));
        }
    }
    let exponent = attempt.saturating_sub(1).min(16);
    (INITIAL_DELAY * 2u32.pow(exponent)).min(MAX_DELAY_WITHOUT_HEADERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    type Case = (u32, &'static [(&'static str, &'static str)], u64);

    #[test]
    fn delay_table() {
        let now = chrono::DateTime::parse_from_rfc2822("Mon, 30 Nov 2026 02:00:00 GMT")
            .map(|date| date.timestamp_millis())
            .unwrap_or_default();
        let table: [Case; 9] = [
            (1, &[], 2_000),
            (2, &[], 4_000),
            (3, &[], 8_000),
            (5, &[], 30_000),
            (1, &[("retry-after-ms", "150")], 150),
            (1, &[("retry-after", "3")], 3_000),
            (1, &[("retry-after", "0.5")], 500),
            (1, &[("retry-after-ms", "20"), ("retry-after", "9")], 20),
            (
                1,
                &[("retry-after", "Mon, 30 Nov 2026 02:00:07 GMT")],
                7_000,
            ),
        ];
        for (attempt, pairs, expected) in table {
            assert_eq!(
                delay(attempt, &headers(pairs), now),
                Duration::from_millis(expected),
                "attempt {attempt} with {pairs:?}"
            );
        }
    }

    #[test]
    fn only_rate_limits_overload_and_server_errors_are_retried() {
        let api = |status: Option<u16>, retryable: bool| ProviderFailure::Api {
            message: "x".into(),
            status,
            retryable,
            retry_headers: BTreeMap::new(),
            response_body: None,
        };
        assert!(is_retryable(&api(Some(429), false)));
        assert!(is_retryable(&api(Some(503), false)));
        assert!(is_retryable(&api(None, true)));
        assert!(!is_retryable(&api(Some(400), false)));
        assert!(!is_retryable(&ProviderFailure::Auth {
            message: "x".into()
        }));
        assert!(!is_retryable(&ProviderFailure::ContextOverflow {
            message: "x".into(),
            response_body: None
        }));
        assert!(!is_retryable(&ProviderFailure::StreamCut {
            message: "x".into()
        }));
    }
}
