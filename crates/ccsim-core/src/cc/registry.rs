//! The algorithm registry: name -> parameter schema and constructor.
//!
//! The CLI, the scenario validator and the docs all list algorithms from here, so they cannot go
//! out of step with the engine. Adding an algorithm = one file in `cc/` plus one entry below.

use std::collections::BTreeMap;

use super::areno::{self, AReno};
use super::bbr::{self, Bbr};
use super::bbr3::{self, Bbr3};
use super::bic::{self, Bic};
use super::binomial::{self, Binomial};
use super::compound::{self, Compound};
use super::cubic::{self, Cubic};
use super::dctcp::{self, Dctcp};
use super::fast::{self, Fast};
use super::freedrop::{self, FreeDrop};
use super::fusion::{self, Fusion};
use super::fusion_rf;
use super::highspeed::{self, HighSpeed};
use super::htcp::{self, Htcp};
use super::hybla::{self, Hybla};
use super::illinois::{self, Illinois};
use super::libra::{self, Libra};
use super::newreno::NewReno;
use super::paced::{self, Paced};
pub use super::params::{default_for, ParamInfo, ParamKind, Params, ProfileDefault};
use super::prague::{self, Prague};
use super::randomized::{self, Randomized};
use super::reno::{Reno, RenoWindow};
use super::scalable::{self, Scalable};
use super::sync_tcp::{self, SyncTcp};
use super::vegas::{self, Vegas};
use super::westwood::{self, Westwood};
use super::yeah::{self, Yeah};
use super::{CongestionControl, RecoveryProcedure};
use crate::profile::Profile;
use crate::rng::Stream;

pub struct AlgorithmInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// The algorithm's customary loss recovery, Reno or NewReno (with default parameters): what a
    /// flow runs when the stack names no procedure
    /// ([`CongestionControl::customary_recovery`]).
    pub recovery: RecoveryProcedure,
    pub params: &'static [ParamInfo],
    /// Defaults that differ by stack profile (e.g. CUBIC's HyStart, on under `linux`).
    pub profile_defaults: &'static [ProfileDefault],
    /// Builds a controller from validated parameters and the flow's own random stream.
    build: fn(&Params, Stream) -> Box<dyn CongestionControl>,
}

impl AlgorithmInfo {
    /// The names a controller built with the default parameters reports through
    /// [`CongestionControl::inspect`] (a column of the sampled series each), in its order. The
    /// Python front end counts them in its estimate of the series' size.
    pub fn inspect_names(&self) -> Vec<&'static str> {
        let rng = crate::rng::stream(0, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion);
        let values = BTreeMap::new();
        let cc = (self.build)(&self.values(&values, None), rng);
        let mut names = Vec::new();
        cc.inspect(0, &mut |name, _| {
            if !names.contains(&name) {
                names.push(name);
            }
        });
        names
    }

    /// The default of parameter `name` under `profile` (`None`: the profile-independent
    /// [`ParamInfo::default`]).
    pub fn default_for(&self, name: &str, profile: Option<Profile>) -> Option<f64> {
        default_for(self.params, self.profile_defaults, name, profile)
    }

    /// The parameters `values` of this algorithm, unset ones read as their defaults under
    /// `profile`.
    fn values<'a>(&'a self, values: &'a BTreeMap<String, f64>, profile: Option<Profile>) -> Params<'a> {
        Params { algorithm: self.name, params: self.params, profile_defaults: self.profile_defaults, values, profile }
    }
}

const AIMD_PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "alpha",
        kind: ParamKind::Float,
        default: 1.0,
        min: 1e-6,
        max: 1e6,
        doc: "segments added per RTT in congestion avoidance",
    },
    ParamInfo {
        name: "beta",
        kind: ParamKind::Float,
        default: 0.5,
        min: 0.01,
        max: 0.99,
        doc: "fraction of the window kept after a loss",
    },
    ParamInfo {
        name: "linux26",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "Linux 2.6.22's tcp_reno_cong_avoid, as ns-2's TCP-Linux runs it: one unit per ACK, slow \
              start while cwnd <= ssthresh, one segment per cwnd + 1 ACKs in avoidance",
    },
];

