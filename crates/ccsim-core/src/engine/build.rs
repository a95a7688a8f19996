//! Building a simulation from a resolved scenario, and creating transfers as generators ask.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use rand::Rng;

use super::topology::Network;
use super::Simulation;
use crate::cc::CongestionControl;
use crate::event::Event;
use crate::net::drops::FlowDrops;
use crate::net::fabric::Fabric;
use crate::net::link::{LinkId, NodeId};
use crate::net::routing::Graph;
use crate::net::Endpoints;
use crate::rng::{stream, Entity, Purpose, Stream};
use crate::spec::{ArrivalSpec, FlowTemplate, GeneratorSpec, ScenarioSpec, MAX_TIME_NS};
use crate::tcp::clock::ClockSkew;
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::{Sender, SenderSetup};
use crate::tcp::stack_settings::StackConfig;
use crate::trace::{FlowSeries, QueueSeries};
use crate::traffic::{draw_rtt, slot_choice, Flow, Generator, PathSummary, Placement};
use crate::units::{Dur, Time};

/// Builds a flow's congestion controller from its template and the flow's own random stream
/// (`stream(seed, Flow, flow id, Congestion)`), for algorithms that draw random numbers.
pub type CcFactory = Box<dyn Fn(&FlowTemplate, Stream) -> Result<Box<dyn CongestionControl>, String> + Send + Sync>;

/// Routes and base RTTs between endpoint pairs, computed once per pair.
struct Router {
    graph: Graph,
    cache: BTreeMap<(NodeId, NodeId), (u32, Dur)>,
    /// Shortest paths between the nodes that remain once single-link ends are taken off.
    core: BTreeMap<(NodeId, NodeId), Option<Vec<LinkId>>>,
}

impl Router {
    fn new(graph: Graph) -> Self {
        Router { graph, cache: BTreeMap::new(), core: BTreeMap::new() }
    }

    /// The links of the shortest path from `from` to `to` (distinct nodes), the same as
    /// `Graph::shortest_path` finds, with one search per pair of inner nodes rather than per pair
    /// of endpoints: a node with a single outgoing link (a host on its access link) starts every
    /// path it sends on with that link, and a node with a single incoming link ends every path to
    /// it with that link. Searching from the far end of the first link, or to the near end of the
    /// last, settles every other node with the same predecessor, since all distances and hop
    /// counts only shift by that link's.
    fn links(&mut self, from: NodeId, to: NodeId) -> Option<Vec<LinkId>> {
        let (mut a, mut b) = (from, to);
        let mut path = Vec::new();
        if let Some((first, next)) = self.graph.sole_out(a) {
            path.push(first);
            a = next;
            if a == b {
                return Some(path);
            }
        }
        let mut last = None;
        if let Some((link, prev)) = self.graph.sole_in(b) {
            last = Some(link);
            b = prev;
        }
        let graph = &self.graph;
        let mid = self.core.entry((a, b)).or_insert_with(|| graph.shortest_path(a, b)).as_ref()?;
        path.extend_from_slice(mid);
        path.extend(last);
        Some(path)
    }

    fn place(&mut self, what: &str, ep: Endpoints, net: &Network, fab: &mut Fabric) -> Result<Placement, String> {
        if ep.src == ep.dst {
            return Err(format!("{what}: src and dst are the same node"));
        }
        let name = |n: NodeId| net.node_names[n as usize].as_str();
        let mut route = |from: NodeId, to: NodeId| -> Result<(u32, Dur), String> {
            if let Some(&r) = self.cache.get(&(from, to)) {
                return Ok(r);
            }
            let links = self
                .links(from, to)
                .ok_or_else(|| format!("{what}: no route from \"{}\" to \"{}\"", name(from), name(to)))?;
            let delay: Dur = links.iter().map(|&l| fab.links[l as usize].delay).fold(0, Dur::saturating_add);
            if delay > MAX_TIME_NS {
                return Err(format!(
                    "{what}: the path from \"{}\" to \"{}\" is {delay} ns long; expected at most {MAX_TIME_NS} ns",
                    name(from),
                    name(to)
                ));
            }
            let r = (fab.add_route(&links), delay);
            self.cache.insert((from, to), r);
            Ok(r)
        };
        let (data_route, fwd) = route(ep.src, ep.dst)?;
        let (ack_route, rev) = route(ep.dst, ep.src)?;
        let path = self.summarize(ep, fab.route(data_route), fab);
        Ok(Placement { endpoints: ep, data_route, ack_route, base_rtt: fwd + rev, path })
    }

