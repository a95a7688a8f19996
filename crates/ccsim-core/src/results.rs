//! Result tables as typed columns, handed to Python without per-row objects.

use std::borrow::Cow;

/// One column of a table.
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    U32(Vec<u32>),
    U8(Vec<u8>),
    Str(Vec<String>),
}

impl Column {
    pub fn dtype(&self) -> &'static str {
        match self {
            Column::F64(_) => "f64",
            Column::U64(_) => "u64",
            Column::I64(_) => "i64",
            Column::U32(_) => "u32",
            Column::U8(_) => "u8",
            Column::Str(_) => "str",
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::U8(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Little-endian bytes of a numeric column; `None` for strings.
    pub fn to_le_bytes(&self) -> Option<Vec<u8>> {
        fn flat<const N: usize, T: Copy>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
            let mut out = Vec::with_capacity(v.len() * N);
            for &x in v {
                out.extend_from_slice(&f(x));
            }
            out
        }
        Some(match self {
            Column::F64(v) => flat(v, f64::to_le_bytes),
            Column::U64(v) => flat(v, u64::to_le_bytes),
            Column::I64(v) => flat(v, i64::to_le_bytes),
            Column::U32(v) => flat(v, u32::to_le_bytes),
            Column::U8(v) => v.clone(),
            Column::Str(_) => return None,
        })
    }
}

/// Named columns of equal length. Names are fixed strings, except those made at run time (the
/// `cc_<name>` state columns of `series`).
#[derive(Default)]
pub struct Table {
    pub columns: Vec<(Cow<'static, str>, Column)>,
}

impl Table {
    pub fn push(&mut self, name: impl Into<Cow<'static, str>>, col: Column) {
        let name = name.into();
        debug_assert!(self.columns.first().is_none_or(|(_, c)| c.len() == col.len()), "column {name} length");
        self.columns.push((name, col));
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
    }

    pub fn f64(&self, name: &str) -> &[f64] {
        match self.column(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }

    pub fn u64(&self, name: &str) -> &[u64] {
        match self.column(name) {
            Some(Column::U64(v)) => v,
            _ => panic!("no u64 column {name}"),
        }
    }

    pub fn u32(&self, name: &str) -> &[u32] {
        match self.column(name) {
            Some(Column::U32(v)) => v,
            _ => panic!("no u32 column {name}"),
        }
    }
}

/// Everything a run produces.
pub struct RunResults {
    pub flows: Table,
    pub links: Table,
    pub series: Table,
    pub queues: Table,
    pub drops: Table,
    /// One file per capture point of `[trace] pcap` (none without it).
    pub pcap: Vec<crate::pcap::PcapFile>,
    pub events: u64,
    pub packet_hops: u64,
    pub sim_end_ns: u64,
    pub stack_json: String,
}
