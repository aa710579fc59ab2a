"""Instructions per simulated packet of each congestion control on one scenario,
counted by callgrind.

    python benches/callgrind_cc.py BIN [--cc bbr3,bbr,cubic] [--duration 20]

BIN is the `run_scenario` example (`cargo build --release --example run_scenario -p
ccsim`, fat LTO as the wheel). The scenario is the same for every algorithm: 4 flows,
a 100 Mb/s dumbbell, 50 ms RTT, a 1 BDP buffer, SACK, the linux profile. The count is
callgrind's total for the whole run (parsing and setup included, under 1 % here) over
the packets the bottleneck carried; it repeats exactly for the same binary and input,
where wall clock on a shared machine does not.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

SCENARIO = """
seed = 1
duration = "{duration}s"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "15ms"
access_rate = "1Gbps"
access_delay = "5ms"
buffer = "1bdp"
[[flows]]
cc = "{cc}"
count = 4
recovery = "sack"
"""


def run(binary: str, scenario: Path) -> tuple[int, float]:
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, str(scenario)],
        capture_output=True,
        text=True,
        check=True,
    )
    m = re.search(r"Collected : (\d+)", out.stderr)
    p = re.search(r": (\d+) bottleneck packets", out.stdout)
    if m is None or p is None:
        raise RuntimeError(f"no callgrind total for {scenario}:\n{out.stderr[-2000:]}")
    return int(m.group(1)), float(p.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--cc", default="bbr3,bbr,cubic")
    ap.add_argument("--duration", type=float, default=20.0)
    a = ap.parse_args()
    print(f"{'cc':8} {'instructions':>14} {'packets':>10} {'instr/packet':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        for cc in a.cc.split(","):
            path = Path(tmp) / f"{cc}.toml"
            path.write_text(SCENARIO.format(cc=cc, duration=a.duration))
            instr, pkts = run(a.binary, path)
            print(f"{cc:8} {instr:14d} {pkts:10.0f} {instr / pkts:13.0f}")


if __name__ == "__main__":
    main()
