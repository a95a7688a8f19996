//! Tail drop with a limit in packets and/or bytes. The limit counts packets waiting, not the one
//! being transmitted: a paper's "buffer of B packets" is `limit_pkts = B` (ns-2's `limit_ L`
//! corresponds to B = L - 1).

use super::{QueueView, Verdict};

pub struct DropTail {
    pub limit_pkts: Option<u64>,
    pub limit_bytes: Option<u64>,
}

impl DropTail {
    #[inline]
    pub fn admit(&mut self, q: &QueueView, size: u32) -> Verdict {
        self.verdict(q.must_wait, q.len_pkts, q.len_bytes, size)
    }

    /// The verdict on `size` bytes arriving with `len_pkts` packets and `len_bytes` bytes
    /// waiting; an arrival that need not wait is always taken.
    #[inline(always)]
    pub fn verdict(&self, must_wait: bool, len_pkts: usize, len_bytes: u64, size: u32) -> Verdict {
        if !must_wait {
            return Verdict::Enqueue;
        }
        let over_pkts = self.limit_pkts.is_some_and(|l| len_pkts as u64 >= l);
        let over_bytes = self.limit_bytes.is_some_and(|l| len_bytes + size as u64 > l);
        if over_pkts || over_bytes {
            Verdict::DropOverflow
        } else {
            Verdict::Enqueue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(len: usize, bytes: u64, must_wait: bool) -> QueueView {
        QueueView { now: 0, len_pkts: len, len_bytes: bytes, must_wait, idle_since: None }
    }

    #[test]
    fn limit_counts_waiting_packets() {
        let mut d = DropTail { limit_pkts: Some(2), limit_bytes: None };
        assert_eq!(d.admit(&view(0, 0, false), 1000), Verdict::Enqueue);
        assert_eq!(d.admit(&view(1, 1000, true), 1000), Verdict::Enqueue);
        assert_eq!(d.admit(&view(2, 2000, true), 1000), Verdict::DropOverflow);
        let mut b = DropTail { limit_pkts: None, limit_bytes: Some(2500) };
        assert_eq!(b.admit(&view(1, 1000, true), 1000), Verdict::Enqueue);
        assert_eq!(b.admit(&view(2, 2000, true), 1000), Verdict::DropOverflow);
        assert_eq!(b.admit(&view(2, 2000, true), 500), Verdict::Enqueue);
    }
}
