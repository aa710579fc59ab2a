"""Results of one run: decoding the core's columns, the ``Run`` object, atomic writes."""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim._layout import (
    EVENTS_FILE,
    FLOWS_FILE,
    PCAP_SUFFIX,
    SCENARIO_FILE,
    SERIES_FILE,
    SUMMARY_FILE,
    TIMING_FILE,
    replace_dir,
    with_timing,
    write_synced,
)

if TYPE_CHECKING:  # numpy and pandas load on first use of a table, not on `import ccsim`
    import pandas as pd


def decode_table(table: Mapping[str, Any] | None) -> pd.DataFrame:
    """``{"columns": {name: (dtype, bytes)}, "categories": {name: [str]}}`` -> DataFrame.

    Integer columns named in ``categories`` become ``pd.Categorical`` with those labels.
    """
    import numpy as np
    import pandas as pd

    if not table:
        return pd.DataFrame()
    columns = table.get("columns") or {}
    categories = table.get("categories") or {}
    data: dict[str, Any] = {}
    for name, spec in columns.items():
        dtype, raw = spec
        arr = np.frombuffer(memoryview(raw), dtype=np.dtype(dtype)).copy()
        if name in categories:
            labels = list(categories[name])
            codes = arr.astype(np.int64)
            bad = (codes < -1) | (codes >= len(labels))
            if bad.any():
                raise ValueError(
                    f"column {name!r}: category code {int(codes[bad][0])} "
                    f"outside 0..{len(labels) - 1}"
                )
            data[name] = pd.Categorical.from_codes(codes, categories=labels)
        else:
            data[name] = arr
    lengths = {len(v) for v in data.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of unequal length: { {k: len(v) for k, v in data.items()} }")
    return pd.DataFrame(data)


_UNSET: Any = object()

# The core's column types as `memoryview.cast` formats (little-endian machines).
_CAST = {"<f8": "d", "<i8": "q", "<i4": "i", "<u1": "B", "<u4": "I"}


def table_rows(table: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The core's columns as a list of row dicts, without numpy or pandas (for the
    CLI's small flows table; :func:`decode_table` makes the DataFrame)."""
    if not table:
        return []
    import sys

    columns = table.get("columns") or {}
    categories = table.get("categories") or {}
    if sys.byteorder != "little" or any(d not in _CAST for d, _ in columns.values()):
        return decode_table(table).to_dict("records")
    cols = {}
    for name, (dtype, raw) in columns.items():
        values = memoryview(raw).cast(_CAST[dtype]).tolist()
        if name in categories:
            labels = list(categories[name])
            values = [labels[c] for c in values]
        cols[name] = values
    n = len(next(iter(cols.values()), []))
    return [{k: v[i] for k, v in cols.items()} for i in range(n)]


def with_names(series: pd.DataFrame, summary: Mapping[str, Any], flows: pd.DataFrame):
    """*series* with a ``name`` column: a link's name (``bottleneck``) on link rows, the
    flow's group on flow rows; the ``id`` column stays the link or flow id."""
    if series.empty or "name" in series.columns:
        return series
    import pandas as pd

    links = {
        int(v["id"]): name
        for name, v in (summary.get("links") or {}).items()
        if isinstance(v, Mapping) and v.get("id") is not None
    }
    groups: dict[int, str] = {}
    if not flows.empty and "group" in flows.columns:
        for f, g in zip(flows["flow"], flows["group"], strict=True):
            groups.setdefault(int(f), str(g))
    import numpy as np

    # One label per distinct (entity, id), then spread over the rows: series are long.
    is_link = (series["entity"].astype(str) == "link").to_numpy()
    key = series["id"].to_numpy(np.int64) * 2 + is_link
    uniq, inverse = np.unique(key, return_inverse=True)
    labels = np.array(
        [
            links.get(int(k) // 2, f"link {k // 2}")
            if k % 2
            else groups.get(int(k) // 2, f"flow {k // 2}")
            for k in uniq
        ],
        dtype=object,
    )
    out = series.copy()
    out.insert(out.columns.get_loc("id") + 1, "name", pd.Categorical(labels[inverse]))
    return out


class Run:
    """One finished run: scalars, sampled series and per-flow totals.

    ``summary``: the scalars (see ``summary.json``; ``summary["groups"]`` has one entry
    per flow group); ``series``: tidy time series with columns time, entity, id,
    metric, value; ``flows``: one row per flow; ``scenario_text``: the scenario that ran
    (overrides applied); ``events``: every drop and congestion event when ``[output]
    events = true`` (docs/metrics.md), else None; ``pcap``: link name -> path of its
    trace when ``[output] pcap`` lists links (after ``ccsim.run``, in a temporary
    directory removed with this object: ``write`` copies the traces into the run
    directory).

    The tables are pandas DataFrames, decoded on first use: a run whose caller reads
    only the summary never loads pandas.
    """

    def __init__(
        self,
        summary: dict[str, Any],
        series: pd.DataFrame | None = _UNSET,
        flows: pd.DataFrame | None = _UNSET,
        scenario_text: str = "",
        overrides: list[str] | None = None,
        events: pd.DataFrame | None = None,
        pcap: dict[str, Path] | None = None,
    ) -> None:
        self.summary = summary
        self.scenario_text = scenario_text
        self.overrides = list(overrides or [])
        self.pcap = dict(pcap or {})
        # name -> a DataFrame, or a thunk that makes one (the core's columns, a file).
        self._tables: dict[str, Any] = {"series": series, "flows": flows, "events": events}
        # The core's undecoded columns, while the DataFrame is not made (rows()).
        self._raw: dict[str, Any] = {}

    def rows(self, name: str = "flows") -> list[dict[str, Any]]:
        """A table (``"flows"``, ``"series"``, ``"events"``) as a list of row dicts;
        without loading pandas when the table was not decoded yet."""
        if name in self._raw and callable(self._tables[name]):
            return table_rows(self._raw[name])
        df = self._table(name)
        return [] if df is None else df.to_dict("records")

    def _table(self, name: str):
        v = self._tables[name]
        if v is _UNSET:
            v = decode_table(None)
        elif callable(v):
            v = v()
        self._tables[name] = v
        return v

    @property
    def series(self) -> pd.DataFrame:
        """Time series, long format: time, entity, id, name (a link's name, a flow's
        group), metric, value."""
        return self._table("series")

    @series.setter
    def series(self, value: pd.DataFrame) -> None:
        self._tables["series"] = value

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow (static flows by id, then workload instances)."""
        return self._table("flows")

    @flows.setter
    def flows(self, value: pd.DataFrame) -> None:
        self._tables["flows"] = value

    @property
    def events(self) -> pd.DataFrame | None:
        """Drops and congestion events, or None when the run recorded none."""
        return self._table("events")

    @events.setter
    def events(self, value: pd.DataFrame | None) -> None:
        self._tables["events"] = value

    def __repr__(self) -> str:
        # A short description: what ran, and where to look (the tables are not shown).
        s = self.summary
        parts = [f"name={s.get('name')!r}", f"engine={s.get('engine')!r}", f"seed={s.get('seed')}"]
        if s.get("duration_s") is not None:
            parts.append(f"duration={s['duration_s']:g}s")
        groups = s.get("groups") or []
        if groups:
            parts.append(
                "groups=" + ",".join(f"{g['name']}({g['cc']}×{g['flows']})" for g in groups)
            )
        link = (s.get("links") or {}).get(s.get("bottleneck")) or {}
        if link.get("utilization") is not None:
            parts.append(f"utilization={link['utilization']:.3f}")
        return f"<ccsim.Run {' '.join(parts)}>"

    @classmethod
    def _from_core(cls, result: Mapping[str, Any], scenario_text: str, overrides: list[str]):
        summary = result.get("summary", {})
        if isinstance(summary, str | bytes):
            summary = json.loads(summary)
        events = result.get("events")
        summary = dict(summary)

        def series():
            return with_names(decode_table(result.get("series")), summary, run.flows)

        run = cls(
            summary=summary,
            series=series,
            flows=lambda: decode_table(result.get("flows")),
            scenario_text=scenario_text,
            overrides=list(overrides),
            events=None if events is None else (lambda: decode_table(events)),
            pcap={link: Path(path) for link, path, _packets in result.get("pcap") or []},
        )
        run._raw = {k: result.get(k) for k in ("series", "flows", "events")}
        # The core wrote the traces into a fresh temporary directory: it goes with the
        # Run object (``write`` copies the traces into the run directory first).
        for d in {p.parent for p in run.pcap.values()}:
            weakref.finalize(run, shutil.rmtree, d, True)
        return run

    @property
    def drops(self) -> pd.DataFrame:
        """The drop rows of ``events`` (raises if the run recorded no events)."""
        return self._events_of("drop")

    @property
    def congestion_events(self) -> pd.DataFrame:
        """The congestion-event rows of ``events``: one per event and queue, with the
        flows that lost (``flows_lost``), those active and their ratio (``sync``)."""
        return self._events_of("congestion")

    def _events_of(self, kind: str) -> pd.DataFrame:
        if self.events is None:
            raise ValueError("this run recorded no events: set [output] events = true")
        return self.events[self.events["kind"] == kind].reset_index(drop=True)

    @property
    def name(self) -> str | None:
        """The scenario's ``name``."""
        return self.summary.get("name")

    @property
    def bottleneck(self) -> dict[str, Any]:
        """The summary entry of the bottleneck link (empty if the core named none)."""
        links = self.summary.get("links") or {}
        return links.get(self.summary.get("bottleneck"), {}) or {}

    def write(self, directory: str | os.PathLike, *, force: bool = False) -> Path:
        """Write the run files into *directory*, atomically, and return its path.

        *directory* must be new, empty, or a run directory ccsim wrote (its ``.ccsim``
        marker says so): anything else raises ``OutputRefused`` (a ``ScenarioError``)
        and is left untouched, unless *force* (then it is replaced, with everything in
        it; the root, the home directory and the current directory or its ancestors
        are refused even so). The files are written into a temporary directory beside
        the target and swapped in atomically: readers, and a kill at any moment, see
        the old directory or the new one, never a partial one.
        """
        return replace_dir(directory, self._write_files, kind="run", force=force)

    def encode(self) -> dict[str, bytes]:
        """The run's files as bytes, by file name: the four run files,
        ``events.parquet`` when the run recorded events (pcap traces are files already),
        and ``timing.json`` with the summary's ``wall_s``, which ``summary.json`` leaves
        out: every other file is the same bytes for the same scenario and seed."""
        series, flows = io.BytesIO(), io.BytesIO()
        self.series.to_parquet(series, engine="pyarrow", index=False)
        self.flows.to_parquet(flows, engine="pyarrow", index=False)
        text = self.scenario_text
        text += "" if text.endswith("\n") else "\n"
        summary = {k: v for k, v in self.summary.items() if k != "wall_s"}
        files = {
            SUMMARY_FILE: (json.dumps(summary, indent=2, sort_keys=False) + "\n").encode(),
            SERIES_FILE: series.getvalue(),
            FLOWS_FILE: flows.getvalue(),
            SCENARIO_FILE: text.encode(),
        }
        if self.events is not None:
            events = io.BytesIO()
            self.events.to_parquet(events, engine="pyarrow", index=False)
            files[EVENTS_FILE] = events.getvalue()
        if "wall_s" in self.summary:
            timing = {"sim_wall_s": self.summary["wall_s"]}
            files[TIMING_FILE] = (json.dumps(timing, indent=2) + "\n").encode()
        return files

    def _write_files(self, d: Path) -> None:
        for name, data in self.encode().items():
            write_synced(d / name, data)
        for link, path in self.pcap.items():
            shutil.copyfile(path, d / f"{link}{PCAP_SUFFIX}")


def load(directory: str | os.PathLike) -> Run:
    """Read a run written by ``Run.write`` (or ``ccsim run -o``)."""
    d = Path(directory)
    with open(d / SUMMARY_FILE, encoding="utf-8") as f:
        summary = with_timing(d, json.load(f))
    events = d / EVENTS_FILE

    def read(path: Path):
        def thunk():
            import pandas as pd

            return pd.read_parquet(path, engine="pyarrow")

        return thunk

    # Checked now, read on first use: a missing file fails here, not later.
    for p in (d / SERIES_FILE, d / FLOWS_FILE):
        if not p.is_file():
            raise FileNotFoundError(errno.ENOENT, "no such file", str(p))
    return Run(
        summary=summary,
        series=read(d / SERIES_FILE),
        flows=read(d / FLOWS_FILE),
        scenario_text=(d / SCENARIO_FILE).read_text(encoding="utf-8"),
        events=read(events) if events.exists() else None,
        pcap={p.stem: p for p in sorted(d.glob(f"*{PCAP_SUFFIX}"))},
    )
