#!/usr/bin/env python3
"""Which clock the running kernel's CUBIC reads, from its own machine code.

`tcp_cubic.c`'s `bictcp_update` holds cnt while
`(s32)(tcp_jiffies32 - ca->last_time) <= HZ / 32`; a 2024 netdev proposal ("tcp_cubic:
switch ca->last_time to usec resolution") would compare `tp->tcp_mstamp - last_time`
with USEC_PER_SEC / 32 = 31250 instead. Which one a kernel runs decides the steps of
CUBIC's curve (ccsim's CUBIC parameter `hz`, docs/linux.md "CUBIC's clock"). This kernel
has no kprobes and no /proc/kcore, but BPF can read kernel text: bpftrace copies
`cubictcp_cong_avoid` (bictcp_update is inlined there) with `buf(kaddr(...))`, objdump
disassembles it, and the hold is the instruction triple

    mov  <global>(%rip),%rax      ; tcp_jiffies32
    sub  <last_time>(%reg),%eax
    cmp  $<HZ/32>,%eax

The global is then read twice, half a second apart: jiffies advance by HZ/2 in that time.
CONFIG_HZ comes from /proc/config.gz where the kernel offers it, and tcp_cubic's module
parameters (beta, bic_scale, HyStart's) from /sys/module/tcp_cubic/parameters.

Needs root, x86-64, `apt-get install bpftrace binutils`. Writes kernel_clock.json:

    python3 validation/linux/kernel_clock.py [--out validation/linux/kernel_clock.json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FUNC = "cubictcp_cong_avoid"
CHUNK = 64  # bytes per bpftrace buf() read
USEC_HOLD = 1_000_000 // 32  # the usec proposal's USEC_PER_SEC / 32


def bpftrace(program: str, timeout: float = 60.0) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".bt") as f:
        f.write(program)
        f.flush()
        r = subprocess.run(["bpftrace", f.name], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise SystemExit(f"bpftrace failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


def function_size(name: str) -> tuple[int, int]:
    """Address of *name* and the distance to the next text symbol (its size, padding included)."""
    addrs = []
    for line in Path("/proc/kallsyms").read_text().splitlines():
        a, kind, sym = line.split()[:3]
        if kind in "tT":
            addrs.append((int(a, 16), sym))
    addrs.sort()
    for (a, s), (b, _) in zip(addrs, addrs[1:], strict=False):
        if s == name:
            if a == 0:
                raise SystemExit("/proc/kallsyms shows zero addresses: run as root")
            return a, b - a
    raise SystemExit(f"{name} is not in /proc/kallsyms (is tcp_cubic built in or loaded?)")


def read_text(addr: int, size: int) -> bytes:
    n = (size + CHUNK - 1) // CHUNK
    prog = "BEGIN {\n"
    for i in range(n):
        prog += f'  printf("%rx\\n", buf((uint8 *){addr + i * CHUNK:#x}, {CHUNK}));\n'
    prog += "  exit();\n}\n"
    out = bytearray()
    for line in bpftrace(prog).splitlines():
        if line.startswith("\\x"):
            out += bytes(int(h, 16) for h in line.split("\\x")[1:])
    if len(out) != n * CHUNK:
        raise SystemExit(f"read {len(out)} bytes of {FUNC}, expected {n * CHUNK}")
    return bytes(out[:size])


def disassemble(code: bytes, addr: int) -> list[tuple[int, str]]:
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(code)
        f.flush()
        r = subprocess.run(
            [
                "objdump",
                "-D",
                "-b",
                "binary",
                "-m",
                "i386:x86-64",
                f"--adjust-vma={addr:#x}",
                f.name,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    ins = []
    for line in r.stdout.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)$", line)
        if m and m.group(2):
            ins.append((int(m.group(1), 16), re.sub(r"\s+", " ", m.group(2).strip())))
    return ins


def find_hold(ins: list[tuple[int, str]]) -> list[dict]:
    """Every `mov global(%rip),%rax; sub off(%r),%eax; cmp $imm,%eax` in the function."""
    out = []
    for (a0, i0), (_, i1), (_, i2) in zip(ins, ins[1:], ins[2:], strict=False):
        g = re.match(r"mov 0x[0-9a-f]+\(%rip\),%rax # (0x[0-9a-f]+)", i0)
        s = re.match(r"sub (0x[0-9a-f]+)\(%r\w+\),%eax", i1)
        c = re.match(r"cmp \$(0x[0-9a-f]+),%eax", i2)
        if g and s and c:
            out.append(
                {
                    "at": f"{a0:#x}",
                    "global": g.group(1),
                    "field_offset": s.group(1),
                    "compared_with": int(c.group(1), 16),
                    "instructions": [i0, i1, i2],
                }
            )
    return out


def ticks_per_second(global_addr: int) -> float:
    """The global's advance per second of CLOCK_MONOTONIC, over half a second."""
    prog = (
        f'BEGIN {{ $p = (uint64 *){global_addr:#x}; printf("%lu %lu\\n", nsecs, *$p); }}\n'
        f"interval:ms:500 {{ $p = (uint64 *){global_addr:#x};"
        ' printf("%lu %lu\\n", nsecs, *$p); exit(); }\n'
    )
    rows = [
        tuple(map(int, x.split()))
        for x in bpftrace(prog).splitlines()
        if re.fullmatch(r"\d+ \d+", x)
    ]
    (t0, j0), (t1, j1) = rows[:2]
    return (j1 - j0) / ((t1 - t0) / 1e9)


