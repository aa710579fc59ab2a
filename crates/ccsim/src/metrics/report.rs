//! End-of-run metrics over the world: which flows cross which link, loss
//! synchronization per queue, ideal latencies, and the events table.

use super::latency::{ideal_latency, segments, IdealPath};
use super::sync::{
    congestion_events, CongestionEvent, DropCause, DropKind, DROP_CAUSES, DROP_KINDS,
};
use super::{Column, Table};
use crate::engine::World;
use crate::units::Time;

/// Per link: the TCP flows whose data packets cross it.
pub fn link_flows(w: &World) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); w.links.len()];
    for (i, f) in w.flows.iter().enumerate() {
        for l in &w.paths[f.sender.data_path as usize] {
            out[l.0 as usize].push(i);
        }
    }
    out
}

/// Gap that separates congestion events at a link: the mean two-way propagation RTT
/// of the flows crossing it (`fallback` if none does).
pub fn sync_gap(w: &World, flows: &[usize], fallback: f64) -> Time {
    if flows.is_empty() {
        return Time::from_secs_f64(fallback);
    }
    let s: f64 = flows
        .iter()
        .map(|&i| w.flows[i].rtt_prop.as_secs_f64())
        .sum();
    Time::from_secs_f64(s / flows.len() as f64)
}

/// When each flow id was active, as `[start, end]` intervals: a static flow from its
/// start to its last byte's arrival (or forever); a workload slot (traffic/) once per
/// instance, from its start until the sender had every byte acknowledged.
pub fn activity(w: &World) -> Vec<Vec<(Time, Time)>> {
    let mut out: Vec<Vec<(Time, Time)>> = w
        .flows
        .iter()
        .map(|f| match &f.slot {
            None if f.started => vec![(f.start, f.receiver.completed_at.unwrap_or(Time::MAX))],
            Some(s) if s.busy => vec![(f.start, Time::MAX)],
            _ => Vec::new(),
        })
        .collect();
    for r in &w.finished {
        if let Some(v) = out.get_mut(r.flow as usize) {
            v.push((r.start, r.finish));
        }
    }
    out
}

/// Congestion events at every link in `links`, from the logged TCP data drops at
/// their queues. Returns the events (all links, in link then time order) and, per
/// entry of `w.drop_log`, the index of its event (−1: none).
pub fn all_congestion_events(
    w: &World,
    links: &[usize],
    crossing: &[Vec<usize>],
    gap: impl Fn(usize) -> Time,
) -> (Vec<CongestionEvent>, Vec<i64>) {
    let activity = activity(w);
    let mut events = Vec::new();
    let mut event_of = vec![-1i64; w.drop_log.len()];
    // One pass over the log: each link's queue drops of TCP data, in time order.
    let mut by_link: Vec<Vec<usize>> = vec![Vec::new(); w.links.len()];
    for (k, d) in w.drop_log.iter().enumerate() {
        if d.kind == DropKind::Data && d.cause == DropCause::Queue {
            if let Some(v) = by_link.get_mut(d.link as usize) {
                v.push(k);
            }
        }
    }
    let mut drops = Vec::new();
    let mut ids = Vec::new();
    for &l in links {
        let idx = &by_link[l];
        drops.clear();
        drops.extend(idx.iter().map(|&k| (w.drop_log[k].at, w.drop_log[k].flow)));
        let on_link = &crossing[l];
        let active = |s: Time, e: Time| {
            on_link
                .iter()
                .filter(|&&i| activity[i].iter().any(|&(a, b)| a <= e && b >= s))
                .count() as u32
        };
        ids.clear();
        let ev = congestion_events(
            l as u32,
            &drops,
            gap(l),
            w.flows.len(),
            active,
            events.len(),
            &mut ids,
        );
        for (&k, &e) in idx.iter().zip(&ids) {
            event_of[k] = e;
        }
        events.extend(ev);
    }
    (events, event_of)
}

/// Study 001's ideal latency of every flow with a finite size (NaN otherwise).
/// The fair share on each link of a flow's path is the link rate over the flows
/// crossing it that are active when the flow starts (itself included), or over
/// `fixed_n` on links that more than one flow crosses.
pub fn ideal_latencies(w: &World, crossing: &[Vec<usize>], fixed_n: Option<u32>) -> Vec<f64> {
    let n = w.flows.len();
    // Sweep starts and completions in time order; at equal times completions first,
    // then all starts, so simultaneous starters share with each other.
    let mut marks: Vec<(Time, u8, usize)> = Vec::with_capacity(2 * n);
    // Static flows only: workload instances (traffic/) compute their own ideal when
    // they finish, sharing among the workload's flows in progress.
    for (i, f) in w.flows.iter().enumerate() {
        if f.started && f.slot.is_none() {
            marks.push((f.start, 1, i));
            if let Some(c) = f.receiver.completed_at {
                marks.push((c, 0, i));
            }
        }
    }
    marks.sort_unstable();
    let mut count = vec![0u32; w.links.len()];
    let mut share_n: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut k = 0;
    while k < marks.len() {
        let t = marks[k].0;
        let mut j = k;
        while j < marks.len() && marks[j].0 == t {
            let (_, kind, i) = marks[j];
            for l in &w.paths[w.flows[i].sender.data_path as usize] {
                let c = &mut count[l.0 as usize];
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
                share_n[i] = w.paths[w.flows[i].sender.data_path as usize]
                    .iter()
                    .map(|l| count[l.0 as usize])
                    .collect();
            }
        }
        k = j;
    }
    let mut out = vec![f64::NAN; n];
    for (i, f) in w.flows.iter().enumerate() {
        let Some(size) = f.size_bytes else { continue };
        if !f.started || f.slot.is_some() {
            continue;
        }
        let cfg = &f.sender.cfg;
        let pkt_bits = (cfg.mss + cfg.header) as f64 * 8.0;
        let ack_bits = cfg.header as f64 * 8.0;
        let fwd = &w.paths[f.sender.data_path as usize];
        let rev = &w.paths[f.receiver.ack_path as usize];
        let mut rtt = 0.0;
        let mut one_way = 0.0;
        let (mut best, mut best_rate) = (usize::MAX, f64::INFINITY);
        for (h, l) in fwd.iter().enumerate() {
            let link = &w.links[l.0 as usize];
            let rate = link.rate.as_f64();
            rtt += link.delay.as_secs_f64() + pkt_bits / rate;
            one_way += link.delay.as_secs_f64() + pkt_bits / rate;
            let sharing = match fixed_n {
                Some(m) if crossing[l.0 as usize].len() > 1 => m.max(1),
                Some(_) => 1,
                None => share_n[i].get(h).copied().unwrap_or(1).max(1),
            };
            let fair = rate / sharing as f64;
            if fair < best_rate {
                (best, best_rate) = (h, fair);
            }
        }
        for l in rev {
            let link = &w.links[l.0 as usize];
            rtt += link.delay.as_secs_f64() + ack_bits / link.rate.as_f64();
        }
        if best == usize::MAX {
            continue;
        }
        one_way -= pkt_bits / w.links[fwd[best].0 as usize].rate.as_f64();
        let p = IdealPath {
            rtt,
            spacing: pkt_bits / best_rate,
            one_way,
        };
        out[i] = ideal_latency(segments(size, cfg.mss), cfg.init_cwnd.max(1.0), &p);
    }
    out
}

