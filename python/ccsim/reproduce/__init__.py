"""Reproductions of the studies in ``shared/seeds``: one command per study.

Every figure of a study is a scenario with a ``[sweep]`` table in
``ccsim/reproduce/scenarios/<study>/<figure>.toml`` (linked from the repository's
``scenarios/papers/<study>``). A study module (``s003``, ``s004``) runs each
figure's sweep through :func:`ccsim.sweep`, draws the figure, and checks the study's
claims on ccsim's numbers::

    from ccsim import reproduce
    res = reproduce.reproduce("004", quick=True, out="out/004")
    for fig in res.figures:
        for c in fig.claims:
            print(fig.name, c.holds, c.text)

``quick=True`` scales every sweep down (fewer grid points, seeds, shorter runs) so
that a study finishes in a minute or two on two cores and keeps its qualitative
findings; the full mode runs the scenario files as written (the study's own scale
where the study gives it).

The output directory holds ``runs/<figure>-<mode>/`` (the sweep stores, resumable),
``<figure>.png``, ``results.json`` (every claim with ccsim's value) and
``report.md``.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ccsim._core import ScenarioError
from ccsim._layout import (
    MARKER_FILE,
    check_target,
    owner,
    replace_dir,
    write_atomic,
    write_marker,
)

SCENARIOS = Path(__file__).resolve().parent / "scenarios"

# study id -> (module, title)
STUDIES: dict[str, tuple[str, str]] = {
    "000": (
        "ccsim.reproduce.s000",
        "Alparslan, Arakawa, Murata: Performance of Paced and Non-Paced Transmission "
        "Control Algorithms in Small Buffered Networks",
    ),
    "001": (
        "ccsim.reproduce.s001",
        "Aggarwal, Savage, Anderson: Understanding the Performance of TCP Pacing",
    ),
    "002": (
        "ccsim.reproduce.s002",
        "Muraya: Delay-Based High-Speed TCP under Different Router Buffer Regimes",
    ),
    "003": ("ccsim.reproduce.s003", "Augé, Roberts: Performance of TCP over a Fair Queueing Link"),
    "004": (
        "ccsim.reproduce.s004",
        "Kumar, Xue, Park: Impact of Loss Synchronization on Reliable High Speed Networks",
    ),
}


@dataclass
class Claim:
    """One statement of the study, checked on ccsim's numbers.

    *study*: what the study reports (a number or words); *ccsim*: what ccsim measured;
    *holds*: whether ccsim's numbers satisfy the statement as the check reads it
    (``check`` says how), ``None`` where nothing can be checked.
    """

    key: str
    text: str
    study: str
    ccsim: str
    holds: bool | None
    check: str = ""

    def __post_init__(self) -> None:
        if self.holds is not None:
            self.holds = bool(self.holds)  # numpy's bool_ is not ``True``


@dataclass
class FigureResult:
    name: str
    title: str
    files: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    table: str = ""  # markdown
    runs: int = 0
    reused: int = 0  # runs found finished in the output directory (not rerun)
    # the scenario files (``scenarios/papers/<study>/<name>.toml``) whose runs the figure
    # drew on; a figure drawn from another figure's runs names that figure's file
    scenarios: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    values: dict[str, Any] = field(default_factory=dict)

    def claim(self, key: str) -> Claim:
        for c in self.claims:
            if c.key == key:
                return c
        raise KeyError(f"{self.name}: no claim {key!r}")


@dataclass
class StudyResult:
    study: str
    title: str
    quick: bool
    out: Path
    figures: list[FigureResult] = field(default_factory=list)
    wall_s: float = 0.0

    def figure(self, name: str) -> FigureResult:
        for f in self.figures:
            if f.name == name:
                return f
        raise KeyError(f"study {self.study}: no figure {name!r} in this result")


@dataclass
class Context:
    """What a figure function needs: where to write, which mode, how to run sweeps."""

    study: str
    out: Path
    quick: bool
    workers: int | None = None
    progress: bool = False
    _runs: int = 0
    _reused: int = 0
    _scenarios: list[str] = field(default_factory=list)

    def scenario(self, figure: str) -> Path:
        path = scenario_path(self.study, figure)
        if path.name not in self._scenarios:
            self._scenarios.append(path.name)
        return path

    def sweep(
        self,
        figure: str,
        *,
        quick: Mapping[str, Any] | None = None,
        tag: str = "",
    ):
        """Run the sweep of ``<figure>.toml`` (scaled down by *quick* in quick mode:
        ``{"grid": {...}, "seeds": n, "set": {...}}``) and return ``(Sweep, runs)``:
        the :class:`ccsim.Sweep` and its finished runs (one row per run: swept
        parameters, seed and the summary's metrics)."""
        q = dict(quick or {}) if self.quick else {}
        mode = "quick" if self.quick else "full"
        directory = self.out / "runs" / f"{figure}{tag}-{mode}"
        sw, runs = run_sweep(
            self.scenario(figure),
            directory,
            grid=q.get("grid"),
            seeds=q.get("seeds"),
            set=q.get("set"),
            workers=self.workers,
            progress=self.progress,
        )
        self._runs += len(runs)
        self._reused += sw.skipped
        return sw, runs


def run_sweep(
    scenario: Path,
    directory: Path,
    *,
    grid: Mapping[str, Sequence[Any]] | None = None,
    seeds: int | None = None,
    set: Mapping[str, Any] | None = None,  # noqa: A002
    workers: int | None = None,
    progress: bool = False,
):
    """The one place the reproductions run simulations: :func:`ccsim.sweep` over the
    scenario's ``[sweep]`` table. Returns ``(Sweep, runs)`` with the finished runs; a
    failed run is an error here (a reproduction with holes would be misleading)."""
    import ccsim

    sw = ccsim.sweep(
        str(scenario),
        grid,
        directory=directory,
        seeds=seeds,
        set=set,
        workers=workers,
        progress=progress,
    )
    cat = sw.catalogue()
    failed = cat[cat["status"] != "done"]
    if len(failed):
        row = failed.iloc[0]
        raise ccsim.SimulationError(
            f"{scenario.name}: {len(failed)} run(s) failed, e.g. {row.get('error')}"
        )
    return sw, cat.reset_index(drop=True)


def scenario_path(study: str, figure: str) -> Path:
    p = SCENARIOS / study / f"{figure}.toml"
    if not p.is_file():
        raise ScenarioError(f"study {study}: no scenario for figure {figure!r} ({p})")
    return p


def study_module(study: str):
    if study not in STUDIES:
        known = ", ".join(sorted(STUDIES))
        raise ScenarioError(f"unknown study {study!r} (reproductions exist for: {known})")
    return importlib.import_module(STUDIES[study][0])


def figures(study: str) -> list[str]:
    """The figure names of *study*, in the study's order."""
    return list(study_module(study).FIGURES)


def reproduce(
    study: str,
    *,
    figure: str | Sequence[str] | None = None,
    quick: bool = False,
    out: str | Path = "out/reproduce",
    workers: int | None = None,
    progress: bool = False,
    log: Callable[[str], Any] | None = None,
    force: bool = False,
) -> StudyResult:
    """Run the figures of *study* (all, or *figure*), write the figures, ``results.json``
    and ``report.md`` into *out*, and return the results with every claim checked.

    *out* must be new, empty or a reproduction directory ccsim wrote (its finished runs
    are reused); any other raises ``OutputRefused`` unless *force*, which replaces it."""
    mod = study_module(study)
    names = list(mod.FIGURES)
    if figure is not None:
        wanted = [figure] if isinstance(figure, str) else list(figure)
        unknown = [f for f in wanted if f not in mod.FIGURES]
        if unknown:
            raise ScenarioError(
                f"study {study}: no figure {unknown[0]!r} (figures: {', '.join(names)})"
            )
        names = [n for n in names if n in wanted]
    out = check_target(out, "reproduction", force=force)
    if force and out.is_dir() and any(out.iterdir()) and owner(out) != "reproduction":
        replace_dir(out, lambda d: None, kind="reproduction", force=True)
    out.mkdir(parents=True, exist_ok=True)
    if not (out / MARKER_FILE).is_file():
        write_marker(out, "reproduction")
    result = StudyResult(study, STUDIES[study][1], quick, out)
    t0 = time.perf_counter()
    for name in names:
        ctx = Context(study, out, quick, workers, progress)
        t = time.perf_counter()
        fig = mod.FIGURES[name](ctx)
        fig.wall_s = time.perf_counter() - t
        fig.runs = ctx._runs
        fig.reused = ctx._reused
        fig.scenarios = list(ctx._scenarios)
        result.figures.append(fig)
        if log is not None:
            ok = sum(c.holds is True for c in fig.claims)
            log(
                f"{study} {name}: {fig.runs} runs ({fig.reused} reused), {fig.wall_s:.1f} s, "
                f"{ok}/{len(fig.claims)} claims hold"
            )
    result.wall_s = time.perf_counter() - t0
    write_results(result)
    return result


def write_results(result: StudyResult) -> None:
    out = result.out
    data = {
        "study": result.study,
        "title": result.title,
        "mode": "quick" if result.quick else "full",
        "wall_s": result.wall_s,
        "figures": [asdict(f) for f in result.figures],
    }
    write_atomic(out / "results.json", (json.dumps(data, indent=2, default=str) + "\n").encode())
    write_atomic(out / "report.md", report_markdown(result).encode())


def report_markdown(result: StudyResult) -> str:
    mode = "quick" if result.quick else "full"
    lines = [
        f"# Study {result.study}: {result.title}",
        "",
        f"Mode: {mode}; {sum(f.runs for f in result.figures)} runs "
        f"({sum(f.reused for f in result.figures)} reused from an earlier call) in "
        f"{result.wall_s:.0f} s. A claim *holds* when ccsim's numbers satisfy the check "
        "written beside it; the verdicts are in docs/reproductions/.",
        "",
    ]
    for f in result.figures:
        lines += [f"## {f.name}: {f.title}", ""]
        if f.scenarios:
            files = ", ".join(f"`scenarios/papers/{result.study}/{s}`" for s in f.scenarios)
            lines += [f"Scenario: {files}.", ""]
        for file in f.files:
            if file.endswith(".png"):
                lines += [f"![{f.name}]({file})", ""]
        if f.claims:
            lines += ["| claim | study | ccsim | holds | check |", "|---|---|---|---|---|"]
            for c in f.claims:
                mark = {True: "yes", False: "**no**", None: "—"}[c.holds]
                cells = [c.text, c.study, c.ccsim, mark, c.check]
                lines.append("| " + " | ".join(md_cell(x) for x in cells) + " |")
            lines.append("")
        if f.table:
            lines += [f.table, ""]
        lines += [f"{f.runs} runs ({f.reused} reused), {f.wall_s:.1f} s.", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------ helpers for studies


def log_x(ax, values) -> None:
    """A log x axis ticked at the swept values, labelled in plain numbers."""
    import matplotlib.ticker

    vals = sorted({float(v) for v in values})
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(vals))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FixedFormatter([f"{v:g}" for v in vals]))
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())


