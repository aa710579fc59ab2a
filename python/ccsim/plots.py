"""Figures the studies draw, with matplotlib (Agg backend: no display needed).

- :func:`timeseries`: cwnd, throughput, utilization or queue of one run against time;
- :func:`metric_vs_param`: a summary metric against a swept parameter, one line per
  value of another parameter (usually the algorithm), mean and 95 % CI error bars
  across seeds, optional log axes;
- :func:`cdf`: empirical CDFs of a per-flow quantity (FCT, goodput) or a per-run metric,
  one curve per group.

Every function returns the ``Figure``; :func:`save` writes it as PDF, SVG or PNG by the
file's extension (vector for papers, PNG for screens). Axis labels carry units.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

# Before pyplot: never open a window, work on headless machines; but in a Jupyter
# kernel (which sets MPLBACKEND to its inline backend) keep that backend, so that a
# figure shows in the notebook.
if "inline" not in os.environ.get("MPLBACKEND", ""):
    matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ccsim._core import ScenarioError  # noqa: E402
from ccsim._layout import FLOWS_FILE, SERIES_FILE, replace_file  # noqa: E402

# --by values that name a column of the flows table rather than a swept path.
FLOW_KEYS = ("group", "cc", "direction")

# Publication defaults: Type 42 fonts in PDF (editable, accepted by IEEE/ACM checkers),
# text kept as text in SVG, no date stamps in files so a figure is reproducible.
STYLE = {
    "figure.figsize": (5.0, 3.2),
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "font.size": 9,
    "axes.labelsize": 9,
    "axes.titlesize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.2,
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "svg.fonttype": "none",
    "svg.hashsalt": "ccsim",
}

# name -> (label, unit, scale): the quantity's name in ccsim and how to show it.
QUANTITIES: dict[str, tuple[str, str, float]] = {
    "utilization": ("utilization", "fraction of capacity", 1.0),
    "utilization_data": ("utilization (data)", "fraction of capacity", 1.0),
    "throughput_bps": ("throughput", "Mb/s", 1e-6),
    "goodput_bps": ("goodput", "Mb/s", 1e-6),
    "flows_goodput_bps_total": ("total goodput", "Mb/s", 1e-6),
    "flows_goodput_bps_forward": ("forward goodput", "Mb/s", 1e-6),
    "flows_jain_fairness": ("Jain fairness index", "", 1.0),
    "queue_pkts": ("queue", "packets", 1.0),
    "queue_bytes": ("queue", "KB", 1e-3),
    "queue_mean_pkts": ("mean queue", "packets", 1.0),
    "queue_max_pkts": ("max queue", "packets", 1.0),
    "queue_mean_bytes": ("mean queue", "KB", 1e-3),
    "queue_max_bytes": ("max queue", "KB", 1e-3),
    "queue_delay_mean_s": ("mean queueing delay", "ms", 1e3),
    "drop_rate": ("drop rate", "%", 100.0),
    "cwnd_pkts": ("cwnd", "packets", 1.0),
    "cwnd_final": ("final cwnd", "packets", 1.0),
    "fct_s": ("flow completion time", "s", 1.0),
    "rtt_prop_s": ("propagation RTT", "ms", 1e3),
    "wall_s": ("wall-clock time", "s", 1.0),
}


def quantity(name: str) -> tuple[str, str, float]:
    """``(label, unit, scale)`` for a metric or column name, guessed from its suffix
    when it is not listed in ``QUANTITIES``."""
    if name in QUANTITIES:
        return QUANTITIES[name]
    base = name.split(".")[-1]
    if base in QUANTITIES:
        return QUANTITIES[base]
    for suffix, unit, scale in (
        ("_bps", "Mb/s", 1e-6),
        ("_pkts", "packets", 1.0),
        ("_bytes", "bytes", 1.0),
        ("_s", "s", 1.0),
    ):
        if base.endswith(suffix):
            return base[: -len(suffix)].replace("_", " "), unit, scale
    return base.replace("_", " "), "", 1.0


def label(name: str) -> str:
    """Axis label with unit: ``"throughput (Mb/s)"``."""
    text, unit, _ = quantity(name)
    return f"{text} ({unit})" if unit else text


def save(fig, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write *fig* to *path*; the format follows the extension (.pdf, .svg, .png).

    Atomically (a temporary file, then a rename). An existing file that ccsim did not
    write (its metadata name ccsim as creator) is refused (``OutputRefused``) unless
    *force*."""
    p = Path(path)
    fmt = p.suffix.lower().lstrip(".")
    if fmt not in ("pdf", "svg", "png"):
        raise ScenarioError(f"{p}: figures are written as .pdf, .svg or .png")

    def write(tmp: Path) -> None:
        with plt.rc_context(STYLE):
            fig.savefig(tmp, format=fmt, bbox_inches="tight", metadata=_metadata(fmt))

    replace_file(p, write, force=force)
    return p


