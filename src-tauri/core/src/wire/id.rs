//! Time-sortable identifiers (`ses_`, `msg_`, `prt_`, `evt_`).
//!
//! OpenCode writes only the low 48 bits of `milliseconds × 4096`, so its ids wrap every ~795
//! days (last on 2026-08-14T11:19:55.136Z) and every "newer than" comparison breaks across the
//! wrap. Here the full `milliseconds × 4096 + counter` value is written as 16 hex digits, which
//! sorts correctly until the year ~144,000. Order inside a session never depends on ids anyway:
//! it is a stored sequence (see `message_store`).

use rand::Rng;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The kinds of identifiers the ledger mints, each with its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Session,
    Message,
    Part,
    Event,
    Permission,
}

impl IdKind {
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Session => "ses",
            Self::Message => "msg",
            Self::Part => "prt",
            Self::Event => "evt",
            Self::Permission => "per",
        }
    }
}

const RANDOM_LENGTH: usize = 10;
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A source of "now" in Unix milliseconds; injectable so tests can stand on any instant.
pub type Clock = Arc<dyn Fn() -> i64 + Send + Sync>;

pub fn system_clock() -> Clock {
    Arc::new(|| chrono::Utc::now().timestamp_millis())
}

/// Mints strictly increasing ids for one process. Cheap to share behind an `Arc`.
pub struct IdGenerator {
    clock: Clock,
    last: AtomicU64,
}

impl IdGenerator {
    pub fn new(clock: Clock) -> Self {
        Self {
            clock,
            last: AtomicU64::new(0),
        }
    }

    pub fn system() -> Self {
        Self::new(system_clock())
    }

    pub fn now_millis(&self) -> i64 {
        (self.clock)()
    }

    /// The next id of `kind`. Within one millisecond up to 4096 ids carry distinct counters; past
    /// that (or when the clock steps back) the value keeps increasing from the last one, so ids
    /// never repeat or go backwards inside a process.
    pub fn next(&self, kind: IdKind) -> String {
        let millis = u64::try_from(self.now_millis()).unwrap_or(0);
        let candidate = millis.saturating_mul(4096);
        let mut previous = self.last.load(Ordering::Relaxed);
        let value = loop {
            let value = candidate.max(previous.saturating_add(1));
            match self.last.compare_exchange_weak(
                previous,
                value,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => break value,
                Err(actual) => previous = actual,
            }
        };
        let mut rng = rand::thread_rng();
        let random: String = (0..RANDOM_LENGTH)
            .map(|_| BASE62[rng.gen_range(0..BASE62.len())] as char)
            .collect();
        format!("{}_{value:016x}{random}", kind.prefix())
    }
}

/// The creation time (Unix ms) encoded in an id minted here, if it is one of ours.
pub fn timestamp_of(id: &str) -> Option<i64> {
    let (_, rest) = id.split_once('_')?;
    let hex = rest.get(..16)?;
    let value = u64::from_str_radix(hex, 16).ok()?;
    i64::try_from(value / 4096).ok()
}

/// Accepts a client-supplied id: the right prefix, then 1–64 ASCII letters or digits. Such ids
/// name things; they never decide order.
pub fn validate_given(kind: IdKind, id: &str) -> Result<(), IdError> {
    let Some(rest) = id
        .strip_prefix(kind.prefix())
        .and_then(|rest| rest.strip_prefix('_'))
    else {
        return Err(IdError::WrongPrefix {
            prefix: kind.prefix(),
        });
    };
    if rest.is_empty() || rest.len() > 64 {
        return Err(IdError::WrongLength);
    }
    if !rest.bytes().all(|byte| byte.is_ascii_alphanumeric()) {
        return Err(IdError::NotAlphanumeric);
    }
    Ok(())
}

/// Why a client-supplied id was refused; shown after the id ("Invalid id \"x\": …").
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("it must start with \"{prefix}_\"")]
    WrongPrefix { prefix: &'static str },
    #[error("it must have 1 to 64 characters after the prefix")]
    WrongLength,
    #[error("only letters and digits may follow the prefix")]
    NotAlphanumeric,
}

#[cfg(test)]
mod tests;