    /// The routers and hops of a data path: a source with a single link out and a destination
    /// with a single link in are hosts, and the routers are the nodes beyond their access links.
    fn summarize(&self, ep: Endpoints, links: &[LinkId], fab: &Fabric) -> PathSummary {
        let n = links.len();
        let first = usize::from(n >= 1 && self.graph.sole_out(ep.src).is_some());
        let last = if n > first && self.graph.sole_in(ep.dst).is_some() { n - 1 } else { n };
        // Node i of the path is the source of link i (the destination for i = n).
        let node = |i: usize| if i < n { fab.links[links[i] as usize].src } else { ep.dst };
        let (src_router, dst_router) = (node(first), node(last));
        PathSummary { src_router, dst_router, hops: (last - first) as u32, reverse: dst_router < src_router }
    }
}

impl Simulation {
    /// Build with a custom controller factory (tests use this to plug in probe algorithms).
    pub fn with_factory(spec: &ScenarioSpec, cc_factory: CcFactory) -> Result<Self, String> {
        // Whoever built the spec (Python, a test, a future front end), the engine runs only what
        // it can: every quantity in range, counts that fit in memory, times that cannot wrap.
        spec.validate()?;
        let stack = StackConfig::resolve(spec.stack.profile, &spec.stack.overrides);
        let mut net = Network::build(&spec.topology, spec.seed)?;

        // Attach every flow and generator slot first: attaching adds hosts and access links.
        let mut flow_eps = Vec::with_capacity(spec.flows.len());
        for (i, f) in spec.flows.iter().enumerate() {
            let what = spec.flow_key(i);
            let rng = stream(spec.seed, Entity::Flow, i as u64, Purpose::Congestion);
            let cc = cc_factory(&f.template, rng).map_err(|e| format!("{what}.cc: {e}"))?;
            check_ecn(&what, &f.template, cc.needs_ecn(), spec.stack.overrides.ecn)?;
            check_template(&what, &f.template)?;
            let (src, dst) = (f.src.as_deref(), f.dst.as_deref());
            flow_eps.push(net.attach(&what, &i.to_string(), src, dst, f.rtt_ns, false, f.template.reverse)?);
        }
        let mut gen_eps: Vec<Vec<Endpoints>> = Vec::new();
        for (g, gs) in spec.generators.iter().enumerate() {
            let what = format!("generators[{g}]");
            // A validation build only: transfers get their own streams in `add_flow`.
            let rng = stream(spec.seed, Entity::Generator, g as u64, Purpose::Congestion);
            let cc = cc_factory(&gs.template, rng).map_err(|e| format!("{what}.cc: {e}"))?;
            check_ecn(&what, &gs.template, cc.needs_ecn(), spec.stack.overrides.ecn)?;
            check_template(&what, &gs.template)?;
            let sources = match gs.arrivals {
                ArrivalSpec::ClosedLoop { slots } => slots,
                ArrivalSpec::OpenLoop { rate_per_s, .. } => {
                    if !(rate_per_s > 0.0 && rate_per_s.is_finite()) {
                        return Err(format!("{what}.rate: {rate_per_s} is not a positive arrival rate"));
                    }
                    let choices = gs.rtt_choices_ns.len().max(gs.endpoints.len()).max(1) as u32;
                    gs.sources.unwrap_or(choices)
                }
            };
            if sources == 0 {
                return Err(format!("{what}: needs at least one slot or source"));
            }
            let mut eps = Vec::with_capacity(sources as usize);
            for source in 0..sources {
                let (src, dst, rtt) = source_placement(spec.seed, g as u32, source, gs);
                let tag = format!("g{g}.{source}");
                eps.push(net.attach(&what, &tag, src, dst, rtt, gs.rtt_dist.is_some(), gs.template.reverse)?);
            }
            gen_eps.push(eps);
        }

        let graph = Graph::new(
            net.node_names.len(),
            net.links.iter().enumerate().map(|(i, l)| (i as u32, l.src, l.dst, l.delay)),
        );
        let mut router = Router::new(graph);
        let links = std::mem::take(&mut net.links);
        let mut fab = Fabric::new(links, spec.trace.drops);
        let flow_places = flow_eps
            .iter()
            .enumerate()
            .map(|(i, &ep)| router.place(&spec.flow_key(i), ep, &net, &mut fab))
            .collect::<Result<Vec<_>, _>>()?;
        let mut generators = Vec::new();
        for (g, eps) in gen_eps.iter().enumerate() {
            let gs = &spec.generators[g];
            let placements = eps
                .iter()
                .map(|&ep| router.place(&format!("generators[{g}]"), ep, &net, &mut fab))
                .collect::<Result<Vec<_>, _>>()?;
            generators.push(Generator {
                id: g as u32,
                template: gs.template.clone(),
                arrivals: gs.arrivals.clone(),
                size: gs.size.clone(),
                start: gs.start_ns,
                started: vec![0; placements.len()],
                placements,
                arrival_rng: stream(spec.seed, Entity::Generator, g as u64, Purpose::Arrivals),
                seed: spec.seed,
            });
        }

        // Every (data route, ACK route) pair a flow may use, for delivering ahead.
        let route_pairs: Vec<(u32, u32)> = flow_places
            .iter()
            .chain(generators.iter().flat_map(|g| &g.placements))
            .map(|p| (p.data_route, p.ack_route))
            .collect();
        let mut capture_names = Vec::new();
        if let Some(pcap) = &spec.trace.pcap {
            let flows = spec.generators.is_empty().then_some(spec.flows.len());
            capture_names = super::capture::attach(pcap, &mut fab, &net.node_names, flows)?;
        }

        let mut sim = Simulation {
            name: spec.name.clone(),
            seed: spec.seed,
            duration: spec.duration_ns,
            stack: Arc::new(stack),
            now: 0,
            fab,
            flows: Vec::new(),
            generators,
            node_names: std::mem::take(&mut net.node_names),
            sample_interval: spec.trace.sample_interval_ns.filter(|&i| i > 0),
            series: FlowSeries::new(&spec.limits),
            queues: QueueSeries::new(&spec.limits),
            sampled_flows: Vec::new(),
            monitored: None,
            events: 0,
            cc_factory,
            capture_names,
            delayed_acks_ahead: Vec::new(),
            failure: None,
        };
        for (i, f) in spec.flows.iter().enumerate() {
            let mut rng = stream(spec.seed, Entity::Flow, i as u64, Purpose::Start);
            let jitter = if f.start_jitter_ns > 0 { rng.gen_range(0..f.start_jitter_ns) } else { 0 };
            sim.add_flow(&f.template, flow_places[i], f.start_ns + jitter, f.size_bytes, None)?;
        }
        for g in 0..sim.generators.len() {
            let (start, arrivals) = (sim.generators[g].start, sim.generators[g].arrivals.clone());
            match arrivals {
                ArrivalSpec::ClosedLoop { slots } => {
                    for slot in 0..slots {
                        sim.start_slot_transfer(g as u32, slot, start)?;
                    }
                }
                ArrivalSpec::OpenLoop { .. } => {
                    let gap = sim.generators[g].next_gap();
                    sim.fab.events.push(start + gap, Event::GeneratorArrival(g as u32));
                }
            }
        }
        if sim.sample_interval.is_some() {
            sim.fab.events.push(0, Event::Sample);
        }
        let sampled = sim.sample_interval.is_some();
        sim.fab.prepare_passing_on(sim.duration, sampled);
        let groups = sim.fab.prepare_delivering_ahead(&route_pairs, sampled);
        sim.delayed_acks_ahead = vec![VecDeque::new(); groups as usize];
        Ok(sim)
    }

