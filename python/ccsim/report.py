"""One self-contained HTML page per sweep: the scenario, a results table, the figures.

The page has no scripts and loads nothing: figures are inline SVG (default) or PNG in
``data:`` URIs, styles are inline, so it can be mailed or archived as one file.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import math
import os
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ccsim._core import ScenarioError
from ccsim._layout import FLOWS_FILE, SERIES_FILE, check_file_target, replace_file

_figure_ids = itertools.count(1)

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #222; line-height: 1.4; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
pre { background: #f6f6f6; padding: .75rem; overflow-x: auto; font-size: .85rem; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: right; }
th { background: #eee; } td.param { text-align: left; font-family: monospace; }
figure { margin: 1.5rem 0; } figure svg, figure img { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
.failed td { color: #a00; text-align: left; }
"""


def report(
    directory: str | os.PathLike,
    output: str | os.PathLike,
    *,
    metrics: list[str] | None = None,
    x: str | None = None,
    by: str | None = None,
    image_format: str = "svg",
    force: bool = False,
) -> Path:
    """Write the HTML report of the sweep in *directory* to *output*.

    *metrics*: the table's and the figures' metrics (default: ``store.DEFAULT_METRICS``
    present in the catalogue). *x*: the swept path on the figures' x axis (default: the
    first swept path whose values are numbers or numbers with a unit, else the first).
    *by*: one line per value of this path (default: a swept path ending in ``cc``, else
    another swept path). *image_format*: ``"svg"`` (inline) or ``"png"`` (base64).
    The file is written atomically (temporary file, then rename). An existing *output*
    that ccsim did not write is refused (``OutputRefused``) unless *force*; the check
    comes first, before any work.
    """
    from ccsim import __version__
    from ccsim.plots import cdf, metric_vs_param, numeric_axis, timeseries
    from ccsim.store import DEFAULT_METRICS, catalogue, table
    from ccsim.sweep import Sweep, describe_grid

    check_file_target(output, force=force)
    if image_format not in ("svg", "png"):
        raise ScenarioError(f"report: image_format must be 'svg' or 'png', got {image_format!r}")
    sw = Sweep(directory)
    spec = sw.spec
    grid: dict[str, list[Any]] = spec.get("grid", {})
    cat = catalogue(sw.directory)
    done = cat[cat["status"] == "done"] if not cat.empty else cat
    if done.empty:
        raise ScenarioError(f"{sw.directory}: no finished runs to report")
    if metrics is None:
        metrics = [m for m in DEFAULT_METRICS if m in done.columns]
    params = [p for p in grid if p in done.columns]
    if x is None and params:
        x = next((p for p in params if numeric_axis(list(grid[p]))), params[0])
    if by is None:
        rest = [p for p in params if p != x]
        by = next((p for p in rest if p.split(".")[-1] == "cc"), rest[0] if rest else None)
    tab = table(sw.directory, metrics=metrics)

    figures: list[tuple[str, str]] = []

    def add(fig, caption: str) -> None:
        figures.append((_embed(fig, image_format), caption))

    if x is not None:
        # Other swept paths (beyond x and by) are averaged over in these figures.
        keys = [k for k in (x, by) if k]
        per = table(sw.directory, metrics=metrics, by=keys)
        for m in metrics:
            add(
                metric_vs_param(per, x, m, by=by),
                f"{m} against {x}" + (f", one line per {by}" if by else "")
                + "; mean and 95 % confidence interval across seeds.",
            )  # fmt: skip
    first = done.iloc[0]
    run_dir = sw.runs_dir / first["run_id"]
    series = pd.read_parquet(run_dir / SERIES_FILE, engine="pyarrow")
    flows = pd.read_parquet(run_dir / FLOWS_FILE, engine="pyarrow")
    # Many flows, or several groups: one colour per group with a legend (16 lines in
    # 16 colours, unlabelled, say nothing); a few flows of one group: a line each.
    n_groups = flows["group"].nunique() if "group" in flows.columns else 1
    colour = "group" if n_groups > 1 or len(flows) > 10 else None
    what = ", ".join(f"{p} = {first[p]}" for p in params) or "the base scenario"
    have = set(series["metric"].astype(str))
    for metric, entity in (
        ("cwnd_pkts", "flow"),
        ("throughput_bps", "flow"),
        ("utilization", "link"),
        ("queue_pkts", "link"),
    ):
        if metric in have:
            by = colour if entity == "flow" else None
            add(
                timeseries(series, metric, entity=entity, by=by, flows=flows),
                f"{metric} against time in run {first['run_id']} ({what}, seed {first['seed']})"
                + (", coloured by flow group." if by else "."),
            )
    add(
        cdf(sw, "goodput_bps", by=by, source="flows"),
        "CDF of per-flow goodput over the measurement window, all runs"
        + (f", by {by}." if by else "."),
    )

    failed = cat[cat["status"] == "failed"] if not cat.empty else cat
    name = html.escape(str(done.iloc[0].get("name", "sweep")))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta name="generator" content="ccsim {html.escape(__version__)}">',
        f"<title>ccsim sweep: {name}</title><style>{_CSS}</style></head><body>",
        f"<h1>ccsim sweep: {name}</h1>",
        "<p>"
        + html.escape(describe_grid(grid, spec.get("seeds", 1)))
        + f"; {len(done)} runs finished, {len(failed)} failed. ccsim {html.escape(__version__)}."
        + "</p>",
        "<h2>Scenario</h2>",
        f"<pre>{html.escape(spec.get('scenario', ''))}</pre>",
    ]
    if spec.get("set"):
        parts.append(
            "<p>Overrides applied to every run: <code>"
            + html.escape(" ".join(spec["set"]))
            + "</code></p>"
        )
    parts += [
        "<h2>Results</h2>",
        "<p>Mean ± half-width of the 95 % confidence interval across seeds "
        "(Student t, n − 1 degrees of freedom).</p>",
        _results_table(tab, params, metrics),
    ]
    if not failed.empty:
        parts.append("<h2>Failed runs</h2>")
        parts.append(_failed_table(failed, params))
    parts.append("<h2>Figures</h2>")
    for i, (body, caption) in enumerate(figures, 1):
        parts.append(
            f'<figure id="fig{i}">{body}<figcaption>Figure {i}. '
            f"{html.escape(caption)}</figcaption></figure>"
        )
    parts.append("</body></html>")
    text = "\n".join(parts) + "\n"
    return replace_file(output, lambda tmp: tmp.write_text(text, encoding="utf-8"), force=force)


