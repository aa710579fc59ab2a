"""Where in its ACK trains a sender sends more than the ACKs free (docs/linux.md, "Loss
synchronization and pacing"): an unpaced flow beside another takes its ACKs in trains (its
segments leave the bottleneck in runs between the other flow's), and what it sends beyond
one segment per segment acknowledged is its window's increase (or a deferred segment).
Where that excess leaves decides where the flow's segments meet a full queue.

    python validation/linux/trains.py /tmp/lt-q/qu1 [/tmp/lt-q/qa_cap_unpaced_qa ...]
    python validation/linux/trains.py --ccsim 20m_50ms_b21_1reno+1cubic --seeds 1 2 \
        --set tcp.delayed_ack=false --set tcp.pacing=none

A testbed run's r0.pcap holds both directions at the router (its ACKs to the sender and
the data they release, tens of µs later); ccsim's are each sender's access links (the ACKs
moved to their arrival at the sender). Prints per flow: trains (ACKs under TRAIN_GAP_S
apart), the share of trains whose first ACK acknowledges one segment and releases two, the
share of trains of two or more ACKs whose last acknowledges one and releases three, and
for a testbed run with r1.pcap the dropped segments that opened a run of the flow at the
router (the first burst after a gap over RUN_GAP_S)."""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from testbed import (  # noqa: E402
    MSS,
    drop_stats,
    pcap_packets,
    pcap_tcp_headers,
    unmatched,
)

TRAIN_GAP_S = 3e-3  # ACKs of one train: each within 3 ms of the last (0.6-1.2 ms here)
RUN_GAP_S = 1.5e-3  # a flow's run at the router opens after a gap over 1.5 ms
EVENT_GAP_S = 0.25  # drops of one congestion event (drop_stats' rule)
# When, after an event's first drop, the flow that lost it learns of it: its first
# duplicate ACKs come a round trip with a full queue later (75 ms at 25 Mb/s x 60 ms,
# 0.25 BDP); its own drops then are of what it sends at them.
DETECTION_S = (0.065, 0.095)
BURST_GAP_S = 60e-6  # segments of one burst (pcap_bursts' rule)
# What a flow sends at its first duplicate ACKs reaches the router within a few ms of
# them (counted from when the first of it can: tens of µs after the ACK in the testbed,
# 1 ms in ccsim, its senders' access hops).
DUPACK_ZONE_S = 6e-3


def train_starts(acks: list[tuple[float, int]], sends: list[float]) -> dict:
    """From one flow's ACKs as the sender receives them ((time, ack number), in order) and
    its data segments' send times: the trains, how many open with a one-segment ACK that
    releases two segments, and how many close with a one-segment ACK that releases three
    (a room deferred at the ACK before, the ACK's own and one more: the window's increase
    at the train's last ACK). ACKs that acknowledge nothing (window updates) and the
    cumulative ACKs of a recovery (over 5 segments) open and close no train."""
    import bisect

    trains = pairs = closing = closing_triples = 0
    for k in range(1, len(acks) - 1):
        (t0, a0), (t1, a1), (t2, _) = acks[k - 1], acks[k], acks[k + 1]
        opens, closes = t1 - t0 > TRAIN_GAP_S, t2 - t1 > TRAIN_GAP_S
        if not (opens or closes):
            continue
        acked = round(((a1 - a0) % (1 << 32)) / MSS)
        if not 1 <= acked <= 5:
            continue
        sent = bisect.bisect_left(sends, t2) - bisect.bisect_left(sends, t1)
        if opens:  # a train of one ACK opens it
            trains += 1
            pairs += acked == 1 and sent == 2
        else:
            closing += 1
            closing_triples += acked == 1 and sent == 3
    return {
        "trains": trains,
        "opening_pairs": pairs,
        "share": round(pairs / trains, 4) if trains else None,
        "closing_trains": closing,
        "closing_triples": closing_triples,
        "closing_share": round(closing_triples / closing, 4) if closing else None,
    }


