//! Built-in topologies, expanded into nodes and links.
//!
//! * Dumbbell: every flow (or generator slot) gets its own sender and receiver host, attached to
//!   the two routers by access links whose delays give the flow its requested base RTT.
//! * Parking lot: routers R0..R{n-1} in a chain; each flow gets hosts attached at its entry and
//!   exit routers.
//! * Explicit: the user's nodes and links.

use std::collections::HashMap;

use crate::net::aggregation::Aggregation;
use crate::net::changing::{Changes, Transmitter};
use crate::net::link::{Link, LinkId, NodeId};
use crate::net::loss::LossModel;
use crate::net::qdisc::codel::{CeThreshold, CoDelParams};
use crate::net::qdisc::dualpi2::{DualPi2, DualPi2Params};
use crate::net::qdisc::pie::PieParams;
use crate::net::qdisc::red::RedParams;
use crate::net::qdisc::{CoDel, DropTail, FqCodel, Pie, Qdisc, Red, Step};
use crate::net::reorder::Reorder;
use crate::net::schedule::Schedule;
use crate::net::trace_link::TraceLink;
use crate::net::Endpoints;
use crate::rng::{stream, Entity, Purpose};
use crate::spec::{check_dumbbell_rtt, LinkParams, LossSpec, QueueSpec, ReorderSpec, ScheduleSpec, TopologySpec};
use crate::units::Dur;

/// Nodes and links under construction.
pub struct Network {
    pub seed: u64,
    pub node_names: Vec<String>,
    /// Each name's first node.
    by_name: HashMap<String, NodeId>,
    pub links: Vec<Link>,
    kind: Kind,
}

enum Kind {
    Dumbbell { left: NodeId, right: NodeId, bottleneck_delay: Dur, access_rate: u64, access_queue: QueueSpec },
    ParkingLot { hop_delay: Dur, access_rate: u64, access_delay: Dur, access_queue: QueueSpec },
    Explicit,
}

impl Network {
    pub fn build(spec: &TopologySpec, seed: u64) -> Result<Self, String> {
        let mut net =
            Network { seed, node_names: Vec::new(), by_name: HashMap::new(), links: Vec::new(), kind: Kind::Explicit };
        match spec {
            TopologySpec::Dumbbell { forward, reverse, access_rate_bps, access_queue } => {
                let left = net.add_node("R1".into());
                let right = net.add_node("R2".into());
                net.add_link(left, right, forward, true)?;
                net.add_link(right, left, reverse, true)?;
                net.kind = Kind::Dumbbell {
                    left,
                    right,
                    bottleneck_delay: forward.delay_ns,
                    access_rate: *access_rate_bps,
                    access_queue: access_queue.clone(),
                };
            }
            TopologySpec::ParkingLot { routers, forward, reverse, access_rate_bps, access_delay_ns, access_queue } => {
                if *routers < 2 {
                    return Err(format!("topology.routers: {routers} is too few; expected at least 2"));
                }
                for i in 0..*routers {
                    net.add_node(format!("R{i}"));
                }
                for i in 0..routers - 1 {
                    net.add_link(i, i + 1, forward, true)?;
                    net.add_link(i + 1, i, reverse, true)?;
                }
                net.kind = Kind::ParkingLot {
                    hop_delay: forward.delay_ns,
                    access_rate: *access_rate_bps,
                    access_delay: *access_delay_ns,
                    access_queue: access_queue.clone(),
                };
            }
            TopologySpec::Explicit { nodes, links } => {
                for (i, name) in nodes.iter().enumerate() {
                    if nodes[..i].contains(name) {
                        return Err(format!("topology.nodes: \"{name}\" appears twice"));
                    }
                    net.add_node(name.clone());
                }
                let any_monitored = links.iter().any(|l| l.monitor);
                for (i, l) in links.iter().enumerate() {
                    let src = net
                        .node(&l.src)
                        .ok_or_else(|| format!("topology.links[{i}].src: unknown node \"{}\"", l.src))?;
                    let dst = net
                        .node(&l.dst)
                        .ok_or_else(|| format!("topology.links[{i}].dst: unknown node \"{}\"", l.dst))?;
                    net.add_link(src, dst, &l.params, l.monitor || !any_monitored)?;
                }
            }
        }
        Ok(net)
    }

