"""How well a sweep keeps the cores busy, and what each run costs outside the simulator.

    python benches/sweep_overhead.py [--runs 100] [--duration 30s] [--workers N]

Sweeps the example dumbbell over buffer sizes x algorithms x seeds (``--runs`` points
in all) into a fresh temporary directory on the local process pool, then prints

- parallel efficiency = sum of per-run simulation wall times (the core's own
  ``wall_s``) / (sweep wall time x workers), with and without the pool's start-up;
- per-run overhead outside the simulation: the amortised figure
  (wall x workers - sum of simulation times) / runs, and its parts: in the worker
  (``ccsim.run`` around the core, Parquet encoding) and in the parent (writing the run
  directory atomically, with fsync).

Not a test: timings depend on the machine. The issue's target is a per-run overhead
under 50 ms with every core busy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from ccsim.sweep import sweep

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"
BUFFERS = ["0.1bdp", "0.25bdp", "0.5bdp", "bdp", "2bdp"]
ALGOS = ["newreno", "cubic"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=100, help="multiple of 10 (5 buffers x 2 cc)")
    ap.add_argument("--duration", default="30s", help="simulated time per run")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    args = ap.parse_args()
    seeds = max(1, args.runs // (len(BUFFERS) * len(ALGOS)))
    grid = {"topology.buffer": BUFFERS, "flows[0].cc": ALGOS}
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ccsim-sweep-bench-") as tmp:
        serial = _serial_overhead(Path(tmp), args.duration)
        t0 = time.perf_counter()
        s = sweep(
            EXAMPLE,
            grid,
            seeds=seeds,
            set=[f'duration="{args.duration}"', 'warmup="1s"'],
            directory=Path(tmp) / "s",
            workers=args.workers,
            progress=False,
        )
        total = time.perf_counter() - t0
    n = s.ran
    assert s.failed == 0 and n == len(BUFFERS) * len(ALGOS) * seeds
    sim = [t["sim_wall_s"] for t in s.timings]
    worker_extra = [t["worker_s"] - t["sim_wall_s"] for t in s.timings]
    write = [t["write_s"] for t in s.timings]
    w = args.workers
    # The first result arrives after the pool started and one run finished; the time
    # before that first run began is start-up (forkserver, imports in each worker).
    startup = s.wall_s - (sum(sim) + sum(worker_extra)) / w
    load = os.getloadavg()[0]
    print(f"{n} runs of {args.duration} simulated, {w} workers, {os.cpu_count()} cores")
    print(f"  load average before: {load0:.2f}, after: {load:.2f} (other work shares the cores)")
    print(
        f"  sweep wall time            {s.wall_s:8.3f} s  (with planning/validation {total:.3f} s)"
    )
    med = statistics.median(sim) * 1e3
    print(f"  sum of simulation times    {sum(sim):8.3f} s  (median run {med:.1f} ms)")
    print(f"  parallel efficiency        {sum(sim) / (s.wall_s * w):8.1%}")
    steady = s.wall_s - max(0.0, startup)
    print(
        f"  ... excluding start-up     {sum(sim) / (steady * w):8.1%}  (start-up ≈ {startup:.2f} s)"
    )
    amortised = (s.wall_s * w - sum(sim)) / n
    print(f"  overhead per run, amortised  {amortised * 1e3:6.1f} ms  (target < 50 ms)")
    print(f"    in the worker (median)     {statistics.median(worker_extra) * 1e3:6.1f} ms")
    print(f"    writing in the parent      {statistics.median(write) * 1e3:6.1f} ms  (median)")
    print("  overhead per run, one run at a time on an otherwise idle process (median):")
    print(f"    ccsim.run around the core  {serial['call'] * 1e3:6.1f} ms")
    print(f"    Parquet/JSON encoding      {serial['encode'] * 1e3:6.1f} ms")
    print(f"    atomic write with fsync    {serial['write'] * 1e3:6.1f} ms")
    print(f"    total                      {serial['total'] * 1e3:6.1f} ms  (target < 50 ms)")


def _serial_overhead(tmp: Path, duration: str, n: int = 20) -> dict[str, float]:
    """The same per-run work as a sweep, one run after another in this process."""
    from ccsim.sweep import RunSpec, _commit_run, execute

    text = EXAMPLE.read_text()
    runs = tmp / "serial"
    runs.mkdir()
    call, encode, write = [], [], []
    for i in range(n + 1):
        out = execute(text, [f'duration="{duration}"', 'warmup="1s"', f"seed={i + 1}"])
        t = time.perf_counter()
        _commit_run(runs, RunSpec((), i + 1, i), out, {})
        if i == 0:
            continue  # the first call pays one-time imports
        write.append(time.perf_counter() - t)
        call.append(out["call_s"] - out["sim_wall_s"])
        encode.append(out["encode_s"])
    med = statistics.median
    return {
        "call": med(call),
        "encode": med(encode),
        "write": med(write),
        "total": med(c + e + w for c, e, w in zip(call, encode, write, strict=True)),
    }


if __name__ == "__main__":
    main()
