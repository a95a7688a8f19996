//! Simulated time, rates and sizes as integers.
//!
//! Time is a `u64` count of nanoseconds (about 584 years of range). Event ordering never touches a
//! float. Serialization times are computed in `u128` and rounded up, so a link never sends faster
//! than its rate.

/// A point in simulated time, nanoseconds since the start of the run.
pub type Time = u64;
/// A span of simulated time, nanoseconds.
pub type Dur = u64;

pub const NS_PER_S: u64 = 1_000_000_000;
pub const NS_PER_MS: u64 = 1_000_000;

/// Nanoseconds to seconds, for measurements (never for event ordering).
#[inline]
pub fn secs(t: Time) -> f64 {
    t as f64 / NS_PER_S as f64
}

/// Seconds to nanoseconds, rounded to the nearest nanosecond.
#[inline]
pub fn from_secs(s: f64) -> Dur {
    (s * NS_PER_S as f64).round().max(0.0) as Dur
}

/// Time to serialize `bytes` at `rate_bps` bits per second, rounded up to whole nanoseconds.
#[inline]
pub fn tx_time(bytes: u32, rate_bps: u64) -> Dur {
    let bits = bytes as u128 * 8 * NS_PER_S as u128;
    bits.div_ceil(rate_bps as u128) as Dur
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_for_common_rates() {
        assert_eq!(tx_time(1040, 1_000_000_000), 8_320);
        assert_eq!(tx_time(1040, 100_000_000), 83_200);
        assert_eq!(tx_time(40, 10_000_000_000), 32);
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 byte at 3 bit/s = 2.666.. s
        assert_eq!(tx_time(1, 3), 2_666_666_667);
    }
}