    fn add_flow(
        &mut self,
        t: &FlowTemplate,
        place: Placement,
        start: Time,
        size: Option<u64>,
        origin: Option<(u32, u32)>,
    ) -> Result<u32, String> {
        let id = self.flows.len() as u32;
        // Keyed by the flow id, generator transfers included: deterministic for a given scenario.
        let cc = (self.cc_factory)(t, stream(self.seed, Entity::Flow, id as u64, Purpose::Congestion))?;
        let max_window = t.max_window_pkts.unwrap_or(self.stack.default_max_window_pkts) as f64;
        let recovery = self.stack.recovery_for(cc.customary_recovery());
        let ecn = self.stack.ecn || cc.needs_ecn();
        let feedback = self.stack.ecn_feedback_for(cc.ecn_feedback());
        let setup = SenderSetup {
            flow: id,
            data_route: place.data_route,
            mss: t.mss_bytes,
            size_bytes: size,
            max_window,
            stack: Arc::clone(&self.stack),
            recovery,
            ecn,
            seed: self.seed,
            clock: ClockSkew { offset_ns: t.clock_offset_ns, drift_ppm: t.clock_drift_ppm },
        };
        let delayed_ack = t.delayed_ack.unwrap_or(self.stack.delayed_ack);
        let mut receiver =
            Receiver::new(id, place.ack_route, delayed_ack, self.stack.delayed_ack_timeout_ns, recovery.uses_sack());
        if ecn {
            receiver = receiver.with_ecn(feedback);
        }
        if self.stack.dsack {
            receiver = receiver.with_dsack();
        }
        if delayed_ack {
            receiver = receiver.with_quick_acks(self.stack.quick_acks);
        }
        self.flows.push(Flow {
            label: t.label.clone(),
            endpoints: place.endpoints,
            path: place.path,
            start,
            size_bytes: size,
            base_rtt: place.base_rtt,
            sender: Sender::new(setup, cc),
            receiver,
            started: false,
            origin,
            sampled_bytes: 0,
        });
        self.fab.flow_drops.push(FlowDrops::default());
        self.watch_flow(id, place.data_route, place.ack_route);
        if start <= self.duration {
            self.fab.events.push(start, Event::FlowStart(id));
        }
        Ok(id)
    }

