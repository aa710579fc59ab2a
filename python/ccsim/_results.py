"""Results of one run: decoding the core's columns, the ``Run`` object, atomic writes."""

from __future__ import annotations

import io
import json
import os
import shutil
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ccsim._layout import (
    EVENTS_FILE,
    FLOWS_FILE,
    PCAP_SUFFIX,
    SCENARIO_FILE,
    SERIES_FILE,
    SUMMARY_FILE,
    replace_dir,
    write_synced,
)


def decode_table(table: Mapping[str, Any] | None) -> pd.DataFrame:
    """``{"columns": {name: (dtype, bytes)}, "categories": {name: [str]}}`` -> DataFrame.

    Integer columns named in ``categories`` become ``pd.Categorical`` with those labels.
    """
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


@dataclass
class Run:
    """One finished run: scalars, sampled series and per-flow totals.

    ``summary``: the scalars (see ``summary.json``); ``series``: tidy time series with
    columns time, entity, id, metric, value; ``flows``: one row per flow;
    ``scenario_text``: the scenario that ran (overrides applied); ``events``: every
    drop and congestion event when ``[output] events = true`` (docs/metrics.md), else
    None; ``pcap``: link name -> path of its trace when ``[output] pcap`` lists links
    (after ``ccsim.run``, in a temporary directory removed with this object: ``write``
    copies the traces into the run directory).
    """

    summary: dict[str, Any]
    series: pd.DataFrame
    flows: pd.DataFrame
    scenario_text: str
    overrides: list[str] = field(default_factory=list)
    events: pd.DataFrame | None = None
    pcap: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def _from_core(cls, result: Mapping[str, Any], scenario_text: str, overrides: list[str]):
        summary = result.get("summary", {})
        if isinstance(summary, str | bytes):
            summary = json.loads(summary)
        events = result.get("events")
        run = cls(
            summary=dict(summary),
            series=decode_table(result.get("series")),
            flows=decode_table(result.get("flows")),
            scenario_text=scenario_text,
            overrides=list(overrides),
            events=None if events is None else decode_table(events),
            pcap={link: Path(path) for link, path, _packets in result.get("pcap") or []},
        )
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
        """The run's files as bytes, by file name: the four run files, and
        ``events.parquet`` when the run recorded events (pcap traces are files already)."""
        series, flows = io.BytesIO(), io.BytesIO()
        self.series.to_parquet(series, engine="pyarrow", index=False)
        self.flows.to_parquet(flows, engine="pyarrow", index=False)
        text = self.scenario_text
        text += "" if text.endswith("\n") else "\n"
        files = {
            SUMMARY_FILE: (json.dumps(self.summary, indent=2, sort_keys=False) + "\n").encode(),
            SERIES_FILE: series.getvalue(),
            FLOWS_FILE: flows.getvalue(),
            SCENARIO_FILE: text.encode(),
        }
        if self.events is not None:
            events = io.BytesIO()
            self.events.to_parquet(events, engine="pyarrow", index=False)
            files[EVENTS_FILE] = events.getvalue()
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
        summary = json.load(f)
    events = d / EVENTS_FILE
    return Run(
        summary=summary,
        series=pd.read_parquet(d / SERIES_FILE, engine="pyarrow"),
        flows=pd.read_parquet(d / FLOWS_FILE, engine="pyarrow"),
        scenario_text=(d / SCENARIO_FILE).read_text(encoding="utf-8"),
        events=pd.read_parquet(events, engine="pyarrow") if events.exists() else None,
        pcap={p.stem: p for p in sorted(d.glob(f"*{PCAP_SUFFIX}"))},
    )
