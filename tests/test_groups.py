"""Flow groups: the summary's groups block against the flows table, the catalogue's
groups table, Sweep.table by group, and ``ccsim plot --by group|cc`` for every kind."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ccsim
from ccsim import plots
from ccsim._layout import FLOWS_FILE, RUNS_DIR, SUMMARY_FILE
from ccsim.sweep import Sweep, sweep

# Two groups of two flows, unequal algorithms, on a shallow buffer: losses in both.
TWO_GROUPS = """
name = "two-groups"
duration = "4s"
warmup = "1s"
sample_interval = "200ms"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
access_delay = "2.5ms"
buffer = "0.5bdp"
[[flows]]
name = "cubics"
count = 2
cc = "cubic"
start = { uniform = ["0s", "0.5s"] }
[[flows]]
count = 2
cc = "newreno"
start = { uniform = ["0s", "0.5s"] }
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Sweep:
    d = tmp_path_factory.mktemp("groups") / "s"
    s = sweep(TWO_GROUPS, {"topology.buffer": ["0.25bdp", "bdp"]}, seeds=2, directory=d,
              progress=False)  # fmt: skip
    assert s.ran == 4
    return s


def test_groups_block_matches_sums_over_the_flows_table(swept):
    import json

    for rid in swept.run_ids():
        run_dir = swept.directory / RUNS_DIR / rid
        summary = json.loads((run_dir / SUMMARY_FILE).read_text())
        flows = pd.read_parquet(run_dir / FLOWS_FILE)
        groups = summary["groups"]
        assert [g["name"] for g in groups] == ["cubics", "group1"]
        assert [g["cc"] for g in groups] == ["cubic", "newreno"]
        total = flows["goodput_bps"].sum()
        capacity = summary["links"]["bottleneck"]["rate_bps"]
        for g in groups:
            rows = flows[flows["group"].astype(str) == g["name"]]
            assert g["flows"] == len(rows) == 2
            assert g["goodput_bps"] == pytest.approx(rows["goodput_bps"].sum(), rel=1e-12)
            assert g["share"] == pytest.approx(rows["goodput_bps"].sum() / total, rel=1e-12)
            assert g["capacity_share"] == pytest.approx(
                rows["goodput_bps"].sum() / capacity, rel=1e-12
            )
            x = rows["goodput_bps"].to_numpy()
            assert g["jain"] == pytest.approx(x.sum() ** 2 / (len(x) * (x**2).sum()), rel=1e-12)
            for k in ("losses", "retransmits", "timeouts"):
                assert g[k] == rows[k].sum(), k
            # Data packets sent: segments delivered plus retransmissions.
            sent = (
                rows["bytes_delivered"] / summary["tcp"][g["name"]]["mss"] + rows["retransmits"]
            ).sum()
            assert g["loss_rate"] == pytest.approx(rows["losses"].sum() / sent, rel=1e-9)
            # The mean over all the group's RTT samples: a weighted mean of its flows'.
            lo, hi = rows["rtt_mean_s"].min(), rows["rtt_mean_s"].max()
            assert lo * (1 - 1e-12) <= g["rtt_mean_s"] <= hi * (1 + 1e-12)
            assert g["rtt_mean_s"] >= rows["rtt_min_s"].min()
        assert sum(g["share"] for g in groups) == pytest.approx(1.0)
        # The shallow buffer loses packets: the counts above are not all trivially 0.
        assert sum(g["losses"] for g in groups) > 0


def test_groups_table_in_sql(swept):
    df = swept.query("SELECT run_id, name, cc, share FROM groups ORDER BY run_id, name")
    assert len(df) == 2 * 4
    assert set(df["cc"]) == {"cubic", "newreno"}
    per_run = df.groupby("run_id")["share"].sum()
    assert np.allclose(per_run, 1.0)
    # Joined to the runs' parameters: per buffer and group.
    j = swept.query(
        'SELECT r."topology.buffer" AS buffer, g.name, avg(g.share) AS share, count(*) AS n '
        "FROM groups g JOIN runs r USING (run_id) GROUP BY 1, 2 ORDER BY 1, 2"
    )
    assert list(j["n"]) == [2, 2, 2, 2]
    # Sweep.table by group: mean and CI over seeds of each group's metrics.
    t = swept.table(metrics=["share"], by=["topology.buffer", "cc"])
    assert len(t) == 4 and set(t["cc"]) == {"cubic", "newreno"}
    for _, r in t.iterrows():
        sel = j[(j["buffer"] == r["topology.buffer"])]
        name = "cubics" if r["cc"] == "cubic" else "group1"
        assert r["share_mean"] == pytest.approx(float(sel[sel["name"] == name]["share"].iloc[0]))
        assert r["runs"] == 2


