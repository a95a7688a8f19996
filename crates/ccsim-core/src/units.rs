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
    // Bits times 10^9 fit in 64 bits up to 2.3 GB, so every packet takes the 64-bit division
    // (the same quotient as the 128-bit one, at a fraction of the cost).
    match (bytes as u64).checked_mul(8 * NS_PER_S) {
        Some(bits) => bits.div_ceil(rate_bps),
        None => (bytes as u128 * 8 * NS_PER_S as u128).div_ceil(rate_bps as u128) as Dur,
    }
}

/// A time as a scenario file writes it, exactly: `40_000_000` -> `"40ms"`, `1_500_000_000` ->
/// `"1.5s"`, `0` -> `"0s"` (the largest of s, ms, us, ns it reaches, trailing zeros dropped), so
/// the engine's messages quote times the way the user wrote them.
pub fn format_time(ns: Dur) -> String {
    if ns == 0 {
        return "0s".to_string();
    }
    const UNITS: [(&str, u64, usize); 4] = [("s", NS_PER_S, 9), ("ms", NS_PER_MS, 6), ("us", 1_000, 3), ("ns", 1, 0)];
    let (unit, factor, digits) = UNITS.into_iter().find(|&(_, factor, _)| ns >= factor).expect("ns >= 1");
    let (whole, rest) = (ns / factor, ns % factor);
    if rest == 0 {
        return format!("{whole}{unit}");
    }
    let fraction = format!("{rest:0digits$}");
    format!("{whole}.{}{unit}", fraction.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_a_scenario_file_would() {
        for (ns, text) in [
            (0, "0s"),
            (1, "1ns"),
            (999, "999ns"),
            (1_500, "1.5us"),
            (40_000_000, "40ms"),
            (40_000_001, "40.000001ms"),
            (1_500_000_000, "1.5s"),
            (120 * NS_PER_S, "120s"),
            (1_000_000_000_007, "1000.000000007s"),
        ] {
            assert_eq!(format_time(ns), text);
        }
    }

    #[test]
    fn serialization_is_exact_for_common_rates() {
        assert_eq!(tx_time(1040, 1_000_000_000), 8_320);
        assert_eq!(tx_time(1040, 100_000_000), 83_200);
        assert_eq!(tx_time(40, 10_000_000_000), 32);
    }

    #[test]
    fn the_64_bit_division_agrees_with_the_128_bit_one() {
        let wide = |bytes: u32, rate: u64| (bytes as u128 * 8 * NS_PER_S as u128).div_ceil(rate as u128) as Dur;
        for bytes in [1, 40, 41, 1040, 1500, 9000, 65_575, 2_305_843_009, 2_305_843_010, u32::MAX] {
            for rate in [1, 3, 7, 1_000, 999_999_937, 1_000_000_000, 10_000_000_000, 400_000_000_007, u64::MAX] {
                assert_eq!(tx_time(bytes, rate), wide(bytes, rate), "{bytes} B at {rate} b/s");
            }
        }
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 byte at 3 bit/s = 2.666.. s
        assert_eq!(tx_time(1, 3), 2_666_666_667);
    }
}
