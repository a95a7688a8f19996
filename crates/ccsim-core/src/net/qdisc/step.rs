//! Step marking for DCTCP (RFC 8257 section 3.1; Alizadeh et al., SIGCOMM 2010): an arriving
//! packet that finds `k` or more packets (or bytes) waiting is marked CE if it is ECN-capable,
//! and dropped if it is not (or if `ecn` is off). The instantaneous queue decides, not an
//! average. Behind the threshold the queue is a tail drop with its own limits.

use super::{DropTail, QueueView, Verdict};

pub struct Step {
    pub tail: DropTail,
    pub k_pkts: Option<u64>,
    pub k_bytes: Option<u64>,
    pub ecn: bool,
    pub marks: u64,
}

impl Step {
    #[inline]
    pub fn admit(&mut self, q: &QueueView, size: u32, ect: bool) -> Verdict {
        let verdict = self.tail.admit(q, size);
        if verdict != Verdict::Enqueue {
            return verdict;
        }
        let above =
            self.k_pkts.is_some_and(|k| q.len_pkts as u64 >= k) || self.k_bytes.is_some_and(|k| q.len_bytes >= k);
        match (above, self.ecn && ect) {
            (false, _) => Verdict::Enqueue,
            (true, true) => {
                self.marks += 1;
                Verdict::Mark
            }
            (true, false) => Verdict::DropEarly,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(len: usize) -> QueueView {
        QueueView { now: 0, len_pkts: len, len_bytes: len as u64 * 1000, must_wait: true, idle_since: None }
    }

    #[test]
    fn marks_at_and_above_k_and_drops_what_cannot_be_marked() {
        let tail = DropTail { limit_pkts: Some(100), limit_bytes: None };
        let mut s = Step { tail, k_pkts: Some(20), k_bytes: None, ecn: true, marks: 0 };
        assert_eq!(s.admit(&view(19), 1000, true), Verdict::Enqueue);
        assert_eq!(s.admit(&view(20), 1000, true), Verdict::Mark);
        assert_eq!(s.admit(&view(20), 1000, false), Verdict::DropEarly);
        assert_eq!(s.admit(&view(100), 1000, true), Verdict::DropOverflow);
        assert_eq!(s.marks, 1);
    }
}
