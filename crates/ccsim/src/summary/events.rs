//! events.parquet: every drop, with its reason, and every congestion event.

use super::table::{Column, Table};
use crate::records::{Records, DROP_KINDS, DROP_REASONS};

/// events.parquet: one row per drop (kind "drop") and per congestion event (kind
/// "congestion"). Drop rows carry the id of their congestion event (−1: none), so the
/// flows that lost in event e are `ev[(ev.kind == "drop") & (ev.event == e)].flow`.
pub fn table(rec: &Records) -> Table {
    let events = &rec.congestion;
    let log = &rec.drops;
    // A drop's event index is among its link's events: offset it by the events of
    // the links before (events come in link, then time order).
    let mut first_of = vec![0usize; rec.links.len()];
    {
        let mut k = 0;
        while k < events.len() {
            let l = events[k].link as usize;
            first_of[l] = k;
            while k < events.len() && events[k].link as usize == l {
                k += 1;
            }
        }
    }
    let n = log.len() + events.len();
    let mut time = Vec::with_capacity(n);
    let mut kind = Vec::with_capacity(n);
    let mut flow = Vec::with_capacity(n);
    let mut seq = Vec::with_capacity(n);
    let mut packet = Vec::with_capacity(n);
    let mut reason = Vec::with_capacity(n);
    let mut event = Vec::with_capacity(n);
    let mut duration = Vec::with_capacity(n);
    let mut drops = Vec::with_capacity(n);
    let mut lost = Vec::with_capacity(n);
    let mut active = Vec::with_capacity(n);
    let mut sync = Vec::with_capacity(n);
    // Link names as categories; the last one for drops before any link (scripted
    // drops of a flow without a path).
    let mut names: Vec<String> = rec.links.iter().map(|l| l.name.clone()).collect();
    names.push("none".into());
    let none = (names.len() - 1) as u32;
    let mut link_code: Vec<u32> = Vec::with_capacity(n);
    // Merge the two time-ordered lists (drop log, events sorted by start).
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by_key(|&k| (events[k].start, k));
    let (mut a, mut b) = (0, 0);
    while a < log.len() || b < order.len() {
        let take_drop = b >= order.len() || (a < log.len() && log[a].at <= events[order[b]].start);
        if take_drop {
            let d = &log[a];
            time.push(d.at.as_secs_f64());
            kind.push(0u8);
            link_code.push(if (d.link as usize) < rec.links.len() {
                d.link
            } else {
                none
            });
            flow.push(d.flow as i64);
            seq.push(d.seq as i64);
            packet.push(d.kind as u8);
            reason.push(d.reason as u8);
            event.push(if d.event < 0 {
                -1
            } else {
                (first_of[d.link as usize] + d.event as usize) as i64
            });
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
            reason.push(DROP_REASONS.len() as u8);
            event.push(k as i64);
            duration.push((e.end - e.start).as_secs_f64());
            drops.push(e.drops.round() as i64);
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
    t.push("reason", Column::Cat(reason, cats(DROP_REASONS)));
    t.push("event", Column::I64(event));
    t.push("duration_s", Column::F64(duration));
    t.push("drops", Column::I64(drops));
    t.push("flows_lost", Column::I64(lost));
    t.push("flows_active", Column::I64(active));
    t.push("sync", Column::F64(sync));
    t
}
