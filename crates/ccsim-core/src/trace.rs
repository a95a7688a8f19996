//! Measurement recorded as columns: the sampled series of flows and queues. The drop log is the
//! network's ([`crate::net::drops`]); counters live with the components they count (links,
//! senders, receivers); tables are assembled in `results`.
//!
//! The columns grow with simulated time, so they grow fallibly ([`crate::grow`]), a row at a
//! time: room for the row is made in every column before any value is written, and a row that
//! cannot be completed is taken back, so that the columns stay of equal length whatever fails.
//! The names that algorithms and queue disciplines report through `inspect` each become a column
//! as long as the whole table; their number is bounded ([`RunLimits::inspect_columns`]).

use crate::grow::{self, OutOfMemory};
use crate::spec::RunLimits;

/// Why a row could not be recorded. The run stops on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// `name` would have been distinct name number `limit + 1` of the table.
    TooManyNames {
        name: &'static str,
        limit: usize,
    },
    OutOfMemory(OutOfMemory),
}

impl From<OutOfMemory> for RecordError {
    fn from(e: OutOfMemory) -> Self {
        RecordError::OutOfMemory(e)
    }
}

/// Columns named at run time, one value per row, NaN where a row did not report the name.
struct Named {
    columns: Vec<(&'static str, Vec<f64>)>,
    /// The most distinct names.
    limit: usize,
    /// Columns before the current row began (a row that fails takes back those it added).
    at_row_start: usize,
    /// The first failure while recording the current row.
    failed: Option<RecordError>,
    what: &'static str,
}

impl Named {
    fn new(limit: usize, what: &'static str) -> Self {
        Named { columns: Vec::new(), limit, at_row_start: 0, failed: None, what }
    }

    /// Room for one more value in every column, before the row's fixed values are written.
    fn begin_row(&mut self) -> Result<(), OutOfMemory> {
        for (_, column) in &mut self.columns {
            grow::reserve(column, 1, self.what)?;
        }
        self.at_row_start = self.columns.len();
        self.failed = None;
        Ok(())
    }

    /// Record `value` under `name` for row `rows - 1`. A failure is kept for [`Self::end_row`].
    fn record(&mut self, rows: usize, name: &'static str, value: f64) {
        if self.failed.is_some() {
            return;
        }
        if let Err(e) = self.try_record(rows, name, value) {
            self.failed = Some(e);
        }
    }

    fn try_record(&mut self, rows: usize, name: &'static str, value: f64) -> Result<(), RecordError> {
        let column = match self.columns.iter().position(|(n, _)| *n == name) {
            Some(i) => &mut self.columns[i].1,
            None => {
                if self.columns.len() >= self.limit {
                    return Err(RecordError::TooManyNames { name, limit: self.limit });
                }
                // Rows before the first report of this name did not have it.
                let mut column = Vec::new();
                grow::reserve(&mut column, rows, self.what)?;
                column.resize(rows - 1, f64::NAN);
                grow::push(&mut self.columns, (name, column), self.what)?;
                &mut self.columns.last_mut().expect("just pushed").1
            }
        };
        if column.len() == rows {
            // Reported twice in one call: the last value stands.
            column[rows - 1] = value;
        } else {
            // Room was made by begin_row (or when the column was created).
            column.push(value);
        }
        Ok(())
    }

    /// Fill with NaN the columns the row did not report; on a failure, take the row's values and
    /// new columns back (the caller takes back its fixed values) and return the failure.
    fn end_row(&mut self, rows: usize) -> Result<(), RecordError> {
        if let Some(e) = self.failed.take() {
            self.columns.truncate(self.at_row_start);
            for (_, column) in &mut self.columns {
                column.truncate(rows - 1);
            }
            return Err(e);
        }
        for (_, column) in &mut self.columns {
            // Within the room begin_row made.
            column.resize(rows, f64::NAN);
        }
        Ok(())
    }
}

/// Per-flow samples: one row per active flow per sampling instant.
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
    cc: Named,
}

/// One flow's values of a row of [`FlowSeries`].
#[derive(Clone, Copy, Debug)]
pub struct FlowRow {
    pub t_s: f64,
    pub flow: u32,
    pub cwnd_pkts: f64,
    pub ssthresh_pkts: f64,
    pub srtt_s: f64,
    pub rate_bps: f64,
}

const FLOW_SERIES: &str = "the sampled series";
const QUEUE_SERIES: &str = "the sampled queues";

impl Default for FlowSeries {
    fn default() -> Self {
        Self::new(&RunLimits::default())
    }
}