def config_hz() -> int | None:
    try:
        with gzip.open("/proc/config.gz", "rt") as f:
            for line in f:
                if line.startswith("CONFIG_HZ="):
                    return int(line.split("=")[1])
    except OSError:
        return None
    return None


def cubic_parameters() -> dict[str, int]:
    """tcp_cubic's module parameters (beta in 1/1024, bic_scale, HyStart's), as the kernel
    runs them."""
    d = Path("/sys/module/tcp_cubic/parameters")
    return {f.name: int(f.read_text()) for f in sorted(d.iterdir())} if d.is_dir() else {}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=HERE / "kernel_clock.json")
    a = ap.parse_args(argv)
    if platform.machine() != "x86_64":
        raise SystemExit("the pattern matched here is x86-64 code")
    addr, size = function_size(FUNC)
    ins = disassemble(read_text(addr, size), addr)
    holds = find_hold(ins)
    hz = config_hz()
    if len(holds) != 1:
        raise SystemExit(f"expected one cnt hold in {FUNC}, found {len(holds)}: {holds}")
    hold = holds[0]
    # `ca->last_time = tcp_jiffies32`: the same field stored from the same global
    hold["stored_from_global"] = [
        f"{a:#x}: {i}"
        for a, i in ins
        if re.fullmatch(rf"mov %eax,{hold['field_offset']}\(%r\w+\)", i)
    ]
    rate = ticks_per_second(int(hold["global"], 16))
    imm = hold["compared_with"]
    if imm == USEC_HOLD:
        clock = "usec"
    elif hold["stored_from_global"] and abs(rate / 32 - imm) < 1:
        clock = "jiffies"
    else:
        clock = "unknown"
    res = {
        "kernel": platform.release(),
        "function": FUNC,
        "bytes": size,
        "config_hz": hz,
        "hold": hold,
        "global_ticks_per_s": round(rate, 1),
        "clock": clock,
        # CONFIG_HZ's choices (kernel/Kconfig.hz), the one the measured rate is nearest
        "hz": min((100, 250, 300, 1000), key=lambda h: abs(h - rate))
        if clock == "jiffies"
        else None,
        "tcp_cubic_parameters": cubic_parameters(),
        "how": "python3 validation/linux/kernel_clock.py",
    }
    a.out.write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))
    return 0 if clock != "unknown" else 1


if __name__ == "__main__":
    sys.exit(main())
