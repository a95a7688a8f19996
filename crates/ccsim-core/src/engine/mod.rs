//! The simulation: builds the network and flows from a resolved scenario and runs the event loop.

mod build;
mod capture;
mod report;
pub mod topology;

use crate::event::{Event, TimerKind};
use crate::net::fabric::{Delivery, Fabric, NOT_AHEAD};
use crate::net::packet::Packet;

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use crate::grow::OutOfMemory;
use crate::spec::ScenarioSpec;
use crate::tcp::stack_settings::StackConfig;
use crate::trace::{FlowRow, FlowSeries, QueueRow, QueueSeries, RecordError};
use crate::traffic::{Flow, Generator};
use crate::units::{secs, Dur, Time};

pub use build::CcFactory;

/// Why a run stopped before its end (see [`Simulation::failure`]): it has no complete results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The run grew past a bound of the scenario's `[limits]`: `key` names it (as the scenario
    /// writes it), `detail` says what grew, the bound and what to change.
    Limit { key: &'static str, detail: String },
    /// A record that grows with the run (series, drop log, capture) could not be allocated.
    OutOfMemory { detail: String },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Limit { key, detail } => write!(f, "{key}: {detail}"),
            RunError::OutOfMemory { detail } => write!(f, "out of memory: {detail}"),
        }
    }
}

impl RunError {
    fn out_of_memory(e: &OutOfMemory, now: Time) -> Self {
        RunError::OutOfMemory { detail: format!("{e} at {:.6} s of simulated time", secs(now)) }
    }

    /// A failed series row: `who` reported the names (an algorithm, a queue discipline).
    fn from_record(e: RecordError, who: impl FnOnce() -> String, now: Time) -> Self {
        match e {
            RecordError::OutOfMemory(e) => Self::out_of_memory(&e, now),
            RecordError::TooManyNames { name, limit } => RunError::Limit {
                key: "limits.inspect_columns",
                detail: format!(
                    "{} reported {name:?} at {:.6} s of simulated time, distinct inspect name \
                     number {} of the run; expected at most {limit} (each name is a column of the \
                     table): report fewer names from inspect(), or set limits.inspect_columns in \
                     the scenario to allow more",
                    who(),
                    secs(now),
                    limit + 1
                ),
            },
        }
    }
}

pub struct Simulation {
    pub name: String,
    seed: u64,
    duration: Time,
    /// Shared by every sender: one copy in the cache however many flows read it per ACK.
    pub stack: Arc<StackConfig>,
    now: Time,
    pub fab: Fabric,
    pub flows: Vec<Flow>,
    generators: Vec<Generator>,
    node_names: Vec<String>,
    sample_interval: Option<Dur>,
    series: FlowSeries,
    queues: QueueSeries,
    /// Flows the next series sample may record (started, and not seen finished at an earlier
    /// sample), in id order: a sample visits these rather than every flow ever created.
    sampled_flows: Vec<u32>,
    /// Links whose queue is sampled, in id order (found at the first sample).
    monitored: Option<Vec<u32>>,
    events: u64,
    cc_factory: CcFactory,
    /// File names of the pcap capture points (empty without capture).
    capture_names: Vec<String>,
    /// For each delivering group (`Fabric::prepare_delivering_ahead`), the delayed-ACK timers
    /// its receivers armed, as (deadline, flow), in the order of their deadlines (every receiver
    /// of a group acts in time order, with the same delay). An entry whose receiver re-armed or
    /// cancelled its timer since is stale.
    delayed_acks_ahead: Vec<VecDeque<(Time, u32)>>,
    /// Why the series stopped recording (they record nothing from then on).
    failure: Option<RunError>,
}

