//! Reading an algorithm's parameters from `cc = { name = ..., key = value, ... }`.

use super::profile::Profile;

/// Reads an algorithm's parameters from the scenario table, each with its default and
/// its admissible range; `finish` rejects the keys nobody asked for.
pub struct Params<'a> {
    name: &'a str,
    table: &'a toml::value::Table,
    used: Vec<&'static str>,
    profile: Profile,
}

impl<'a> Params<'a> {
    pub fn new(name: &'a str, table: &'a toml::value::Table, profile: Profile) -> Self {
        Params {
            name,
            table,
            used: Vec::new(),
            profile,
        }
    }

    /// The flow's TCP profile: where the forms of a law differ, it picks the default.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// One of `options` (a string), or `default` when absent.
    pub fn choice(
        &mut self,
        key: &'static str,
        options: &[&'static str],
        default: &'static str,
    ) -> Result<&'static str, String> {
        self.used.push(key);
        match self.table.get(key) {
            None => Ok(default),
            Some(toml::Value::String(s)) => options
                .iter()
                .find(|o| **o == s.as_str())
                .copied()
                .ok_or_else(|| {
                    format!("{key}: expected one of {}, got \"{s}\"", options.join(", "))
                }),
            Some(other) => Err(format!(
                "{key}: expected one of {}, got {other}",
                options.join(", ")
            )),
        }
    }

    /// A number (integer or float) in `[lo, hi]`, or `default` when absent.
    pub fn num(
        &mut self,
        key: &'static str,
        default: f64,
        lo: f64,
        hi: f64,
    ) -> Result<f64, String> {
        self.used.push(key);
        let Some(v) = self.table.get(key) else {
            return Ok(default);
        };
        let x = match v {
            toml::Value::Integer(i) => *i as f64,
            toml::Value::Float(f) => *f,
            other => {
                return Err(format!(
                    "{key}: expected a number in [{lo}, {hi}], got {other}"
                ))
            }
        };
        if !x.is_finite() || x < lo || x > hi {
            return Err(format!("{key}: expected a number in [{lo}, {hi}], got {x}"));
        }
        Ok(x)
    }

    /// A number in the open-at-zero range `(0, hi]`.
    pub fn pos(&mut self, key: &'static str, default: f64, hi: f64) -> Result<f64, String> {
        let x = self.num(key, default, 0.0, hi)?;
        if x <= 0.0 {
            return Err(format!("{key}: expected a positive number, got {x}"));
        }
        Ok(x)
    }

    /// `true` or `false`, or `default` when absent.
    pub fn flag(&mut self, key: &'static str, default: bool) -> Result<bool, String> {
        self.used.push(key);
        match self.table.get(key) {
            None => Ok(default),
            Some(toml::Value::Boolean(b)) => Ok(*b),
            Some(other) => Err(format!("{key}: expected true or false, got {other}")),
        }
    }

    /// Any key not read is unknown to this algorithm.
    pub fn finish(&self) -> Result<(), String> {
        let name = self.name;
        match self.table.keys().find(|k| !self.used.contains(&k.as_str())) {
            Some(k) => Err(format!("{k}: \"{name}\" has no parameter \"{k}\"")),
            None => Ok(()),
        }
    }
}