/// events.parquet: one row per drop (kind "drop") and per congestion event (kind
/// "congestion"). Drop rows carry the id of their congestion event (−1: none), so the
/// flows that lost in event e are `ev[(ev.kind == "drop") & (ev.event == e)].flow`.
pub fn events_table(w: &World, events: &[CongestionEvent], event_of: &[i64]) -> Table {
    let n = w.drop_log.len() + events.len();
    let mut time = Vec::with_capacity(n);
    let mut kind = Vec::with_capacity(n);
    let mut flow = Vec::with_capacity(n);
    let mut seq = Vec::with_capacity(n);
    let mut packet = Vec::with_capacity(n);
    let mut cause = Vec::with_capacity(n);
    let mut event = Vec::with_capacity(n);
    let mut duration = Vec::with_capacity(n);
    let mut drops = Vec::with_capacity(n);
    let mut lost = Vec::with_capacity(n);
    let mut active = Vec::with_capacity(n);
    let mut sync = Vec::with_capacity(n);
    // Link names as categories; the last one for drops before any link (scripted
    // drops of a flow without a path).
    let mut names: Vec<String> = w.links.iter().map(|l| l.name.clone()).collect();
    names.push("none".into());
    let none = (names.len() - 1) as u32;
    let mut link_code: Vec<u32> = Vec::with_capacity(n);
    // Merge the two time-ordered lists (drop log, events sorted by start).
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by_key(|&k| (events[k].start, k));
    let (mut a, mut b) = (0, 0);
    while a < w.drop_log.len() || b < order.len() {
        let take_drop = b >= order.len()
            || (a < w.drop_log.len() && w.drop_log[a].at <= events[order[b]].start);
        if take_drop {
            let d = &w.drop_log[a];
            time.push(d.at.as_secs_f64());
            kind.push(0u8);
            link_code.push(if (d.link as usize) < w.links.len() {
                d.link
            } else {
                none
            });
            flow.push(d.flow as i64);
            seq.push(d.seq as i64);
            packet.push(d.kind as u8);
            cause.push(d.cause as u8);
            event.push(event_of[a]);
            duration.push(f64::NAN);
            drops.push(1i64);
            lost.push(-1i64);
            active.push(-1i64);
            sync.push(f64::NAN);
            a += 1;
        } else {
            let k = order[b];
            let e = &events[k];
            time.push(e.start.as_secs_f64());
            kind.push(1u8);
            link_code.push(e.link);
            flow.push(-1);
            seq.push(-1);
            packet.push(DROP_KINDS.len() as u8);
            cause.push(DROP_CAUSES.len() as u8);
            event.push(k as i64);
            duration.push((e.end - e.start).as_secs_f64());
            drops.push(e.drops as i64);
            lost.push(e.flows_lost as i64);
            active.push(e.flows_active as i64);
            sync.push(e.fraction());
            b += 1;
        }
    }
    // Category codes are u8: fall back to plain link indices beyond 255 links.
    let link_col = if names.len() <= 256 {
        Column::Cat(link_code.iter().map(|&c| c as u8).collect(), names)
    } else {
        Column::I64(
            link_code
                .iter()
                .map(|&c| if c == none { -1 } else { c as i64 })
                .collect(),
        )
    };
    let cats = |list: &[&str]| {
        let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        v.push("-".into());
        v
    };
    let mut t = Table::default();
    t.push("time", Column::F64(time));
    t.push(
        "kind",
        Column::Cat(kind, vec!["drop".into(), "congestion".into()]),
    );
    t.push("link", link_col);
    t.push("flow", Column::I64(flow));
    t.push("seq", Column::I64(seq));
    t.push("packet", Column::Cat(packet, cats(DROP_KINDS)));
    t.push("cause", Column::Cat(cause, cats(DROP_CAUSES)));
    t.push("event", Column::I64(event));
    t.push("duration_s", Column::F64(duration));
    t.push("drops", Column::I64(drops));
    t.push("flows_lost", Column::I64(lost));
    t.push("flows_active", Column::I64(active));
    t.push("sync", Column::F64(sync));
    t
}
