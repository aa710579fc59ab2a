"""Bounded by construction (docs/limits.md), at the command line, under a 4 GB
address-space limit (``ulimit -v``): each of these inputs aborted ccsim (allocation
failure, a Rust backtrace, exit 134) or raised a Python traceback; now each is one
``error:`` line naming the field, exit 2, before anything runs."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

import ccsim

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"
FOUR_GB = 4 * 1024**3

FLUID = """
engine = "fluid"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
cc = "newreno"
rtt = "100ms"
[[flows]]
cc = "newreno"
rtt = "50ms"
"""


def capped(*args, tmp: Path) -> subprocess.CompletedProcess:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (FOUR_GB, FOUR_GB))

    return subprocess.run(
        [sys.executable, "-m", "ccsim", *map(str, args)],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=180,
        preexec_fn=limit,
    )


CASES = {
    "ten-million-flows": (None, ["flows[0].count=10000000"], "flows[0].count"),
    "nanosecond-samples": (None, ['sample_interval="1ns"'], "sample_interval"),
    "init-cwnd-1e8": (None, ["tcp={init_cwnd=1e8}"], "tcp.init_cwnd"),
    "fluid-rtt-4294967s": (FLUID, ['flows[0].rtt="4294967s"'], "flows[0].rtt"),
    "fluid-1bps": (
        FLUID,
        ['topology.bottleneck_rate="1bps"', 'topology.buffer="100pkt"'],
        "fluid history",
    ),
    "nested-1000-deep": ("x = " + "[" * 1000 + "]" * 1000 + "\n", [], "nested too deeply"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_resource_bombs_are_refused_in_one_line(tmp_path, case):
    text, sets, words = CASES[case]
    scenario = EXAMPLE
    if text is not None:
        scenario = tmp_path / "s.toml"
        scenario.write_text(text)
    out = tmp_path / "out"
    args = [a for s in sets for a in ("--set", s)]
    p = capped("run", scenario, "-q", "-o", out, *args, tmp=tmp_path)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr[-2000:]
    assert words in lines[0], lines[0]
    assert "Traceback" not in p.stderr and "backtrace" not in p.stderr
    assert not out.exists()


def test_every_example_builds_under_the_address_space_limit(tmp_path):
    # The web example reserved 65 536 packets per access queue (6.7 GB of address
    # space) and failed to allocate under ulimit -v 4 GB (found by the fuzzer).
    for example in sorted((ROOT / "scenarios" / "examples").glob("*.toml")):
        p = capped("validate", example, tmp=tmp_path)
        assert p.returncode == 0, (example.name, p.stderr[-2000:])


def test_an_unforeseen_allocation_failure_is_one_line_not_an_abort(tmp_path):
    # With the estimate switched off the 10-million-flow plan meets the address-space
    # limit itself: the binding's allocator says so in one line, exit 3, no backtrace.
    p = capped(
        "run", EXAMPLE, "-q", "--memory-limit", "off", "--set", "flows[0].count=10000000",
        tmp=tmp_path,
    )  # fmt: skip
    assert p.returncode == 3, (p.returncode, p.stderr[-2000:])
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: out of memory"), p.stderr[-2000:]


def test_memory_limit_in_python_and_at_the_command_line(tmp_path):
    with pytest.raises(ccsim.ScenarioError, match=r"^sample_interval: .*over the limit of 1 MB"):
        ccsim.validate(EXAMPLE, set=['sample_interval="1ms"'], memory_limit="1MB")
    with pytest.raises(ccsim.ScenarioError, match="memory_limit: expected a size"):
        ccsim.validate(EXAMPLE, memory_limit="lots")
    ccsim.validate(EXAMPLE, set=['sample_interval="1ms"'], memory_limit="off")
    p = subprocess.run(
        [sys.executable, "-m", "ccsim", "validate", str(EXAMPLE), "--memory-limit", "1MB",
         "--set", 'sample_interval="1ms"'],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert p.returncode == 2 and "over the limit of 1 MB" in p.stderr, p.stderr
    p = subprocess.run(
        [sys.executable, "-m", "ccsim", "validate", str(EXAMPLE), "--memory-limit", "lots"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert p.returncode == 2 and p.stderr.startswith("error: --memory-limit:"), p.stderr


def test_sweep_workers_divide_the_memory_limit(tmp_path):
    """``-j N`` gives each of its N worker processes 1/N of the limit (the runs in
    flight share the memory), as the fluid batch does: a run that fits the limit alone
    is refused when two workers share it."""
    from ccsim.sweep import sweep

    sets = ['duration="2s"', 'warmup="1s"', 'sample_interval="1ms"']
    grid = {"flows[0].cc": ["newreno", "cubic"]}

    def fits(limit: int) -> bool:
        try:
            for cc in grid["flows[0].cc"]:
                ccsim.validate(EXAMPLE, set=[*sets, f"flows[0].cc={cc}"], memory_limit=limit)
        except ccsim.ScenarioError:
            return False
        return True

    # The least limit both points fit, by the core's own estimate (bisection).
    lo, hi = 1, 1 << 40
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid + 1, hi)
    limit = lo * 3 // 2  # enough for one run, not for two halves of it
    assert fits(limit) and not fits(limit // 2)

    one = sweep(EXAMPLE, grid, set=sets, directory=tmp_path / "j1", workers=1,
                memory_limit=limit, progress=False)  # fmt: skip
    assert (one.ran, one.failed) == (2, 0)
    two = sweep(EXAMPLE, grid, set=sets, directory=tmp_path / "j2", workers=2,
                memory_limit=limit, progress=False)  # fmt: skip
    assert (two.ran, two.failed) == (0, 2)
    assert two.failures()["error"].str.contains("memory.*over the limit of").all()
    # The command line's --memory-limit: the same division.
    p = subprocess.run(
        [sys.executable, "-m", "ccsim", "sweep", str(EXAMPLE), "-o", str(tmp_path / "c"), "-q",
         "--grid", "flows[0].cc=[newreno,cubic]", "--workers", "2",
         "--memory-limit", str(limit), *[x for s in sets for x in ("--set", s)]],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert p.returncode == 3 and "over the limit" in p.stderr, p.stderr[-2000:]
