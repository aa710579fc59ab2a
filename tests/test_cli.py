"""End-to-end tests of the ``ccsim`` command line (run as ``python -m ccsim``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"
EXAMPLE_TEXT = EXAMPLE.read_text()
# Keep every run short.
FAST = ["--set", 'duration="4s"', "--set", 'warmup="1s"']


def ccsim(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ccsim", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_version():
    p = ccsim("--version")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("ccsim ")


def test_run_example_writes_outputs(tmp_path):
    out = tmp_path / "out"
    p = ccsim("run", EXAMPLE, "-o", out, *FAST)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert sorted(x.name for x in out.iterdir()) == [
        ".ccsim",
        "flows.parquet",
        "scenario.toml",
        "series.parquet",
        "summary.json",
        "timing.json",
    ]
    summary = json.loads((out / "summary.json").read_text())
    bottleneck = summary["links"][summary["bottleneck"]]
    assert 0 < bottleneck["utilization"] <= 1
    assert summary["conservation"]["ok"] is True

    series = pd.read_parquet(out / "series.parquet")
    assert {"time", "entity", "id", "metric", "value"} <= set(series.columns)
    assert len(series) > 0
    flows = pd.read_parquet(out / "flows.parquet")
    assert len(flows) == 4
    assert summary["flows"]["count"] == 4

    # The recorded scenario is the one that ran (overrides applied) and runs again.
    again = tmp_path / "again"
    p = ccsim("run", out / "scenario.toml", "-o", again, "--quiet")
    assert p.returncode == 0, p.stderr
    s2 = json.loads((again / "summary.json").read_text())
    assert s2["duration_s"] == summary["duration_s"] == pytest.approx(4.0)


def test_run_prints_summary():
    p = ccsim("run", EXAMPLE, *FAST)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "dumbbell-example" in out
    assert "utilization" in out
    # Each quantity once: the bottleneck's Jain index is the forward flows' here.
    assert out.count("Jain") == 2  # the fairness row and the groups table's column
    # Human labels: no raw summary keys, no empty lists, no unit-less raw numbers.
    for raw in ("flows.", "cov_mean", "_bps", "_s ", "sources", "workloads", "[]", "e+0"):
        assert raw not in out, raw
    # Rows that do not apply are left out (bulk flows: no FCT, no CoV here).
    assert "completion" not in out and "CoV" not in out
    # Which counts are over the window and which over the run.
    assert "over the measurement window" in out and "over the whole run" in out
    assert "flow groups" in out and "group0" in out
    assert "100 Mb/s" in out


def test_printed_latency_is_the_summary_s(tmp_path):
    """The printed summary shows the bottleneck's queueing-delay percentiles and each
    flow's measured RTT, as summary.json and flows.parquet have them."""
    p = ccsim("run", EXAMPLE, *FAST, "-o", tmp_path / "o")
    assert p.returncode == 0, p.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    b = s["links"][s["bottleneck"]]
    row = next(ln for ln in p.stdout.splitlines() if "queueing delay" in ln)
    p99 = b["queue_delay_p99_s"]
    assert f"p99 {p99 * 1e3:.3g} ms" in row, (row, p99)
    assert b["queue_delay_p50_s"] <= p99 <= b["queue_delay_max_s"]
    assert "RTT ms" in p.stdout and "…" not in p.stdout


def test_rates_print_in_their_unit(tmp_path):
    scenario = tmp_path / "fast.toml"
    scenario.write_text(
        'engine = "fluid"\nduration = "3s"\nwarmup = "1s"\n[topology]\nkind = "dumbbell"\n'
        'bottleneck_rate = "10Gbps"\nbottleneck_delay = "10ms"\nbuffer = "bdp"\n'
        '[[flows]]\ncount = 8\ncc = "cubic"\n'
    )
    p = ccsim("run", scenario)
    assert p.returncode == 0, p.stderr
    assert "bottleneck: 10 Gb/s" in p.stdout and "Mb/s" not in p.stdout.split("flows (")[0]
    assert "integration steps" in p.stdout  # the fluid engine's work, not "events —"


def test_quiet_prints_nothing(tmp_path):
    p = ccsim("run", EXAMPLE, "--quiet", *FAST)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""


