//! Setting up packet capture from `[trace] pcap`, and turning it into pcap files at the end.

use std::collections::BTreeSet;

use super::{RunError, Simulation};
use crate::net::capture::Capture;
use crate::net::fabric::Fabric;
use crate::pcap::{self, FlowInfo, PcapFile};
use crate::spec::PcapSpec;

/// Attach a capture to the fabric: one point per named link (every link from SRC to DST), then
/// one per flow. Returns the points' file names. `flows`: flows in the scenario, `None` when
/// generators create more at run time (their ids are not known yet).
pub(super) fn attach(
    spec: &PcapSpec,
    fab: &mut Fabric,
    node_names: &[String],
    flows: Option<usize>,
) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut link_point = vec![None; fab.links.len()];
    for (i, wanted) in spec.links.iter().enumerate() {
        let key = format!("trace.pcap.links[{i}]");
        let point = names.len() as u32;
        let mut found = false;
        for (id, l) in fab.links.iter_mut().enumerate() {
            if link_name(node_names, l.src, l.dst) == *wanted {
                if link_point[id].is_some() {
                    return Err(format!("{key}: \"{wanted}\" is named twice; expected each link once"));
                }
                link_point[id] = Some(point);
                l.watch(true, false);
                found = true;
            }
        }
        if !found {
            return Err(unknown_link(&key, wanted, fab, node_names));
        }
        let (src, dst) = wanted.split_once("->").expect("a link's name has an arrow");
        names.push(format!("link-{}-{}", file_safe(src), file_safe(dst)));
    }
    let mut seen = BTreeSet::new();
    let mut flow_points = Vec::new();
    for (i, &flow) in spec.flows.iter().enumerate() {
        let key = format!("trace.pcap.flows[{i}]");
        if flows.is_some_and(|n| flow as usize >= n) {
            let n = flows.unwrap_or(0);
            return Err(format!("{key}: no flow {flow}; expected a flow id below {n} (the scenario has {n} flows)"));
        }
        if !seen.insert(flow) {
            return Err(format!("{key}: flow {flow} is named twice; expected each flow once"));
        }
        flow_points.push((flow, names.len() as u32));
        names.push(format!("flow-{flow}"));
    }
    deduplicate(&mut names);
    fab.capture = Some(Box::new(Capture::new(link_point, flow_points)));
    Ok(names)
}

/// A link's name in scenarios: "SRC->DST".
fn link_name(node_names: &[String], src: u32, dst: u32) -> String {
    format!("{}->{}", node_names[src as usize], node_names[dst as usize])
}

fn unknown_link(key: &str, wanted: &str, fab: &Fabric, node_names: &[String]) -> String {
    const SHOWN: usize = 6;
    let known: Vec<String> = fab.links.iter().take(SHOWN).map(|l| link_name(node_names, l.src, l.dst)).collect();
    let more = if fab.links.len() > SHOWN { ", ..." } else { "" };
    format!("{key}: no link \"{wanted}\"; expected \"SRC->DST\" with node names, e.g. {}{more}", known.join(", "))
}

/// Node names as they may appear in a file name: letters, digits, '.', '_' and '-' (others
/// become '_').
fn file_safe(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect()
}

/// Two names made the same by `file_safe` get "-2", "-3"... after the first.
fn deduplicate(names: &mut [String]) {
    let mut taken = BTreeSet::new();
    for name in names.iter_mut() {
        let mut candidate = name.clone();
        let mut k = 2;
        while taken.contains(&candidate) {
            candidate = format!("{name}-{k}");
            k += 1;
        }
        taken.insert(candidate.clone());
        *name = candidate;
    }
}

impl Simulation {
    /// Mark a new flow's first data link and last ACK link if the flow is captured.
    pub(super) fn watch_flow(&mut self, flow: u32, data_route: u32, ack_route: u32) {
        if !self.fab.capture.as_ref().is_some_and(|c| c.watches_flow(flow)) {
            return;
        }
        let first = self.fab.route(data_route)[0];
        let last = *self.fab.route(ack_route).last().expect("routes are not empty");
        self.fab.watch_link(first, true, false);
        self.fab.watch_link(last, false, true);
    }

    /// The pcap files of the run (none without `[trace] pcap`); the capture is consumed.
    pub(super) fn pcap_files(&mut self) -> Result<Vec<PcapFile>, RunError> {
        let Some(capture) = self.fab.capture.take() else { return Ok(Vec::new()) };
        let flows: Vec<FlowInfo> = self
            .flows
            .iter()
            .map(|f| FlowInfo {
                src: f.endpoints.src,
                dst: f.endpoints.dst,
                mss: f.sender.mss(),
                size_bytes: f.size_bytes,
                sack: f.receiver.sack(),
                ecn: f.sender.ecn_enabled(),
            })
            .collect();
        let names = std::mem::take(&mut self.capture_names);
        let files = pcap::files(&capture, names.len(), &flows).map_err(|e| RunError::out_of_memory(&e, self.now))?;
        Ok(names.into_iter().zip(files).map(|(name, bytes)| PcapFile { name, bytes }).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_and_distinct() {
        let mut names = vec!["link-a_b-c".to_string(), format!("link-{}-c", file_safe("a b")), "flow-1".into()];
        deduplicate(&mut names);
        assert_eq!(names, vec!["link-a_b-c", "link-a_b-c-2", "flow-1"]);
    }
}
