"""The dumbbells on which ccsim's ns3 profile is compared with ns-3.44 (reference.py runs
them in ns-3, tests/test_ns3_reference.py in ccsim), and the ccsim scenario of each."""

from __future__ import annotations

import random

# ns-3's point-to-point link puts a 2-byte PPP header on every IP packet: 1502 bytes on
# the wire for ccsim's 1500 (1448 + 52). ccsim's bottleneck runs at rate x 1500/1502 so
# that both carry the same packets per second.
WIRE_NS3, WIRE_CCSIM, MSS = 1502, 1500, 1448


def _bdp_pkts(rate_mbps: float, rtt_ms: float) -> float:
    return rate_mbps * 1e6 * rtt_ms / 1e3 / (8 * WIRE_NS3)


def _point(
    cc: str, flows: int, rate_mbps: float, rtt_ms: float, buffer_pkts: int, dur: float, warm: float
):
    return {
        "cc": cc,
        "ns3_cc": {"newreno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic"}[cc],
        "flows": flows,
        "rate_mbps": rate_mbps,
        "rtt_ms": rtt_ms,
        "buffer_pkts": buffer_pkts,
        "duration_s": dur,
        "warmup_s": warm,
    }


_B = round(_bdp_pkts(100, 50))  # 416 packets
POINTS = {
    "newreno_1_b104": _point("newreno", 1, 100, 50, _B // 4, 40, 10),
    "newreno_1_b416": _point("newreno", 1, 100, 50, _B, 40, 10),
    "newreno_10_b132": _point("newreno", 10, 100, 50, round(_B / 10**0.5), 40, 10),
    "newreno_10_b20": _point("newreno", 10, 100, 50, 20, 40, 10),
    "newreno_50_b20": _point("newreno", 50, 100, 50, 20, 40, 10),
    "cubic_1_b416": _point("cubic", 1, 100, 50, _B, 40, 10),
    "cubic_10_b132": _point("cubic", 10, 100, 50, round(_B / 10**0.5), 40, 10),
}


def start_times_us(n: int, seed: int) -> list[int]:
    """Flow start instants in microseconds, drawn uniformly from the first millisecond
    by a generator seeded with *seed* (Python's Mersenne Twister, so both simulators get
    the same instants; a rotation of one set would only relabel the flows)."""
    rng = random.Random(seed)
    return [rng.randrange(1000) for _ in range(n)]


# The uneven-path variant: each flow's two access links get their own one-way delay,
# 0.5 ms ± JITTER_MS (uniform, in whole microseconds), drawn per seed.
JITTER_MS = 0.1


def access_delays_us(n: int, seed: int) -> list[int]:
    """Per-flow access-link delays in microseconds for the uneven-path variant, the same
    in both simulators (Python's Mersenne Twister seeded with 1000 + *seed*)."""
    rng = random.Random(1000 + seed)
    return [round(1000 * (0.5 + rng.uniform(-JITTER_MS, JITTER_MS))) for _ in range(n)]


def scenario_text(name: str, seed: int, uneven: bool = False) -> str:
    """The ccsim scenario of point *name*, seed *seed*; *uneven*: each flow's access
    links take their delay from ``access_delays_us`` instead of 0.5 ms."""
    return scenario_of(POINTS[name], name, seed, uneven)


def scenario_of(p: dict, name: str, seed: int, uneven: bool = False) -> str:
    """The ccsim scenario of the dumbbell *p* (a ``_point``), named *name*."""
    rate = p["rate_mbps"] * WIRE_CCSIM / WIRE_NS3
    delays = access_delays_us(p["flows"], seed) if uneven else [None] * p["flows"]
    flows = "\n".join(
        f'[[flows]]\ncount = 1\ncc = "{p["cc"]}"\nstart = "{t}us"\n'
        + (f'access_delay = "{d}us"\n' if d is not None else "")
        for t, d in zip(start_times_us(p["flows"], seed), delays, strict=True)
    )
    return f"""# ns-3 comparison point {name} (validation/ns3/points.py)
name = "ns3-{name}"
seed = {seed}
duration = "{p["duration_s"]}s"
warmup = "{p["warmup_s"]}s"

[topology]
kind = "dumbbell"
bottleneck_rate = "{rate}Mbps"
bottleneck_delay = "{p["rtt_ms"] / 2 - 1.0}ms"
access_rate = "10Gbps"
access_delay = "0.5ms"
buffer = "{p["buffer_pkts"]}pkt"

[tcp]
profile = "ns3"

{flows}"""