def _metadata(fmt: str) -> dict[str, Any]:
    # No creation date: the same data make the same bytes.
    if fmt == "pdf":
        return {"CreationDate": None, "Creator": "ccsim"}
    if fmt == "svg":
        return {"Date": None, "Creator": "ccsim"}
    return {"Software": "ccsim"}


# ------------------------------------------------------------------ time series


def _series_of(run: Any) -> pd.DataFrame:
    if isinstance(run, pd.DataFrame):
        return run
    if isinstance(run, str | os.PathLike):
        return pd.read_parquet(Path(run) / SERIES_FILE, engine="pyarrow")
    return run.series


def _flows_of(run: Any, flows: pd.DataFrame | None) -> pd.DataFrame | None:
    if flows is not None:
        return flows
    if isinstance(run, str | os.PathLike):
        p = Path(run) / FLOWS_FILE
        return pd.read_parquet(p, engine="pyarrow") if p.is_file() else None
    return getattr(run, "flows", None)


def _entity_names(run: Any, series: pd.DataFrame) -> dict[tuple[str, int], str]:
    """Line labels: links by name (``bottleneck``), flows as ``flow 3``."""
    names: dict[tuple[str, int], str] = {}
    if "name" in series.columns:
        first = series.groupby([series["entity"].astype(str), "id"])["name"].first()
        for (ent, i), n in first.items():
            names[(ent, int(i))] = str(n)
    return names