def test_validate():
    p = ccsim("validate", EXAMPLE)
    assert p.returncode == 0, p.stderr
    p = ccsim("validate", EXAMPLE, "--set", 'flows[0].cc="warp"')
    assert p.returncode == 2
    assert "warp" in p.stderr


# Scenarios the core's validate refuses only once it lays out the network, resolves
# the buffers or builds the engine: they used to pass `ccsim validate` and fail at run
# time. Each runs for 10⁶ simulated seconds, so a validate that ran it would time out
# (without series: 10⁶ s sampled every 100 ms would be over the memory limit,
# docs/limits.md, a refusal of its own).
LONG = 'duration = "1000000s"\n'
EXAMPLE_BODY = "\n".join(
    line
    for line in EXAMPLE_TEXT.splitlines()
    if not line.startswith(("duration", "warmup", "sample_interval"))
)
GRAPH_WITHOUT_ROUTE = (
    'name = "unroutable"\n[topology]\nkind = "graph"\nbuffer = "20pkt"\n'
    'nodes = ["a", "b", "c"]\n'
    'links = [{ from = "a", to = "b", rate = "10Mbps", delay = "5ms" }]\n'
    '[[flows]]\nsrc = "a"\ndst = "c"\n'
)
REFUSED_BY_VALIDATE = {
    # id: (scenario text, words the one-line message must hold, (old, new): the fix)
    "converge-to-no-group": (
        LONG + EXAMPLE_BODY + '\n[metrics]\nconverge_to = "nosuch"\n',
        ["metrics.converge_to", "nosuch"],
        ('converge_to = "nosuch"', ""),
    ),
    "pcap-of-no-link": (
        LONG + EXAMPLE_BODY + '\n[output]\npcap = ["nolink"]\n',
        ["output.pcap[0]", "nolink"],
        ('"nolink"', '"bottleneck"'),
    ),
    "bdp-buffer-without-tcp": (
        LONG + EXAMPLE_BODY.split("[[flows]]")[0] + "\n[[poisson]]\nload = 0.5\n",
        ["topology.buffer", "TCP"],
        ('buffer = "bdp"', 'buffer = "20pkt"'),
    ),
    "graph-without-route": (
        LONG + GRAPH_WITHOUT_ROUTE,
        ["flows[0]", "route"],
        ('dst = "c"', 'dst = "b"'),
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED_BY_VALIDATE))
def test_validate_refuses_what_a_run_would_refuse(tmp_path, case):
    text, words, (old, new) = REFUSED_BY_VALIDATE[case]
    path = _bad_scenario(tmp_path, text)
    out = tmp_path / "out"
    for args in (("validate", path), ("run", path, "-o", out)):
        p = ccsim(*args)
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        assert "Traceback" not in p.stderr
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
        for w in words:
            assert w in lines[0], lines[0]
        assert p.stdout == ""
    assert not out.exists()
    # The API says the same.
    import ccsim as api

    with pytest.raises(api.ScenarioError, match=re.escape(words[0])):
        api.validate(path)
    # With that field fixed the scenario validates (without running its 10⁶ s).
    assert old in text
    api.validate(text.replace(old, new))
    p = ccsim("validate", _bad_scenario(tmp_path, text.replace(old, new), "fixed.toml"))
    assert p.returncode == 0, p.stderr


SCENARIO_FILES = sorted(
    [*(ROOT / "python/ccsim/reproduce/scenarios").glob("*/*.toml")]
    + [*(ROOT / "scenarios/examples").glob("*.toml")]
)


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_scenarios_validate(path):
    # In-process (one subprocess per file would cost a second each); [sweep] files are
    # checked as sweeps: base scenario plus every grid point.
    import ccsim as api

    api.validate(path)


SWEPT = """
duration = "2s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
cc = "newreno"
[sweep]
seeds = 2
"flows[0].cc" = ["newreno", "cubic"]
"""


