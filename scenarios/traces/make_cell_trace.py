"""Write ``cell.mahimahi``: a deterministic, cellular-like delivery trace in the
Mahimahi format (one line per 1500-byte delivery opportunity, an integer millisecond
timestamp; the trace repeats with the period of its last timestamp).

The capacity is a log-normal AR(1) process, redrawn every 10 ms around a median of
8 Mb/s (σ of the log rate 0.6, correlation 0.97 per 10 ms: variations over a few
hundred ms, as cellular links show), clipped to 0.5–40 Mb/s, with deep fades (no
opportunity at all for 50–300 ms) starting on average once every 5 s. Within each
millisecond the opportunities are the whole part of the accumulated rate, so the trace
delivers exactly the integrated capacity. Python's Mersenne Twister with a fixed seed
gives the same file on every Python 3.

    python scenarios/traces/make_cell_trace.py          # writes cell.mahimahi beside it
"""

from __future__ import annotations

import math
import random
from pathlib import Path

SEED = 16
PERIOD_MS = 30_000
STEP_MS = 10
MEDIAN_BPS = 8e6
SIGMA = 0.6
RHO = 0.97
FADE_EVERY_MS = 5_000
OPP_BITS = 1500 * 8


def opportunities() -> list[int]:
    rng = random.Random(SEED)
    x = 0.0  # log-rate deviation, stationary N(0, SIGMA²)
    fade_until = 0
    credit = 0.0
    out: list[int] = []
    for start in range(0, PERIOD_MS, STEP_MS):
        x = RHO * x + math.sqrt(1 - RHO * RHO) * SIGMA * rng.gauss(0.0, 1.0)
        rate = min(max(MEDIAN_BPS * math.exp(x), 0.5e6), 40e6)
        if start >= fade_until and rng.random() < STEP_MS / FADE_EVERY_MS:
            fade_until = start + rng.randint(5, 30) * STEP_MS
        if start < fade_until:
            rate = 0.0
        per_ms = rate / 1000 / OPP_BITS
        for ms in range(start + 1, start + STEP_MS + 1):
            credit += per_ms
            while credit >= 1.0:
                out.append(ms)
                credit -= 1.0
    # The period is the last timestamp: end on the period's last millisecond.
    out.append(PERIOD_MS)
    return out


def main() -> None:
    path = Path(__file__).with_name("cell.mahimahi")
    stamps = opportunities()
    path.write_text("".join(f"{t}\n" for t in stamps), encoding="ascii")
    mean = len(stamps) * OPP_BITS / (PERIOD_MS / 1000)
    print(f"{path}: {len(stamps)} opportunities over {PERIOD_MS} ms, mean {mean / 1e6:.2f} Mb/s")


if __name__ == "__main__":
    main()