def test_plot_by_group_and_cc_for_every_kind(swept, tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "ccsim", *map(str, args)],
                              capture_output=True, text=True, timeout=120)  # fmt: skip

    d = swept.directory
    for by in ("cc", "group"):
        for n, args in enumerate(
            [
                ("--cdf", "goodput_bps"),
                ("--cdf", "goodput_bps", "--source", "groups"),
                ("--cdf", "share", "--source", "runs"),
                ("--x", "topology.buffer", "--y", "share"),
                ("--series", "cwnd_pkts"),
            ]
        ):
            out = tmp_path / f"{by}{n}.png"
            p = cli("plot", d, *args, "--by", by, "-o", out)
            assert p.returncode == 0, (args, p.stderr)
            assert out.read_bytes().startswith(b"\x89PNG")
    # A per-link series has no group: a clear error, not a figure.
    p = cli("plot", d, "--series", "queue_pkts", "--by", "cc", "-o", tmp_path / "q.png")
    assert p.returncode == 2 and "per-flow" in p.stderr


def test_figures_coloured_by_group_with_a_legend(swept):
    run_dir = swept.directory / RUNS_DIR / swept.run_ids()[0]
    ax = plots.timeseries(run_dir, "cwnd_pkts", by="cc").axes[0]
    lines = ax.get_lines()
    assert len(lines) == 4
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["cubic", "newreno"]
    colours = [line.get_color() for line in lines]
    assert colours[0] == colours[1] != colours[2] == colours[3]
    ax = plots.cdf(swept, "goodput_bps", by="cc").axes[0]
    assert [t.get_text().split(" ")[0] for t in ax.get_legend().get_texts()] == [
        "cubic",
        "newreno",
    ]


def test_honest_axes_start_at_zero_for_a_small_wobble():
    t = pd.DataFrame(
        {"x": [1, 2, 3], "utilization_mean": [0.995, 0.993, 0.998], "utilization_ci95": 0.0}
    )
    ax = plots.metric_vs_param(t, "x", "utilization").axes[0]
    assert ax.get_ylim()[0] == 0.0
    # A real difference keeps matplotlib's own limits.
    t["utilization_mean"] = [0.4, 0.7, 0.99]
    ax = plots.metric_vs_param(t, "x", "utilization").axes[0]
    assert ax.get_ylim()[0] > 0.3


def test_run_summary_has_groups():
    run = ccsim.run(TWO_GROUPS)
    assert [g["name"] for g in run.summary["groups"]] == ["cubics", "group1"]


def test_report_markdown_escapes_pipes():
    from ccsim.reproduce import Claim, FigureResult, StudyResult, markdown_table, report_markdown

    claim = Claim("k", "shares agree", "|a − b| small", "0.02", True, check="|a − b| < 0.1")
    fig = FigureResult("fig1", "t", claims=[claim])
    text = report_markdown(StudyResult("003", "x", True, Path("."), figures=[fig]))
    row = next(line for line in text.splitlines() if line.startswith("| shares agree"))
    # Five cells, the verdict in the fourth, whatever the text holds.
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
    assert cells == ["shares agree", r"\|a − b\| small", "0.02", "yes", r"\|a − b\| < 0.1"]
    table = markdown_table(pd.DataFrame({"a|b": ["x|y"], "c": [1.5]}))
    assert table.splitlines()[0] == r"| a\|b | c |"
    assert table.splitlines()[2] == r"| x\|y | 1.500 |"


def test_report_colours_flow_figures_by_group(swept, tmp_path):
    from ccsim.report import report

    page = report(swept.directory, tmp_path / "r.html").read_text()
    figures = re.findall(r"<figure id=\"fig\d+\">(.*?)</figure>", page, re.S)
    cwnd = [f for f in figures if "cwnd_pkts against time" in f]
    assert len(cwnd) == 1 and "coloured by flow group" in cwnd[0]
    # The legend names the groups (SVG keeps text as text).
    assert "cubics" in cwnd[0] and "group1" in cwnd[0]


def test_series_name_links_and_flows(swept):
    run = ccsim.run(TWO_GROUPS)
    s = run.series
    links = s[s["entity"].astype(str) == "link"]
    ids = {name: v["id"] for name, v in run.summary["links"].items()}
    assert set(links["name"].astype(str)) == set(ids)
    for name, i in ids.items():
        assert set(links[links["id"] == i]["name"].astype(str)) == {name}
    flows = s[s["entity"].astype(str) == "flow"]
    group = dict(zip(run.flows["flow"], run.flows["group"].astype(str), strict=True))
    assert all(n == group[i] for i, n in zip(flows["id"], flows["name"].astype(str), strict=True))
    # Written and read back with it; a figure's lines are named by it.
    d = run.write(Path(swept.directory).parent / "one")
    assert "name" in ccsim.load(d).series.columns
    ax = plots.timeseries(d, "queue_pkts").axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["bottleneck", "bottleneck_rev"]


def test_more_than_256_groups_keep_their_names():
    # Category codes were one byte: flow 256's group read back as the first group's.
    flows = "".join(f'[[flows]]\nname = "g{i}"\ncc = "reno"\n' for i in range(300))
    text = (
        'duration = "1s"\n[topology]\nkind = "dumbbell"\nbottleneck_rate = "10Mbps"\n'
        f'bottleneck_delay = "5ms"\nbuffer = "bdp"\n{flows}'
    )
    run = ccsim.run(text)
    assert list(run.flows["group"].astype(str)) == [f"g{i}" for i in range(300)]
    assert [g["name"] for g in run.summary["groups"]] == [f"g{i}" for i in range(300)]
    assert [r["group"] for r in run.rows("flows")][255:258] == ["g255", "g256", "g257"]