def test_validate_and_run_with_a_sweep_table(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(SWEPT)
    p = ccsim("validate", good)
    assert p.returncode == 0, p.stderr
    # One bad value in the grid: validate names the point and the field.
    bad = tmp_path / "bad.toml"
    bad.write_text(SWEPT.replace('["newreno", "cubic"]', '["newreno", "warp"]'))
    p = ccsim("validate", bad)
    assert p.returncode == 2
    assert "1 of 2 grid points" in p.stderr and "flows[0].cc" in p.stderr
    assert "warp" in p.stderr
    # A path no scenario has.
    typo = tmp_path / "typo.toml"
    typo.write_text(SWEPT.replace('"flows[0].cc"', '"flows[0].ccc"'))
    p = ccsim("validate", typo)
    assert p.returncode == 2 and "ccc" in p.stderr
    # `run` refuses a sweep and says what to use instead.
    p = ccsim("run", good, "--quiet")
    assert p.returncode == 2
    assert "ccsim sweep" in p.stderr and "Traceback" not in p.stderr


def _summary_without_wall(path: Path) -> dict:
    s = json.loads(path.read_text())
    s.pop("wall_s", None)
    return s


def test_set_changes_the_result(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for out, seed in ((a, 1), (b, 2), (c, 1)):
        p = ccsim("run", EXAMPLE, "-o", out, "--quiet", *FAST, "--set", f"seed={seed}")
        assert p.returncode == 0, p.stderr
    assert _summary_without_wall(a / "summary.json")["seed"] == 1
    assert _summary_without_wall(b / "summary.json")["seed"] == 2
    # A different seed gives different results; the same seed the same ones.
    sa, sb = _summary_without_wall(a / "summary.json"), _summary_without_wall(b / "summary.json")
    sa.pop("seed"), sb.pop("seed")
    assert sa != sb
    assert _summary_without_wall(a / "summary.json") == _summary_without_wall(c / "summary.json")
    # Byte for byte: the wall-clock time is kept apart, in timing.json.
    names = sorted(f.name for f in a.iterdir())
    assert "timing.json" in names and names == sorted(f.name for f in c.iterdir())
    assert "wall_s" not in json.loads((a / "summary.json").read_text())
    for name in names:
        if name != "timing.json":
            assert (a / name).read_bytes() == (c / name).read_bytes(), name
    import ccsim as api

    assert api.load(a).summary["wall_s"] > 0


def _bad_scenario(tmp_path: Path, text: str, name: str = "bad.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


BAD_CASES = {
    # id: (scenario text or None for the example, extra args, words the message must hold)
    "malformed-toml": ('name = "x"\n[topology\nkind = "dumbbell"\n', [], ["bad.toml"]),
    "unknown-field": ("bogus = 1\n" + EXAMPLE_TEXT, [], ["bogus"]),
    "negative-rate": (
        None,
        ["--set", 'topology.bottleneck_rate="-5Mbps"'],
        ["topology.bottleneck_rate"],
    ),
    "zero-capacity": (None, ["--set", 'topology.bottleneck_rate="0Mbps"'], ["bottleneck_rate"]),
    "unknown-cc": (None, ["--set", 'flows[0].cc="warp"'], ["cc", "warp"]),
    "bad-duration": (None, ["--set", 'duration="ten"'], ["duration", "ten"]),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input_is_one_clear_line(tmp_path, case):
    text, args, words = BAD_CASES[case]
    scenario = EXAMPLE if text is None else _bad_scenario(tmp_path, text)
    out = tmp_path / "out"
    p = ccsim("run", scenario, "-o", out, *args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("error: ")
    for w in words:
        assert w in lines[0], lines[0]
    assert not out.exists()
    assert p.stdout == ""
    # Nothing half-written next to the output either.
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted(
        [] if text is None else [scenario.name]
    )


def test_missing_file(tmp_path):
    out = tmp_path / "out"
    p = ccsim("run", tmp_path / "no-such-scenario.toml", "-o", out)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert "no-such-scenario.toml" in lines[0]
    assert not out.exists()


def test_set_without_equals(tmp_path):
    p = ccsim("run", EXAMPLE, "--set", "seed")
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert "--set" in p.stderr


def test_bench_smoke():
    p = ccsim("bench", "--only", "A", "--duration-scale", "0.05")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert "ccsim bench" in p.stdout


def test_bench_scale_smoke():
    # 0.1 s simulated: the rows are built and measured, each in its own process.
    p = ccsim("bench", "--scale", "--duration-scale", "0.02")
    assert p.returncode == 0, p.stderr
    assert "10,000" in p.stdout and "nodes" in p.stdout and p.stdout.count(" MB ") == 2
