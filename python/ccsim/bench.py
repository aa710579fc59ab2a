"""The fixed benchmark configurations behind ``ccsim bench``.

Packet engine: four dumbbells, all NewReno with 1500-byte packets (MSS 1460 B + 40 B
of headers), access links at ten times the bottleneck rate with 12.5 ms on each side
and a 25 ms bottleneck, so a 100 ms round trip; flows start uniformly in [0 s, 1 s].

Fluid engine (``ccsim bench --fluid``, issue 6): study 004 §5.2's setting — 10
HighSpeed TCP flows on 10 Gb/s, RTTs 80–260 ms (20 ms apart, mean 170 ms), buffer
0.1 BDP, loss synchronization X = 0.3 — one 3000 s run on one core, then a batch of
1000 such scenarios of 300 s (seeds 1..1000) on every core.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from ccsim import _core


@dataclass(frozen=True)
class BenchConfig:
    key: str
    flows: int
    bottleneck_rate: str
    access_rate: str
    buffer: str
    duration_s: float
    # One row per algorithm family runs config B's network with another sender or
    # router: these name the algorithm, the loss recovery, pacing and the queue.
    cc: str = "newreno"
    recovery: str | None = None
    pacing: str | None = None
    queue: str | None = None

    def describe(self) -> str:
        flows = f"{self.flows} flow" + ("s" if self.flows != 1 else "")
        extra = "".join(
            f", {x}"
            for x in (self.recovery, self.pacing and f"{self.pacing} pacing", self.queue)
            if x
        )
        return f"{flows}, {self.cc}{extra}, {self.bottleneck_rate}, buffer {self.buffer}"

    def scenario(self, duration_scale: float = 1.0, seed: int = 1) -> str:
        duration = self.duration_s * duration_scale
        warmup = duration * 0.1
        return f"""\
name = "bench-{self.key}"
seed = {seed}
duration = "{_secs(duration)}"
warmup = "{_secs(warmup)}"
sample_interval = "100ms"

[topology]
kind = "dumbbell"
bottleneck_rate = "{self.bottleneck_rate}"
bottleneck_delay = "25ms"
access_rate = "{self.access_rate}"
access_delay = "12.5ms"
buffer = "{self.buffer}"
{f'queue = "{self.queue}"' if self.queue else ""}

[[flows]]
count = {self.flows}
cc = "{self.cc}"
start = {{ uniform = ["0s", "1s"] }}
{f'recovery = "{self.recovery}"' if self.recovery else ""}
{f'tcp = {{ pacing = "{self.pacing}" }}' if self.pacing else ""}

[tcp]
profile = "ns2"  # the same work as the benches before profiles (docs/tcp.md)
mss = "1460B"
header = "40B"
"""


def _secs(s: float) -> str:
    ms = round(s * 1000)
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


CONFIGS: dict[str, BenchConfig] = {
    c.key: c
    for c in (
        BenchConfig("A", 1, "100Mbps", "1Gbps", "bdp", 60),
        BenchConfig("B", 10, "1Gbps", "10Gbps", "stanford", 30),
        BenchConfig("C", 100, "1Gbps", "10Gbps", "20pkt", 30),
        BenchConfig("D", 100, "100Mbps", "1Gbps", "bdp", 60),
        # One row per algorithm family on config B's network.
        BenchConfig("HSTCP", 10, "1Gbps", "10Gbps", "stanford", 30, "highspeed", "sack"),
        BenchConfig("CUBIC", 10, "1Gbps", "10Gbps", "stanford", 30, "cubic"),
        BenchConfig("VEGAS", 10, "1Gbps", "10Gbps", "stanford", 30, "vegas"),
        BenchConfig("CTCP", 10, "1Gbps", "10Gbps", "stanford", 30, "compound"),
        BenchConfig("PACED", 10, "1Gbps", "10Gbps", "stanford", 30, pacing="leaky"),
        BenchConfig("XCP", 10, "1Gbps", "10Gbps", "bdp", 30, "xcp", pacing="leaky", queue="xcp"),
    )
}


# ---------------------------------------------------------------- fluid engine

FLUID_SINGLE_S = 3000.0
FLUID_BATCH_S = 300.0
FLUID_BATCH_N = 1000


def fluid_scenario(duration_s: float = FLUID_SINGLE_S, seed: int = 1) -> str:
    """Study 004 §5.2: 10 HSTCP flows, 10 Gb/s, RTT 80–260 ms, 0.1 BDP, X = 0.3."""
    flows = "".join(f'[[flows]]\ncc = "highspeed"\nrtt = "{80 + 20 * i}ms"\n' for i in range(10))
    return f"""\
name = "bench-fluid"
seed = {seed}
engine = "fluid"
duration = "{_secs(duration_s)}"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Gbps"
bottleneck_delay = "10ms"
buffer = "0.1bdp"

[tcp]
init_ssthresh = 1e9

