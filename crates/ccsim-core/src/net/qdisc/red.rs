//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1993), with the details of ns-2's `queue/red.cc` that the seed papers
//! ran: the average is sampled before the arrival is queued; after an idle period it decays as if
//! `ptc * idle_time` empty-queue samples had arrived (ptc = link rate / mean packet size); the
//! first arrival after the average crosses `min_th` is never dropped; arrivals to a queue of at
//! most one packet are never dropped early; gentle mode ramps the probability from `max_p` to 1
//! between `max_th` and `2 max_th`; the `wait` rule spaces drops uniformly in [1/p_b, 2/p_b].
//! Thresholds are in packets.
//!
//! Options: byte mode (ns-2's `bytes_`: the average follows the backlog in bytes divided by
//! `mean_pktsize`, and a packet's drop probability is scaled by its size over `mean_pktsize`, so
//! small packets are dropped less); ECN (an early drop of an ECN-capable packet becomes a CE
//! mark; forced drops above `max_th`, or `2 max_th` in gentle mode, stay drops); and ns-2's
//! automatic parameters ([`RedParams::automatic`]).

use super::{QueueView, Verdict};
use crate::rng::{uniform, Stream};
use crate::units::secs;

pub struct RedParams {
    pub limit_pkts: u64,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub wait: bool,
    pub mean_pktsize: u32,
    pub byte_mode: bool,
    pub ecn: bool,
}

/// ns-2's target queueing delay for the automatic minimum threshold (`targetdelay_`, 5 ms).
const AUTO_TARGET_DELAY_S: f64 = 0.005;

impl RedParams {
    /// Fill in parameters given as 0 the way ns-2 does (`queue/red.cc`, after Floyd, Gummadi and
    /// Shenker's Adaptive RED): `min_th` = max(5, half the packets the link sends in the target
    /// delay of 5 ms); `max_th` = 3 `min_th`; `w_q` = 1 - exp(-1/C), with C the link's rate in
    /// mean-sized packets per second (a time constant of one second).
    pub fn automatic(mut self, rate_bps: u64) -> Self {
        let ptc = rate_bps as f64 / (8.0 * self.mean_pktsize as f64);
        if self.min_th == 0.0 {
            self.min_th = (AUTO_TARGET_DELAY_S * ptc / 2.0).max(5.0);
        }
        if self.max_th == 0.0 {
            self.max_th = 3.0 * self.min_th;
        }
        if self.w_q == 0.0 {
            self.w_q = 1.0 - crate::math::exp(-1.0 / ptc);
        }
        self
    }
}

pub struct Red {
    p: RedParams,
    /// Typical packets per second of the link, for idle decay.
    ptc: f64,
    /// Average queue length, packets.
    pub avg: f64,
    /// Arrivals since the last drop.
    count: i64,
    /// Whether the average was already above min_th at the previous arrival.
    above_min: bool,
    rng: Stream,
    /// CE marks made instead of early drops.
    pub marks: u64,
}

impl Red {
    pub fn new(p: RedParams, rate_bps: u64, rng: Stream) -> Self {
        let ptc = rate_bps as f64 / (8.0 * p.mean_pktsize as f64);
        Red { p, ptc, avg: 0.0, count: 0, above_min: false, rng, marks: 0 }
    }

    /// EWMA update with the queue length seen by the arrival (before it is queued).
    fn update_average(&mut self, q: &QueueView) {
        let keep = 1.0 - self.p.w_q;
        if let Some(since) = q.idle_since {
            let idle_samples = (self.ptc * secs(q.now.saturating_sub(since))) as i32;
            self.avg *= keep.powi(idle_samples);
        }
        let len = if self.p.byte_mode { q.len_bytes as f64 / self.p.mean_pktsize as f64 } else { q.len_pkts as f64 };
        self.avg = keep * self.avg + self.p.w_q * len;
    }

    /// Drop probability before spacing (p_b).
    fn base_probability(&self) -> f64 {
        let (min, max, max_p) = (self.p.min_th, self.p.max_th, self.p.max_p);
        if self.p.gentle && self.avg >= max {
            max_p + (1.0 - max_p) * (self.avg - max) / max
        } else {
            max_p * (self.avg - min) / (max - min)
        }
    }

