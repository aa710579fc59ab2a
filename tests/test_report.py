"""Plots (units, CI error bars, log axes, formats) and the HTML report in headless Chromium."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ccsim
from ccsim import plots
from ccsim._layout import RUNS_DIR
from ccsim.report import report
from ccsim.sweep import Sweep, sweep

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"
SMALL = [
    'duration="3s"',
    'warmup="1s"',
    'topology.bottleneck_rate="10Mbps"',
    'topology.bottleneck_delay="5ms"',
    'topology.access_delay="2.5ms"',
]
GRID = {"topology.buffer": ["0.25bdp", "0.5bdp", "bdp"], "flows[0].cc": ["newreno", "cubic"]}


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Sweep:
    d = tmp_path_factory.mktemp("report") / "s"
    s = sweep(EXAMPLE, GRID, seeds=2, set=SMALL, directory=d, progress=False)
    assert s.ran == 12
    return s


def test_numeric_axis_reads_units_and_rules():
    assert plots.numeric_axis(["0.25bdp", "bdp", "2bdp"]) == ([0.25, 1.0, 2.0], "bdp")
    assert plots.numeric_axis([10, 20.5]) == ([10.0, 20.5], "")
    assert plots.numeric_axis(["20pkt", "100pkt"]) == ([20.0, 100.0], "pkt")
    assert plots.numeric_axis(["20pkt", "bdp"]) is None  # two units: categorical
    assert plots.numeric_axis(["newreno", "cubic"]) is None


def test_metric_vs_param_draws_means_and_ci_bars(swept):
    tab = swept.table(metrics=["queue_delay_mean_s"], by=["topology.buffer", "flows[0].cc"])
    fig = plots.metric_vs_param(swept, "topology.buffer", "queue_delay_mean_s",
                                by="flows[0].cc", logx=True)  # fmt: skip
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel() == "topology.buffer (bdp)"
    assert ax.get_ylabel() == "mean queueing delay (ms)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["newreno", "cubic"]
    # One errorbar container per algorithm: line data = mean in ms at x = 0.25, 0.5, 1;
    # bar half-length = the table's CI in ms.
    containers = ax.containers
    assert len(containers) == 2
    for cc, cont in zip(["newreno", "cubic"], containers, strict=True):
        rows = tab[tab["flows[0].cc"] == cc]
        line, _, (bars,) = cont
        np.testing.assert_allclose(line.get_xdata(), [0.25, 0.5, 1.0])
        np.testing.assert_allclose(line.get_ydata(), rows["queue_delay_mean_s_mean"] * 1e3)
        segs = bars.get_segments()
        half = [(s[1][1] - s[0][1]) / 2 for s in segs]
        np.testing.assert_allclose(half, rows["queue_delay_mean_s_ci95"] * 1e3, rtol=1e-9)
        assert all(h > 0 for h in half)


def test_timeseries_and_cdf_labels_and_formats(swept, tmp_path):
    run_dir = swept.runs_dir / swept.run_ids()[0]
    fig = plots.timeseries(run_dir, "cwnd_pkts")
    assert fig.axes[0].get_xlabel() == "time (s)"
    assert fig.axes[0].get_ylabel() == "cwnd (packets)"
    assert len(fig.axes[0].get_lines()) == 4  # four flows
    fig = plots.timeseries(run_dir, "throughput_bps", ids=[0])
    y = fig.axes[0].get_lines()[0].get_ydata()
    assert 0 < np.nanmax(y) <= 10.0 + 1e-9  # Mb/s, never above the 10 Mb/s bottleneck
    with pytest.raises(ccsim.ScenarioError, match="no samples of 'nope'"):
        plots.timeseries(run_dir, "nope")

    fig = plots.cdf(swept, "goodput_bps", by="flows[0].cc")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "goodput (Mb/s)"
    assert ax.get_ylabel() == "cumulative fraction"
    # 6 runs x 4 flows per algorithm, and each CDF ends at 1.
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["newreno (n=24)", "cubic (n=24)"]
    for line in ax.get_lines():
        assert line.get_ydata()[-1] == pytest.approx(1.0)
        assert np.all(np.diff(line.get_ydata()) >= 0)

    magic = {".pdf": b"%PDF", ".png": b"\x89PNG", ".svg": b"<?xml"}
    for ext, head in magic.items():
        p = plots.save(fig, tmp_path / f"cdf{ext}")
        assert p.read_bytes().startswith(head)
    assert "<svg" in (tmp_path / "cdf.svg").read_text()
    with pytest.raises(ccsim.ScenarioError, match=".pdf, .svg or .png"):
        plots.save(fig, tmp_path / "cdf.jpg")


def test_cdf_curves_follow_the_grid_whatever_order_the_query_returns(swept, monkeypatch):
    """The flows-runs join comes back in no set order (DuckDB scans in parallel): with
    the rows reversed, the curves and the legend still follow the grid (newreno, then
    cubic)."""
    import ccsim.store

    query = ccsim.store.query
    monkeypatch.setattr(
        ccsim.store, "query", lambda d, sql: query(d, sql).iloc[::-1].reset_index(drop=True)
    )
    ax = plots.cdf(swept, "goodput_bps", by="flows[0].cc").axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["newreno (n=24)", "cubic (n=24)"]


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


# Appended to a copy of the report: after load, record what actually rendered (decoded
# PNGs have a natural size; inline SVGs have a laid-out box) in a <pre> that
# --dump-dom then prints.
PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.querySelectorAll("figure img")].map(
    i => i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 0);
  const svgs = [...document.querySelectorAll("figure > svg")].map(
    s => s.getBoundingClientRect().width > 50 && s.getBBox().width > 0
         && s.querySelectorAll("path, use").length > 0);
  const t = document.querySelector("table#results");
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify({
    figures: document.querySelectorAll("figure").length, imgs, svgs,
    rows: t ? t.tBodies[0].rows.length : -1,
    table_height: t ? t.getBoundingClientRect().height : 0,
  });
  document.body.appendChild(pre);
});
</script>"""


