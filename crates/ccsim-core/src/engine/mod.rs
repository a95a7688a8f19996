//! The simulation: builds the network and flows from a resolved scenario and runs the event loop.

mod build;
pub mod event;
pub mod fabric;
mod report;

use event::{Event, TimerKind};
use fabric::Fabric;

use crate::spec::ScenarioSpec;
use crate::tcp::profile::StackConfig;
use crate::trace::{FlowSeries, QueueSeries};
use crate::traffic::{Flow, Generator};
use crate::units::{secs, Dur, Time};

pub use build::CcFactory;

pub struct Simulation {
    pub name: String,
    seed: u64,
    duration: Time,
    pub stack: StackConfig,
    now: Time,
    pub fab: Fabric,
    pub flows: Vec<Flow>,
    generators: Vec<Generator>,
    node_names: Vec<String>,
    sample_interval: Option<Dur>,
    series: FlowSeries,
    queues: QueueSeries,
    events: u64,
    cc_factory: CcFactory,
}

impl Simulation {
    /// Build from a resolved scenario, with algorithms from the registry.
    pub fn new(spec: &ScenarioSpec) -> Result<Self, String> {
        let profile = spec.stack.profile;
        Self::with_factory(
            spec,
            Box::new(move |t, rng| crate::cc::registry::build_for_profile(&t.cc, &t.cc_params, profile, rng)),
        )
    }

    pub fn now(&self) -> Time {
        self.now
    }

    pub fn duration(&self) -> Time {
        self.duration
    }

    pub fn is_done(&self) -> bool {
        self.now >= self.duration
    }

    pub fn events_processed(&self) -> u64 {
        self.events
    }

    /// Run every event up to `until` (at most the scenario's duration). Returns true at the end.
    pub fn run_until(&mut self, until: Time) -> bool {
        self.run_for(until, u64::MAX);
        self.is_done()
    }

    /// Run events up to `until` (at most the scenario's duration), but no more than
    /// `max_events` of them, so that a caller can look up (for Ctrl-C, a progress bar) however
    /// dense the events are. Returns true once every event up to `until` has run.
    ///
    /// Panics if an event is due before the current time: the clock wrapped or ran backwards,
    /// and no result computed after that can be trusted. (Checked in release builds too.)
    pub fn run_for(&mut self, until: Time, max_events: u64) -> bool {
        let end = until.min(self.duration);
        let mut budget = max_events;
        while let Some(t) = self.fab.events.peek_time() {
            if t > end {
                break;
            }
            if budget == 0 {
                return false;
            }
            budget -= 1;
            let (t, ev) = self.fab.events.pop().expect("peeked");
            assert!(
                t >= self.now,
                "clock ran backwards: an event at {t} ns is due before the current time {} ns",
                self.now
            );
            self.now = t;
            self.events += 1;
            self.dispatch(t, ev);
        }
        self.now = self.now.max(end);
        true
    }

    pub fn run(&mut self) {
        self.run_until(self.duration);
    }

    #[inline]
    fn dispatch(&mut self, now: Time, ev: Event) {
        match ev {
            Event::LinkArrival(link) => {
                if let Some(pkt) = self.fab.link_arrival(link, now) {
                    let flow = &mut self.flows[pkt.flow as usize];
                    if pkt.kind.is_forward() {
                        flow.receiver.on_packet(&pkt, now, &mut self.fab);
                    } else if flow.sender.on_ack(&pkt, now, &mut self.fab) {
                        self.on_transfer_complete(pkt.flow, now);
                    }
                }
            }
            Event::Timer { flow, kind } => {
                let f = &mut self.flows[flow as usize];
                match kind {
                    TimerKind::Retransmit => f.sender.on_rto_timer(now, &mut self.fab),
                    TimerKind::Pacing => f.sender.on_pacing_timer(now, &mut self.fab),
                    TimerKind::DelayedAck => f.receiver.on_delack_timer(now, &mut self.fab),
                    TimerKind::Release => f.sender.on_release_timer(now, &mut self.fab),
                }
            }
            Event::LinkIngress(link) => self.fab.link_ingress(link, now),
            Event::FlowStart(flow) => {
                let f = &mut self.flows[flow as usize];
                f.started = true;
                f.sender.start(now, &mut self.fab);
            }
            Event::GeneratorArrival(g) => self.on_generator_arrival(g, now),
            Event::Sample => self.sample(now),
        }
    }

    fn sample(&mut self, now: Time) {
        let Some(interval) = self.sample_interval else { return };
        for (i, f) in self.flows.iter_mut().enumerate() {
            if !f.started || f.sender.completed_at.is_some_and(|t| t < now) {
                continue;
            }
            let bytes = f.sender.bytes_acked();
            self.series.t_s.push(secs(now));
            self.series.flow.push(i as u32);
            self.series.cwnd_pkts.push(f.sender.w.cwnd);
            self.series.ssthresh_pkts.push(f.sender.w.ssthresh);
            self.series.srtt_s.push(f.sender.srtt().map_or(f64::NAN, secs));
            self.series.rate_bps.push((bytes - f.sampled_bytes) as f64 * 8.0 / secs(interval));
            f.sampled_bytes = bytes;
            let series = &mut self.series;
            f.sender.inspect_cc(now, &mut |name, value| series.record_cc(name, value));
            series.close_row();
        }
        for (i, l) in self.fab.links.iter_mut().enumerate() {
            if l.monitor {
                let (pkts, bytes) = l.queue_len(now);
                self.queues.t_s.push(secs(now));
                self.queues.link.push(i as u32);
                self.queues.queue_pkts.push(pkts as u32);
                self.queues.queue_bytes.push(bytes);
                self.queues.avg_queue_pkts.push(l.average_queue().unwrap_or(f64::NAN));
            }
        }
        if now + interval <= self.duration {
            self.fab.events.push(now + interval, Event::Sample);
        }
    }
}
