//! FQ-CoDel (RFC 8290): flows hashed into a fixed set of queues, each under its own CoDel, served
//! by deficit round robin with a quantum of one MTU; queues that just became active ("new") are
//! served before the others ("old"), which gives sparse flows priority.
//!
//! Flow hashing: a packet's flow id goes through a keyed 64-bit mix (the key drawn from the
//! link's random stream, so collisions differ between seeds as they would between hash keys)
//! into one of `flows` queues (RFC 8290: 1024). When the discipline holds more than `limit_pkts`
//! packets it drops the head packet of the queue with the largest byte backlog (RFC 8290
//! section 4.1; Linux drops in batches, this drops one per overflow). CoDel's "one MTU of
//! backlog" test looks at the whole discipline's backlog, as Linux does. Linux's `ce_threshold`
//! ([`CeThreshold`]), with its selector and mask, applies in every flow queue.

use std::collections::VecDeque;

use super::codel::{CeThreshold, CoDelParams, CoDelState};
use super::fifo::StampedFifo;
use super::{DropSink, Verdict};
use crate::net::packet::Packet;
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

struct FlowQueue {
    q: StampedFifo,
    codel: CoDelState,
    /// Bytes this queue may still send in its current round.
    deficit: i64,
    list: List,
}

pub struct FqCodel {
    params: CoDelParams,
    ce_threshold: Option<CeThreshold>,
    limit_pkts: u64,
    quantum: u32,
    key: u64,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    pkts: u64,
    bytes: u64,
    mtu: u32,
    /// Packets dropped because the discipline was full.
    pub overflow_drops: u64,
    /// Sojourn time of the last packet sent.
    pub last_sojourn: u64,
}