def timeseries(
    run: Any,
    metric: str,
    *,
    ids: Sequence[int] | None = None,
    entity: str | None = None,
    by: str | None = None,
    flows: pd.DataFrame | None = None,
    ax=None,
    title: str | None = None,
):
    """*metric* of one run against time, one line per flow or link.

    *run*: a ``ccsim.Run``, a run directory, or a series DataFrame (long format:
    time, entity, id, metric, value). *metric*: ``cwnd_pkts``, ``throughput_bps``
    (flows), ``utilization``, ``queue_pkts``, ``queue_bytes`` (links). *ids*: which
    flows or links (default: all). *entity*: ``"flow"`` or ``"link"`` when a metric
    exists for both. *by*: ``"group"`` or ``"cc"`` colours each flow's line by its
    group or algorithm, with one legend entry per colour (the flows table comes from
    *run*, or *flows* when *run* is a bare series DataFrame).
    """
    series = _series_of(run)
    sel = series[series["metric"].astype(str) == metric]
    if entity is not None:
        sel = sel[sel["entity"].astype(str) == entity]
    if ids is not None:
        sel = sel[sel["id"].isin(list(ids))]
    if sel.empty:
        have = sorted(set(series["metric"].astype(str)))
        raise ScenarioError(f"timeseries: no samples of {metric!r} (the run has {have})")
    colour_of: dict[int, str] = {}
    if by is not None:
        if by not in ("group", "cc"):
            raise ScenarioError(f"timeseries: by must be 'group' or 'cc', got {by!r}")
        if set(sel["entity"].astype(str)) != {"flow"}:
            raise ScenarioError(f"timeseries: {metric!r} is not a per-flow series; by={by!r} "
                                "colours flows")  # fmt: skip
        table = _flows_of(run, flows)
        if table is None or by not in table.columns:
            raise ScenarioError(f"timeseries: by={by!r} needs the run's flows table")
        # A workload slot's instances share its id: the first row names it.
        colour_of = {int(f): str(g) for f, g in zip(table["flow"], table[by], strict=True)}
        colour_of = {k: colour_of[k] for k in sorted(colour_of)}
    _, _, scale = quantity(metric)
    names = _entity_names(run, series)
    with plt.rc_context(STYLE):
        fig, ax = _fig_ax(ax)
        groups = sel.groupby([sel["entity"].astype(str), sel["id"]], sort=True)
        keys = list(dict.fromkeys(colour_of.values()))
        palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        labelled: set[str] = set()
        many = groups.ngroups > 10
        for (ent, i), g in groups:
            style: dict[str, Any] = {"drawstyle": "steps-post"}
            if by is not None:
                key = colour_of.get(int(i), "?")
                style["color"] = palette[keys.index(key) % len(palette)] if key in keys else "0.5"
                # One legend entry per group, not per flow.
                style["label"] = None if key in labelled else key
                labelled.add(key)
            else:
                style["label"] = names.get((ent, int(i)), f"{ent} {i}")
            if many:
                style.update(linewidth=0.7, alpha=0.7)
            ax.plot(g["time"], g["value"] * scale, **style)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(label(metric))
        _honest_y(ax, sel["value"].to_numpy(float) * scale)
        if by is not None:
            ax.legend(loc="best", frameon=False, title=by)
        elif not many:
            ax.legend(loc="best", frameon=False)
        if title:
            ax.set_title(title)
        fig.tight_layout()
    return fig


def _honest_y(ax, values: np.ndarray) -> None:
    """No offset notation (``1e-3 + 0.999``) and, when positive values differ by under 5 %
    of their size, an axis from zero: a wobble of under a point must not look like a
    collapse."""
    ax.ticklabel_format(axis="y", useOffset=False, style="plain")
    v = values[np.isfinite(values)]
    if len(v) == 0 or ax.get_yscale() != "linear":
        return
    lo, hi = float(v.min()), float(v.max())
    if lo >= 0 and hi > 0 and hi - lo < 0.05 * hi:
        ax.set_ylim(0, hi * 1.1)


# ------------------------------------------------------------------ metric vs parameter

_SWEPT_QTY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)?\s*([A-Za-z%/]*)\s*$")


def numeric_axis(values: Sequence[Any]) -> tuple[list[float], str] | None:
    """Positions for swept values that are numbers or numbers with one shared unit:
    ``["0.25bdp", "bdp", "2bdp"]`` -> ``([0.25, 1, 2], "bdp")``; ``None`` otherwise."""
    xs, units = [], set()
    for v in values:
        if isinstance(v, bool):
            return None
        if isinstance(v, int | float):
            xs.append(float(v))
            units.add("")
            continue
        if not isinstance(v, str):
            return None
        m = _SWEPT_QTY.match(v)
        if not m or (m.group(1) is None and not m.group(2)):
            return None
        xs.append(float(m.group(1)) if m.group(1) is not None else 1.0)
        units.add(m.group(2))
    if len(units) != 1:
        return None
    unit = units.pop()
    if unit and not any(c.isalpha() for c in unit):
        return None
    return xs, unit


