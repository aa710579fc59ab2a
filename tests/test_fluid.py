"""The fluid engine from Python: batches, replications, the CLI (issue 6)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ccsim

ROOT = Path(__file__).resolve().parents[1]

# Study 004 §3.2 (Fig. 2), shortened: STCP + AIMD, 1 Gb/s, RTT 120 ms, 0.1 BDP.
STCP_AIMD = """
engine = "fluid"
duration = "60s"
warmup = "5s"
[topology]
kind = "dumbbell"
bottleneck_rate = "1Gbps"
bottleneck_delay = "10ms"
buffer = "0.1bdp"
[tcp]
init_ssthresh = 1e9
[[flows]]
cc = "scalable"
rtt = "120ms"
[[flows]]
cc = "reno"
rtt = "120ms"
[fluid]
sync = { level = 1, policy = "random" }
"""

# One AIMD flow without a buffer: the 75 % bound.
ONE_AIMD = """
name = "one-aimd"
engine = "fluid"
duration = "200s"
warmup = "20s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "0pkt"
[[flows]]
cc = "reno"
rtt = "100ms"
tcp = { init_ssthresh = 1e9 }
"""


def test_batch_rows_equal_individual_runs():
    scenarios = [ONE_AIMD, STCP_AIMD, "seed = 7\n" + STCP_AIMD]
    df = ccsim.fluid_batch(scenarios, threads=2)
    assert list(df["scenario"]) == [0, 1, 2]
    assert list(df["name"]) == ["one-aimd", "unnamed", "unnamed"]
    assert list(df["seed"]) == [1, 1, 7]
    for i, text in enumerate(scenarios):
        s = ccsim.run(text).summary
        b = s["links"]["bottleneck"]
        row = df.iloc[i]
        # Same scenario, same seed: the same numbers, to the bit.
        assert row["utilization"] == b["utilization"]
        assert row["drop_rate"] == b["drop_rate"]
        assert row["jain_fairness"] == s["flows"]["jain_fairness"]
        assert row["goodput_bps_total"] == s["flows"]["goodput_bps_total"]
        assert row["steps"] == s["steps"]
    # Progress: one call per run, the last with every run done.
    calls = []
    ccsim.fluid_batch(scenarios, progress=lambda done, total: calls.append((done, total)))
    assert sorted(calls) == [(1, 3), (2, 3), (3, 3)]
    # The 75 % bound of one AIMD flow without a buffer (±2 points, tests/fluid.rs).
    assert abs(df.iloc[0]["utilization"] - 0.75) < 0.02
    # The random policy makes seeds matter.
    assert df.iloc[1]["utilization"] != df.iloc[2]["utilization"]


def test_batch_overrides_and_threads_do_not_change_results():
    a = ccsim.fluid_batch([ONE_AIMD] * 3, set={"topology.buffer": "10pkt"}, threads=1)
    b = ccsim.fluid_batch([ONE_AIMD] * 3, set={"topology.buffer": "10pkt"}, threads=3)
    assert a.drop(columns="wall_s").equals(b.drop(columns="wall_s"))
    # A buffer lifts the utilization above the no-buffer 75 %.
    assert (a["utilization"] > 0.77).all()


def test_bad_scenario_in_batch_names_its_index():
    bad_cc = STCP_AIMD.replace('cc = "reno"', 'cc = "warp"')
    with pytest.raises(ccsim.ScenarioError, match=r"^scenarios\[2\]: flows\[1\]\.cc: .*warp"):
        ccsim.fluid_batch([ONE_AIMD, STCP_AIMD, bad_cc, ONE_AIMD])
    packet = ONE_AIMD.replace('engine = "fluid"', 'engine = "packet"')
    with pytest.raises(ccsim.ScenarioError, match=r"^scenarios\[1\]: engine: .*fluid"):
        ccsim.fluid_batch([ONE_AIMD, packet])
    fq = ONE_AIMD.replace('buffer = "0pkt"', 'buffer = "0pkt"\nqueue = "fq_codel"')
    with pytest.raises(ccsim.ScenarioError, match=r"^scenarios\[0\]: .*topology\.queue"):
        ccsim.fluid_batch([fq])
    with pytest.raises(ccsim.ScenarioError, match=r"^scenarios\[1\]: .*invalid TOML"):
        ccsim.fluid_batch([ONE_AIMD, "duration = "])
    # One scenario: the message starts at the field path.
    with pytest.raises(ccsim.ScenarioError, match=r"^flows\[1\]\.cc: .*warp"):
        ccsim.fluid_replicate(bad_cc, 3)
    with pytest.raises(ccsim.ScenarioError, match="replications"):
        ccsim.fluid_batch([ONE_AIMD], replications=0)
    with pytest.raises(ccsim.ScenarioError, match="threads"):
        ccsim.fluid_batch([ONE_AIMD], threads=0)


def test_progress_error_stops_the_batch():
    def boom(done, total):
        raise RuntimeError(f"stop at {done}/{total}")

    with pytest.raises(RuntimeError, match="stop at 1/"):
        ccsim.fluid_batch([ONE_AIMD] * 6, threads=1, progress=boom)


def test_replications_mean_and_interval():
    n = 6
    runs = ccsim.fluid_batch([STCP_AIMD], replications=n)
    assert list(runs["replication"]) == list(range(n))
    assert runs["seed"].nunique() == n
    est = ccsim.fluid_replicate(STCP_AIMD, n)
    u = runs["utilization"]
    assert est.loc["utilization", "mean"] == pytest.approx(u.mean(), rel=1e-12)
    # 95 % Student-t half-width with 5 degrees of freedom: t = 2.571.
    half = 2.571 * u.std(ddof=1) / math.sqrt(n)
    assert est.loc["utilization", "ci95"] == pytest.approx(half, rel=1e-3)
    assert (est["n"] == n).all()
    # Replication seeds are reproducible: the same runs again.
    again = ccsim.fluid_batch([STCP_AIMD], replications=n)
    assert list(again["seed"]) == list(runs["seed"])
    assert list(again["utilization"]) == list(u)
    # A seed fits a TOML integer, so a replication can be rerun on its own.
    seed = int(runs["seed"].iloc[3])
    single = ccsim.run(STCP_AIMD, set={"seed": seed}).summary
    assert single["links"]["bottleneck"]["utilization"] == u.iloc[3]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ccsim", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},  # rich wraps tables to the terminal width
    )


def test_cli_run_replications(tmp_path):
    sc = tmp_path / "stcp.toml"
    sc.write_text(STCP_AIMD)
    p = _cli("run", str(sc), "--replications", "4")
    assert p.returncode == 0, p.stderr
    assert "4 replications" in p.stdout and "utilization" in p.stdout
    p = _cli("run", str(sc), "--replications", "4", "-o", str(tmp_path / "out"))
    assert p.returncode == 2 and "fluid_batch" in p.stderr
    assert not (tmp_path / "out").exists()
    packet = tmp_path / "packet.toml"
    packet.write_text(ONE_AIMD.replace('engine = "fluid"', 'engine = "packet"'))
    p = _cli("run", str(packet), "--replications", "3")
    assert p.returncode == 2 and "engine" in p.stderr and "Traceback" not in p.stderr


def test_cli_bench_fluid_smoke():
    p = _cli("bench", "--fluid", "--duration-scale", "0.01", "--batch", "8")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert "bench --fluid" in p.stdout
    assert "one run, 1 core" in p.stdout and "batch," in p.stdout
