//! RTT estimation and the retransmission timeout (RFC 6298, with the Linux and ns-2 variants
//! selected by the stack profile).

use super::stack_settings::{RtoFormula, RttSampling, StackConfig};
use crate::units::Dur;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    min_rtt: Option<Dur>,
    formula: RtoFormula,
    tick: Option<Dur>,
    min_rto: Dur,
    max_rto: Dur,
    initial_rto: Dur,
    granularity: Dur,
}

impl RttEstimator {
    pub fn new(cfg: &StackConfig) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            min_rtt: None,
            formula: cfg.rto_formula,
            // ns-2 times segments in whole clock ticks.
            tick: (cfg.rtt_sampling == RttSampling::OnePerRtt && cfg.clock_granularity_ns > 0)
                .then_some(cfg.clock_granularity_ns),
            min_rto: cfg.min_rto_ns,
            max_rto: cfg.max_rto_ns,
            initial_rto: cfg.initial_rto_ns,
            granularity: cfg.clock_granularity_ns,
        }
    }

    /// Feed one RTT sample (exact). The estimator sees it truncated to ticks where the profile
    /// says; the minimum RTT is kept exact.
    pub fn sample(&mut self, rtt: Dur) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        let r = match self.tick {
            Some(t) => (rtt / t).max(1) * t,
            None => rtt,
        };
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                // RFC 6298 2.3: rttvar first, from the old srtt.
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }

    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }

    /// The current RTO, before backoff.
    pub fn rto(&self) -> Dur {
        let Some(srtt) = self.srtt else { return self.initial_rto.min(self.max_rto) };
        let rto = match self.formula {
            RtoFormula::Rfc6298 => (srtt + self.granularity.max(4 * self.rttvar)).max(self.min_rto),
            RtoFormula::Linux => srtt + (4 * self.rttvar).max(self.min_rto),
        };
        rto.min(self.max_rto)
    }

    /// The timer for the given backoff multiplier, capped at the maximum RTO.
    pub fn backed_off(&self, backoff: u32) -> Dur {
        self.rto().saturating_mul(backoff as u64).min(self.max_rto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Profile;
    use crate::tcp::stack_settings::StackConfig;
    use crate::units::NS_PER_MS;

    fn converge(profile: Profile) -> Dur {
        let mut e = RttEstimator::new(&StackConfig::for_profile(profile));
        for _ in 0..200 {
            e.sample(100 * NS_PER_MS);
        }
        e.rto()
    }

    /// Oracle 11.7.4: constant 100 ms samples drive rttvar to 0, so the RTO floors at the
    /// profile's minimum (RFC: 1 s; ns-2: 0.2 s) or, in Linux, srtt + 200 ms.
    #[test]
    fn constant_samples_converge_to_each_profiles_floor() {
        assert_eq!(converge(Profile::Rfc), 1000 * NS_PER_MS);
        assert_eq!(converge(Profile::Ns2), 200 * NS_PER_MS);
        assert_eq!(converge(Profile::Linux), 300 * NS_PER_MS);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = RttEstimator::new(&StackConfig::for_profile(Profile::Linux));
        assert_eq!(e.rto(), 1000 * NS_PER_MS);
        e.sample(80 * NS_PER_MS);
        assert_eq!(e.srtt(), Some(80 * NS_PER_MS));
        // 80 + max(4 * 40, 200) ms
        assert_eq!(e.rto(), 280 * NS_PER_MS);
        e.sample(160 * NS_PER_MS);
        // rttvar = (3*40 + 80)/4 = 50; srtt = (7*80 + 160)/8 = 90
        assert_eq!(e.srtt(), Some(90 * NS_PER_MS));
        assert_eq!(e.rto(), 290 * NS_PER_MS);
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let e = RttEstimator::new(&StackConfig::for_profile(Profile::Ns2));
        assert_eq!(e.backed_off(1), 3000 * NS_PER_MS);
        assert_eq!(e.backed_off(4), 12000 * NS_PER_MS);
        assert_eq!(e.backed_off(64), 60000 * NS_PER_MS);
    }

    #[test]
    fn ns2_sampling_truncates_to_ticks_but_min_rtt_is_exact() {
        let mut e = RttEstimator::new(&StackConfig::for_profile(Profile::Ns2));
        e.sample(27 * NS_PER_MS);
        assert_eq!(e.srtt(), Some(20 * NS_PER_MS));
        assert_eq!(e.min_rtt(), Some(27 * NS_PER_MS));
        e.sample(3 * NS_PER_MS);
        assert_eq!(e.min_rtt(), Some(3 * NS_PER_MS));
    }
}