static ALGORITHMS: &[AlgorithmInfo] = &[
    AlgorithmInfo {
        name: "areno",
        summary: "TCP Adaptive Reno (Shimonishi, Murase, Sanadidi 2007, seed 004; 2006 form as a variant): \
                  increase and loss cut set by a delay-based congestion level, Reno window as a floor",
        recovery: RecoveryProcedure::NewReno,
        params: areno::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(AReno::from_params(p)),
    },
    AlgorithmInfo {
        name: "bbr",
        summary: "BBR v1 (Cardwell et al. 2016; Linux tcp_bbr.c): paces at the windowed-max delivery rate \
                  with an 8-phase gain cycle, cwnd 2 BDPs, PROBE_RTT every 10 s; losses do not cut",
        recovery: RecoveryProcedure::NewReno,
        params: bbr::PARAMS,
        profile_defaults: &[],
        build: |p, rng| Box::new(Bbr::from_params(p, rng)),
    },
    AlgorithmInfo {
        name: "bbr3",
        summary: "BBR v3 (google/bbr v3 tcp_bbr.c; draft-ietf-ccwg-bbr): PROBE_BW's UP / DOWN / CRUISE / \
                  REFILL, loss (2%) and ECN bounds inflight_hi / inflight_lo, probes every 2-3 s, \
                  PROBE_RTT every 5 s at half the BDP",
        recovery: RecoveryProcedure::NewReno,
        params: bbr3::PARAMS,
        profile_defaults: &[],
        build: |p, rng| Box::new(Bbr3::from_params(p, rng)),
    },
    AlgorithmInfo {
        name: "bic",
        summary: "BIC-TCP (Xu, Harfoush, Rhee 2004; Linux tcp_bic.c): binary search toward the last \
                  loss window, then max probing",
        recovery: RecoveryProcedure::NewReno,
        params: bic::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Bic::from_params(p)),
    },
    AlgorithmInfo {
        name: "binomial",
        summary: "Binomial congestion control (Bansal, Balakrishnan 2001): per RTT w += a/w^k, per loss \
                  w -= b w^l; defaults are Reno's",
        recovery: RecoveryProcedure::Reno,
        params: binomial::PARAMS,
        profile_defaults: &[],
        build: |p, rng| Box::new(Binomial::from_params("binomial", None, p, rng)),
    },
    AlgorithmInfo {
        name: "compound",
        summary: "Compound TCP (Tan, Song, Zhang, Sridharan 2006; Linux tcp_compound.c): Reno window \
                  plus a delay window growing alpha win^k per RTT while under gamma packets are queued",
        recovery: RecoveryProcedure::NewReno,
        params: compound::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Compound::from_params(p)),
    },
    AlgorithmInfo {
        name: "cubic",
        summary: "CUBIC (RFC 9438; Linux tcp_cubic.c): window a cubic function of time since the \
                  last loss, with a Reno-friendly region",
        recovery: RecoveryProcedure::NewReno,
        params: cubic::PARAMS,
        profile_defaults: cubic::PROFILE_DEFAULTS,
        build: |p, _| Box::new(Cubic::from_params(p)),
    },
    AlgorithmInfo {
        name: "dctcp",
        summary: "DCTCP (RFC 8257; Linux tcp_dctcp.c): alpha = marked fraction per window, EWMA g; on \
                  ECN-Echo cwnd (1 - alpha/2) once per window; Reno growth, loss halves; needs ECN",
        recovery: RecoveryProcedure::NewReno,
        params: dctcp::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Dctcp::from_params(p)),
    },
    AlgorithmInfo {
        name: "fast",
        summary: "FAST TCP (Jin, Wei, Low 2004; ns-2 tcp-fast.cc): every other RTT moves the window \
                  halfway to the one keeping alpha packets queued",
        recovery: RecoveryProcedure::NewReno,
        params: fast::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Fast::from_params(p)),
    },
    AlgorithmInfo {
        name: "freedrop",
        summary: "Free-Drop TCP (Baryshnikov, Coffman, Feng, Misra 2006; seed 001): Reno that halves on \
                  a loss only if another loss was within the last w transmissions",
        recovery: RecoveryProcedure::NewReno,
        params: freedrop::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(FreeDrop::from_params(p)),
    },
    AlgorithmInfo {
        name: "fusion",
        summary: "TCP-Fusion (Kaneko, Fujikawa, Su, Katto 2007; seed 002): three-phase delay rule on \
                  the queue estimate above a Reno window floor, decrease max(RTTmin/RTT, 1/2)",
        recovery: RecoveryProcedure::NewReno,
        params: fusion::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Fusion::from_params(p)),
    },
    AlgorithmInfo {
        name: "fusion-rf",
        summary: "TCP-Fusion with RTT fairness (Ogura, Fujikawa, Zhou, Katto; seed 002): Fusion whose \
                  loss mode grows k RTT^2 segments per RTT, k = 1/0.04^2",
        recovery: RecoveryProcedure::NewReno,
        params: fusion_rf::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(fusion_rf::from_params(p)),
    },
    AlgorithmInfo {
        name: "highspeed",
        summary: "HighSpeed TCP (RFC 3649; Linux tcp_highspeed.c): Reno below 38 segments, then \
                  window-dependent AIMD for w = 0.12/p^0.835",
        recovery: RecoveryProcedure::NewReno,
        params: highspeed::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(HighSpeed::from_params(p)),
    },
    AlgorithmInfo {
        name: "htcp",
        summary: "H-TCP (Leith, Shorten 2004; Linux tcp_htcp.c): increase grows with time since the \
                  last loss, decrease RTT_min/RTT_max",
        recovery: RecoveryProcedure::NewReno,
        params: htcp::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Htcp::from_params(p)),
    },
    AlgorithmInfo {
        name: "hybla",
        summary: "TCP Hybla (Caini, Firrincieli 2004; Linux tcp_hybla.c): grows per unit of time like \
                  a 25 ms-RTT Reno flow",
        recovery: RecoveryProcedure::NewReno,
        params: hybla::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Hybla::from_params(p)),
    },
    AlgorithmInfo {
        name: "iiad",
        summary: "Binomial IIAD (Bansal, Balakrishnan 2001): k = 1, l = 0, a = 1, b = 0.67 (ns-2 \
                  test-suite-aimd.tcl)",
        recovery: RecoveryProcedure::Reno,
        params: binomial::PRESET_PARAMS,
        profile_defaults: &[],
        build: |p, rng| Box::new(Binomial::from_params("iiad", Some(binomial::IIAD), p, rng)),
    },
    AlgorithmInfo {
        name: "illinois",
        summary: "TCP-Illinois (Liu, Basar, Srikant 2006; Linux tcp_illinois.c): AIMD with increase \
                  and decrease set by queueing delay",
        recovery: RecoveryProcedure::NewReno,
        params: illinois::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Illinois::from_params(p)),
    },
    AlgorithmInfo {
        name: "libra",
        summary: "TCP Libra (Marfia et al. 2005; seed 002 eq. 6-7): AIMD with increase gamma T^2/(T + RTT0) \
                  per RTT and RTT-scaled decrease, Reno at 40 ms",
        recovery: RecoveryProcedure::Reno,
        params: libra::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Libra::from_params(p)),
    },
    AlgorithmInfo {
        name: "newreno",
        summary: "NewReno (RFC 6582): AIMD with recovery that repairs every loss of a window",
        recovery: RecoveryProcedure::NewReno,
        params: AIMD_PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(NewReno::new(RenoWindow::from_params(p))),
    },
    AlgorithmInfo {
        name: "paced",
        summary: "Paced TCP (Aggarwal, Savage, Anderson 2000): Reno whose window is spread over the \
                  RTT, one segment every srtt/cwnd",
        recovery: RecoveryProcedure::Reno,
        params: paced::PARAMS,
        profile_defaults: &[],
        build: |p, rng| Box::new(Paced::from_params(p, rng)),
    },
    AlgorithmInfo {
        name: "prague",
        summary: "TCP Prague (L4STeam tcp_prague.c v0.7; draft-briscoe-iccrg-prague): ECT(1), AccECN; \
                  DCTCP's alpha (g 1/16), cut frac_cwnd (1 - alpha/2) per CE round, paced; below 25 ms \
                  grows as a 25 ms flow; loss halves",
        recovery: RecoveryProcedure::NewReno,
        params: prague::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Prague::from_params(p)),
    },
    AlgorithmInfo {
        name: "randomized",
        summary: "Randomized TCP (seed 000): Paced TCP with gaps srtt(1+x)/cwnd, x ~ U[-I, I], and \
                  increase scaled by (RTTeff/R)^2",
        recovery: RecoveryProcedure::Reno,
        params: randomized::PARAMS,
        profile_defaults: &[],
        build: |p, rng| Box::new(Randomized::from_params(p, rng)),
    },
    AlgorithmInfo {
        name: "reno",
        summary: "Reno (RFC 5681): AIMD, fast recovery ends at the first new ACK",
        recovery: RecoveryProcedure::Reno,
        params: AIMD_PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Reno::new(RenoWindow::from_params(p))),
    },
    AlgorithmInfo {
        name: "scalable",
        summary: "Scalable TCP (Kelly 2003; Linux tcp_scalable.c): +1% per RTT, -1/8 per loss above \
                  a legacy window",
        recovery: RecoveryProcedure::NewReno,
        params: scalable::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Scalable::from_params(p)),
    },
    AlgorithmInfo {
        name: "sqrt",
        summary: "Binomial SQRT (Bansal, Balakrishnan 2001): k = l = 0.5, a = 1, b = 0.67 (ns-2 \
                  test-suite-aimd.tcl)",
        recovery: RecoveryProcedure::Reno,
        params: binomial::PRESET_PARAMS,
        profile_defaults: &[],
        build: |p, rng| Box::new(Binomial::from_params("sqrt", Some(binomial::SQRT), p, rng)),
    },
    AlgorithmInfo {
        name: "sync-tcp",
        summary: "Sync-TCP (Weigle, Jeffay, Smith 2005): Reno plus eight reactions to the trend and \
                  region of the averaged forward queueing delay (one-way transit times)",
        recovery: RecoveryProcedure::Reno,
        params: sync_tcp::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(SyncTcp::from_params(p)),
    },
    AlgorithmInfo {
        name: "sync-tcp-hs",
        summary: "Sync-TCP for high speed (Khan, Shah, Xu 2005; seed 003): Reno below c_low = 100, \
                  +37.5% per RTT up to c_high = 150, Sync-TCP above",
        recovery: RecoveryProcedure::Reno,
        params: sync_tcp::HS_PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(SyncTcp::hs_from_params(p)),
    },
    AlgorithmInfo {
        name: "vegas",
        summary: "TCP Vegas (Brakmo, Peterson 1995; Linux tcp_vegas.c): keeps alpha..beta packets \
                  queued by moving cwnd one segment per RTT",
        recovery: RecoveryProcedure::NewReno,
        params: vegas::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Vegas::from_params(p)),
    },
    AlgorithmInfo {
        name: "westwood",
        summary: "TCP Westwood+ (Grieco, Mascolo 2004; Linux tcp_westwood.c): Reno probing, window \
                  set to bandwidth estimate x min RTT after a loss",
        recovery: RecoveryProcedure::NewReno,
        params: westwood::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Westwood::from_params(p)),
    },
    AlgorithmInfo {
        name: "yeah",
        summary: "YeAH-TCP (Baiocchi, Castellani, Vacirca 2007; Linux tcp_yeah.c): Scalable or Reno \
                  increase by queue estimate, decongestion",
        recovery: RecoveryProcedure::NewReno,
        params: yeah::PARAMS,
        profile_defaults: &[],
        build: |p, _| Box::new(Yeah::from_params(p)),
    },
];