    /// Drop probability after spacing by the count since the last drop (p_a).
    fn spaced_probability(&self, pb: f64) -> f64 {
        let cp = self.count as f64 * pb;
        let pa = if self.p.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                pb / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            pb / (1.0 - cp)
        } else {
            1.0
        };
        pa.min(1.0)
    }

    pub fn ecn(&self) -> bool {
        self.p.ecn
    }

    /// [`Self::admit`], with an early drop of an ECN-capable packet turned into a mark when the
    /// queue marks.
    #[inline]
    pub fn admit_ecn(&mut self, q: &QueueView, size: u32, ect: bool) -> Verdict {
        let v = self.admit(q, size);
        if v == Verdict::DropEarly && ect && self.p.ecn {
            self.marks += 1;
            return Verdict::Mark;
        }
        v
    }

    pub fn admit(&mut self, q: &QueueView, size: u32) -> Verdict {
        self.update_average(q);
        self.count += 1;
        let mut verdict = Verdict::Enqueue;
        if self.avg >= self.p.min_th && q.len_pkts > 1 {
            let forced_at = if self.p.gentle { 2.0 * self.p.max_th } else { self.p.max_th };
            if self.avg >= forced_at {
                verdict = Verdict::DropOverflow;
            } else if !self.above_min {
                self.above_min = true;
                self.count = 1;
            } else {
                let mut pb = self.base_probability();
                if self.p.byte_mode {
                    pb = (pb * size as f64 / self.p.mean_pktsize as f64).min(1.0);
                }
                let pa = self.spaced_probability(pb);
                if uniform(&mut self.rng) <= pa && pa > 0.0 {
                    verdict = Verdict::DropEarly;
                }
            }
        } else if self.avg < self.p.min_th {
            self.above_min = false;
        }
        if verdict == Verdict::Enqueue && q.must_wait && q.len_pkts as u64 >= self.p.limit_pkts {
            verdict = Verdict::DropOverflow;
        }
        if verdict != Verdict::Enqueue {
            self.count = 0;
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    fn red(wait: bool) -> Red {
        let p = RedParams {
            limit_pkts: 1000,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            wait,
            mean_pktsize: 500,
            byte_mode: false,
            ecn: false,
        };
        Red::new(p, 10_000_000, stream(1, Entity::Link, 0, Purpose::Aqm))
    }

    fn busy(len: usize) -> QueueView {
        QueueView { now: 0, len_pkts: len, len_bytes: 0, must_wait: true, idle_since: None }
    }

    #[test]
    fn average_follows_the_ewma_formula() {
        let mut r = red(true);
        for _ in 0..500 {
            r.update_average(&busy(10));
        }
        let expect = 10.0 * (1.0 - 0.998f64.powi(500));
        assert!((r.avg - expect).abs() < 1e-9, "{} vs {expect}", r.avg);
    }

    #[test]
    fn idle_time_decays_the_average() {
        let mut r = red(true);
        r.avg = 10.0;
        // 10 Mbps / (8 * 500 B) = 2500 packets/s; 0.1 s idle = 250 samples.
        let v = QueueView { now: 100_000_000, len_pkts: 0, len_bytes: 0, must_wait: false, idle_since: Some(0) };
        r.update_average(&v);
        let expect = 10.0 * 0.998f64.powi(250) * 0.998;
        assert!((r.avg - expect).abs() < 1e-9, "{} vs {expect}", r.avg);
    }

    /// With the average held at a fixed level, the gap between drops is uniform on
    /// [1/p_b, 2/p_b] under the wait rule (fraction 1/(1.5/p_b)) and, with ns-2's count
    /// convention (reset to 0 on a drop, incremented before the decision), uniform on
    /// 1..1/p_b - 1 under the paper's rule (fraction exactly 2 p_b).
    #[test]
    fn drop_fraction_matches_the_spacing_rule_at_a_fixed_average() {
        for (wait, expect) in [(true, 0.05 / 1.5), (false, 2.0 * 0.05)] {
            let mut r = red(wait);
            let n = 200_000;
            let mut drops = 0;
            for _ in 0..n {
                r.avg = 10.0; // p_b = 0.1 * (10 - 5) / 10 = 0.05
                r.p.w_q = 0.0;
                if r.admit(&busy(10), 500) != Verdict::Enqueue {
                    drops += 1;
                }
            }
            let frac = drops as f64 / n as f64;
            assert!((frac - expect).abs() / expect < 0.05, "wait={wait}: {frac} vs {expect}");
        }
    }

    #[test]
    fn gentle_mode_forces_drops_only_above_twice_max_th() {
        let mut r = red(true);
        r.p.w_q = 0.0;
        r.avg = 20.0;
        r.above_min = true;
        r.count = 0;
        // p_b = 0.1 + 0.9 * 5/15 = 0.4: early drops possible, not forced.
        let mut dropped = 0;
        for _ in 0..100 {
            if r.admit(&busy(10), 500) != Verdict::Enqueue {
                dropped += 1;
            }
        }
        assert!(dropped > 10 && dropped < 80, "{dropped}");
        r.avg = 31.0;
        assert_eq!(r.admit(&busy(10), 500), Verdict::DropOverflow);
    }

    #[test]
    fn small_queues_are_never_dropped_early() {
        let mut r = red(true);
        r.p.w_q = 0.0;
        r.avg = 14.0;
        r.above_min = true;
        for _ in 0..1000 {
            assert_eq!(r.admit(&busy(1), 500), Verdict::Enqueue);
        }
    }

    #[test]
    fn automatic_parameters_follow_ns2() {
        // 100 Mb/s in 500-byte packets: 25,000 packets/s; 5 ms of them is 125, half is 62.5.
        let p = RedParams { min_th: 0.0, max_th: 0.0, w_q: 0.0, ..red(true).p }.automatic(100_000_000);
        assert_eq!((p.min_th, p.max_th), (62.5, 187.5));
        assert!((p.w_q - (1.0 - (-1.0f64 / 25_000.0).exp())).abs() < 1e-15);
        // A slow link keeps the floor of 5 packets.
        let p = RedParams { min_th: 0.0, max_th: 0.0, ..red(true).p }.automatic(1_000_000);
        assert_eq!((p.min_th, p.max_th, p.w_q), (5.0, 15.0, 0.002));
    }

    #[test]
    fn byte_mode_averages_bytes_and_spares_small_packets() {
        let mut r = red(true);
        r.p.byte_mode = true;
        let v = QueueView { now: 0, len_pkts: 10, len_bytes: 10_000, must_wait: true, idle_since: None };
        r.update_average(&v);
        assert!((r.avg - 0.002 * 20.0).abs() < 1e-12, "10,000 bytes = 20 mean packets");
        // At a fixed average, 50-byte packets are dropped a tenth as often as 500-byte ones.
        let mut frac = [0.0; 2];
        for (i, size) in [500u32, 50].into_iter().enumerate() {
            let mut drops = 0;
            for _ in 0..100_000 {
                r.avg = 10.0;
                r.p.w_q = 0.0;
                if r.admit(&busy(10), size) != Verdict::Enqueue {
                    drops += 1;
                }
            }
            frac[i] = drops as f64 / 100_000.0;
        }
        assert!(frac[1] < frac[0] / 5.0, "{frac:?}");
    }

    #[test]
    fn ecn_marks_early_drops_of_capable_packets_only() {
        let mut r = red(true);
        r.p.ecn = true;
        let (mut marks, mut drops) = (0, 0);
        for i in 0..20_000 {
            r.avg = 10.0;
            r.p.w_q = 0.0;
            match r.admit_ecn(&busy(10), 500, i % 2 == 0) {
                Verdict::Mark => marks += 1,
                Verdict::DropEarly => drops += 1,
                _ => {}
            }
        }
        assert!(marks > 100 && drops > 100, "{marks} {drops}");
        assert_eq!(r.marks, marks);
        // Forced drops stay drops.
        r.avg = 31.0;
        assert_eq!(r.admit_ecn(&busy(10), 500, true), Verdict::DropOverflow);
    }
}