def congestion_events(drops: list[tuple]) -> list[list[tuple]]:
    """Time-ordered drops (tuples whose first item is the time) grouped into congestion
    events: each drop within EVENT_GAP_S of the one before joins its event."""
    events: list[list[tuple]] = []
    for d in drops:
        if events and d[0] - events[-1][-1][0] < EVENT_GAP_S:
            events[-1].append(d)
        else:
            events.append([d])
    return events


def event_zones(ing: list[tuple], egr: list[tuple], ports: dict, lo: float, hi: float) -> dict:
    """The drops of each congestion event in [lo, hi] at the router (ingress and egress
    pcap_packets rows), per event: the first, and the rest by whether the flow that lost
    the first lost them ("same") or another did, and by when: before, within, after
    DETECTION_S of the first."""
    ing = [p for p in ing if p[4] > 0 and p[1] in ports]
    egr = [p for p in egr if p[4] > 0 and p[1] in ports]
    drops = sorted((ing[i][0], ing[i][1]) for i in unmatched(ing, egr) if lo <= ing[i][0] <= hi)
    events = congestion_events(drops)
    zones: dict[str, int] = {}
    for ev in events:
        t0, first = ev[0]
        for t, port in ev[1:]:
            when = (
                "before"
                if t - t0 < DETECTION_S[0]
                else "detection"
                if t - t0 < DETECTION_S[1]
                else "after"
            )
            k = f"{when}_{'same' if port == first else 'other'}"
            zones[k] = zones.get(k, 0) + 1
    n = len(events)
    return {
        "events": n,
        "drops_per_event": round(len(drops) / n, 3) if n else None,
        **{k: round(v / n, 3) for k, v in sorted(zones.items())},
    }


def event_queue(
    ing: list[tuple],
    egr: list[tuple],
    acks: dict,
    ports: dict,
    lo: float,
    hi: float,
    limit: int,
    lag: float = 0.0,
) -> dict:
    """How full the router's queue is when the flow that lost an event's first drop hears
    of it: per congestion event in [lo, hi], the time from that drop to the flow's first
    duplicate ACK at the router (the first ACK whose number is the dropped segment's),
    the queue then, its mean from the drop to then (sampled every ms); and of what the
    flows send at that ACK and those after it (their segments reaching the router
    DUPACK_ZONE_S from it, *lag* later: the senders' round trip from the router, tens of
    µs in the testbed), the dropper's drops, the queue the dropper's segments meet and the
    queue the other flows' meet; and how many of the flows' retransmissions of that first
    drop are dropped again. *acks* holds each port's (time, ACK number) at the router.
    The queue is arrivals kept less departures, known from two captures up to a constant
    (they start apart): the one that puts the median drop at *limit*, where a drop-tail
    queue drops (the captures read *limit* at every drop)."""
    import bisect
    import statistics

    ing = [p for p in ing if p[4] > 0 and p[1] in ports]
    egr = sorted(p for p in egr if p[4] > 0 and p[1] in ports)
    lost = unmatched(ing, egr)
    kept = sorted(p[0] for i, p in enumerate(ing) if i not in lost)
    out_t = [p[0] for p in egr]
    arrivals = sorted((p[0], p[1]) for p in ing)
    arr_t = [a[0] for a in arrivals]
    copies: dict[tuple, list[tuple]] = {}
    for i, p in enumerate(ing):
        copies.setdefault((p[1], p[2]), []).append((p[0], i in lost))

    def raw(t: float) -> int:
        return bisect.bisect_left(kept, t) - bisect.bisect_left(out_t, t)

    drops = sorted((ing[i][0], ing[i][1], ing[i][2]) for i in lost if lo <= ing[i][0] <= hi)
    if not drops:
        return {"events": 0}
    off = limit - statistics.median(raw(t) for t, _, _ in drops)
    events = congestion_events(drops)
    delay, at, mean, zone, met, resent = [], [], [], [], {True: [], False: []}, []
    for ev in events:
        t0, port, seq = ev[0]
        td = next((t for t, a in acks[port] if t > t0 and a == seq), None)
        if td is None or td - t0 > EVENT_GAP_S:
            continue
        delay.append(td - t0)
        at.append(raw(td) + off)
        n = max(1, int((td - t0) * 1e3))
        mean.append(statistics.fmean(raw(t0 + k * (td - t0) / n) + off for k in range(n)))
        z0, z1 = td + lag, td + lag + DUPACK_ZONE_S
        zone.append(sum(1 for t, p, _ in ev if p == port and z0 <= t < z1))
        for t, p in arrivals[bisect.bisect_left(arr_t, z0) : bisect.bisect_left(arr_t, z1)]:
            met[p == port].append(raw(t) + off)
        again = [was_lost for t, was_lost in copies[(port, seq)] if t > t0]
        if again:
            resent.append(again[0])
    if not delay:
        return {"events": len(events)}

    def avg(xs: list) -> float | None:
        return round(statistics.fmean(xs), 2) if xs else None

    return {
        "events": len(events),
        "heard": len(delay),
        "first_dupack_ms": round(statistics.fmean(delay) * 1e3, 2),
        "queue_at_first_dupack": round(statistics.fmean(at), 2),
        "queue_mean_until_then": round(statistics.fmean(mean), 2),
        "drops_sent_at_it": round(statistics.fmean(zone), 3),
        "queue_met_by_dropper": avg(met[True]),
        "queue_met_by_others": avg(met[False]),
        "retransmissions": len(resent),
        "retransmissions_lost": sum(resent),
    }