[fluid]
sync = {{ min_level = 0.3 }}

{flows}"""


@dataclass(frozen=True)
class FluidBenchRow:
    label: str
    scenarios: int
    threads: int
    simulated_s: float
    wall_s: float
    steps: float
    utilization: float

    @property
    def scenario_s_per_wall_s(self) -> float:
        return self.scenarios * self.simulated_s / self.wall_s


def run_fluid(duration_scale: float = 1.0, batch: int = FLUID_BATCH_N) -> list[FluidBenchRow]:
    """Time the fluid engine: one run on one core, then *batch* runs on every core.

    Wall times are measured around the whole ``fluid_batch`` call (parsing included).
    """
    import ccsim

    rows = []
    single_s = FLUID_SINGLE_S * duration_scale
    t0 = time.perf_counter()
    df = ccsim.fluid_batch([fluid_scenario(single_s)], threads=1)
    wall = time.perf_counter() - t0
    rows.append(
        FluidBenchRow(
            "one run, 1 core",
            1,
            1,
            single_s,
            wall,
            float(df["steps"].sum()),
            float(df["utilization"].mean()),
        )
    )
    if batch > 0:
        batch_s = FLUID_BATCH_S * duration_scale
        # Seeds 1..batch: the replication seeds of seed 1 (the core's one rule).
        texts = [fluid_scenario(batch_s, _core.replication_seed(1, k)) for k in range(batch)]
        cores = os.cpu_count() or 1
        t0 = time.perf_counter()
        df = ccsim.fluid_batch(texts, progress=True)
        wall = time.perf_counter() - t0
        rows.append(
            FluidBenchRow(
                f"batch, {cores} cores",
                batch,
                cores,
                batch_s,
                wall,
                float(df["steps"].sum()),
                float(df["utilization"].mean()),
            )
        )
    return rows


def fluid_table(rows: list[FluidBenchRow]) -> Any:
    """The rows as a rich table."""
    from rich.table import Table

    t = Table(
        title="ccsim bench --fluid (study 004 §5.2: 10 HSTCP flows, 10 Gb/s, RTT 80-260 ms, "
        "0.1 BDP, X = 0.3)"
    )
    for col in (
        "run",
        "scenarios",
        "simulated s each",
        "wall s",
        "steps / wall s",
        "scenario-s / wall s",
        "mean utilization",
    ):
        t.add_column(col, justify="left" if col == "run" else "right")
    for r in rows:
        t.add_row(
            r.label,
            f"{r.scenarios:,}",
            f"{r.simulated_s:,.0f}",
            f"{r.wall_s:.3f}",
            f"{r.steps / r.wall_s / 1e6:.3g} M",
            f"{r.scenario_s_per_wall_s:,.0f}",
            f"{r.utilization:.4f}",
        )
    return t


# ---------------------------------------------------------------- scale (ccsim bench --scale)

# The same 10 Gb/s bottleneck for every flow count (a researcher's "more flows on my
# link"): each flow's share shrinks as N grows, the packets per second stay those of
# the link. NewReno, 1500-byte packets, RTT 100 ms, buffer 0.25 BDP, starts in [0, 1] s.
SCALE_RATE = "10Gbps"
SCALE_FLOWS = (10, 100, 1_000, 10_000)


def scale_dumbbell(flows: int, duration_s: float = 5.0, seed: int = 1) -> str:
    """A dumbbell of *flows* NewReno flows (default TCP profile) on one 10 Gb/s
    bottleneck."""
    return f"""\
name = "scale-dumbbell-{flows}"
seed = {seed}
duration = "{_secs(duration_s)}"
warmup = "{_secs(duration_s * 0.2)}"
sample_interval = "100ms"

[topology]
kind = "dumbbell"
bottleneck_rate = "{SCALE_RATE}"
bottleneck_delay = "25ms"
access_rate = "100Gbps"
access_delay = "12.5ms"
buffer = "0.25bdp"

[[flows]]
count = {flows}
cc = "newreno"
start = {{ uniform = ["0s", "1s"] }}
# The default (linux) TCP profile: with IW 10 and no initial ssthresh every N fills
# the link within the run, so each N moves the same packets and holds about the same
# data in flight; under the ns2 profile 10 and 100 flows never filled 10 Gb/s.
"""


def scale_graph(nodes: int = 1000, duration_s: float = 5.0, seed: int = 1) -> str:
    """A *nodes*-node graph: a ring of 1 Gb/s links plus one chord per node to a node
    drawn from a fixed-seed generator (so shortest paths are a few hops), and one
    NewReno flow per node to a drawn destination, hop-count routing."""
    import random

    rng = random.Random(seed)
    names = [f"n{i}" for i in range(nodes)]
    links = [(i, (i + 1) % nodes) for i in range(nodes)]
    seen = {tuple(sorted(p)) for p in links}
    for i in range(nodes):
        j = rng.randrange(nodes)
        key = tuple(sorted((i, j)))
        if j != i and key not in seen:
            seen.add(key)
            links.append((i, j))
    link_lines = ",\n".join(
        f'  {{ from = "{names[a]}", to = "{names[b]}", rate = "1Gbps", '
        f'delay = "{1 + (a * 7 + b) % 9}ms" }}'
        for a, b in links
    )
    flows = []
    for i in range(nodes):
        j = rng.randrange(nodes - 1)
        j += j >= i
        flows.append(
            f'[[flows]]\nsrc = "{names[i]}"\ndst = "{names[j]}"\n'
            'start = { uniform = ["0s", "1s"] }\n'
        )
    flow_text = "".join(flows)
    return f"""\
