//! Seeded random streams.
//!
//! Every random draw in a run comes from a stream identified by (scenario seed, entity kind,
//! entity id, purpose). Adding a flow, or changing one flow's protocol, therefore never changes
//! another flow's start time, transfer sizes, or a link's loss draws: the "common random numbers"
//! rule that makes flow-by-flow comparison between runs meaningful.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The kind of entity a stream belongs to.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Entity {
    Flow = 1,
    Link = 2,
    Generator = 3,
    Transfer = 4,
}

/// What the draws of a stream are used for.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Purpose {
    Start = 1,
    Loss = 2,
    Aqm = 3,
    Arrivals = 4,
    Size = 5,
    Rtt = 6,
    Endpoints = 7,
    Congestion = 8,
    /// Host send overhead and router processing jitter.
    Jitter = 9,
    /// A link's choice of the packets it holds back (reordering).
    Reorder = 10,
    /// A link's channel-access delays before each burst (aggregation).
    Access = 11,
}

/// A random stream. PCG-64 (MCG variant): fast, small, and stable across platforms.
pub type Stream = Pcg64Mcg;

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derive the stream for (seed, entity, id, purpose). Pure function of its arguments.
pub fn stream(seed: u64, entity: Entity, id: u64, purpose: Purpose) -> Stream {
    let mut h = splitmix64(seed);
    for part in [entity as u64, id, purpose as u64] {
        h = splitmix64(h ^ part.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    }
    let lo = splitmix64(h);
    let hi = splitmix64(lo ^ 0xA076_1D64_78BD_642F);
    Pcg64Mcg::from_seed(((hi as u128) << 64 | lo as u128).to_le_bytes())
}

/// Uniform draw in [0, 1).
#[inline]
pub fn uniform(s: &mut Stream) -> f64 {
    s.gen::<f64>()
}

/// Exponential draw with the given mean.
pub fn exponential(s: &mut Stream, mean: f64) -> f64 {
    // 1 - U is in (0, 1], so the log is finite.
    -mean * crate::math::ln(1.0 - uniform(s))
}

/// Pareto draw with the given mean and shape (> 1): scale x_m = mean (shape - 1) / shape.
pub fn pareto(s: &mut Stream, mean: f64, shape: f64) -> f64 {
    let scale = mean * (shape - 1.0) / shape;
    scale / crate::math::powf(1.0 - uniform(s), 1.0 / shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> =
            (0..4).map(|_| 0).scan(stream(7, Entity::Flow, 3, Purpose::Start), |s, _| Some(s.gen())).collect();
        let b: Vec<u64> =
            (0..4).map(|_| 0).scan(stream(7, Entity::Flow, 3, Purpose::Start), |s, _| Some(s.gen())).collect();
        let c: Vec<u64> =
            (0..4).map(|_| 0).scan(stream(7, Entity::Flow, 4, Purpose::Start), |s, _| Some(s.gen())).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn pareto_and_exponential_have_the_requested_mean() {
        let mut s = stream(1, Entity::Generator, 0, Purpose::Size);
        let n = 400_000;
        let e: f64 = (0..n).map(|_| exponential(&mut s, 5.0)).sum::<f64>() / n as f64;
        assert!((e - 5.0).abs() < 0.05, "exponential mean {e}");
        let p: f64 = (0..n).map(|_| pareto(&mut s, 5.0, 2.5)).sum::<f64>() / n as f64;
        assert!((p - 5.0).abs() < 0.15, "pareto mean {p}");
    }
}