def run_openers(ing: list[tuple], dropped: set[int]) -> dict:
    """Of a flow's dropped segments at the router (indexes into its arrivals *ing*,
    pcap_packets rows), how many were in the first burst of a run: after a gap over
    RUN_GAP_S since the flow's previous segment."""
    start = 0
    opening = set()
    for i in range(len(ing)):
        if i and ing[i][0] - ing[i - 1][0] >= BURST_GAP_S:
            start = i
        if start == 0 or ing[start][0] - ing[start - 1][0] > RUN_GAP_S:
            opening.add(i)
    return {"dropped": len(dropped), "opening_a_run": len(dropped & opening)}


def _ports(d: str) -> dict[int, str]:
    n = len(json.load(open(os.path.join(d, "meta.json")))["ports"])
    ccs = [
        json.load(open(os.path.join(d, f"iperf{i}.json")))["end"]["sender_tcp_congestion"]
        for i in range(n)
    ]
    out = {}
    for i, cc in enumerate(ccs):
        j = json.load(open(os.path.join(d, f"iperf{i}.json")))
        out[j["start"]["connected"][0]["local_port"]] = cc if ccs.count(cc) == 1 else f"{cc}{i}"
    return out


def testbed_run(d: str, skip_s: float = 1.0) -> dict[str, dict]:
    """Per flow of a testbed run captured at r0 (and r1): train_starts, and where its
    dropped segments sat (run_openers), leaving out the capture's first *skip_s*; with r1,
    the events' drops by when and whom (event_zones) and the queue when the first dropper
    hears of its loss (event_queue)."""
    ports = _ports(d)
    acks: dict[int, list] = {p: [] for p in ports}
    sends: dict[int, list] = {p: [] for p in ports}
    t_first = None
    for t, tcp, payload in pcap_tcp_headers(os.path.join(d, "r0.pcap")):
        t_first = t if t_first is None else t_first
        if t < t_first + skip_s:
            continue
        sp, dp = struct.unpack(">HH", tcp[:4])
        if payload == 0 and dp in ports:
            acks[dp].append((t, struct.unpack(">I", tcp[8:12])[0]))
        elif payload > 0 and sp in ports:
            sends[sp].append(t)
    out = {cc: train_starts(acks[p], sends[p]) for p, cc in ports.items()}
    if os.path.exists(os.path.join(d, "r1.pcap")):
        ing = [p for p in pcap_packets(os.path.join(d, "r0.pcap")) if p[4] > 0 and p[1] in ports]
        egr = [p for p in pcap_packets(os.path.join(d, "r1.pcap")) if p[4] > 0 and p[1] in ports]
        # both captures running: they start and stop some 0.1-0.3 s apart, and a segment
        # the egress capture missed for that would read as a drop
        lo = max(ing[0][0], egr[0][0]) + skip_s
        hi = min(ing[-1][0], egr[-1][0]) - 0.5
        for p, cc in ports.items():
            mine = [x for x in ing if x[1] == p]
            lost = {i for i in unmatched(mine, egr) if lo <= mine[i][0] <= hi}
            out[cc].update(run_openers(mine, lost))
        out["_events"] = drop_stats(ing, egr, ports, lo, hi)["events_by_losers"]
        out["_zones"] = event_zones(ing, egr, ports, lo, hi)
        limit = json.load(open(os.path.join(d, "meta.json")))["buf_pkts"]
        out["_queue"] = event_queue(ing, egr, acks, ports, lo, hi, limit)
    return out


