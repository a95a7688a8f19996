//! Measurement recorded as columns: the sampled series of flows and queues. The drop log is the
//! network's ([`crate::net::drops`]); counters live with the components they count (links,
//! senders, receivers); tables are assembled in `results`.

/// Per-flow samples: one row per active flow per sampling instant.
#[derive(Default)]
pub struct FlowSeries {
    pub t_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd_pkts: Vec<f64>,
    pub ssthresh_pkts: Vec<f64>,
    pub srtt_s: Vec<f64>,
    pub rate_bps: Vec<f64>,
    /// What the flows' algorithms report of their own state
    /// ([`CongestionControl::inspect`](crate::cc::CongestionControl::inspect)), one column per
    /// name in the order first reported, NaN where a row's flow did not report the name. Every
    /// column is as long as `t_s` once [`Self::close_row`] has run.
    pub cc: Vec<(&'static str, Vec<f64>)>,
}

impl FlowSeries {
    /// Record the value an algorithm reported for the row just pushed (the last of `t_s`).
    pub fn record_cc(&mut self, name: &'static str, value: f64) {
        record_named(&mut self.cc, self.t_s.len(), name, value);
    }

    /// Fill with NaN the state columns the last row's flow did not report.
    pub fn close_row(&mut self) {
        close_named(&mut self.cc, self.t_s.len());
    }
}

/// Record `value` under `name` for row `rows - 1` of a set of named columns.
fn record_named(columns: &mut Vec<(&'static str, Vec<f64>)>, rows: usize, name: &'static str, value: f64) {
    let column = match columns.iter().position(|(n, _)| *n == name) {
        Some(i) => &mut columns[i].1,
        None => {
            // Rows before the first report of this name did not have it.
            columns.push((name, vec![f64::NAN; rows - 1]));
            &mut columns.last_mut().expect("just pushed").1
        }
    };
    if column.len() == rows {
        // Reported twice in one call: the last value stands.
        column[rows - 1] = value;
    } else {
        column.push(value);
    }
}

fn close_named(columns: &mut [(&'static str, Vec<f64>)], rows: usize) {
    for (_, column) in columns {
        column.resize(rows, f64::NAN);
    }
}

/// Per-link queue samples for monitored links.
#[derive(Default)]
pub struct QueueSeries {
    pub t_s: Vec<f64>,
    pub link: Vec<u32>,
    pub queue_pkts: Vec<u32>,
    pub queue_bytes: Vec<u64>,
    /// RED's average queue, packets (NaN for DropTail).
    pub avg_queue_pkts: Vec<f64>,
    /// What the links' disciplines report of their own state
    /// ([`Qdisc::inspect`](crate::net::qdisc::Qdisc::inspect)), as for [`FlowSeries::cc`]: a
    /// column per name reported by some link, NaN where a row's link did not report it.
    pub aqm: Vec<(&'static str, Vec<f64>)>,
}

impl QueueSeries {
    /// Record the value a discipline reported for the row just pushed.
    pub fn record_aqm(&mut self, name: &'static str, value: f64) {
        record_named(&mut self.aqm, self.t_s.len(), name, value);
    }

    pub fn close_row(&mut self) {
        close_named(&mut self.aqm, self.t_s.len());
    }
}