def fmt(x: float, digits: int = 3) -> str:
    return "—" if x is None or pd.isna(x) else f"{x:.{digits}f}"


def md_cell(x: Any) -> str:
    """Text for a Markdown table cell: a ``|`` would end the cell (a check such as
    ``|a − b| < 0.1`` lost the verdict after it), a newline the row."""
    return str(x).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def markdown_table(df: pd.DataFrame, digits: int = 3) -> str:
    cols = [md_cell(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        cells = [fmt(v, digits) if isinstance(v, float) else md_cell(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def mean_by(runs: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """Mean of *metrics* over seeds for each combination of *by* (grid order kept)."""
    return runs.groupby(list(by), sort=False, observed=True)[list(metrics)].mean().reset_index()


def buffer_fraction(values: pd.Series, bdp_pkts: float | None = None) -> pd.Series:
    """``"0.1bdp"`` -> 0.1, ``"1bdp"`` -> 1.0, ``"1250pkt"`` -> 1250 / *bdp_pkts*."""

    def one(v: Any) -> float:
        s = str(v)
        if s.endswith("bdp"):
            return float(s[:-3] or 1.0)
        if s.endswith("pkt"):
            if bdp_pkts is None:
                return float(s[:-3])
            return float(s[:-3]) / bdp_pkts
        raise ScenarioError(f"cannot read buffer {v!r} as a fraction of the BDP")

    return values.map(one)
