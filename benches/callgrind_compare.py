"""Instructions per `ccsim bench` configuration under two builds, counted by callgrind.

    python benches/callgrind_compare.py OLD_BIN NEW_BIN [--scale 0.2] [--only B,C]
        [--old-drops ""] [--profile linux]

OLD_BIN and NEW_BIN are `run_scenario` examples built from the two commits
(`cargo build --release --example run_scenario -p ccsim`, fat LTO as the wheel).
Every configuration of `ccsim.bench` (and the fluid one) is written at `--scale` of its
duration to a temporary directory and run once under each build; the table gives the
instruction counts, their ratio, and the ratio per simulated event (for builds whose runs
differ in behaviour, as a changed TCP profile's do). The benches pin `profile = "ns2"`;
`--profile linux` runs them under another TCP profile instead (both builds must know
profiles: pass `--old-drops ""`).

Why instructions: on a shared or virtual machine wall clock varies by tens of per cent
between identical runs, while callgrind's count repeats exactly for the same binary and
input whatever else the machine does. Report it beside an interleaved wall-clock run
(`ccsim bench`) where the machine is quiet enough for that to mean something.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

from ccsim.bench import CONFIGS, FLUID_SINGLE_S, fluid_scenario


def instructions(binary: str, scenario: Path) -> tuple[int, float]:
    """Callgrind's instruction count for one run of *scenario*, and the run's event count
    (what run_scenario prints), so that builds whose runs differ in behaviour can be
    compared per event."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, str(scenario)],
        capture_output=True,
        text=True,
        check=True,
    )
    m = re.search(r"Collected : (\d+)", out.stderr)
    if m is None:
        raise RuntimeError(f"no callgrind total for {scenario}:\n{out.stderr[-2000:]}")
    ev = re.search(r"([\d.]+) events", out.stdout)
    return int(m.group(1)), float(ev.group(1)) if ev else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--scale", type=float, default=0.2)
    ap.add_argument("--only", default="", help="comma-separated configs (default: all)")
    ap.add_argument(
        "--old-drops",
        default="profile = ",
        help="lines starting with this are left out of the old build's scenario: a build "
        "from before TCP profiles does not know `profile` and runs the ns2 defaults the "
        "benches pin (empty: keep every line)",
    )
    ap.add_argument(
        "--profile",
        default="",
        help='run every packet config under this TCP profile instead of the benches\' "ns2"',
    )
    a = ap.parse_args()
    wanted = {k for k in a.only.split(",") if k}
    scenarios = {k: c.scenario(a.scale) for k, c in CONFIGS.items()}
    scenarios["fluid"] = fluid_scenario(FLUID_SINGLE_S * a.scale)
    print(f"{'config':8} {'old':>14} {'new':>14} {'new/old':>8} {'per event':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for key, text in scenarios.items():
            if wanted and key not in wanted:
                continue
            if a.profile:
                text = text.replace('profile = "ns2"', f'profile = "{a.profile}"')
            path = Path(tmp) / f"{key}.toml"
            path.write_text(text)
            old_path = Path(tmp) / f"{key}.old.toml"
            keep = [
                ln for ln in text.splitlines() if not (a.old_drops and ln.startswith(a.old_drops))
            ]
            old_path.write_text("\n".join(keep) + "\n")
            (old, old_ev), (new, new_ev) = instructions(a.old, old_path), instructions(a.new, path)
            # The fluid engine counts no events.
            per_event = (new / new_ev) / (old / old_ev) if old_ev and new_ev else float("nan")
            print(f"{key:8} {old:14d} {new:14d} {new / old:8.4f} {per_event:9.4f}", flush=True)


if __name__ == "__main__":
    main()