    fn start_slot_transfer(&mut self, g: u32, slot: u32, at: Time) -> Result<u32, String> {
        let gen = &mut self.generators[g as usize];
        let k = gen.started[slot as usize];
        gen.started[slot as usize] += 1;
        let size = gen.size_of(slot, k);
        let (template, place) = (gen.template.clone(), gen.placements[slot as usize]);
        self.add_flow(&template, place, at, Some(size), Some((g, slot)))
    }

    pub(super) fn on_transfer_complete(&mut self, flow: u32, now: Time) {
        if let Some((g, slot)) = self.flows[flow as usize].origin {
            if matches!(self.generators[g as usize].arrivals, ArrivalSpec::ClosedLoop { .. }) && now < self.duration {
                self.start_slot_transfer(g, slot, now).expect("template validated at build");
            }
        }
    }

    pub(super) fn on_generator_arrival(&mut self, g: u32, now: Time) {
        let gen = &mut self.generators[g as usize];
        let ArrivalSpec::OpenLoop { stop_ns, .. } = gen.arrivals else { return };
        if stop_ns.is_some_and(|s| now >= s) {
            return;
        }
        let k = gen.started[0];
        gen.started[0] += 1;
        let size = gen.size_of(u32::MAX, k);
        let place = gen.placements[gen.placement_of(k)];
        let template = gen.template.clone();
        let next = now + gen.next_gap();
        self.add_flow(&template, place, now, Some(size), Some((g, 0))).expect("template validated at build");
        if next <= self.duration {
            self.fab.events.push(next, Event::GeneratorArrival(g));
        }
    }
}

