#!/usr/bin/env python3
"""Run a command every INTERVAL seconds for DURATION seconds; write each output
preceded by a line '@@ <CLOCK_MONOTONIC seconds>' to OUT.

Used inside a namespace (ip netns exec NS python3 sampler.py ...) to sample
`ss -tin` at the sender and `tc -s qdisc` at the router.  CLOCK_MONOTONIC is
shared by all namespaces, so samples from both line up.
"""
import subprocess
import sys
import time


def main():
    interval = float(sys.argv[1])
    duration = float(sys.argv[2])
    out = sys.argv[3]
    cmd = sys.argv[4:]
    end = time.monotonic() + duration
    nxt = time.monotonic()
    with open(out, "w") as f:
        while True:
            t = time.monotonic()
            if t >= end:
                break
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=2)
                f.write(f"@@ {t:.6f}\n{r.stdout}")
            except subprocess.TimeoutExpired:
                f.write(f"@@ {t:.6f}\n#timeout\n")
            nxt += interval
            d = nxt - time.monotonic()
            if d > 0:
                time.sleep(d)
            else:
                nxt = time.monotonic()


if __name__ == "__main__":
    main()
