//! Numbers as the summary's JSON writes them (shared by the summary's files).

use serde_json::{json, Value};

/// JSON has no NaN: an undefined statistic is null.
pub fn nan_null(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

/// A count: an integer when whole (always in the packet engine), else fractional
/// packets (the fluid engine).
pub fn count(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// The mean of the finite values; null if there are none.
pub fn finite_mean(v: &[f64]) -> Value {
    let ok: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if ok.is_empty() {
        Value::Null
    } else {
        json!(ok.iter().sum::<f64>() / ok.len() as f64)
    }
}