/// Endpoints and base RTT of one generator source, drawn from streams keyed by the source, so a
/// source's placement does not depend on any other part of the scenario.
fn source_placement(seed: u64, g: u32, source: u32, gs: &GeneratorSpec) -> (Option<&str>, Option<&str>, Option<Dur>) {
    let (src, dst) = match gs.endpoints.len() {
        0 => (None, None),
        n => {
            let (s, d) = &gs.endpoints[slot_choice(seed, g, source, n, Purpose::Endpoints)];
            (Some(s.as_str()), Some(d.as_str()))
        }
    };
    let rtt = match (&gs.rtt_dist, gs.rtt_choices_ns.len()) {
        // An exponential draw has no upper bound: cap it where every time is capped.
        (Some(dist), _) => Some(draw_rtt(seed, g, source, dist).min(MAX_TIME_NS)),
        (None, 0) => None,
        (None, n) => Some(gs.rtt_choices_ns[slot_choice(seed, g, source, n, Purpose::Rtt)]),
    };
    (src, dst, rtt)
}

/// An algorithm that works only with ECN turns it on for its own flows; a scenario that turns it
/// off explicitly contradicts itself.
fn check_ecn(what: &str, t: &FlowTemplate, needs_ecn: bool, ecn: Option<bool>) -> Result<(), String> {
    if needs_ecn && ecn == Some(false) {
        return Err(format!(
            "stack.ecn: false, but {what}.cc {:?} works only with ECN; expected ecn = true or unset",
            t.cc
        ));
    }
    Ok(())
}

fn check_template(what: &str, t: &FlowTemplate) -> Result<(), String> {
    if t.mss_bytes == 0 || t.mss_bytes > crate::spec::MAX_MSS_BYTES {
        return Err(format!(
            "{what}.mss: {} is out of range; expected 1..={} bytes",
            t.mss_bytes,
            crate::spec::MAX_MSS_BYTES
        ));
    }
    if t.max_window_pkts == Some(0) {
        return Err(format!("{what}.max_window: expected at least 1 packet"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    /// Random graphs with some single-link ends (hosts) and some zero-delay links, where ties in
    /// delay and hop count abound: the shared searches give the same path as a full search from
    /// every node to every other.
    #[test]
    fn shared_searches_find_the_same_paths_as_full_searches() {
        let mut rng = stream(11, Entity::Flow, 0, Purpose::Start);
        for _ in 0..60 {
            let inner = rng.gen_range(2..7u32);
            let mut links = Vec::new();
            for _ in 0..rng.gen_range(1..15) {
                let (a, b) = (rng.gen_range(0..inner), rng.gen_range(0..inner));
                links.push((a, b, rng.gen_range(0..3u64)));
            }
            let mut nodes = inner;
            for _ in 0..rng.gen_range(0..12) {
                let (host, router) = (nodes, rng.gen_range(0..inner));
                nodes += 1;
                let delay = rng.gen_range(0..3u64);
                match rng.gen_range(0..4) {
                    0 => links.push((host, router, delay)),
                    1 => links.push((router, host, delay)),
                    _ => {
                        links.push((host, router, delay));
                        links.push((router, host, delay));
                    }
                }
            }
            let edges = || links.iter().enumerate().map(|(i, &(a, b, d))| (i as LinkId, a, b, d));
            let full = Graph::new(nodes as usize, edges());
            let mut router = Router::new(Graph::new(nodes as usize, edges()));
            for from in 0..nodes {
                for to in 0..nodes {
                    if from != to {
                        assert_eq!(router.links(from, to), full.shortest_path(from, to), "{from} -> {to} in {links:?}");
                    }
                }
            }
        }
    }
}