impl FlowSeries {
    pub fn new(limits: &RunLimits) -> Self {
        FlowSeries {
            t_s: Vec::new(),
            flow: Vec::new(),
            cwnd_pkts: Vec::new(),
            ssthresh_pkts: Vec::new(),
            srtt_s: Vec::new(),
            rate_bps: Vec::new(),
            cc: Named::new(limits.inspect_columns as usize, FLOW_SERIES),
        }
    }

    /// Start a row with a flow's fixed values; nothing is recorded when the columns cannot grow.
    pub fn push_row(&mut self, row: FlowRow) -> Result<(), OutOfMemory> {
        let what = FLOW_SERIES;
        grow::reserve(&mut self.t_s, 1, what)?;
        grow::reserve(&mut self.flow, 1, what)?;
        grow::reserve(&mut self.cwnd_pkts, 1, what)?;
        grow::reserve(&mut self.ssthresh_pkts, 1, what)?;
        grow::reserve(&mut self.srtt_s, 1, what)?;
        grow::reserve(&mut self.rate_bps, 1, what)?;
        self.cc.begin_row()?;
        self.t_s.push(row.t_s);
        self.flow.push(row.flow);
        self.cwnd_pkts.push(row.cwnd_pkts);
        self.ssthresh_pkts.push(row.ssthresh_pkts);
        self.srtt_s.push(row.srtt_s);
        self.rate_bps.push(row.rate_bps);
        Ok(())
    }

    /// Record the value an algorithm reported for the row just pushed (the last of `t_s`). A
    /// failure (a name too many, no memory) is returned by [`Self::close_row`].
    pub fn record_cc(&mut self, name: &'static str, value: f64) {
        self.cc.record(self.t_s.len(), name, value);
    }

    /// Fill with NaN the state columns the last row's flow did not report; or, when recording
    /// the row failed, take the row back and return why.
    pub fn close_row(&mut self) -> Result<(), RecordError> {
        let rows = self.t_s.len();
        self.cc.end_row(rows).inspect_err(|_| {
            self.t_s.truncate(rows - 1);
            self.flow.truncate(rows - 1);
            self.cwnd_pkts.truncate(rows - 1);
            self.ssthresh_pkts.truncate(rows - 1);
            self.srtt_s.truncate(rows - 1);
            self.rate_bps.truncate(rows - 1);
        })
    }

    /// The state columns, as (name, values) in the order first reported.
    pub fn take_cc(&mut self) -> Vec<(&'static str, Vec<f64>)> {
        std::mem::take(&mut self.cc.columns)
    }
}

/// Per-link queue samples for monitored links.
pub struct QueueSeries {
    pub t_s: Vec<f64>,
    pub link: Vec<u32>,
    pub queue_pkts: Vec<u32>,
    pub queue_bytes: Vec<u64>,
    /// RED's average queue, packets (NaN for DropTail).
    pub avg_queue_pkts: Vec<f64>,
    /// What the links' disciplines report of their own state
    /// ([`Qdisc::inspect`](crate::net::qdisc::Qdisc::inspect)), as for [`FlowSeries`]'s state
    /// columns: a column per name reported by some link, NaN where a row's link did not report it.
    aqm: Named,
}

/// One link's values of a row of [`QueueSeries`].
#[derive(Clone, Copy, Debug)]
pub struct QueueRow {
    pub t_s: f64,
    pub link: u32,
    pub queue_pkts: u32,
    pub queue_bytes: u64,
    pub avg_queue_pkts: f64,
}

impl Default for QueueSeries {
    fn default() -> Self {
        Self::new(&RunLimits::default())
    }
}

impl QueueSeries {
    pub fn new(limits: &RunLimits) -> Self {
        QueueSeries {
            t_s: Vec::new(),
            link: Vec::new(),
            queue_pkts: Vec::new(),
            queue_bytes: Vec::new(),
            avg_queue_pkts: Vec::new(),
            aqm: Named::new(limits.inspect_columns as usize, QUEUE_SERIES),
        }
    }

    /// Start a row with a link's fixed values; nothing is recorded when the columns cannot grow.
    pub fn push_row(&mut self, row: QueueRow) -> Result<(), OutOfMemory> {
        let what = QUEUE_SERIES;
        grow::reserve(&mut self.t_s, 1, what)?;
        grow::reserve(&mut self.link, 1, what)?;
        grow::reserve(&mut self.queue_pkts, 1, what)?;
        grow::reserve(&mut self.queue_bytes, 1, what)?;
        grow::reserve(&mut self.avg_queue_pkts, 1, what)?;
        self.aqm.begin_row()?;
        self.t_s.push(row.t_s);
        self.link.push(row.link);
        self.queue_pkts.push(row.queue_pkts);
        self.queue_bytes.push(row.queue_bytes);
        self.avg_queue_pkts.push(row.avg_queue_pkts);
        Ok(())
    }

