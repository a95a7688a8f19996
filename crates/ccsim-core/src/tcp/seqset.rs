//! The receiver's out-of-order set: a bitmap of segments above the next expected one, kept in a
//! ring of 64-bit words that is reused, so reordering costs no allocation once warmed up.

use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct SeqSet {
    /// Segment number of bit 0 of word 0 (a multiple of 64).
    base: u32,
    words: VecDeque<u64>,
    len: usize,
}

impl SeqSet {
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn contains(&self, seq: u32) -> bool {
        if seq < self.base {
            return false;
        }
        let i = (seq - self.base) as usize;
        self.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    pub fn insert(&mut self, seq: u32) {
        if self.words.is_empty() {
            self.base = seq & !63;
        }
        debug_assert!(seq >= self.base);
        let i = (seq - self.base) as usize;
        while self.words.len() <= i / 64 {
            self.words.push_back(0);
        }
        let bit = 1u64 << (i % 64);
        if self.words[i / 64] & bit == 0 {
            self.words[i / 64] |= bit;
            self.len += 1;
        }
    }

    /// Given the next expected segment, consume the contiguous run starting there and return the
    /// new next expected segment. Everything below it is forgotten.
    pub fn advance_from(&mut self, mut next: u32) -> u32 {
        while self.contains(next) {
            let i = (next - self.base) as usize;
            self.words[i / 64] &= !(1 << (i % 64));
            self.len -= 1;
            next += 1;
        }
        // Drop words wholly below `next`; clear bits of duplicates below it.
        while !self.words.is_empty() && self.base + 64 <= next {
            let w = self.words.pop_front().unwrap();
            self.len -= w.count_ones() as usize;
            self.base += 64;
        }
        if self.words.is_empty() {
            self.len = 0;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_fill_in_order() {
        // The receiver expects 4 and holds 5, 7 and 130 out of order.
        let mut s = SeqSet::default();
        s.insert(5);
        s.insert(7);
        s.insert(130);
        assert_eq!(s.advance_from(5), 6, "4 arrives: 5 is consumed");
        assert!(s.contains(7) && !s.contains(5));
        assert_eq!(s.advance_from(7), 8, "6 arrives: 7 is consumed");
        assert_eq!(s.len(), 1);
        for q in 9..130 {
            s.insert(q);
        }
        assert_eq!(s.advance_from(9), 131, "8 arrives: everything up to 130 is consumed");
        assert!(s.is_empty());
    }
}