def _embed(fig, image_format: str) -> str:
    import matplotlib.pyplot as plt

    from ccsim.plots import STYLE, _metadata

    buf = io.BytesIO()
    try:
        with plt.rc_context(STYLE):
            fig.savefig(
                buf, format=image_format, bbox_inches="tight", metadata=_metadata(image_format)
            )
    finally:
        plt.close(fig)
    if image_format == "png":
        data = base64.b64encode(buf.getvalue()).decode("ascii")
        return f'<img alt="figure" src="data:image/png;base64,{data}">'
    svg = buf.getvalue().decode("utf-8")
    svg = svg[svg.index("<svg") :]  # drop the XML prolog and DOCTYPE
    # Several SVGs share one HTML id space: give each figure's ids its own prefix.
    prefix = f"f{next(_figure_ids)}-"
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}\1"', svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}\1"', svg)
    return re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}\1)", svg)


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _results_table(tab: pd.DataFrame, params: list[str], metrics: list[str]) -> str:
    from ccsim.plots import label, quantity

    head = [*params, "runs"] + [label(m) for m in metrics]
    rows = ['<table id="results"><thead><tr>']
    rows += [f"<th>{html.escape(h)}</th>" for h in head]
    rows.append("</tr></thead><tbody>")
    for _, r in tab.iterrows():
        cells = [f'<td class="param">{html.escape(_fmt(r[p]))}</td>' for p in params]
        cells.append(f"<td>{int(r['runs'])}</td>")
        for m in metrics:
            scale = quantity(m)[2]
            mean, ci = r[f"{m}_mean"] * scale, r[f"{m}_ci95"] * scale
            text = _fmt(mean) + ("" if not math.isfinite(ci) else f" ± {_fmt(ci)}")
            cells.append(f"<td>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    rows.append("</tbody></table>")
    return "".join(rows)


def _failed_table(failed: pd.DataFrame, params: list[str]) -> str:
    head = ["run", *params, "seed", "error"]
    rows = ['<table class="failed"><thead><tr>']
    rows += [f"<th>{html.escape(h)}</th>" for h in head]
    rows.append("</tr></thead><tbody>")
    for _, r in failed.iterrows():
        cells = [r["run_id"], *(_fmt(r.get(p)) for p in params), _fmt(r["seed"]), r["error"]]
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    rows.append("</tbody></table>")
    return "".join(rows)