impl Simulation {
    /// Build from a resolved scenario, with algorithms from the registry.
    pub fn new(spec: &ScenarioSpec) -> Result<Self, String> {
        let profile = spec.stack.profile;
        // HyStart++ is a stack setting that wraps whichever algorithm a flow runs.
        let hystart = crate::tcp::stack_settings::StackConfig::resolve(profile, &spec.stack.overrides).hystart;
        Self::with_factory(
            spec,
            Box::new(move |t, rng| {
                crate::cc::common::hystart_pp::build_for_profile(hystart, &t.cc, &t.cc_params, profile, rng)
            }),
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

    /// Send every packet through every link's pipe, never passing it on at admission nor
    /// delivering it ahead ([`crate::net::fabric`]): the results are the same, with more events.
    /// For tests that compare the two; call before the run.
    pub fn disable_passing_on(&mut self) {
        self.fab.disable_passing_on();
    }

    /// Pass packets on, but deliver none ahead ([`crate::net::fabric`]): the results are the
    /// same, with an event more for each data packet that would have been. Call before the run.
    pub fn disable_delivering_ahead(&mut self) {
        self.fab.disable_delivering_ahead();
    }

    /// Links into hosts whose receivers are delivered to ahead (`Fabric::prepare_delivering_ahead`).
    pub fn delivering_groups(&self) -> usize {
        self.delayed_acks_ahead.len()
    }

    pub fn events_processed(&self) -> u64 {
        self.events
    }

    /// Why the run cannot give complete results, if something it records could not grow: a
    /// bound of [`RunLimits`](crate::spec::RunLimits) exceeded, or memory refused. The records
    /// stop growing at the failure and the run goes on if asked; a caller stops it and reports
    /// this instead.
    pub fn failure(&self) -> Option<RunError> {
        if let Some(failure) = &self.failure {
            return Some(failure.clone());
        }
        let capture = self.fab.capture.as_ref().and_then(|c| c.failed.as_ref());
        let drops = self.fab.drop_log.as_ref().and_then(|d| d.failed.as_ref());
        capture.or(drops).map(|(e, at)| RunError::out_of_memory(e, *at))
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
        loop {
            if budget == 0 {
                if self.fab.events.peek_time().is_some_and(|t| t <= end) {
                    return false;
                }
                break;
            }
            let Some((t, ev)) = self.fab.events.pop_due(end) else { break };
            budget -= 1;
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
                if let Some(delivery) = self.fab.link_arrival(link, now) {
                    self.deliver(delivery);
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
                if self.sample_interval.is_some() {
                    // Mostly the newest flow: inserted at the end.
                    let at = self.sampled_flows.partition_point(|&i| i < flow);
                    self.sampled_flows.insert(at, flow);
                }
            }
            Event::GeneratorArrival(g) => self.on_generator_arrival(g, now),
            Event::Sample => self.sample(now),
        }
    }

    /// A packet reaches its endpoint, now or (delivered ahead) at `delivery.at`.
    #[inline(always)]
    fn deliver(&mut self, Delivery { pkt, at, group }: Delivery) {
        let flow = &mut self.flows[pkt.flow as usize];
        if !pkt.kind.is_forward() {
            if flow.sender.on_ack(&pkt, at, &mut self.fab) {
                self.on_transfer_complete(pkt.flow, at);
            }
        } else if group == NOT_AHEAD {
            flow.receiver.on_packet(&pkt, at, &mut self.fab);
        } else {
            self.deliver_ahead(pkt, at, group);
        }
    }

    /// A data packet delivered ahead: the delayed ACKs of its group due by its arrival go
    /// first, as their events would have; a timer it arms is noted for the next packets.
    fn deliver_ahead(&mut self, pkt: Packet, at: Time, group: u32) {
        let due = &mut self.delayed_acks_ahead[group as usize];
        while let Some(&(deadline, flow)) = due.front() {
            if deadline > at {
                break;
            }
            due.pop_front();
            let receiver = &mut self.flows[flow as usize].receiver;
            if receiver.delack_timer.deadline() == Some(deadline) {
                receiver.run_delayed_ack(deadline, &mut self.fab);
            }
        }
        let receiver = &mut self.flows[pkt.flow as usize].receiver;
        let armed = receiver.delack_timer.deadline();
        receiver.on_packet(&pkt, at, &mut self.fab);
        if let Some(deadline) = receiver.delack_timer.deadline().filter(|&d| Some(d) != armed) {
            let due = &mut self.delayed_acks_ahead[group as usize];
            debug_assert!(due.back().is_none_or(|&(last, _)| last < deadline), "deadlines in order");
            due.push_back((deadline, pkt.flow));
        }
    }

    /// Record a row of the series per sampled flow and monitored link. A row that cannot be
    /// recorded (a bound exceeded, memory refused) ends the sampling: the failure is kept for
    /// [`Self::failure`], and no later sample is scheduled.
    fn sample(&mut self, now: Time) {
        let Some(interval) = self.sample_interval else { return };
        if self.failure.is_some() {
            return;
        }
        let flows = &mut self.flows;
        let series = &mut self.series;
        let mut failure = None;
        // A flow finished before `now` is skipped now and at every later sample: drop it.
        self.sampled_flows.retain(|&i| {
            let f = &mut flows[i as usize];
            if f.sender.completed_at.is_some_and(|t| t < now) {
                return false;
            }
            if failure.is_some() {
                return true;
            }
            let bytes = f.sender.bytes_acked();
            let row = FlowRow {
                t_s: secs(now),
                flow: i,
                cwnd_pkts: f.sender.w.cwnd,
                ssthresh_pkts: f.sender.w.ssthresh,
                srtt_s: f.sender.srtt().map_or(f64::NAN, secs),
                rate_bps: (bytes - f.sampled_bytes) as f64 * 8.0 / secs(interval),
            };
            if let Err(e) = series.push_row(row) {
                failure = Some(RunError::out_of_memory(&e, now));
                return true;
            }
            f.sampled_bytes = bytes;
            f.sender.inspect_cc(now, &mut |name, value| series.record_cc(name, value));
            if let Err(e) = series.close_row() {
                let who = || format!("algorithm {:?} (flow {i}, labelled {:?})", f.sender.cc_name(), f.label);
                failure = Some(RunError::from_record(e, who, now));
            }
            true
        });
        if failure.is_none() {
            failure = self.sample_queues(now).err();
        }
        if failure.is_some() {
            self.failure = failure;
            return;
        }
        if now + interval <= self.duration {
            self.fab.events.push(now + interval, Event::Sample);
        }
    }

    fn sample_queues(&mut self, now: Time) -> Result<(), RunError> {
        let links = &self.fab.links;
        let monitored = self.monitored.get_or_insert_with(|| {
            links.iter().enumerate().filter(|(_, l)| l.monitor).map(|(i, _)| i as u32).collect()
        });
        for &i in monitored.iter() {
            // A dequeue discipline catches up with the transmissions completed by now.
            self.fab.serve(i, now);
            let l = &mut self.fab.links[i as usize];
            let (pkts, bytes) = l.queue_len(now);
            let q = &mut self.queues;
            let row = QueueRow {
                t_s: secs(now),
                link: i,
                queue_pkts: pkts as u32,
                queue_bytes: bytes,
                avg_queue_pkts: l.average_queue().unwrap_or(f64::NAN),
            };
            q.push_row(row).map_err(|e| RunError::out_of_memory(&e, now))?;
            l.inspect_queue(&mut |name, value| q.record_aqm(name, value));
            q.close_row().map_err(|e| {
                let names = &self.node_names;
                let who = || format!("the queue of link {}->{}", names[l.src as usize], names[l.dst as usize]);
                RunError::from_record(e, who, now)
            })?;
        }
        Ok(())
    }
}