/// A 64-bit mix (the splitmix64 finalizer) of the flow id under a key.
fn mix(key: u64, flow: u32) -> u64 {
    let mut z = key ^ (flow as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCodel {
    pub fn new(params: CoDelParams, limit_pkts: u64, flows: u32, quantum: u32, key: u64) -> Self {
        let queues = (0..flows)
            .map(|_| FlowQueue {
                q: StampedFifo::default(),
                codel: CoDelState::default(),
                deficit: 0,
                list: List::None,
            })
            .collect();
        FqCodel {
            params,
            ce_threshold: None,
            limit_pkts,
            quantum,
            key,
            queues,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            pkts: 0,
            bytes: 0,
            mtu: 0,
            overflow_drops: 0,
            last_sojourn: 0,
        }
    }

    pub fn with_ce_threshold(mut self, ce: Option<CeThreshold>) -> Self {
        self.ce_threshold = ce;
        self
    }

    /// Whether Linux's `ce_threshold` is configured.
    pub fn has_ce_threshold(&self) -> bool {
        self.ce_threshold.is_some()
    }

    pub fn queue_of(&self, flow: u32) -> u32 {
        (mix(self.key, flow) % self.queues.len() as u64) as u32
    }

    pub fn len_pkts(&self) -> u64 {
        self.pkts
    }

    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    pub fn enqueue(&mut self, pkt: Packet, now: Time, drops: &mut DropSink) {
        let i = self.queue_of(pkt.flow);
        self.mtu = self.mtu.max(pkt.size);
        let fq = &mut self.queues[i as usize];
        fq.q.push(now, pkt);
        if fq.list == List::None {
            fq.list = List::New;
            fq.deficit = self.quantum as i64;
            self.new_flows.push_back(i);
        }
        self.pkts += 1;
        self.bytes += pkt.size as u64;
        if self.pkts > self.limit_pkts {
            self.drop_from_fattest(now, drops);
        }
    }

    /// The discipline is over its limit: drop the head of the queue with the most bytes.
    fn drop_from_fattest(&mut self, now: Time, drops: &mut DropSink) {
        let fattest = (0..self.queues.len()).max_by_key(|&i| (self.queues[i].q.bytes(), std::cmp::Reverse(i)));
        let Some((_, pkt)) = fattest.and_then(|i| self.queues[i].q.pop()) else { return };
        self.pkts -= 1;
        self.bytes -= pkt.size as u64;
        self.overflow_drops += 1;
        drops.push((now, pkt, Verdict::DropOverflow));
    }

    pub fn dequeue(&mut self, now: Time, drops: &mut DropSink) -> Option<Packet> {
        loop {
            let (i, from_new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (i, true),
                (None, Some(&i)) => (i, false),
                (None, None) => return None,
            };
            let fq = &mut self.queues[i as usize];
            if fq.deficit <= 0 {
                // Round used up: a new quantum, and to the back of the old list.
                fq.deficit += self.quantum as i64;
                fq.list = List::Old;
                self.pop_list(from_new);
                self.old_flows.push_back(i);
                continue;
            }
            let (pkts, bytes) = (fq.q.len() as u64, fq.q.bytes());
            let others = self.bytes - bytes;
            let sent =
                fq.codel.dequeue(&self.params, self.ce_threshold.as_ref(), &mut fq.q, others, self.mtu, now, drops);
            self.pkts -= pkts - fq.q.len() as u64;
            self.bytes -= bytes - fq.q.bytes();
            match sent {
                Some(pkt) => {
                    fq.deficit -= pkt.size as i64;
                    self.last_sojourn = fq.codel.last_sojourn;
                    return Some(pkt);
                }
                None => {
                    // Empty: a new queue goes to the old list once (so that a flow cannot stay
                    // "new" by emptying its queue every round), an old one leaves the lists.
                    let to_old = from_new && !self.old_flows.is_empty();
                    fq.list = if to_old { List::Old } else { List::None };
                    self.pop_list(from_new);
                    if to_old {
                        self.old_flows.push_back(i);
                    }
                }
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    /// AQM drops and marks, summed over the queues; how many queues are in the drop state.
    pub fn aqm_counts(&self) -> (u64, u64, u32) {
        self.queues
            .iter()
            .fold((0, 0, 0), |(d, m, n), fq| (d + fq.codel.drops, m + fq.codel.marks, n + u32::from(fq.codel.dropping)))
    }

    /// Of the marks, those set by the `ce_threshold` rule, summed over the queues.
    pub fn ce_marks(&self) -> u64 {
        self.queues.iter().map(|fq| fq.codel.ce_marks).sum()
    }

    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.queues.iter().flat_map(|fq| fq.q.iter().map(|(_, p)| p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::NS_PER_MS;

    const MS: Time = NS_PER_MS;

    fn fq(quantum: u32) -> FqCodel {
        FqCodel::new(CoDelParams { target: 5 * MS, interval: 100 * MS, ecn: false }, 1000, 1024, quantum, 7)
    }

    fn pkt(flow: u32, seq: u32, size: u32) -> Packet {
        let mut p = Packet::test_data(seq, size);
        p.flow = flow;
        p
    }

    /// Two backlogged flows in different queues, one with 1500-byte packets and one with 500:
    /// DRR with a 1500-byte quantum sends one large packet per round for the first and three
    /// small ones for the second (deficit 1500 -> 1000 -> 500 -> 0, then the next round).
    #[test]
    fn deficit_round_robin_by_hand() {
        let mut f = fq(1500);
        assert_ne!(f.queue_of(1), f.queue_of(2));
        let mut sink = Vec::new();
        for seq in 0..10 {
            f.enqueue(pkt(1, seq, 1500), 0, &mut sink);
            f.enqueue(pkt(2, seq, 500), 0, &mut sink);
        }
        let order: Vec<u32> = (0..12).map(|_| f.dequeue(MS, &mut sink).unwrap().flow).collect();
        // Round 1 (both new): flow 1 sends 1500 (deficit 0), then on its next turn it is moved
        // to the old list; flow 2 sends three; then they alternate 1 : 3.
        assert_eq!(order, vec![1, 2, 2, 2, 1, 2, 2, 2, 1, 2, 2, 2]);
        assert!(sink.is_empty());
    }

    #[test]
    fn a_new_sparse_flow_goes_before_backlogged_ones() {
        let mut f = fq(1500);
        let mut sink = Vec::new();
        for seq in 0..20 {
            f.enqueue(pkt(1, seq, 1500), 0, &mut sink);
        }
        f.dequeue(MS, &mut sink); // flow 1 moves on to the old list at its next turn
        f.dequeue(MS, &mut sink);
        f.enqueue(pkt(9, 0, 100), MS, &mut sink);
        assert_eq!(f.dequeue(MS, &mut sink).unwrap().flow, 9);
    }

    #[test]
    fn overflow_drops_from_the_fattest_queue() {
        let mut f = FqCodel::new(CoDelParams { target: 5 * MS, interval: 100 * MS, ecn: false }, 10, 1024, 1500, 7);
        let mut sink = Vec::new();
        for seq in 0..8 {
            f.enqueue(pkt(1, seq, 1500), 0, &mut sink);
        }
        for seq in 0..3 {
            f.enqueue(pkt(2, seq, 1500), 0, &mut sink);
        }
        assert_eq!(sink.len(), 1);
        let (_, dropped, v) = sink[0];
        assert_eq!((dropped.flow, dropped.seq, v), (1, 0, Verdict::DropOverflow), "the fattest queue's head");
        assert_eq!(f.len_pkts(), 10);
    }
}
