//! A FIFO ring of plain values for the links' pipes, with cache prefetching.
//!
//! At 1 Gbps a link holds hundreds of packets, and hundreds of links interleave: each entry is
//! written when its packet enters the link and read milliseconds later, out of the cache by then,
//! and the slot it is written into was last used one turn of the ring ago. Unlike `VecDeque`,
//! this ring knows its next free slot, so it can ask for that slot (with intent to write) as soon
//! as the previous one is filled, and for the entry after the head as soon as the head is taken:
//! by the time the link's next packet comes or leaves, a few microseconds later, the line is in
//! the cache. Prefetching is a hint: it changes no value, only when memory is fetched.

/// A growable FIFO ring; the capacity is a power of two (or 0 before the first push).
#[derive(Clone, Debug, Default)]
pub struct Ring<T> {
    slots: Vec<T>,
    head: usize,
    len: usize,
}

/// Capacity of a ring at its first push. Small: with thousands of flows most links are a host's
/// access link holding a packet or two, and every ring's memory counts against the cache.
const FIRST_CAPACITY: usize = 4;

impl<T: Copy + Default> Ring<T> {
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & self.slots.len().wrapping_sub(1)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn push_back(&mut self, value: T) {
        if self.len == self.slots.len() {
            self.grow();
        }
        let i = self.slot(self.len);
        self.slots[i] = value;
        self.len += 1;
        if self.len < self.slots.len() {
            prefetch_for_write(&self.slots[self.slot(self.len)]);
        }
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let value = self.slots[self.head];
        self.head = self.slot(1);
        self.len -= 1;
        if self.len > 1 {
            prefetch(&self.slots[self.slot(1)]);
        }
        Some(value)
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        // The head index is always inside the ring: no masking needed.
        if self.len == 0 {
            None
        } else {
            Some(&self.slots[self.head])
        }
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self.slots[self.slot(i)])
    }

    /// Entry `i` (0: the head), to change in place; an aggregating link moves the arrival
    /// times of the packets of a burst that grows.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        let slot = self.slot(i);
        (i < self.len).then(|| &mut self.slots[slot])
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(|i| &self.slots[self.slot(i)])
    }

    /// Double the capacity (at least [`FIRST_CAPACITY`]), entries back in order from slot 0.
    #[cold]
    fn grow(&mut self) {
        let cap = (2 * self.slots.len()).max(FIRST_CAPACITY);
        let mut slots = Vec::with_capacity(cap);
        slots.extend(self.iter().copied());
        slots.resize(cap, T::default());
        self.slots = slots;
        self.head = 0;
    }
}

/// Hint the CPU to bring `value` into the cache for reading (no-op off x86-64).
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    prefetch_lines::<T, { std::arch::x86_64::_MM_HINT_T0 }>(value);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Hint the CPU to bring `value` into the cache, owned, for writing (no-op off x86-64).
#[inline(always)]
fn prefetch_for_write<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    prefetch_lines::<T, { std::arch::x86_64::_MM_HINT_ET0 }>(value);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Prefetch the cache line(s) of `value` (two when it may straddle a line boundary).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch_lines<T, const HINT: i32>(value: &T) {
    use std::arch::x86_64::_mm_prefetch;
    let p = value as *const T as *const i8;
    // SAFETY: SSE is part of x86-64, and a prefetch never faults, whatever the address.
    unsafe {
        _mm_prefetch::<HINT>(p);
        if std::mem::size_of::<T>() > 1 {
            _mm_prefetch::<HINT>(p.wrapping_add(std::mem::size_of::<T>() - 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// The ring behaves as a `VecDeque` through growth and wrap-around.
    #[test]
    fn behaves_as_a_fifo_through_growth_and_wrap_around() {
        let mut ring = Ring::<u64>::default();
        let mut model = VecDeque::new();
        let mut next = 0u64;
        // Pushes and pops in bursts of varying length, so the head wraps at several capacities.
        for round in 0..200u64 {
            for _ in 0..(round * 7) % 23 {
                ring.push_back(next);
                model.push_back(next);
                next += 1;
            }
            for _ in 0..(round * 5) % 19 {
                assert_eq!(ring.pop_front(), model.pop_front());
            }
            assert_eq!(ring.len(), model.len());
            assert_eq!(ring.front(), model.front());
            assert_eq!(ring.get(1), model.get(1));
            assert!(ring.iter().eq(model.iter()));
        }
        assert!(next > 1000, "the test pushed enough to grow several times");
    }
}