    /// Record the value a discipline reported for the row just pushed.
    pub fn record_aqm(&mut self, name: &'static str, value: f64) {
        self.aqm.record(self.t_s.len(), name, value);
    }

    pub fn close_row(&mut self) -> Result<(), RecordError> {
        let rows = self.t_s.len();
        self.aqm.end_row(rows).inspect_err(|_| {
            self.t_s.truncate(rows - 1);
            self.link.truncate(rows - 1);
            self.queue_pkts.truncate(rows - 1);
            self.queue_bytes.truncate(rows - 1);
            self.avg_queue_pkts.truncate(rows - 1);
        })
    }

    /// The state columns, as (name, values) in the order first reported.
    pub fn take_aqm(&mut self) -> Vec<(&'static str, Vec<f64>)> {
        std::mem::take(&mut self.aqm.columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(t: f64) -> FlowRow {
        FlowRow { t_s: t, flow: 0, cwnd_pkts: 1.0, ssthresh_pkts: 2.0, srtt_s: 0.1, rate_bps: 5.0 }
    }

    fn lengths(s: &mut FlowSeries) -> Vec<usize> {
        let fixed = [s.t_s.len(), s.flow.len(), s.cwnd_pkts.len(), s.ssthresh_pkts.len(), s.srtt_s.len()];
        let named: Vec<usize> = s.cc.columns.iter().map(|(_, c)| c.len()).collect();
        [&fixed[..], &[s.rate_bps.len()], &named].concat()
    }

    #[test]
    fn names_become_columns_filled_with_nan_where_not_reported() {
        let mut s = FlowSeries::default();
        s.push_row(row(0.0)).unwrap();
        s.record_cc("a", 1.0);
        s.close_row().unwrap();
        s.push_row(row(1.0)).unwrap();
        s.record_cc("b", 2.0);
        s.record_cc("b", 3.0);
        s.close_row().unwrap();
        let cc = s.take_cc();
        assert_eq!(cc[0].0, "a");
        assert_eq!(cc[0].1[0], 1.0);
        assert!(cc[0].1[1].is_nan());
        assert_eq!(cc[1].0, "b");
        assert!(cc[1].1[0].is_nan());
        assert_eq!(cc[1].1[1], 3.0, "reported twice in a row: the last value stands");
    }

    #[test]
    fn a_name_beyond_the_limit_fails_the_row_and_takes_it_back() {
        let mut s = FlowSeries::new(&RunLimits { inspect_columns: 2 });
        s.push_row(row(0.0)).unwrap();
        s.record_cc("a", 1.0);
        s.close_row().unwrap();
        s.push_row(row(1.0)).unwrap();
        s.record_cc("a", 2.0);
        s.record_cc("b", 2.0);
        s.record_cc("c", 2.0);
        s.record_cc("d", 2.0);
        assert_eq!(s.close_row(), Err(RecordError::TooManyNames { name: "c", limit: 2 }));
        assert_eq!(lengths(&mut s), vec![1; 7], "the first row alone, and only the column it had");
        assert_eq!(s.cc.columns.len(), 1);
        // The table is whole: the next row records normally.
        s.push_row(row(2.0)).unwrap();
        s.record_cc("a", 3.0);
        s.close_row().unwrap();
        assert_eq!(lengths(&mut s), vec![2; 7]);
    }

    #[test]
    fn a_column_that_cannot_be_allocated_is_out_of_memory_not_an_abort() {
        // The path that creates a new name's column, asked for an impossible number of rows.
        let mut named = Named::new(8, FLOW_SERIES);
        named.record(usize::MAX / 4, "huge", 1.0);
        match named.end_row(usize::MAX / 4) {
            Err(RecordError::OutOfMemory(e)) => {
                assert_eq!(e.what, "the sampled series");
                assert!(e.bytes >= usize::MAX / 4, "{e}");
            }
            other => panic!("expected out of memory, got {other:?}"),
        }
        assert!(named.columns.is_empty());
    }

    #[test]
    fn queue_rows_are_limited_alike() {
        let mut q = QueueSeries::new(&RunLimits { inspect_columns: 1 });
        q.push_row(QueueRow { t_s: 0.0, link: 0, queue_pkts: 1, queue_bytes: 10, avg_queue_pkts: f64::NAN }).unwrap();
        q.record_aqm("marks", 0.0);
        q.record_aqm("sojourn_s", 0.0);
        assert_eq!(q.close_row(), Err(RecordError::TooManyNames { name: "sojourn_s", limit: 1 }));
        assert_eq!((q.t_s.len(), q.link.len(), q.aqm.columns.len()), (0, 0, 0));
    }
}
