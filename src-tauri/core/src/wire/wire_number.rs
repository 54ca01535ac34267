//! OpenCode's JSON writes whole numbers without a fraction (`"cost": 0`), while serde writes an
//! `f64` zero as `0.0`. These helpers keep costs byte-compatible with OpenCode's wire samples.

use serde::{Deserialize, Deserializer, Serializer};

/// Largest integer an `f64` (and a JavaScript number) holds exactly.
const SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

pub fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.is_finite() && value.fract() == 0.0 && value.abs() <= SAFE_INTEGER {
        // The guard above makes the conversion exact.
        #[allow(clippy::cast_possible_truncation)]
        return serializer.serialize_i64(*value as i64);
    }
    serializer.serialize_f64(*value)
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    f64::deserialize(deserializer)
}
