//! A set of segment numbers kept as sorted, disjoint, non-adjacent ranges [start, end).
//!
//! The receiver holds its out-of-order data here (and reports SACK blocks from it); the sender
//! keeps its SACK scoreboard here. The number of ranges is the number of holes, which stays small
//! even when many segments are outstanding, and a `Vec` reused across the run allocates nothing
//! once warmed up.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: Vec<(u32, u32)>,
    /// Segments covered, in all ranges.
    count: u64,
}

impl RangeSet {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Segments in the set.
    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    /// Index of the first range whose end is beyond `seq`.
    fn first_ending_after(&self, seq: u32) -> usize {
        self.ranges.partition_point(|&(_, end)| end <= seq)
    }

    /// The ranges with segments at or above `seq`, in order (the first may start below it).
    pub fn ranges_from(&self, seq: u32) -> &[(u32, u32)] {
        &self.ranges[self.first_ending_after(seq)..]
    }

    pub fn contains(&self, seq: u32) -> bool {
        self.range_containing(seq).is_some()
    }

    pub fn range_containing(&self, seq: u32) -> Option<(u32, u32)> {
        let i = self.first_ending_after(seq);
        self.ranges.get(i).copied().filter(|&(start, _)| start <= seq)
    }

    /// Add `seq`; returns the range that holds it now.
    pub fn insert(&mut self, seq: u32) -> (u32, u32) {
        self.merge(seq, seq + 1).1
    }

    /// Add [start, end); returns how many segments were new.
    pub fn insert_range(&mut self, start: u32, end: u32) -> u64 {
        if start >= end {
            return 0;
        }
        self.merge(start, end).0
    }

    /// Add the non-empty [start, end): how many segments were new, and the range holding it now.
    fn merge(&mut self, start: u32, end: u32) -> (u64, (u32, u32)) {
        // Ranges that overlap or touch [start, end) are merged into one.
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let mut last = first;
        let (mut lo, mut hi) = (start, end);
        let mut covered_before = 0u64;
        while last < self.ranges.len() && self.ranges[last].0 <= end {
            let (s, e) = self.ranges[last];
            covered_before += (e - s) as u64;
            lo = lo.min(s);
            hi = hi.max(e);
            last += 1;
        }
        // `splice` costs a hundred instructions even when it moves nothing; the usual cases (a
        // new range, or one range growing) are a plain insert or an update.
        match last - first {
            0 => self.ranges.insert(first, (lo, hi)),
            1 => self.ranges[first] = (lo, hi),
            _ => {
                self.ranges.splice(first..last, std::iter::once((lo, hi)));
            }
        }
        let added = (hi - lo) as u64 - covered_before;
        self.count += added;
        (added, (lo, hi))
    }

    /// Remove [start, end); returns how many segments were removed.
    pub fn remove_range(&mut self, start: u32, end: u32) -> u64 {
        if start >= end {
            return 0;
        }
        let first = self.first_ending_after(start);
        let mut last = first;
        let mut kept: [(u32, u32); 2] = [(0, 0); 2];
        let mut n_kept = 0;
        let mut removed = 0u64;
        while last < self.ranges.len() && self.ranges[last].0 < end {
            let (s, e) = self.ranges[last];
            if s < start {
                kept[n_kept] = (s, start);
                n_kept += 1;
            }
            if e > end {
                kept[n_kept] = (end, e);
                n_kept += 1;
            }
            removed += (e.min(end) - s.max(start)) as u64;
            last += 1;
        }
        match (last - first, n_kept) {
            (0, _) => return 0,
            (1, 0) => {
                self.ranges.remove(first);
            }
            (1, 1) => self.ranges[first] = kept[0],
            _ => {
                self.ranges.splice(first..last, kept[..n_kept].iter().copied());
            }
        }
        self.count -= removed;
        removed
    }

    /// Forget everything below `seq`.
    pub fn remove_below(&mut self, seq: u32) {
        let cut = self.first_ending_after(seq);
        if cut > 0 {
            for &(s, e) in &self.ranges[..cut] {
                self.count -= (e - s) as u64;
            }
            self.ranges.drain(..cut);
        }
        if let Some(first) = self.ranges.first_mut() {
            if first.0 < seq {
                self.count -= (seq - first.0) as u64;
                first.0 = seq;
            }
        }
    }

