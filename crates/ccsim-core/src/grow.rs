//! Growing the records a run keeps for its whole length (the sampled series, the drop log, the
//! captured packets, the pcap files made of them) without aborting when memory runs out.
//!
//! Rust aborts the process when an allocation fails, and a Python process running the engine
//! would die with it. These records are what grows with simulated time, so they reserve their
//! room with `try_reserve` instead: a failure becomes an [`OutOfMemory`], the record stops
//! growing, and the run stops with "out of memory: ..." (see `engine::RunError`). The rest of
//! the engine's memory is bounded by the scenario (flows, buffers, windows), which the front
//! end's `[limits]` check before the run.

use std::fmt;

/// A record could not grow: what it is, and the size of the allocation that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfMemory {
    pub what: &'static str,
    pub bytes: usize,
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} could not grow (an allocation of {} bytes failed)", self.what, self.bytes)
    }
}

/// Make room for `additional` more values in `v` (amortized, as `push` would): nothing to do
/// while there is room, and an [`OutOfMemory`] naming `what` when the allocator refuses.
#[inline]
pub fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &'static str) -> Result<(), OutOfMemory> {
    v.try_reserve(additional).map_err(|_| {
        // What the vector asked for: twice its capacity, or what it needs if that is more.
        let wanted = v.len().saturating_add(additional).max(v.capacity().saturating_mul(2));
        OutOfMemory { what, bytes: wanted.saturating_mul(std::mem::size_of::<T>()) }
    })
}

/// Push `value` onto `v`, or report that `v` cannot grow (leaving it as it was).
#[inline]
pub fn push<T>(v: &mut Vec<T>, value: T, what: &'static str) -> Result<(), OutOfMemory> {
    reserve(v, 1, what)?;
    v.push(value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_made_as_push_would_and_an_impossible_size_is_an_error() {
        let mut v: Vec<u64> = Vec::new();
        for i in 0..100 {
            push(&mut v, i, "a record").unwrap();
        }
        assert_eq!(v.len(), 100);
        let err = reserve(&mut v, usize::MAX / 2, "a record").unwrap_err();
        assert_eq!(err.what, "a record");
        assert_eq!(err.bytes, usize::MAX, "the size saturates rather than wraps");
        assert_eq!(v.len(), 100, "left as it was");
        assert!(err.to_string().starts_with("a record could not grow (an allocation of "), "{err}");
    }
}
