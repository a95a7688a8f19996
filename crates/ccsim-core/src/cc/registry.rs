//! The algorithm registry: name -> parameter schema and constructor.
//!
//! The CLI, the scenario validator and the docs all list algorithms from here, so they cannot go
//! out of step with the engine. Adding an algorithm = one file in `cc/` plus one entry below.

use std::collections::BTreeMap;

use super::newreno::NewReno;
use super::reno::{Reno, RenoWindow};
use super::CongestionControl;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Float,
    Int,
    Bool,
}

impl ParamKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamKind::Float => "float",
            ParamKind::Int => "int",
            ParamKind::Bool => "bool",
        }
    }
}

/// One typed parameter with its default and the inclusive range it must lie in.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    pub name: &'static str,
    pub kind: ParamKind,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub doc: &'static str,
}

pub struct AlgorithmInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// The loss recovery the sender runs: "reno" or "newreno".
    pub recovery: &'static str,
    pub params: &'static [ParamInfo],
    build: fn(&Params) -> Box<dyn CongestionControl>,
}

/// Validated parameter values; unset ones read as their defaults.
pub struct Params<'a> {
    info: &'a AlgorithmInfo,
    values: &'a BTreeMap<String, f64>,
}

impl Params<'_> {
    pub fn get(&self, name: &str) -> f64 {
        if let Some(v) = self.values.get(name) {
            return *v;
        }
        self.info
            .params
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("algorithm {} has no parameter {name}", self.info.name))
            .default
    }

    pub fn flag(&self, name: &str) -> bool {
        self.get(name) != 0.0
    }
}

const AIMD_PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "alpha",
        kind: ParamKind::Float,
        default: 1.0,
        min: 1e-6,
        max: 1e6,
        doc: "segments added per RTT in congestion avoidance",
    },
    ParamInfo {
        name: "beta",
        kind: ParamKind::Float,
        default: 0.5,
        min: 0.01,
        max: 0.99,
        doc: "fraction of the window kept after a loss",
    },
];

static ALGORITHMS: &[AlgorithmInfo] = &[
    AlgorithmInfo {
        name: "newreno",
        summary: "NewReno (RFC 6582): AIMD with recovery that repairs every loss of a window",
        recovery: "newreno",
        params: AIMD_PARAMS,
        build: |p| Box::new(NewReno::new(RenoWindow::from_params(p))),
    },
    AlgorithmInfo {
        name: "reno",
        summary: "Reno (RFC 5681): AIMD, fast recovery ends at the first new ACK",
        recovery: "reno",
        params: AIMD_PARAMS,
        build: |p| Box::new(Reno::new(RenoWindow::from_params(p))),
    },
];

/// Every algorithm, sorted by name.
pub fn algorithms() -> &'static [AlgorithmInfo] {
    ALGORITHMS
}

pub fn find(name: &str) -> Option<&'static AlgorithmInfo> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// Check parameter names, kinds and ranges. Errors name the parameter and the expectation.
pub fn validate(name: &str, values: &BTreeMap<String, f64>) -> Result<&'static AlgorithmInfo, String> {
    let info = find(name).ok_or_else(|| {
        let names: Vec<_> = ALGORITHMS.iter().map(|a| a.name).collect();
        format!("unknown algorithm \"{name}\"; expected one of: {}", names.join(", "))
    })?;
    for (key, &v) in values {
        let p = info.params.iter().find(|p| p.name == key).ok_or_else(|| {
            let names: Vec<_> = info.params.iter().map(|p| p.name).collect();
            format!("{name} has no parameter \"{key}\"; expected one of: {}", names.join(", "))
        })?;
        let ok_kind = match p.kind {
            ParamKind::Float => v.is_finite(),
            ParamKind::Int => v.fract() == 0.0,
            ParamKind::Bool => v == 0.0 || v == 1.0,
        };
        if !ok_kind || v < p.min || v > p.max {
            return Err(format!(
                "{name} parameter \"{key}\" = {v} is invalid; expected a {} in [{}, {}]",
                p.kind.as_str(),
                p.min,
                p.max
            ));
        }
    }
    Ok(info)
}

/// Build a fresh controller for one flow.
pub fn build(name: &str, values: &BTreeMap<String, f64>) -> Result<Box<dyn CongestionControl>, String> {
    let info = validate(name, values)?;
    Ok((info.build)(&Params { info, values }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_and_parameters_are_rejected_with_the_choices() {
        let err = build("renoo", &BTreeMap::new()).err().unwrap();
        assert!(err.contains("renoo") && err.contains("newreno"), "{err}");
        let mut p = BTreeMap::new();
        p.insert("gamma".to_string(), 1.0);
        let err = build("reno", &p).err().unwrap();
        assert!(err.contains("gamma") && err.contains("alpha"), "{err}");
        p.clear();
        p.insert("beta".to_string(), 1.5);
        assert!(build("reno", &p).is_err());
    }

    #[test]
    fn registry_is_sorted_and_builds_each_algorithm() {
        let names: Vec<_> = algorithms().iter().map(|a| a.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        for a in algorithms() {
            assert_eq!(build(a.name, &BTreeMap::new()).unwrap().name(), a.name);
        }
    }
}