    /// Given the next expected segment, consume the range starting there (if any) and return the
    /// new next expected segment; everything below it is forgotten.
    pub fn advance_from(&mut self, next: u32) -> u32 {
        self.remove_below(next);
        match self.ranges.first() {
            Some(&(start, end)) if start == next => {
                self.remove_below(end);
                end
            }
            _ => next,
        }
    }

    /// Segments in the set at or above `seq`.
    pub fn count_from(&self, seq: u32) -> u64 {
        let i = self.first_ending_after(seq);
        self.ranges[i..].iter().map(|&(s, e)| (e - s.max(seq)) as u64).sum()
    }

    /// The highest segment `t` such that at least `n` segments of the set are >= `t`.
    pub fn nth_highest(&self, n: u64) -> Option<u32> {
        let mut left = n;
        for &(s, e) in self.ranges.iter().rev() {
            let len = (e - s) as u64;
            if len >= left {
                return Some(e - left as u32);
            }
            left -= len;
        }
        None
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_fill_in_order() {
        // The receiver expects 4 and holds 5, 7 and 130 out of order.
        let mut s = RangeSet::default();
        s.insert(5);
        s.insert(7);
        s.insert(130);
        assert_eq!(s.advance_from(5), 6, "4 arrives: 5 is consumed");
        assert!(s.contains(7) && !s.contains(5));
        assert_eq!(s.advance_from(7), 8, "6 arrives: 7 is consumed");
        assert_eq!(s.count(), 1);
        for q in 9..130 {
            s.insert(q);
        }
        assert_eq!(s.ranges(), &[(9, 131)]);
        assert_eq!(s.advance_from(9), 131, "8 arrives: everything up to 130 is consumed");
        assert!(s.is_empty() && s.count() == 0);
    }

    #[test]
    fn ranges_merge_and_count() {
        let mut s = RangeSet::default();
        assert_eq!(s.insert_range(10, 20), 10);
        assert_eq!(s.insert_range(30, 40), 10);
        assert_eq!(s.insert_range(15, 35), 10, "only 20..30 is new");
        assert_eq!(s.ranges(), &[(10, 40)]);
        assert_eq!(s.insert_range(40, 41), 1, "adjacent ranges join");
        assert_eq!(s.ranges(), &[(10, 41)]);
        s.insert_range(50, 52);
        assert_eq!(s.range_containing(51), Some((50, 52)));
        assert_eq!(s.range_containing(45), None);
        assert_eq!(s.count_from(40), 3);
        // 3rd highest: 51, 50, then 40.
        assert_eq!(s.nth_highest(3), Some(40));
        assert_eq!(s.nth_highest(34), None);
        s.remove_below(20);
        assert_eq!(s.ranges(), &[(20, 41), (50, 52)]);
        assert_eq!(s.count(), 23);
    }

    /// Against a plain ordered set, on random operations.
    #[test]
    fn agrees_with_a_reference_set() {
        use crate::rng::{stream, Entity, Purpose};
        use rand::Rng;
        use std::collections::BTreeSet;
        let mut rng = stream(5, Entity::Flow, 0, Purpose::Start);
        let mut s = RangeSet::default();
        let mut r = BTreeSet::new();
        let mut floor = 0u32;
        for _ in 0..5000 {
            match rng.gen_range(0..10) {
                0 => {
                    floor += rng.gen_range(0..20);
                    s.remove_below(floor);
                    r.retain(|&x| x >= floor);
                }
                1 => {
                    let a = floor + rng.gen_range(0..200);
                    let b = a + rng.gen_range(1..30);
                    assert_eq!(s.remove_range(a, b), r.range(a..b).count() as u64);
                    r.retain(|&x| x < a || x >= b);
                }
                _ => {
                    let a = floor + rng.gen_range(0..200);
                    let b = a + rng.gen_range(1..5);
                    s.insert_range(a, b);
                    r.extend(a..b);
                }
            }
            assert_eq!(s.count(), r.len() as u64);
            let probe = floor + rng.gen_range(0..220);
            assert_eq!(s.contains(probe), r.contains(&probe));
            assert_eq!(s.count_from(probe), r.range(probe..).count() as u64);
            // The ranges are the set's maximal runs: sorted, disjoint, never touching.
            let mut runs: Vec<(u32, u32)> = vec![];
            for &x in &r {
                match runs.last_mut() {
                    Some(last) if last.1 == x => last.1 = x + 1,
                    _ => runs.push((x, x + 1)),
                }
            }
            assert_eq!(s.ranges(), &runs[..]);
        }
    }
}