def metric_vs_param(
    data: Any,
    x: str,
    metric: str,
    *,
    by: str | None = None,
    logx: bool = False,
    logy: bool = False,
    ax=None,
    title: str | None = None,
):
    """*metric* (mean and 95 % CI across seeds) against swept parameter *x*, one line
    per value of *by* (for instance ``"flows[0].cc"``: one line per algorithm).

    *data*: a ``Sweep``, a sweep directory, or a table from ``Sweep.table()`` that has
    the columns *x*, *by*, ``<metric>_mean`` and ``<metric>_ci95``. Values of *x* that
    are numbers, or numbers sharing a unit (``"0.25bdp"``, ``"bdp"``), go on a numeric
    axis; otherwise each value gets a position in grid order.
    """
    tab = _table_of(data, metric, [c for c in (x, by) if c])
    if x not in tab.columns:
        raise ScenarioError(f"metric_vs_param: {x!r} is not a swept parameter")
    if by is not None and by not in tab.columns:
        raise ScenarioError(f"metric_vs_param: {by!r} is not a swept parameter")
    xs_all = list(dict.fromkeys(tab[x]))
    num = numeric_axis(xs_all)
    _, _, scale = quantity(metric)
    with plt.rc_context(STYLE):
        fig, ax = _fig_ax(ax)
        groups = [(None, tab)] if by is None else list(tab.groupby(by, sort=False))
        for key, g in groups:
            if num is not None:
                pos = dict(zip(xs_all, num[0], strict=True))
                g = g.assign(_x=g[x].map(pos)).sort_values("_x")
            else:
                pos = {v: i for i, v in enumerate(xs_all)}
                g = g.assign(_x=g[x].map(pos))
            y = g[f"{metric}_mean"].to_numpy(float) * scale
            err = g[f"{metric}_ci95"].to_numpy(float) * scale
            err = np.where(np.isfinite(err), err, 0.0)
            ax.errorbar(
                g["_x"].to_numpy(float), y, yerr=err, marker="o", markersize=3.5, capsize=3,
                label=None if key is None else f"{key}",
            )  # fmt: skip
        if num is not None:
            ax.set_xlabel(f"{x} ({num[1]})" if num[1] else x)
        else:
            ax.set_xticks(range(len(xs_all)), [str(v) for v in xs_all])
            ax.set_xlabel(x)
        ax.set_ylabel(label(metric))
        if logx:
            if num is None or min(num[0]) <= 0:
                raise ScenarioError(f"metric_vs_param: a log axis needs positive values of {x}")
            ax.set_xscale("log")
            # Ticks at the swept values, written plainly (0.25, 0.5, 1, 2), not 2×10⁻¹.
            ticks = sorted(set(num[0]))
            ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        if logy:
            ax.set_yscale("log")
        else:
            _honest_y(ax, tab[f"{metric}_mean"].to_numpy(float) * scale)
        if by is not None:
            ax.legend(title=by, frameon=False)
        if title:
            ax.set_title(title)
        fig.tight_layout()
    return fig


def _table_of(data: Any, metric: str, keys: list[str]) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        if f"{metric}_mean" not in data.columns:
            raise ScenarioError(f"metric_vs_param: the table has no {metric}_mean column")
        return data
    from ccsim.store import table

    directory = data.directory if hasattr(data, "directory") else data
    return table(directory, metrics=[metric], by=keys)


# ------------------------------------------------------------------ CDFs