def ccsim_run(
    point: str, seed: int, overrides: dict | None = None, secs: float = 45.0, skip_s: float = 10.0
) -> dict[str, dict]:
    """testbed_run's figures from ccsim's traces of *point* (each sender's access links and
    the bottleneck), after *skip_s*."""
    import compare

    import ccsim

    ccs = compare._point(point)["ccsim_flows"].split()
    names = [c if ccs.count(c) == 1 else f"{c}{i}" for i, c in enumerate(ccs)]
    links = [f"flow{i}.src_{d}" for i in range(len(ccs)) for d in ("up", "down")]
    text = compare.scenario_text(point) + f"\n[output]\npcap = {links + ['bottleneck']!r}\n"
    sets = {"seed": seed, "duration": f"{secs}s", "warmup": "0s", **(overrides or {})}
    run = ccsim.run(text.replace("'", '"'), set=sets)
    access = compare._quantity(compare._topology_value(text, "access_delay"))
    # an ACK reaches the sender an access hop after it leaves the router (1 Gb/s, 40 B
    # headers and options: under a µs), a segment the router an access hop after it leaves
    out: dict[str, dict] = {}
    ing_all = []
    for i, name in enumerate(names):
        acks = [
            (t + access, struct.unpack(">I", tcp[8:12])[0])
            for t, tcp, pl in pcap_tcp_headers(run.pcap[f"flow{i}.src_down"])
            if pl == 0 and t >= skip_s
        ]
        sends = [
            t
            for t, tcp, pl in pcap_tcp_headers(run.pcap[f"flow{i}.src_up"])
            if pl > 0 and t >= skip_s
        ]
        out[name] = train_starts(acks, sends)
        ing_all += [
            (t + access, *rest)
            for t, *rest in pcap_packets(run.pcap[f"flow{i}.src_up"])
            if rest[3] > 0
        ]
    ing_all.sort()
    egr = [p for p in pcap_packets(run.pcap["bottleneck"]) if p[4] > 0]
    ports = {10000 + i: n for i, n in enumerate(names)}
    for p, name in ports.items():
        mine = [x for x in ing_all if x[1] == p]
        lost = {i for i in unmatched(mine, egr) if skip_s <= mine[i][0] <= secs - 0.5}
        out[name].update(run_openers(mine, lost))
    out["_events"] = drop_stats(ing_all, egr, ports, skip_s, secs - 0.5)["events_by_losers"]
    out["_zones"] = event_zones(ing_all, egr, ports, skip_s, secs - 0.5)
    limit = int(compare._point(point)["buf_pkts"])
    # each flow's ACKs where they leave the router towards its sender, as r0 sees them
    at_router = {
        10000 + i: [
            (t, struct.unpack(">I", tcp[8:12])[0])
            for t, tcp, pl in pcap_tcp_headers(run.pcap[f"flow{i}.src_down"])
            if pl == 0
        ]
        for i in range(len(names))
    }
    # what the senders send at an ACK reaches the router two access hops after it left
    # (less a µs, for the traces' rounding)
    out["_queue"] = event_queue(
        ing_all, egr, at_router, ports, skip_s, secs - 0.5, limit, lag=2 * access - 1e-6
    )
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*", help="testbed run directories (r0.pcap, r1.pcap)")
    ap.add_argument("--ccsim", metavar="POINT")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    a = ap.parse_args(argv)
    for d in a.runs:
        print(d, json.dumps(testbed_run(d)))
    if a.ccsim:
        import compare

        sets = compare.parse_sets(a.set)
        for s in a.seeds:
            print(f"ccsim seed {s}", json.dumps(ccsim_run(a.ccsim, s, sets)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
