"""The cost per packet as flows grow on one bottleneck, and the scale rows.

    python benches/scale.py                      # 10, 100, 1,000, 10,000 flows, 10 s each
    python benches/scale.py --flows 10,10000 --duration 5
    python benches/scale.py --graph              # also the 1,000-node graph
    python benches/scale.py --shared             # also 10,000 flows on shared access links
    python benches/scale.py --cachegrind BIN --duration 3
        # instructions and L2 misses per event under valgrind (BIN: the run_scenario
        # example), in place of the timed runs

Every flow count shares the same 10 Gb/s bottleneck (``ccsim.bench.scale_dumbbell``:
NewReno, RTT 100 ms, buffer 0.25 BDP), so the packets per simulated second are those
of the link whatever N is; a flat curve of wall time per event (and per bottleneck
packet) means nothing in the engine scans the flows per event. Each case runs alone in
a fresh process; peak RSS is that process's ``ru_maxrss`` (the interpreter included,
about 110 MB). The wall time is the core's (the simulation, not the encoding).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

from ccsim.bench import (
    SCALE_FLOWS,
    run_scale_case,
    scale_dumbbell,
    scale_graph,
)


def scale_shared(flows: int, duration_s: float) -> str:
    """``scale_dumbbell``'s paths with one access link per side shared by every flow
    (a graph: s -> r1 -> r2 -> d), so that only the flows' own state grows with N."""
    return f"""\
name = "scale-shared-{flows}"
seed = 1
duration = "{duration_s:g}s"
warmup = "200ms"
sample_interval = "100ms"

[topology]
kind = "graph"
routing = "hops"
nodes = ["s", "r1", "r2", "d"]

[[topology.links]]
from = "s"
to = "r1"
rate = "100Gbps"
delay = "12.5ms"
buffer = "100000pkt"
monitor = false

[[topology.links]]
from = "r1"
to = "r2"
rate = "10Gbps"
delay = "25ms"
buffer = "20833pkt"
reverse_buffer = "100000pkt"

[[topology.links]]
from = "r2"
to = "d"
rate = "100Gbps"
delay = "12.5ms"
buffer = "100000pkt"
monitor = false

[[flows]]
count = {flows}
src = "s"
dst = "d"
cc = "newreno"
start = {{ uniform = ["0s", "1s"] }}
"""


def l2_bytes() -> int:
    """This machine's per-core L2 size (what cachegrind's last level stands for)."""
    text = Path("/sys/devices/system/cpu/cpu0/cache/index2/size").read_text().strip()
    return int(text.rstrip("K")) * 1024 if text.endswith("K") else int(text)


def cachegrind(binary: str, label: str, text: str) -> None:
    """Instructions and L2 data misses per event of one case (cachegrind simulates
    the caches: the counts repeat exactly, whatever else the machine runs)."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "case.toml"
        path.write_text(text)
        out = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=yes",
                f"--LL={l2_bytes()},16,64",
                "--cachegrind-out-file=/dev/null",
                binary,
                str(path),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    num = lambda pat: int(re.search(pat, out.stderr).group(1).replace(",", ""))  # noqa: E731
    events = int(re.search(r"(\d+) events", out.stdout).group(1))
    instr = num(r"I\s+refs:\s+([\d,]+)")
    rd = num(r"LLd misses:\s+[\d,]+\s+\(\s*([\d,]+) rd")
    wr = num(r"LLd misses:\s+[\d,]+\s+\(\s*[\d,]+ rd\s+\+\s+([\d,]+) wr")
    print(
        f"| {label} | {events:,} | {instr / events:.0f} | {rd / events:.2f} | {wr / events:.2f} |",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", default=",".join(map(str, SCALE_FLOWS)))
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds")
    ap.add_argument("--graph", action="store_true", help="also the 1,000-node graph")
    ap.add_argument(
        "--shared", action="store_true", help="also 10,000 flows on shared access links"
    )
    ap.add_argument("--cachegrind", metavar="BIN", help="count under valgrind with BIN")
    args = ap.parse_args()
    flows = [int(x) for x in args.flows.split(",")]
    if args.cachegrind:
        print(
            "| case | events | instructions / event "
            "| L2 read misses / event | L2 write misses / event |"
        )
        print("| --- | ---: | ---: | ---: | ---: |")
        for n in flows:
            cachegrind(args.cachegrind, f"{n} flows", scale_dumbbell(n, args.duration))
        if args.shared:
            n = max(flows)
            cachegrind(args.cachegrind, f"{n} flows, shared access", scale_shared(n, args.duration))
        return
    print(
        "| flows | simulated s | wall s | events | bottleneck pkts | ns / event "
        "| CPU ns / event | ns / bottleneck pkt | peak RSS MB |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    cases = [(f"{n} flows", n, scale_dumbbell(n, args.duration)) for n in flows]
    if args.shared:
        n = max(flows)
        cases.append((f"{n} flows, shared access", n, scale_shared(n, args.duration)))
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