/// Every algorithm, sorted by name.
pub fn algorithms() -> &'static [AlgorithmInfo] {
    ALGORITHMS
}

pub fn find(name: &str) -> Option<&'static AlgorithmInfo> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// Check parameter names, kinds and ranges. Errors name the parameter and the expectation.
pub fn validate(name: &str, values: &BTreeMap<String, f64>) -> Result<&'static AlgorithmInfo, String> {
    let info = find(name).ok_or_else(|| {
        let names: Vec<_> = ALGORITHMS.iter().map(|a| a.name).collect();
        format!("unknown algorithm \"{name}\"; expected one of: {}", names.join(", "))
    })?;
    for (key, &v) in values {
        let p = info.params.iter().find(|p| p.name == key).ok_or_else(|| {
            let names: Vec<_> = info.params.iter().map(|p| p.name).collect();
            format!("{name} has no parameter \"{key}\"; expected one of: {}", names.join(", "))
        })?;
        let ok_kind = match p.kind {
            ParamKind::Float => v.is_finite(),
            ParamKind::Int => v.fract() == 0.0,
            ParamKind::Bool => v == 0.0 || v == 1.0,
        };
        if !ok_kind || v < p.min || v > p.max {
            return Err(format!(
                "{name} parameter \"{key}\" = {v} is invalid; expected a {} in [{}, {}]",
                p.kind.as_str(),
                p.min,
                p.max
            ));
        }
    }
    Ok(info)
}