def _render(html_file: Path, tmp_path: Path) -> dict:
    chromium = _chromium()
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have chromium (.ci/run installs Debian's package)")
        pytest.skip("headless Chromium not installed (apt-get install chromium)")
    probe = tmp_path / f"probe-{html_file.name}"
    probe.write_text(html_file.read_text().replace("</body>", PROBE + "</body>"))
    p = subprocess.run(
        [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
         f"--user-data-dir={tmp_path / 'chrome-profile'}", "--virtual-time-budget=5000",
         "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    m = re.search(r'<pre id="probe">(.*?)</pre>', p.stdout, re.S)
    assert m, f"Chromium printed no probe result: rc={p.returncode} {p.stderr[-2000:]}"
    return json.loads(m.group(1).replace("&quot;", '"'))


@pytest.mark.parametrize("image_format", ["svg", "png"])
def test_report_renders_in_headless_chromium(swept, tmp_path, image_format):
    out = report(swept.directory, tmp_path / f"report-{image_format}.html",
                 image_format=image_format)  # fmt: skip
    text = out.read_text()
    # Self-contained: nothing to fetch.
    assert not re.search(r'(src|href)="(?!data:|#)', text)
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids)), "duplicate element ids across inline figures"
    assert "topology.buffer" in text
    assert 'bottleneck_rate = "100Mbps"' in html.unescape(text)  # the scenario is shown
    # 6 metric figures (buffer on x, one line per algorithm), 4 time series, 1 CDF.
    n_fig = text.count("<figure")
    assert n_fig == 11
    got = _render(out, tmp_path)
    assert got["figures"] == n_fig
    assert got["rows"] == 6  # 3 buffers x 2 algorithms
    assert got["table_height"] > 0
    if image_format == "png":
        assert len(got["imgs"]) == n_fig and all(got["imgs"]), got
    else:
        assert len(got["svgs"]) == n_fig and all(got["svgs"]), got


def test_cli_plot_and_report(swept, tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "ccsim", *map(str, args)],
                              capture_output=True, text=True, timeout=120)  # fmt: skip

    d = swept.directory
    p = cli("plot", d, "--x", "topology.buffer", "--y", "utilization", "--by", "flows[0].cc",
            "-o", tmp_path / "u.pdf")  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "u.pdf").read_bytes().startswith(b"%PDF")
    rid = swept.run_ids()[1]
    p = cli("plot", d, "--series", "queue_pkts", "--run", rid, "-o", tmp_path / "q.png")
    assert p.returncode == 0, p.stderr
    p = cli("plot", d / RUNS_DIR / rid, "--series", "cwnd_pkts", "-o", tmp_path / "c.svg")
    assert p.returncode == 0, p.stderr
    p = cli("plot", d, "--cdf", "goodput_bps", "-o", tmp_path / "g.png")
    assert p.returncode == 0, p.stderr
    p = cli("plot", d, "--x", "topology.buffer", "--y", "nope", "-o", tmp_path / "n.png")
    assert p.returncode == 2 and "nope" in p.stderr and not (tmp_path / "n.png").exists()
    p = cli("report", d, "-o", tmp_path / "r.html")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "r.html").read_text().count("<figure") == 11


def test_fct_cdf_of_sized_flows(tmp_path):
    # Flows of 30 KB and 300 KB (4 each per run, one run per size): every flow finishes,
    # and a flow ten times larger takes longer to complete.
    s = sweep(EXAMPLE, {"flows[0].size": ["30KB", "300KB"]}, set=SMALL,
              directory=tmp_path / "fct", progress=False)  # fmt: skip
    assert s.ran == 2
    fig = plots.cdf(s, "fct_s", by="flows[0].size")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "flow completion time (s)"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["30KB (n=4)", "300KB (n=4)"]
    small, large = (line.get_xdata() for line in ax.get_lines())
    assert np.median(large) > np.median(small)
    with pytest.raises(ccsim.ScenarioError, match="no finite values"):
        plots.cdf(swept_dir_without_fct(tmp_path), "fct_s")


def swept_dir_without_fct(tmp_path: Path) -> Path:
    """A sweep of unlimited (bulk) flows: no flow has an FCT."""
    d = tmp_path / "bulk"
    sweep(EXAMPLE, {}, set=SMALL, directory=d, progress=False)
    return d