def cdf(
    data: Any,
    column: str,
    *,
    by: str | None = None,
    source: str = "flows",
    logx: bool = False,
    ax=None,
    title: str | None = None,
):
    """Empirical CDF of *column*, one curve per value of *by*.

    *data*: a ``Sweep`` or sweep directory (then *source* says where *column* lives:
    ``"flows"`` for per-flow values such as ``fct_s`` or ``goodput_bps`` from every
    run, ``"runs"`` for per-run metrics, ``"groups"`` for per-group values such as
    ``share``), or a DataFrame holding *column* (and *by*), or a mapping
    ``{label: values}``. *by*: a swept path, or ``"group"`` / ``"cc"`` (a flow's group
    or algorithm; with ``source="runs"`` the groups table is read instead). NaN values
    (flows that did not finish) are left out; the legend says how many values each
    curve has.
    """
    groups = _cdf_groups(data, column, by, source)
    _, _, scale = quantity(column)
    with plt.rc_context(STYLE):
        fig, ax = _fig_ax(ax)
        drawn = 0
        for key, values in groups:
            v = np.sort(np.asarray(values, dtype=float))
            v = v[np.isfinite(v)] * scale
            if len(v) == 0:
                continue
            drawn += 1
            p = np.arange(1, len(v) + 1) / len(v)
            name = column if key is None else str(key)
            ax.step(v, p, where="post", label=f"{name} (n={len(v)})")
        if not drawn:
            plt.close(fig)
            raise ScenarioError(
                f"cdf: no finite values of {column!r} (an FCT exists only for flows "
                "with a size that finished)"
            )
        ax.set_xlabel(label(column))
        ax.set_ylabel("cumulative fraction")
        ax.set_ylim(0, 1.02)
        if logx:
            ax.set_xscale("log")
        ax.legend(title=by, frameon=False, loc="lower right")
        if title:
            ax.set_title(title)
        fig.tight_layout()
    return fig


def _cdf_groups(data: Any, column: str, by: str | None, source: str):
    if isinstance(data, dict):
        return list(data.items())
    plan_order = None
    if not isinstance(data, pd.DataFrame):
        from ccsim.store import catalogue, query

        directory = data.directory if hasattr(data, "directory") else data
        if source not in ("flows", "runs", "groups"):
            raise ScenarioError(f"cdf: source must be 'flows', 'runs' or 'groups', got {source!r}")
        # --by group|cc names a column of the flows (or groups) table, not a swept path.
        per_flow = by in FLOW_KEYS
        if source == "runs" and per_flow:
            source = "groups"  # a per-run metric has no group: the groups table's has
        table = {"flows": "flows", "runs": "runs", "groups": "groups"}[source]
        own = "name" if (source == "groups" and by == "group") else by
        by_col = f', {table}."{own}" AS "{by}"' if per_flow else (f', runs."{by}"' if by else "")
        sql = f'SELECT {table}."{column}"{by_col} FROM {table} JOIN runs USING (run_id)'
        if source == "runs":
            sql = f"SELECT \"{column}\"{by_col} FROM runs WHERE status = 'done'"
        data = query(directory, sql)
        if by and not per_flow:
            # A join's rows come back in no set order (DuckDB scans in parallel): the
            # catalogue gives the plan's, which is the grid's.
            runs = catalogue(directory)
            if by in runs.columns:
                plan_order = list(runs[by])
    if column not in data.columns:
        raise ScenarioError(f"cdf: no column {column!r}")
    if by is None:
        return [(None, data[column])]
    # Curves in the order of the swept values: quantities by magnitude (30KB before
    # 300KB), anything else in the grid's order for a sweep, else as the rows give it.
    rank: dict[Any, int] = {}
    for i, v in enumerate(plan_order if plan_order is not None else data[by]):
        rank.setdefault(v, i)
    groups = list(data.groupby(by, sort=False))
    groups.sort(key=lambda kg: (_natural_key(kg[0]), rank.get(kg[0], len(rank))))
    return [(k, g[column]) for k, g in groups]


_SMALL = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}
_PREFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _natural_key(value: Any) -> tuple:
    """Sort key for swept values: numbers and quantities with units (``"30KB"``,
    ``"100ms"``, ``"1Gbps"``) by magnitude; anything else after them (callers order
    those by a second key)."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return (0, float(value), "")
    m = _SWEPT_QTY.match(str(value))
    if m and (m.group(1) or m.group(2) == "bdp"):
        unit = m.group(2)
        scale = _SMALL.get(unit) or (_PREFIX.get(unit[0], 1.0) if len(unit) > 1 else 1.0)
        # A bare rule ("bdp") is one of its unit.
        return (0, float(m.group(1) or 1.0) * scale, unit)
    return (1, 0.0, "")


def _fig_ax(ax):
    if ax is not None:
        return ax.figure, ax
    fig, ax = plt.subplots()
    return fig, ax
