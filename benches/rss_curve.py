"""Resident memory over the course of a long run: is a long run's memory flat?

    python benches/rss_curve.py packet   # 100 flows, 100 Mb/s, 3600 s (bench config D's network)
    python benches/rss_curve.py fluid    # 10 HSTCP flows, 10 Gb/s, 10^6 s (bench --fluid's)
    python benches/rss_curve.py packet --duration 600 --sample-interval 1s

The run goes to a child process (``ccsim.run``, results kept in memory as the API
keeps them); this process reads the child's ``VmRSS`` from ``/proc/PID/status`` every
0.5 s and prints a table of wall time, simulated progress (the run's progress
callback, written by the child to a pipe) and RSS, then the peak (``VmHWM``). What
grows with the duration by design is the sampled series (duration / sample_interval
samples of 5 points per reported link and 3 per flow); anything else that grows is a
leak or an unbounded log.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from ccsim.bench import CONFIGS, fluid_scenario

CHILD = """\
import sys, ccsim
text = sys.stdin.read()
def progress(frac):
    sys.stdout.write(f"{frac:.4f}\\n"); sys.stdout.flush()
r = ccsim.run(text, progress=progress, memory_limit="off")
sys.stdout.write(f"done {r.summary.get('wall_s')} {len(r.series)}\\n"); sys.stdout.flush()
"""


def status(pid: int) -> dict[str, int]:
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    out[k] = int(v.split()[0]) * 1024
    except FileNotFoundError:
        pass
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine", choices=("packet", "fluid"))
    ap.add_argument("--duration", type=float, default=None, help="simulated seconds")
    ap.add_argument("--sample-interval", default=None, help='"100ms", "10s"; "none": no series')
    ap.add_argument("--every", type=float, default=0.5, help="seconds between RSS samples")
    ap.add_argument("--print-every", type=float, default=5.0, help="seconds between rows")
    args = ap.parse_args()
    if args.engine == "packet":
        duration = args.duration or 3600.0
        text = CONFIGS["D"].scenario(duration / CONFIGS["D"].duration_s)
        interval = args.sample_interval or "100ms"
    else:
        duration = args.duration or 1e6
        text = fluid_scenario(duration)
        interval = args.sample_interval or "100s"
    text = text.replace('sample_interval = "100ms"\n', "")
    if interval != "none":  # "none": no series at all
        text = f'sample_interval = "{interval}"\n' + text
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    proc.stdin.write(text)
    proc.stdin.close()
    os.set_blocking(proc.stdout.fileno(), False)
    print(f"# {args.engine}: {duration:g} s simulated, sample_interval {interval}")
    print("| wall s | simulated % | RSS MB |")
    print("| ---: | ---: | ---: |")
    t0 = time.monotonic()
    frac, last_print, peak, done = 0.0, -1e9, 0, ""
    while True:
        st = status(proc.pid)
        peak = max(peak, st.get("VmHWM", 0))
        buf = ""
        try:
            buf = os.read(proc.stdout.fileno(), 1 << 16).decode()
        except BlockingIOError:
            pass
        for line in buf.splitlines():
            if line.startswith("done"):
                done = line
            elif line:
                frac = float(line)
        now = time.monotonic() - t0
        if st and now - last_print >= args.print_every:
            print(f"| {now:.1f} | {100 * frac:.1f} | {st['VmRSS'] / 1e6:,.0f} |", flush=True)
            last_print = now
        if proc.poll() is not None:
            break
        time.sleep(args.every)
    print(f"# exit {proc.returncode}; {done}; peak RSS (VmHWM) {peak / 1e6:,.0f} MB")


if __name__ == "__main__":
    main()
