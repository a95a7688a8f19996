//! Random loss on a link direction, applied at the receiving end (the lost packet has used the
//! link's capacity), with draws from the link's own stream.

use crate::rng::{uniform, Stream};

pub enum LossModel {
    None,
    Bernoulli { p: f64, rng: Stream },
}

impl LossModel {
    #[inline]
    pub fn drops(&mut self) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => uniform(rng) < *p,
        }
    }
}
