//! The summary's `groups` block: per flow group (a `[[flows]]` entry, by its name),
//! what the group got over the measurement window — "what share does CUBIC get?"
//! without hand-written pandas (docs/metrics.md, *Per group*).

use super::values::{count, nan_null};
use crate::metrics::jain;
use crate::records::{FlowRecord, Records};
use serde_json::{json, Value};

/// Data packets a flow sent in the window, as segments delivered plus retransmissions:
/// the records keep no send counter, and the two differ only by the packets in flight
/// at the window's two ends (in the fluid engine, where every lost packet is
/// retransmitted, by the queue's contents).
fn data_sent(f: &FlowRecord) -> f64 {
    let mss = f64::from(f.mss.max(1));
    f.window.bytes_delivered / mss + f.window.retransmits
}

/// One entry per group of static flows (workload instances excluded, as in the
/// summary's fairness), in order of first appearance. `share` is the group's goodput
/// over the goodput of all static flows in its direction; `capacity_share` over the
/// bottleneck's rate.
pub fn groups(rec: &Records, win: f64) -> Value {
    let statics: Vec<&FlowRecord> = rec.flows.iter().filter(|f| !f.instance).collect();
    let goodput = |f: &FlowRecord| f.window.bytes_delivered * 8.0 / win;
    let total = |reverse: bool| -> f64 {
        statics
            .iter()
            .filter(|f| f.reverse == reverse)
            .map(|f| goodput(f))
            .sum()
    };
    let (total_fwd, total_rev) = (total(false), total(true));
    let capacity = rec.links[rec.info.bottleneck].rate_bps;
    let mut names: Vec<&str> = Vec::new();
    for f in &statics {
        if !names.contains(&f.group.as_str()) {
            names.push(&f.group);
        }
    }
    let out: Vec<Value> = names
        .iter()
        .map(|&name| {
            let fs: Vec<&FlowRecord> = statics
                .iter()
                .copied()
                .filter(|f| f.group == name)
                .collect();
            let x: Vec<f64> = fs
                .iter()
                .filter(|f| f.started)
                .map(|f| goodput(f))
                .collect();
            let g: f64 = fs.iter().map(|f| goodput(f)).sum();
            let sum = |k: &dyn Fn(&FlowRecord) -> f64| fs.iter().map(|f| k(f)).sum::<f64>();
            let losses = sum(&|f| f.window.losses);
            let sent = sum(&data_sent);
            let total = if fs[0].reverse { total_rev } else { total_fwd };
            // A group is usually one `[[flows]]` entry, so one algorithm; entries that
            // share a name may mix them: "cubic,reno".
            let mut ccs: Vec<&str> = Vec::new();
            for f in &fs {
                if !ccs.contains(&f.cc.as_str()) {
                    ccs.push(&f.cc);
                }
            }
            let cc = ccs.join(",");
            // The mean of all the group's RTT samples in the window (each flow's mean
            // weighted by its sample count).
            let n: u64 = fs.iter().map(|f| f.rtt.n).sum();
            let rtt_mean = if n == 0 {
                f64::NAN
            } else {
                fs.iter()
                    .filter(|f| f.rtt.n > 0)
                    .map(|f| f.rtt.mean * f.rtt.n as f64)
                    .sum::<f64>()
                    / n as f64
            };
            json!({
                "name": name,
                "cc": cc,
                "flows": fs.len(),
                "goodput_bps": g,
                "share": nan_null(if total > 0.0 { g / total } else { f64::NAN }),
                "capacity_share": nan_null(g / capacity),
                // No started flow, no fairness (Jain's index of nothing would read 1).
                "jain": if x.is_empty() { Value::Null } else { json!(jain(&x)) },
                "losses": count(losses),
                "loss_rate": nan_null(if sent > 0.0 { losses / sent } else { f64::NAN }),
                "retransmits": count(sum(&|f| f.window.retransmits)),
                "timeouts": count(sum(&|f| f.window.timeouts)),
                "rtt_mean_s": nan_null(rtt_mean),
            })
        })
        .collect();
    Value::Array(out)
}
