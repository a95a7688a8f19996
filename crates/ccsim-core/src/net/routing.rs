//! Static shortest-path routing: Dijkstra on propagation delay, ties broken by hop count and then
//! by the lowest link id, so routes are the same on every machine.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::link::{LinkId, NodeId};

/// Adjacency of a graph: for each node, its outgoing (link id, next node, delay) sorted by link id.
pub struct Graph {
    out: Vec<Vec<(LinkId, NodeId, u64)>>,
    /// For each node, its only incoming (link id, previous node), if it has exactly one.
    sole_in: Vec<Option<(LinkId, NodeId)>>,
}

impl Graph {
    pub fn new(nodes: usize, links: impl IntoIterator<Item = (LinkId, NodeId, NodeId, u64)>) -> Self {
        let mut out = vec![Vec::new(); nodes];
        let mut incoming = vec![0u32; nodes];
        let mut sole_in = vec![None; nodes];
        for (id, src, dst, delay) in links {
            out[src as usize].push((id, dst, delay));
            incoming[dst as usize] += 1;
            sole_in[dst as usize] = Some((id, src));
        }
        for (slot, &n) in sole_in.iter_mut().zip(&incoming) {
            if n != 1 {
                *slot = None;
            }
        }
        for v in &mut out {
            v.sort_by_key(|&(id, _, _)| id);
        }
        Graph { out, sole_in }
    }

    /// The only link leaving `node` and where it leads, if `node` has exactly one.
    pub fn sole_out(&self, node: NodeId) -> Option<(LinkId, NodeId)> {
        match self.out[node as usize].as_slice() {
            &[(id, next, _)] => Some((id, next)),
            _ => None,
        }
    }

    /// The only link entering `node` and where it comes from, if `node` has exactly one.
    pub fn sole_in(&self, node: NodeId) -> Option<(LinkId, NodeId)> {
        self.sole_in[node as usize]
    }

    /// The links of a shortest path from `src` to `dst`, or `None` if unreachable.
    pub fn shortest_path(&self, src: NodeId, dst: NodeId) -> Option<Vec<LinkId>> {
        let n = self.out.len();
        let mut best: Vec<Option<(u64, u32)>> = vec![None; n];
        let mut via: Vec<Option<(LinkId, NodeId)>> = vec![None; n];
        let mut heap = BinaryHeap::new();
        best[src as usize] = Some((0, 0));
        heap.push(Reverse((0u64, 0u32, src)));
        while let Some(Reverse((d, h, u))) = heap.pop() {
            if best[u as usize] != Some((d, h)) {
                continue;
            }
            if u == dst {
                break;
            }
            for &(id, v, w) in &self.out[u as usize] {
                let cand = (d + w, h + 1);
                if best[v as usize].is_none_or(|b| cand < b) {
                    best[v as usize] = Some(cand);
                    via[v as usize] = Some((id, u));
                    heap.push(Reverse((cand.0, cand.1, v)));
                }
            }
        }
        best[dst as usize]?;
        let mut path = Vec::new();
        let mut at = dst;
        while at != src {
            let (id, prev) = via[at as usize]?;
            path.push(id);
            at = prev;
        }
        path.reverse();
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_lowest_delay_then_fewest_hops() {
        // 0 -> 1 -> 3 costs 10 + 10; 0 -> 2 -> 3 costs 5 + 5; 0 -> 3 direct costs 10.
        let g = Graph::new(4, [(0, 0, 1, 10), (1, 1, 3, 10), (2, 0, 2, 5), (3, 2, 3, 5), (4, 0, 3, 10)]);
        assert_eq!(g.shortest_path(0, 3), Some(vec![4]));
        assert_eq!(g.shortest_path(3, 0), None);
        assert_eq!(g.shortest_path(0, 0), Some(vec![]));
    }
}
