"""The cost per packet as flows grow on one bottleneck, and the scale rows.

    python benches/scale.py                      # 10, 100, 1,000, 10,000 flows, 10 s each
    python benches/scale.py --flows 10,10000 --duration 5
    python benches/scale.py --graph              # also the 1,000-node graph

Every flow count shares the same 10 Gb/s bottleneck (``ccsim.bench.scale_dumbbell``:
NewReno, RTT 100 ms, buffer 0.25 BDP), so the packets per simulated second are those
of the link whatever N is; a flat curve of wall time per event (and per bottleneck
packet) means nothing in the engine scans the flows per event. Each case runs alone in
a fresh process; peak RSS is that process's ``ru_maxrss`` (the interpreter included,
about 110 MB). The wall time is the core's (the simulation, not the encoding).
"""

from __future__ import annotations

import argparse

from ccsim.bench import (
    SCALE_FLOWS,
    run_scale_case,
    scale_dumbbell,
    scale_graph,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", default=",".join(map(str, SCALE_FLOWS)))
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds")
    ap.add_argument("--graph", action="store_true", help="also the 1,000-node graph")
    args = ap.parse_args()
    print(
        "| flows | simulated s | wall s | events | bottleneck pkts | ns / event "
        "| CPU ns / event | ns / bottleneck pkt | peak RSS MB |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    cases = [
        (f"{n} flows", n, scale_dumbbell(n, args.duration))
        for n in (int(x) for x in args.flows.split(","))
    ]
    if args.graph:
        cases.append(("graph, 1,000 nodes", 1000, scale_graph(1000, args.duration)))
    for label, n, text in cases:
        r = run_scale_case(label, n, text)
        print(
            f"| {r.label} | {r.simulated_s:g} | {r.wall_s:.2f} | {r.events:,} "
            f"| {r.bottleneck_packets:,} | {r.ns_per_event:.0f} | {r.cpu_ns_per_event:.0f} "
            f"| {r.ns_per_packet:.0f} "
            f"| {r.peak_rss_bytes / 1e6:,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
