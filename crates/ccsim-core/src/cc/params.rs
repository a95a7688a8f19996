//! What an algorithm's parameters are: their kinds, ranges, defaults (some by stack profile) and
//! the validated values a controller is built from. Below the algorithms and the registry that
//! lists them, so that an algorithm declares its parameters without importing the registry.

use std::collections::BTreeMap;

use crate::profile::Profile;

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

/// A parameter whose default depends on the stack profile: under `profile` it defaults to
/// `value` instead of [`ParamInfo::default`] (which holds for every other profile). A value the
/// scenario sets explicitly always wins.
#[derive(Clone, Copy, Debug)]
pub struct ProfileDefault {
    pub param: &'static str,
    pub profile: Profile,
    pub value: f64,
}

/// The default of parameter `name` among `params` under `profile` (`None`: the
/// profile-independent [`ParamInfo::default`]); `None` when there is no such parameter.
pub fn default_for(
    params: &[ParamInfo],
    profile_defaults: &[ProfileDefault],
    name: &str,
    profile: Option<Profile>,
) -> Option<f64> {
    let param = params.iter().find(|p| p.name == name)?;
    let special =
        profile.and_then(|pr| profile_defaults.iter().find(|d| d.param == name && d.profile == pr).map(|d| d.value));
    Some(special.unwrap_or(param.default))
}

/// Validated parameter values; unset ones read as their defaults under the flow's stack profile.
pub struct Params<'a> {
    pub(crate) algorithm: &'static str,
    pub(crate) params: &'a [ParamInfo],
    pub(crate) profile_defaults: &'a [ProfileDefault],
    pub(crate) values: &'a BTreeMap<String, f64>,
    pub(crate) profile: Option<Profile>,
}

impl Params<'_> {
    pub fn get(&self, name: &str) -> f64 {
        if let Some(v) = self.values.get(name) {
            return *v;
        }
        default_for(self.params, self.profile_defaults, name, self.profile)
            .unwrap_or_else(|| panic!("algorithm {} has no parameter {name}", self.algorithm))
    }

    pub fn flag(&self, name: &str) -> bool {
        self.get(name) != 0.0
    }

    /// The value the scenario wrote for `name`, if it wrote one (for defaults that depend on
    /// another parameter, e.g. `linux26`).
    pub fn explicit(&self, name: &str) -> Option<f64> {
        self.values.get(name).copied()
    }
}
