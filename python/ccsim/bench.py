"""The fixed benchmark configurations behind ``ccsim bench``.

Four dumbbells, all NewReno with 1500-byte packets (MSS 1460 B + 40 B of headers),
access links at ten times the bottleneck rate with 12.5 ms on each side and a 25 ms
bottleneck, so a 100 ms round trip; flows start uniformly in [0 s, 1 s].
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BenchConfig:
    key: str
    flows: int
    bottleneck_rate: str
    access_rate: str
    buffer: str
    duration_s: float

    def describe(self) -> str:
        flows = f"{self.flows} flow" + ("s" if self.flows != 1 else "")
        return f"{flows}, {self.bottleneck_rate}, buffer {self.buffer}"

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

[[flows]]
count = {self.flows}
cc = "newreno"
start = {{ uniform = ["0s", "1s"] }}

[tcp]
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
    )
}