name = "scale-graph-{nodes}"
seed = {seed}
duration = "{_secs(duration_s)}"
warmup = "{_secs(duration_s * 0.2)}"
sample_interval = "500ms"

[topology]
kind = "graph"
routing = "hops"
buffer = "100pkt"
nodes = [{", ".join(f'"{n}"' for n in names)}]
links = [
{link_lines}
]

[tcp]
profile = "ns2"
mss = "1460B"
header = "40B"

{flow_text}"""


@dataclass(frozen=True)
class ScaleRow:
    label: str
    flows: int
    simulated_s: float
    wall_s: float
    events: int
    bottleneck_packets: int
    peak_rss_bytes: int
    # CPU time of the thread that ran the core (the run and its columnar encoding):
    # on a shared machine a steadier measure than the wall time.
    cpu_s: float = float("nan")

    @property
    def cpu_ns_per_event(self) -> float:
        return self.cpu_s / self.events * 1e9 if self.events else float("nan")

    @property
    def ns_per_event(self) -> float:
        return self.wall_s / self.events * 1e9 if self.events else float("nan")

    @property
    def ns_per_packet(self) -> float:
        p = self.bottleneck_packets
        return self.wall_s / p * 1e9 if p else float("nan")


_CHILD = """\
import json, sys, time
from ccsim import _core
text = sys.stdin.read()
t = time.thread_time()
r = _core.run(text, [], None, "off")
cpu = time.thread_time() - t
s = r["summary"]
s = json.loads(s) if isinstance(s, (str, bytes)) else s
out = {k: s.get(k) for k in ("wall_s", "events", "bottleneck_packets", "duration_s")}
print(json.dumps(dict(out, cpu_s=cpu)))
"""


def run_scale_case(label: str, flows: int, scenario: str) -> ScaleRow:
    """Run *scenario* alone in a fresh process: its peak RSS (``ru_maxrss`` of that
    process: the run's own memory plus the interpreter's) and the core's wall time
    (the simulation, not the process start or the Parquet encoding)."""
    import json
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdin.write(scenario)
    proc.stdin.close()
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{label}: exit {proc.returncode}: {err.strip()[-2000:]}")
    s = json.loads(out.strip().splitlines()[-1])
    return ScaleRow(
        label,
        flows,
        float(s["duration_s"]),
        float(s["wall_s"]),
        int(s["events"] or 0),
        int(s["bottleneck_packets"] or 0),
        usage.ru_maxrss * 1024,  # Linux: kilobytes
        float(s["cpu_s"]),
    )


def run_scale(duration_scale: float = 1.0) -> list[ScaleRow]:
    """The scale rows: a 10,000-flow dumbbell at 10 Gb/s (5 s, 26 M events) and a
    1,000-node graph with 1,000 flows (1 s, 5 M events), each in its own process."""
    return [
        run_scale_case("dumbbell, 10 Gb/s", 10_000, scale_dumbbell(10_000, 5.0 * duration_scale)),
        run_scale_case("graph, 1,000 nodes", 1_000, scale_graph(1_000, 1.0 * duration_scale)),
    ]


def scale_table(rows: list[ScaleRow]) -> Any:
    """The rows as a rich table."""
    from rich.table import Table

    t = Table(title="ccsim bench --scale (packet engine, NewReno, one process per row)")
    for col in (
        "run",
        "flows",
        "simulated s",
        "wall s",
        "events",
        "ns / event",
        "CPU ns / event",
        "ns / bottleneck pkt",
        "peak RSS",
    ):
        t.add_column(col, justify="left" if col == "run" else "right")
    for r in rows:
        t.add_row(
            r.label,
            f"{r.flows:,}",
            f"{r.simulated_s:g}",
            f"{r.wall_s:.2f}",
            f"{r.events:,}",
            f"{r.ns_per_event:.0f}",
            f"{r.cpu_ns_per_event:.0f}",
            # A graph has no one bottleneck that all packets cross.
            "-" if r.bottleneck_packets == 0 or "graph" in r.label else f"{r.ns_per_packet:.0f}",
            f"{r.peak_rss_bytes / 1e6:,.0f} MB",
        )
    return t
