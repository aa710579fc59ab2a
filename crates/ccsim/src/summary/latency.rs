//! Study 001's ideal latency of every finite flow (`metrics::latency` has the model):
//! the path's unloaded RTT and one-way delay, and the flow's fair share of the link
//! that limits it.

use crate::metrics::latency::{ideal_latency, segments, IdealPath};
use crate::records::{FlowRecord, LinkRecord, Records};
use crate::units::Time;

/// Time to put `bits` on `link`: none where a token bucket releases packets whole.
fn tx_time(link: &LinkRecord, bits: f64) -> f64 {
    if link.shaped {
        0.0
    } else {
        bits / link.rate_bps
    }
}

/// The path of flow `f` with the fair rate `rate` set at hop `hop` of its data route.
fn ideal_of(rec: &Records, f: &FlowRecord, size: u64, rate: f64, hop: usize) -> f64 {
    let pkt_bits = (f.mss + f.header) as f64 * 8.0;
    let ack_bits = f.header as f64 * 8.0;
    let data = &rec.paths[f.data_path as usize];
    let (mut rtt, mut one_way) = (0.0, 0.0);
    for &l in data {
        let link = &rec.links[l as usize];
        let tx = tx_time(link, pkt_bits);
        rtt += link.delay_s + tx;
        one_way += link.delay_s + tx;
    }
    for &l in &rec.paths[f.ack_path as usize] {
        let link = &rec.links[l as usize];
        rtt += link.delay_s + tx_time(link, ack_bits);
    }
    // The fair-share link's serialization is in the spacing, not in D. A shaped one
    // adds none to D but releases its first packet at once: the spacing counts one
    // packet time too many there (a bucket's burst, a few packets on credit after
    // idle, is not in the ideal).
    let Some(&l) = data.get(hop) else {
        return f64::NAN;
    };
    one_way -= pkt_bits / rec.links[l as usize].rate_bps;
    let p = IdealPath {
        rtt,
        spacing: pkt_bits / rate,
        one_way,
    };
    ideal_latency(segments(size, f.mss), f.init_cwnd.max(1.0), &p)
}

/// The ideal latency of every flow record (NaN: unlimited size, not started, or no
/// fair share).
///
/// A static flow's fair share on each link of its route is the link rate over the
/// static flows crossing it that are active when it starts (itself and those starting
/// at the same instant included; those completing then not), or over
/// `metrics.fair_share_flows` on links that more than one flow crosses. A workload
/// instance carries the fair share the engine observed when it started (the flows in
/// progress then, static and workload alike).
pub fn ideal_latencies(rec: &Records) -> Vec<f64> {
    let fixed_n = rec.info.fair_share_flows;
    // Static flows: sweep starts and completions in time order; at equal times
    // completions first, then all starts, so simultaneous starters share.
    let statics: Vec<usize> = (0..rec.flows.len())
        .filter(|&k| !rec.flows[k].instance && rec.flows[k].started)
        .collect();
    let mut marks: Vec<(Time, u8, usize)> = Vec::with_capacity(2 * statics.len());
    for &k in &statics {
        let f = &rec.flows[k];
        marks.push((f.start, 1, k));
        if let Some(c) = f.completed {
            marks.push((c, 0, k));
        }
    }
    marks.sort_unstable();
    let mut count = vec![0u32; rec.links.len()];
    let mut share_n: Vec<Vec<u32>> = vec![Vec::new(); rec.flows.len()];
    let mut k = 0;
    while k < marks.len() {
        let t = marks[k].0;
        let mut j = k;
        while j < marks.len() && marks[j].0 == t {
            let (_, kind, i) = marks[j];
            for &l in &rec.paths[rec.flows[i].data_path as usize] {
                let c = &mut count[l as usize];
                if kind == 0 {
                    *c = c.saturating_sub(1);
                } else {
                    *c += 1;
                }
            }
            j += 1;
        }
        for &(_, kind, i) in &marks[k..j] {
            if kind == 1 {
                share_n[i] = rec.paths[rec.flows[i].data_path as usize]
                    .iter()
                    .map(|&l| count[l as usize])
                    .collect();
            }
        }
        k = j;
    }
    rec.flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let Some(size) = f.size else {
                return f64::NAN;
            };
            if f.instance {
                return match f.fair_share {
                    Some((rate, hop)) if rate > 0.0 && rate.is_finite() => {
                        ideal_of(rec, f, size, rate, hop as usize)
                    }
                    _ => f64::NAN,
                };
            }
            if !f.started {
                return f64::NAN;
            }
            let (mut best, mut best_rate) = (usize::MAX, f64::INFINITY);
            for (h, &l) in rec.paths[f.data_path as usize].iter().enumerate() {
                let link = &rec.links[l as usize];
                let sharing = match fixed_n {
                    Some(m) if link.crossers > 1 => m.max(1),
                    Some(_) => 1,
                    None => share_n[i].get(h).copied().unwrap_or(1).max(1),
                };
                let fair = link.rate_bps / sharing as f64;
                if fair < best_rate {
                    (best, best_rate) = (h, fair);
                }
            }
            if best == usize::MAX {
                return f64::NAN;
            }
            ideal_of(rec, f, size, best_rate, best)
        })
        .collect()
}