    pub fn node(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    fn add_node(&mut self, name: String) -> NodeId {
        let id = self.node_names.len() as NodeId;
        self.by_name.entry(name.clone()).or_insert(id);
        self.node_names.push(name);
        id
    }

    fn add_link(&mut self, src: NodeId, dst: NodeId, p: &LinkParams, monitor: bool) -> Result<LinkId, String> {
        let id = self.links.len() as LinkId;
        if p.rate_bps == 0 {
            return Err(format!(
                "link {}->{}: rate must be positive",
                self.node_names[src as usize], self.node_names[dst as usize]
            ));
        }
        let qdisc = match &p.queue {
            QueueSpec::Droptail { limit_pkts, limit_bytes } => {
                Qdisc::DropTail(DropTail { limit_pkts: *limit_pkts, limit_bytes: *limit_bytes })
            }
            QueueSpec::Red { limit_pkts, min_th, max_th, max_p, w_q, gentle, wait, mean_pktsize, byte_mode, ecn } => {
                let params = RedParams {
                    limit_pkts: *limit_pkts,
                    min_th: *min_th,
                    max_th: *max_th,
                    max_p: *max_p,
                    w_q: *w_q,
                    gentle: *gentle,
                    wait: *wait,
                    mean_pktsize: *mean_pktsize,
                    byte_mode: *byte_mode,
                    ecn: *ecn,
                }
                .automatic(p.rate_bps);
                let valid = params.min_th < params.max_th
                    && params.max_p > 0.0
                    && params.max_p <= 1.0
                    && params.w_q > 0.0
                    && params.w_q <= 1.0;
                if !valid {
                    return Err(format!(
                        "red: expected 0 < min_th < max_th, 0 < max_p <= 1, 0 < w_q <= 1 (automatic values included: \
                         min_th {}, max_th {})",
                        params.min_th, params.max_th
                    ));
                }
                let rng = stream(self.seed, Entity::Link, id as u64, Purpose::Aqm);
                Qdisc::Red(Box::new(Red::new(params, p.rate_bps, rng)))
            }
            QueueSpec::Codel { limit_pkts, target_ns, interval_ns, ecn, ce_threshold_ns } => {
                let params = CoDelParams { target: *target_ns, interval: *interval_ns, ecn: *ecn };
                let ce = ce_threshold_ns.map(|threshold| CeThreshold { threshold, selector: 0, mask: 0 });
                Qdisc::CoDel(Box::new(CoDel::new(params, *limit_pkts).with_ce_threshold(ce)))
            }
            QueueSpec::FqCodel {
                limit_pkts,
                target_ns,
                interval_ns,
                ecn,
                flows,
                quantum_bytes,
                ce_threshold_ns,
                ce_threshold_selector,
                ce_threshold_mask,
            } => {
                let params = CoDelParams { target: *target_ns, interval: *interval_ns, ecn: *ecn };
                let ce = ce_threshold_ns.map(|threshold| CeThreshold {
                    threshold,
                    selector: *ce_threshold_selector,
                    mask: *ce_threshold_mask,
                });
                let key = rand::RngCore::next_u64(&mut stream(self.seed, Entity::Link, id as u64, Purpose::Aqm));
                let fq = FqCodel::new(params, *limit_pkts, *flows, *quantum_bytes, key).with_ce_threshold(ce);
                Qdisc::FqCodel(Box::new(fq))
            }
            QueueSpec::Pie { limit_pkts, target_ns, tupdate_ns, alpha, beta, max_burst_ns, ecn, l4s_step_ns } => {
                let params = PieParams {
                    limit_pkts: *limit_pkts,
                    target: *target_ns,
                    tupdate: *tupdate_ns,
                    alpha: *alpha,
                    beta: *beta,
                    max_burst: *max_burst_ns,
                    ecn: *ecn,
                    l4s_step: *l4s_step_ns,
                };
                let rng = stream(self.seed, Entity::Link, id as u64, Purpose::Aqm);
                Qdisc::Pie(Box::new(Pie::new(params, rng)))
            }
            QueueSpec::DualPi2 {
                limit_pkts,
                target_ns,
                tupdate_ns,
                alpha,
                beta,
                step_thresh_ns,
                min_qlen_step,
                coupling,
                c_weight_pct,
                drop_overload,
                drop_early,
                ecn_mask,
            } => {
                let params = DualPi2Params {
                    limit_pkts: *limit_pkts,
                    target: *target_ns,
                    tupdate: *tupdate_ns,
                    alpha: *alpha,
                    beta: *beta,
                    step_thresh: *step_thresh_ns,
                    min_qlen_step: *min_qlen_step,
                    coupling: *coupling,
                    c_weight_pct: *c_weight_pct,
                    drop_overload: *drop_overload,
                    drop_early: *drop_early,
                    ecn_mask: *ecn_mask,
                };
                let rng = stream(self.seed, Entity::Link, id as u64, Purpose::Aqm);
                Qdisc::DualPi2(Box::new(DualPi2::new(params, rng)))
            }
            QueueSpec::Step { limit_pkts, limit_bytes, k_pkts, k_bytes, ecn } => {
                let tail = DropTail { limit_pkts: *limit_pkts, limit_bytes: *limit_bytes };
                Qdisc::Step(Box::new(Step { tail, k_pkts: *k_pkts, k_bytes: *k_bytes, ecn: *ecn, marks: 0 }))
            }
        };
        let base_loss = match p.loss {
            LossSpec::None => 0.0,
            LossSpec::Bernoulli { p } => p,
        };
        let loss_rng = || stream(self.seed, Entity::Link, id as u64, Purpose::Loss);
        let loss = match p.loss {
            // A scheduled loss probability draws from the link's changes instead.
            _ if p.loss_schedule.is_some() => LossModel::None,
            LossSpec::None => LossModel::None,
            LossSpec::Bernoulli { p } if p <= 0.0 => LossModel::None,
            LossSpec::Bernoulli { p } => LossModel::Bernoulli { p, rng: loss_rng() },
        };
        let access_rng = || stream(self.seed, Entity::Link, id as u64, Purpose::Access);
        let changes = Self::changes(p, base_loss, loss_rng, access_rng);
        // A trace link's rate, for the links table, is the trace's mean.
        let rate = changes.as_ref().and_then(|c| c.trace()).map_or(p.rate_bps, |t| t.mean_rate_bps());
        let mut link = Link::new(src, dst, rate, p.delay_ns, qdisc, loss);
        link.set_changes(changes);
        link.monitor = monitor;
        link.set_jitter(p.jitter_ns, stream(self.seed, Entity::Link, id as u64, Purpose::Jitter));
        if let ReorderSpec::Bernoulli { p, delay_ns } = p.reorder {
            if p > 0.0 && delay_ns > 0 {
                let rng = stream(self.seed, Entity::Link, id as u64, Purpose::Reorder);
                link.set_reorder(Some(Reorder::new(p, delay_ns, rng)));
            }
        }
        self.links.push(link);
        Ok(id)
    }

    /// The changes of a link's rate, delay and loss probability, if it has any.
    fn changes(
        p: &LinkParams,
        base_loss: f64,
        loss_rng: impl Fn() -> crate::rng::Stream,
        access_rng: impl Fn() -> crate::rng::Stream,
    ) -> Option<Changes> {
        fn schedule<T: Copy>(base: T, s: &ScheduleSpec<T>) -> Schedule<T> {
            Schedule::new(base, s.points.clone(), s.repeat_ns)
        }
        if p.rate_schedule.is_none()
            && p.trace.is_none()
            && p.delay_schedule.is_none()
            && p.loss_schedule.is_none()
            && p.aggregation.is_none()
        {
            return None;
        }
        let transmitter = match (&p.trace, &p.rate_schedule) {
            (Some(t), _) => Transmitter::Trace(TraceLink::new(&t.ms)),
            (None, Some(s)) => Transmitter::Scheduled(schedule(p.rate_bps, s)),
            (None, None) => Transmitter::Fixed { rate_bps: p.rate_bps },
        };
        let delay = p.delay_schedule.as_ref().map(|s| schedule(p.delay_ns, s));
        let loss = p.loss_schedule.as_ref().map(|s| (schedule(base_loss, s), loss_rng()));
        let changes = Changes::new(transmitter, delay, loss);
        Some(match &p.aggregation {
            Some(a) => changes.with_aggregation(Aggregation::new(
                p.rate_bps,
                a.max_packets,
                a.max_time_ns,
                a.access_min_ns,
                a.access_max_ns,
                access_rng(),
            )),
            None => changes,
        })
    }

    fn add_access_pair(
        &mut self,
        host: String,
        router: NodeId,
        delay: Dur,
        rate: u64,
        queue: &QueueSpec,
        host_sends: bool,
    ) -> Result<NodeId, String> {
        let h = self.add_node(host);
        let p = LinkParams {
            rate_bps: rate,
            delay_ns: delay,
            queue: queue.clone(),
            loss: LossSpec::None,
            reorder: ReorderSpec::None,
            jitter_ns: 0,
            rate_schedule: None,
            delay_schedule: None,
            loss_schedule: None,
            trace: None,
            aggregation: None,
        };
        if host_sends {
            self.add_link(h, router, &p, false)?;
            self.add_link(router, h, &p, false)?;
        } else {
            self.add_link(router, h, &p, false)?;
            self.add_link(h, router, &p, false)?;
        }
        Ok(h)
    }

    /// Attach a flow (or generator slot) and return its endpoints.
    ///
    /// `tag` names the hosts; `src`/`dst` are node names (explicit) or router names (parking lot);
    /// `rtt` is the requested base RTT (dumbbell: required; parking lot: optional); with `clamp`
    /// an RTT below the path's own round-trip delay is raised to it instead of being an error.
    /// `reverse` sends from the far side: a dumbbell flow's sender sits behind the right-hand
    /// router, and elsewhere `src` and `dst` swap.
    #[allow(clippy::too_many_arguments)]
    pub fn attach(
        &mut self,
        what: &str,
        tag: &str,
        src: Option<&str>,
        dst: Option<&str>,
        rtt: Option<Dur>,
        clamp: bool,
        reverse: bool,
    ) -> Result<Endpoints, String> {
        let (src, dst) = if reverse { (dst, src) } else { (src, dst) };
        match &self.kind {
            Kind::Dumbbell { left, right, bottleneck_delay, access_rate, access_queue } => {
                let (mut left, mut right) = (*left, *right);
                if reverse {
                    std::mem::swap(&mut left, &mut right);
                }
                let (bd, rate, q) = (*bottleneck_delay, *access_rate, access_queue.clone());
                if src.is_some() || dst.is_some() {
                    return Err(format!("{what}: a dumbbell flow takes no src/dst (each flow gets its own hosts)"));
                }
                let mut rtt = rtt.ok_or_else(|| format!("{what}.rtt: required on a dumbbell"))?;
                if clamp {
                    rtt = rtt.max(2 * bd);
                }
                check_dumbbell_rtt(&format!("{what}.rtt"), rtt, bd)?;
                let access_total = rtt / 2 - bd;
                let s = self.add_access_pair(format!("s{tag}"), left, access_total / 2, rate, &q, true)?;
                let d =
                    self.add_access_pair(format!("r{tag}"), right, access_total - access_total / 2, rate, &q, false)?;
                Ok(Endpoints { src: s, dst: d })
            }
            Kind::ParkingLot { hop_delay, access_rate, access_delay, access_queue } => {
                let (hd, rate, ad, q) = (*hop_delay, *access_rate, *access_delay, access_queue.clone());
                let router = |net: &Network, key: &str, name: Option<&str>| -> Result<NodeId, String> {
                    let name = name.ok_or_else(|| {
                        format!("{what}.{key}: required on a parking lot (a router name like \"R0\")")
                    })?;
                    match net.node(name) {
                        Some(id) if name.starts_with('R') => Ok(id),
                        _ => Err(format!("{what}.{key}: unknown router \"{name}\"")),
                    }
                };
                let (rs, rd) = (router(self, "src", src)?, router(self, "dst", dst)?);
                if rs == rd {
                    return Err(format!("{what}: src and dst are the same router"));
                }
                let path = (rs as i64 - rd as i64).unsigned_abs() * hd;
                let rtt = if clamp { rtt.map(|r| r.max(2 * path)) } else { rtt };
                let (d_src, d_dst) = match rtt {
                    None => (ad, ad),
                    Some(r) if r / 2 < path => {
                        return Err(format!(
                            "{what}.rtt: {} ms is below the path's round-trip delay ({} ms)",
                            r as f64 / 1e6,
                            2.0 * path as f64 / 1e6
                        ))
                    }
                    Some(r) => {
                        let access = r / 2 - path;
                        (access / 2, access - access / 2)
                    }
                };
                let s = self.add_access_pair(format!("s{tag}"), rs, d_src, rate, &q, true)?;
                let d = self.add_access_pair(format!("r{tag}"), rd, d_dst, rate, &q, false)?;
                Ok(Endpoints { src: s, dst: d })
            }
            Kind::Explicit => {
                let lookup = |key: &str, name: Option<&str>| -> Result<NodeId, String> {
                    let name = name.ok_or_else(|| format!("{what}.{key}: required on an explicit topology"))?;
                    self.node(name).ok_or_else(|| format!("{what}.{key}: unknown node \"{name}\""))
                };
                if rtt.is_some() {
                    return Err(format!(
                        "{what}.rtt: not settable on an explicit topology (the links' delays give it)"
                    ));
                }
                Ok(Endpoints { src: lookup("src", src)?, dst: lookup("dst", dst)? })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Dur = 1_000_000;

    fn params(delay: Dur) -> LinkParams {
        let queue = QueueSpec::Droptail { limit_pkts: Some(100), limit_bytes: None };
        LinkParams {
            rate_bps: 10_000_000,
            delay_ns: delay,
            queue,
            loss: LossSpec::None,
            reorder: ReorderSpec::None,
            jitter_ns: 0,
            rate_schedule: None,
            delay_schedule: None,
            loss_schedule: None,
            trace: None,
            aggregation: None,
        }
    }

    fn access_queue() -> QueueSpec {
        QueueSpec::Droptail { limit_pkts: Some(1000), limit_bytes: None }
    }

    fn dumbbell(bottleneck_delay: Dur) -> TopologySpec {
        TopologySpec::Dumbbell {
            forward: params(bottleneck_delay),
            reverse: params(bottleneck_delay),
            access_rate_bps: 100_000_000,
            access_queue: access_queue(),
        }
    }

    fn delay_between(net: &Network, a: NodeId, b: NodeId) -> Dur {
        net.links.iter().find(|l| l.src == a && l.dst == b).map(|l| l.delay).expect("link exists")
    }

    #[test]
    fn a_dumbbell_flow_gets_access_links_that_make_its_rtt() {
        let mut net = Network::build(&dumbbell(5 * MS), 1).unwrap();
        assert_eq!((net.node_names.len(), net.links.len()), (2, 2));
        let ends = net.attach("flows[0]", "0", None, None, Some(41 * MS), false, false).unwrap();
        // Four new links (a pair per host), and the one-way delays add up to half the RTT.
        assert_eq!(net.links.len(), 6);
        let one_way = delay_between(&net, ends.src, 0) + 5 * MS + delay_between(&net, 1, ends.dst);
        assert_eq!(2 * one_way, 41 * MS - MS % 2);
        assert_eq!(delay_between(&net, ends.src, 0), delay_between(&net, 0, ends.src), "symmetric");
    }

    #[test]
    fn a_reverse_dumbbell_flow_sends_from_behind_the_right_hand_router() {
        let mut net = Network::build(&dumbbell(5 * MS), 1).unwrap();
        let ends = net.attach("flows[0]", "0", None, None, Some(40 * MS), false, true).unwrap();
        // Router 0 is the left one, 1 the right: the sender's access link now leads to 1.
        assert!(net.links.iter().any(|l| l.src == ends.src && l.dst == 1));
        assert!(net.links.iter().any(|l| l.src == 0 && l.dst == ends.dst));
        let one_way = delay_between(&net, ends.src, 1) + 5 * MS + delay_between(&net, 0, ends.dst);
        assert_eq!(2 * one_way, 40 * MS);
    }

    #[test]
    fn a_dumbbell_rtt_below_twice_the_bottleneck_delay_is_an_error_unless_clamped() {
        let mut net = Network::build(&dumbbell(5 * MS), 1).unwrap();
        let err = net.attach("flows[0]", "0", None, None, Some(9 * MS), false, false).unwrap_err();
        assert!(err.contains("flows[0].rtt") && err.contains("below twice"), "{err}");
        assert!(
            net.attach("flows[0]", "0", None, None, Some(10 * MS), false, false).is_ok(),
            "exactly 2 x 5 ms is allowed"
        );
        let clamped = net.attach("g", "1", None, None, Some(MS), true, false).unwrap();
        assert_eq!(delay_between(&net, clamped.src, 0), 0);
    }

    #[test]
    fn a_link_reorders_only_with_a_positive_probability_and_delay() {
        let with = |p: f64, delay_ns: Dur| {
            let mut forward = params(5 * MS);
            forward.reorder = ReorderSpec::Bernoulli { p, delay_ns };
            let spec = TopologySpec::Dumbbell {
                forward,
                reverse: params(5 * MS),
                access_rate_bps: 100_000_000,
                access_queue: access_queue(),
            };
            let net = Network::build(&spec, 1).unwrap();
            net.links.iter().map(|l| l.reorder().map(|r| r.delay())).collect::<Vec<_>>()
        };
        assert_eq!(with(0.01, 3 * MS), [Some(3 * MS), None], "the bottleneck's data direction only");
        assert_eq!(with(0.0, 3 * MS), [None, None]);
        assert_eq!(with(0.5, 0), [None, None]);
    }

    #[test]
    fn a_parking_lot_chains_its_routers_and_checks_flow_endpoints() {
        let spec = TopologySpec::ParkingLot {
            routers: 5,
            forward: params(2 * MS),
            reverse: params(2 * MS),
            access_rate_bps: 100_000_000,
            access_delay_ns: MS,
            access_queue: access_queue(),
        };
        let mut net = Network::build(&spec, 1).unwrap();
        assert_eq!(net.links.len(), 8, "four hops, both directions");
        assert!(net.links.iter().all(|l| (l.src as i64 - l.dst as i64).abs() == 1));
        let e = net.attach("flows[0]", "0", Some("R1"), Some("R4"), Some(30 * MS), false, false).unwrap();
        // 3 hops x 2 ms each way; the access links make up the rest of 15 ms.
        assert_eq!(delay_between(&net, e.src, 1) + 6 * MS + delay_between(&net, 4, e.dst), 15 * MS);
        let err = net.attach("flows[1]", "1", Some("R1"), Some("R4"), Some(10 * MS), false, false).unwrap_err();
        assert!(err.contains("below the path's round-trip delay"), "{err}");
        assert!(net
            .attach("flows[2]", "2", Some("R2"), Some("R2"), None, false, false)
            .unwrap_err()
            .contains("same router"));
        assert!(net
            .attach("flows[3]", "3", Some("R9"), Some("R2"), None, false, false)
            .unwrap_err()
            .contains("unknown router"));
        let too_few = TopologySpec::ParkingLot {
            routers: 1,
            forward: params(MS),
            reverse: params(MS),
            access_rate_bps: 1,
            access_delay_ns: 0,
            access_queue: access_queue(),
        };
        assert!(Network::build(&too_few, 1).is_err());
    }
}
