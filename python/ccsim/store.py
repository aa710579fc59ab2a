"""The results store: a DuckDB catalogue over a sweep directory.

Per-run outputs stay where the sweep wrote them (``runs/<id>/summary.json`` and
Parquet files); nothing is copied into a database file that could go stale. A query
opens an in-memory DuckDB with three views:

- ``runs``: one row per run, finished or failed. Columns: ``run_id``, ``status``
  (``"done"`` or ``"failed"``), ``error``, ``seed``, ``replication``, one column per
  swept path named by the path itself (``"topology.buffer"``, ``"flows[0].cc"``: quote
  them in SQL), then the summary metrics: the bottleneck link's metrics under their own
  names (``utilization``, ``drop_rate``, ``queue_mean_pkts``, ``queue_delay_mean_s``,
  ...), the flow aggregate as ``flows_*`` (``flows_goodput_bps_total``,
  ``flows_jain_fairness``), other scalars as in ``summary.json`` (``events``,
  ``wall_s``, ``bdp_pkts``, ``buffer``), and every link as ``"links.<name>.<metric>"``.
- ``series``: every finished run's ``series.parquet`` with its ``run_id``.
- ``flows``: every finished run's ``flows.parquet`` with its ``run_id``.
- ``groups``: one row per finished run and flow group, from the summary's ``groups``
  block: ``run_id``, ``name``, ``cc``, ``flows``, ``goodput_bps``, ``share``,
  ``capacity_share``, ``jain``, ``losses``, ``loss_rate``, ``retransmits``,
  ``timeouts`` (docs/metrics.md, *Per group*).

Join ``series``/``flows``/``groups`` to ``runs`` on ``run_id`` to get the parameters::

    SELECT r."flows[1].cc" AS cc, avg(g.share) AS share
    FROM groups g JOIN runs r USING (run_id) WHERE g.name = 'group1' GROUP BY 1
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim import _core
from ccsim._core import ScenarioError
from ccsim._layout import FLOWS_FILE, RUNS_DIR, SERIES_FILE, read_sweep, run_records

if TYPE_CHECKING:  # pandas loads where a table is made, not on `import ccsim`
    import pandas as pd

# The metrics Sweep.table() and the report show when none are named.
DEFAULT_METRICS = (
    "utilization",
    "drop_rate",
    "queue_mean_pkts",
    "queue_delay_mean_s",
    "flows_goodput_bps_total",
    "flows_jain_fairness",
)

# Summary keys that describe the run rather than measure it (not aggregated).
_NOT_METRICS = {"seed", "replication", "run_id", "status", "error", "error_type"}


def _flatten(summary: dict[str, Any]) -> dict[str, Any]:
    """summary.json -> flat columns (see the module doc for the names)."""
    row: dict[str, Any] = {}

    def scalar(v: Any) -> bool:
        return v is None or isinstance(v, bool | int | float | str)

    for key, value in summary.items():
        if key == "links" and isinstance(value, dict):
            for link, metrics in value.items():
                if isinstance(metrics, dict):
                    for m, v in metrics.items():
                        if scalar(v):
                            row[f"links.{link}.{m}"] = v
        elif isinstance(value, dict):
            for k, v in value.items():
                if scalar(v):
                    row[f"{key}_{k}"] = v
        elif scalar(value):
            row[key] = value
    bottleneck = (summary.get("links") or {}).get(summary.get("bottleneck"))
    if isinstance(bottleneck, dict):
        for m, v in bottleneck.items():
            if scalar(v) and m not in row and m != "id":  # the series' link id: no metric
                row[m] = v
    return row


def _param_value(v: Any) -> Any:
    # Distributions and lists are swept too; a column holds their TOML-ish JSON text.
    return json.dumps(v, sort_keys=True) if isinstance(v, dict | list) else v


# The groups table's columns, in the order of the summary's groups block.
GROUP_COLUMNS = (
    "run_id",
    "name",
    "cc",
    "flows",
    "goodput_bps",
    "share",
    "capacity_share",
    "jain",
    "losses",
    "loss_rate",
    "retransmits",
    "timeouts",
)


# The group metrics Sweep.table() shows per group when none are named.
GROUP_METRICS = ("share", "goodput_bps", "jain", "loss_rate")

# Keys of Sweep.table() and the plots' --by that select the groups table.
GROUP_KEYS = ("group", "cc")


def catalogue(directory: str | os.PathLike) -> pd.DataFrame:
    """One row per run of the sweep in *directory* (see the module doc for columns)."""
    return _catalogue(directory)[0]


def groups(directory: str | os.PathLike) -> pd.DataFrame:
    """One row per finished run and flow group (the summary's ``groups`` block)."""
    return _catalogue(directory)[1]


def _catalogue(directory: str | os.PathLike) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs table and the groups table, from one pass over the runs."""
    import pandas as pd

    d = Path(directory)
    spec = read_sweep(d)
    rows: list[dict[str, Any]] = []
    group_rows: list[dict[str, Any]] = []
    param_order: list[str] = list(spec.get("grid", {}))
    for run_id, status, record, summary in run_records(d / RUNS_DIR):
        for g in (summary or {}).get("groups") or []:
            group_rows.append({"run_id": run_id, **{k: g.get(k) for k in GROUP_COLUMNS[1:]}})
        if status == "done":
            row = {"run_id": run_id, "status": "done", "error": None}
        else:
            error = f"{record.get('error_type', 'Error')}: {record.get('error', '')}"
            row = {"run_id": run_id, "status": "failed", "error": error}
        row.update(_identity(record, param_order))
        if summary is not None:
            row.update(_flatten(summary))
        rows.append(row)
    # Plan order (grid order, seeds innermost), so tables list values as the grid does.
    position = {rid: i for i, rid in enumerate(spec.get("runs", []))}
    rows.sort(key=lambda r: (position.get(r["run_id"], len(position)), r["run_id"]))
    # Plan order too, groups in their summary order within a run (a stable sort).
    group_rows.sort(key=lambda r: (position.get(r["run_id"], len(position)), r["run_id"]))
    gdf = pd.DataFrame(group_rows, columns=list(GROUP_COLUMNS))
    gdf = gdf.astype({"name": "string", "cc": "string", "run_id": "string"})
    for col in GROUP_COLUMNS[3:]:
        gdf[col] = pd.to_numeric(gdf[col], errors="coerce")
    df = pd.DataFrame(rows)
    if df.empty:
        empty = pd.DataFrame(columns=["run_id", "status", "error", "seed", "replication"])
        return empty, gdf
    for col in df.columns:
        # A swept path may mix numbers and words (10 and "bdp"); DuckDB wants one type.
        kinds = {type(v) for v in df[col] if v is not None and not _isnan(v)}
        if len(kinds) > 1 and not kinds <= {int, float}:
            df[col] = df[col].map(lambda v: None if v is None or _isnan(v) else str(v))
    return df, gdf


def _identity(record: dict[str, Any], order: list[str]) -> dict[str, Any]:
    params = record.get("params", {})
    for k in params:
        if k not in order:
            order.append(k)
    row = {"seed": record.get("seed"), "replication": record.get("replication")}
    row.update({k: _param_value(params[k]) for k in order if k in params})
    return row


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def connect(directory: str | os.PathLike):
    """An in-memory DuckDB connection with the views ``runs``, ``series``, ``flows``,
    ``groups``."""
    import duckdb

    d = Path(directory).absolute()
    con = duckdb.connect()
    cat, grp = _catalogue(d)
    con.register("runs_df", cat)
    con.execute("CREATE VIEW runs AS SELECT * FROM runs_df")
    con.register("groups_df", grp)
    con.execute("CREATE VIEW groups AS SELECT * FROM groups_df")
    runs = d / RUNS_DIR
    for view, name in (("series", SERIES_FILE), ("flows", FLOWS_FILE)):
        files = (
            [
                str(runs / rid / name)
                for rid in cat.loc[cat["status"] == "done", "run_id"]
                if (runs / rid / name).is_file()
            ]
            if not cat.empty
            else []
        )
        if files:
            # The run id is the name of the file's directory. (A view cannot take
            # prepared parameters, so the file list is spelled as SQL literals.)
            listing = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
            con.execute(
                f"CREATE VIEW {view} AS SELECT regexp_extract(filename, "
                f"'([0-9a-f]+)/[^/]+$', 1) AS run_id, * EXCLUDE (filename) "
                f"FROM read_parquet([{listing}], filename = true, union_by_name = true)"
            )
        else:
            con.execute(f"CREATE VIEW {view} AS SELECT NULL::VARCHAR AS run_id WHERE false")
    return con


def query(directory: str | os.PathLike, sql: str) -> pd.DataFrame:
    """Run *sql* over the sweep in *directory*; the result as a DataFrame.

    Raises ``ScenarioError`` with DuckDB's message for bad SQL.
    """
    import duckdb

    con = connect(directory)
    try:
        return con.execute(sql).df()
    except duckdb.Error as e:
        raise ScenarioError(f"query: {' '.join(str(e).split())}") from None
    finally:
        con.close()


def table(
    directory: str | os.PathLike,
    metrics: Sequence[str] | None = None,
    by: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Group finished runs by the swept parameters (or *by*) and summarise *metrics*.

    One row per parameter combination with ``runs`` (how many finished) and, per
    metric, ``<metric>_mean`` and ``<metric>_ci95``: the mean across seeds and the
    half-width of its 95 % confidence interval, both from the core's
    ``confidence_interval`` (Student t with n − 1 degrees of freedom, the one interval
    of every batch and report; the half-width is NaN with a single run).

    With ``"group"`` or ``"cc"`` among *by*, one row per flow group (or algorithm) and
    parameter combination, over the groups table: *metrics* are then its columns
    (``share``, ``goodput_bps``, ``jain``, ``loss_rate``, ...) and ``runs`` counts
    group-runs.
    """
    import pandas as pd

    cat, grp = _catalogue(directory)
    spec = read_sweep(directory)
    keys = list(by) if by is not None else [p for p in spec.get("grid", {}) if p in cat.columns]
    done = cat[cat["status"] == "done"] if not cat.empty else cat
    if any(k in GROUP_KEYS for k in keys):
        # Per flow group: the groups table's rows with their runs' parameters, the
        # group's name under "group" (as in the flows table).
        params = [c for c in done.columns if c not in grp.columns or c == "run_id"]
        done = grp.rename(columns={"name": "group"}).merge(done[params], on="run_id")
    if metrics is None:
        default = GROUP_METRICS if "group" in done.columns else DEFAULT_METRICS
        metrics = [m for m in default if m in done.columns]
    missing = [m for m in list(metrics) + keys if m not in done.columns]
    if missing:
        raise ScenarioError(f"table: no column {missing[0]!r} in the catalogue")
    for m in metrics:
        if m in _NOT_METRICS or not pd.api.types.is_numeric_dtype(done[m]):
            raise ScenarioError(f"table: {m!r} is not a numeric metric")
    if not keys:
        groups = [((), done)]
    else:
        # Keep the grid's order of values, not sorted order ("0.25bdp" before "bdp").
        groups = list(done.groupby(keys, sort=False, dropna=False))
    rows = []
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(keys, key, strict=True))
        row["runs"] = len(g)
        for m in metrics:
            mean, half_width, _ = _core.confidence_interval(g[m].astype(float).dropna().tolist())
            row[f"{m}_mean"] = mean
            row[f"{m}_ci95"] = half_width
        rows.append(row)
    return pd.DataFrame(rows)