/// Build a fresh controller for one flow with the profile-independent defaults
/// ([`ParamInfo::default`], which are also those of the `ns2` and `rfc` profiles). `rng` is the
/// flow's own stream for algorithms that draw random numbers (the engine passes
/// `stream(seed, Flow, flow id, Congestion)`).
pub fn build(name: &str, values: &BTreeMap<String, f64>, rng: Stream) -> Result<Box<dyn CongestionControl>, String> {
    let info = validate(name, values)?;
    Ok((info.build)(&info.values(values, None), rng))
}

/// Build a fresh controller for one flow run under `profile`: unset parameters take that
/// profile's defaults ([`AlgorithmInfo::profile_defaults`]); values set explicitly are used as
/// given. The engine builds every flow this way.
pub fn build_for_profile(
    name: &str,
    values: &BTreeMap<String, f64>,
    profile: Profile,
    rng: Stream,
) -> Result<Box<dyn CongestionControl>, String> {
    let info = validate(name, values)?;
    Ok((info.build)(&info.values(values, Some(profile)), rng))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng() -> Stream {
        crate::rng::stream(1, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion)
    }

    #[test]
    fn unknown_names_and_parameters_are_rejected_with_the_choices() {
        let err = build("renoo", &BTreeMap::new(), rng()).err().unwrap();
        assert!(err.contains("renoo") && err.contains("newreno"), "{err}");
        let mut p = BTreeMap::new();
        p.insert("gamma".to_string(), 1.0);
        let err = build("reno", &p, rng()).err().unwrap();
        assert!(err.contains("gamma") && err.contains("alpha"), "{err}");
        p.clear();
        p.insert("beta".to_string(), 1.5);
        assert!(build("reno", &p, rng()).is_err());
    }

    #[test]
    fn every_parameter_default_is_valid_and_documented() {
        for a in algorithms() {
            assert!(!a.summary.is_empty() && a.recovery != RecoveryProcedure::Sack, "{}", a.name);
            for p in a.params {
                assert!(p.min <= p.default && p.default <= p.max, "{}.{}", a.name, p.name);
                assert!(!p.doc.is_empty(), "{}.{} has no doc", a.name, p.name);
                let mut one = BTreeMap::new();
                one.insert(p.name.to_string(), p.default);
                assert!(validate(a.name, &one).is_ok(), "{}.{} default fails its own check", a.name, p.name);
            }
            for d in a.profile_defaults {
                let mut one = BTreeMap::new();
                one.insert(d.param.to_string(), d.value);
                assert!(validate(a.name, &one).is_ok(), "{}.{} {:?} default is invalid", a.name, d.param, d.profile);
                assert_eq!(a.default_for(d.param, Some(d.profile)), Some(d.value));
            }
        }
        let cubic = find("cubic").unwrap();
        assert_eq!(cubic.default_for("hystart", Some(Profile::Linux)), Some(1.0));
        assert_eq!(cubic.default_for("hystart", Some(Profile::Ns2)), Some(0.0));
        assert_eq!(cubic.default_for("hystart", None), Some(0.0));
    }

    #[test]
    fn inspect_names_are_those_a_fresh_controller_reports() {
        let names = |n: &str| find(n).unwrap().inspect_names();
        assert_eq!(names("cubic"), vec!["w_max", "k"]);
        assert!(names("newreno").is_empty());
        // A bound that keeps the series narrow; BBR v3's model (state, phase, two bandwidths,
        // min RTT, pacing rate, two in-flight bounds, two gains, ECN alpha) is the widest.
        for a in algorithms() {
            assert!(a.inspect_names().len() <= 12, "{} reports many names", a.name);
        }
    }

    /// Every protocol of seed 004's parking lot that ran a Linux module under ns-2 (and CUBIC, of
    /// the same lineage) can be given that module's 2.6 arithmetic per flow, off by default.
    #[test]
    fn the_linux_2_6_arithmetic_is_a_parameter_of_every_module_seed_004_ran() {
        for name in ["reno", "newreno", "highspeed", "scalable", "bic", "cubic", "htcp", "compound"] {
            let info = find(name).unwrap();
            let p = info.params.iter().find(|p| p.name == "linux26").unwrap_or_else(|| panic!("{name}"));
            assert_eq!((p.kind, p.default), (ParamKind::Bool, 0.0), "{name}");
        }
    }

    /// A tiny deterministic generator for the event sequences below (64-bit LCG, Knuth's MMIX
    /// constants).
    fn lcg(x: &mut u64) -> u64 {
        *x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *x >> 33
    }

    /// Random sequences of ACKs (RTTs 20-220 ms, 1-3 segments, rounds about a window long),
    /// losses with recovery, and timeouts, fed as the sender feeds them: no algorithm produces a
    /// window that is not finite, below one segment, or an ssthresh below two; with its defaults
    /// and, where it has them, with the Linux 2.6 modules' arithmetic (`linux26`).
    #[test]
    fn random_event_sequences_keep_every_window_sane() {
        use super::super::common::testing::{ack, congestion};
        use super::super::{CongestionKind, Window};
        const MS: u64 = 1_000_000;
        let variants = algorithms().iter().flat_map(|a| {
            let era = a.params.iter().any(|p| p.name == "linux26");
            let era = era.then(|| BTreeMap::from([("linux26".to_string(), 1.0)]));
            std::iter::once((a, BTreeMap::new())).chain(era.map(|v| (a, v)))
        });
        for (a, values) in variants {
            let mut cc = build(a.name, &values, rng()).unwrap();
            let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
            let (mut rng, mut now, mut delivered, mut in_round, mut in_recovery) = (7u64, 1000 * MS, 0u64, 0.0, false);
            for _ in 0..50_000 {
                now += lcg(&mut rng) % (2 * MS);
                let mut s = ack((1 + lcg(&mut rng) % 3) as f64);
                let rtt = (20 + lcg(&mut rng) % 200) * MS;
                delivered += s.acked as u64;
                (s.now, s.echoed_ts, s.rtt, s.srtt, s.min_rtt, s.delivered) =
                    (now, now - rtt, Some(rtt), rtt, 20 * MS, delivered);
                in_round += s.acked;
                s.round_start = in_round >= w.cwnd;
                if s.round_start {
                    in_round = 0.0;
                }
                let roll = lcg(&mut rng) % 1000;
                if in_recovery {
                    // An algorithm that sets cwnd on every ACK keeps it through recovery: the
                    // sender neither resets it to ssthresh at the end nor withholds ACKs.
                    let own = cc.sets_cwnd_on_every_ack();
                    match roll {
                        0..=99 => {
                            in_recovery = false;
                            if !own {
                                w.cwnd = w.ssthresh;
                            }
                            cc.on_recovery_exit(now, &mut w);
                        }
                        100..=499 => cc.on_dupack(now),
                        _ if own => cc.on_ack(&s, &mut w),
                        _ => cc.on_ack_in_recovery(&s),
                    }
                } else if roll < 5 {
                    let mut ev = congestion(CongestionKind::Loss, w.cwnd, false);
                    ev.now = now;
                    cc.on_congestion(&ev, &mut w);
                    in_recovery = true;
                } else if roll == 5 {
                    let mut ev = congestion(CongestionKind::Timeout, w.cwnd, lcg(&mut rng) & 1 == 0);
                    ev.now = now;
                    cc.on_congestion(&ev, &mut w);
                } else {
                    cc.on_ack(&s, &mut w);
                }
                assert!(w.cwnd.is_finite() && w.cwnd >= 1.0, "{}: {w:?}", a.name);
                assert!(w.ssthresh >= 2.0 && !w.ssthresh.is_nan(), "{}: {w:?}", a.name);
            }
        }
    }

    #[test]
    fn registry_is_sorted_and_builds_each_algorithm() {
        let names: Vec<_> = algorithms().iter().map(|a| a.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        for a in algorithms() {
            assert_eq!(build(a.name, &BTreeMap::new(), rng()).unwrap().name(), a.name);
        }
    }

    /// The sender asks only algorithms that say they watch sends for pacing: every algorithm
    /// (with each flag parameter on too, which switches pacing on for the binomial family) that
    /// ever holds a segment back says so.
    #[test]
    fn every_algorithm_that_paces_says_it_watches_sends() {
        use super::super::{PacingContext, SentSample, Window};
        const MS: u64 = 1_000_000;
        for a in algorithms() {
            let mut variants = vec![BTreeMap::new()];
            for p in a.params.iter().filter(|p| p.min == 0.0 && p.max == 1.0) {
                variants.push(BTreeMap::from([(p.name.to_string(), 1.0)]));
            }
            for values in variants {
                let mut cc = build(a.name, &values, rng()).unwrap();
                let mut held_back = false;
                for i in 0..20u64 {
                    let now = 1000 * MS + i * MS / 4;
                    let window = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
                    let ctx = PacingContext { now, window, srtt: 20 * MS, in_flight: 5.0 };
                    held_back |= cc.next_send_time(&ctx).is_some_and(|t| t > now);
                    cc.on_sent(&SentSample { now, seq: i as u32, retransmission: false, in_flight: 5.0 });
                }
                assert!(!held_back || cc.watches_sends(), "{} {values:?} paces but does not say so", a.name);
            }
        }
    }

    /// The `recovery` column the CLI lists is the customary procedure a flow runs when the stack
    /// names none, and a `newreno` parameter switches it.
    #[test]
    fn the_listed_recovery_is_the_customary_one_and_newreno_switches_it() {
        for a in algorithms() {
            let cc = build(a.name, &BTreeMap::new(), rng()).unwrap();
            assert_eq!(cc.customary_recovery(), a.recovery, "{}", a.name);
            if a.params.iter().any(|p| p.name == "newreno") {
                for (v, want) in [(0.0, RecoveryProcedure::Reno), (1.0, RecoveryProcedure::NewReno)] {
                    let values = BTreeMap::from([("newreno".to_string(), v)]);
                    assert_eq!(build(a.name, &values, rng()).unwrap().customary_recovery(), want, "{}", a.name);
                }
            }
        }
    }
}
