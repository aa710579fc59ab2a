"""ccsim: a simulator for congestion control, pacing, queues and router buffers.

    >>> import ccsim
    >>> run = ccsim.run("scenarios/examples/dumbbell.toml", set=["seed=2"])
    >>> run.summary["links"][run.summary["bottleneck"]]["utilization"]
    >>> run.series, run.flows          # pandas DataFrames
    >>> run.write("out/example")       # summary.json, series.parquet, flows.parquet, ...

The scenario schema lives in the Rust core; this package passes scenario text (from a
file, a string or a dict) through and decodes the results.
"""

from __future__ import annotations

import os as _os
import sys as _sys
from collections.abc import Callable
from typing import Any

from ccsim import _core
from ccsim._core import ScenarioError, SimulationError
from ccsim._fluid import fluid_batch, fluid_replicate
from ccsim._layout import OutputRefused
from ccsim._results import Run, decode_table, load
from ccsim._scenario import (
    Overrides,
    Scenario,
    base_dir_of,
    check_syntax,
    normalize_overrides,
    text_of,
    toml_value,
)
from ccsim._scenario import (
    limit_text as _limit_text,
)
from ccsim.sweep import Sweep, split_sweep_table, sweep
from ccsim.sweep import plan as sweep_plan


def _package_version() -> str:
    """The installed distribution's version.

    ``importlib.metadata`` imports the email package (tens of milliseconds, more than
    the rest of ``import ccsim``): read the ``Version:`` line of the one
    ``ccsim-*.dist-info`` on ``sys.path`` instead, and ask importlib.metadata only when
    there is not exactly one.
    """
    found = []
    for entry in _sys.path:
        try:
            names = _os.listdir(entry or ".")
        except OSError:
            continue
        found += [
            _os.path.join(entry or ".", n, "METADATA")
            for n in names
            if n.startswith("ccsim-") and n.endswith(".dist-info")
        ]
    if len(found) == 1:
        try:
            with open(found[0], encoding="utf-8") as f:
                for line in f:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
                    if not line.strip():
                        break  # end of the headers
        except OSError:
            pass
    from importlib import metadata

    try:
        return metadata.version("ccsim")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "0.0.0+unknown"


def __getattr__(name: str) -> Any:
    # Computed on first use: `import ccsim` reads no files.
    if name == "__version__":
        v = globals()["__version__"] = _package_version()
        return v
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")


__all__ = [
    "OutputRefused",
    "Run",
    "ScenarioError",
    "SimulationError",
    "Sweep",
    "core_version",
    "decode_table",
    "fluid_batch",
    "fluid_replicate",
    "load",
    "run",
    "scenario_text",
    "sweep",
    "validate",
]


def core_version() -> str:
    """The version of the compiled Rust core."""
    return _core.version()


def scenario_text(scenario: Scenario) -> str:
    """The TOML text of *scenario* (a path, TOML text or a dict), syntax-checked."""
    text, source = text_of(scenario)
    check_syntax(text, source)
    return text


def validate(
    scenario: Scenario,
    *,
    set: Overrides = None,  # noqa: A002
    memory_limit: str | int | None = None,
    base_dir: str | _os.PathLike | None = None,
) -> None:
    """Raise ``ScenarioError`` if *scenario* (with overrides *set*) is not valid.

    The core checks everything a run would refuse, without running it: the fields, the
    network laid out and routed, the buffers resolved, the engine built, the memory the
    run would need against *memory_limit* (as in :func:`run`); relative paths from
    *base_dir* (as in :func:`run`).

    A scenario with a ``[sweep]`` table is checked as :func:`sweep` would run it: the
    base scenario without ``[sweep]``, the table itself, and every grid point (its
    overrides applied to the base). The error names the first invalid point.
    """
    text, source = text_of(scenario)
    base_text, table = split_sweep_table(text, source)
    overrides = normalize_overrides(set)
    limit = _limit_text(memory_limit)
    where = str(base_dir) if base_dir is not None else base_dir_of(source)
    _core.validate(base_text, overrides, limit, where)
    if base_text is text:  # no [sweep] table
        return
    _, base, _, _, specs = sweep_plan(scenario, set=overrides)
    # Replications differ only in the seed: one check per grid point is enough.
    points = [s for s in specs if s.replication == 0]
    bad = []
    for i, spec in enumerate(points):
        try:
            _core.validate(base_text, base + spec.overrides, limit, where)
        except ScenarioError as e:
            bad.append((i, spec, e))
    if bad:
        i, spec, e = bad[0]
        where = ", ".join(f"{k}={toml_value(v)}" for k, v in spec.params) or "no swept values"
        raise ScenarioError(
            f"{source}: sweep: {len(bad)} of {len(points)} grid points are invalid; "
            f"point {i + 1} ({where}): {e}"
        )


def run(
    scenario: Scenario,
    *,
    set: Overrides = None,  # noqa: A002
    progress: bool | Callable[[float], Any] = False,
    memory_limit: str | int | None = None,
    base_dir: str | _os.PathLike | None = None,
) -> Run:
    """Run one scenario and return its results.

    *scenario*: a path to a ``.toml`` file, TOML text, or a dict in the scenario format.
    *set*: overrides, ``["topology.buffer=\\"0.5bdp\\"", "seed=3"]`` or
    ``{"topology.buffer": "0.5bdp", "seed": 3}``.
    *progress*: ``True`` for a progress bar (shown if the run takes more than half a
    second), or a callable receiving the fraction of simulated time done.
    *memory_limit*: the most memory the run may need by the core's estimate (``"8GB"``,
    bytes as an int, ``"off"``); default ``CCSIM_MEMORY_LIMIT``, else half of the
    machine's memory (docs/limits.md). A scenario over it raises ``ScenarioError``
    naming the field that drives the estimate, before anything runs.
    *base_dir*: the directory the scenario's relative paths (trace files) are taken
    from; default the scenario file's, or the current directory for text or a dict.

    The returned run's ``scenario_text`` (``scenario.toml`` when written) is the scenario
    as the core resolved it: the text with the overrides applied, which runs again as it
    is to the same results.

    Raises ``ScenarioError`` (a ``ValueError``) for a bad scenario or a missing file,
    ``SimulationError`` (a ``RuntimeError``) if the simulator fails.
    """
    text, source = text_of(scenario)
    if "sweep" in check_syntax(text, source):
        raise ScenarioError(
            f"{source}: has a [sweep] table, which describes many runs: run it with "
            "`ccsim sweep SCENARIO -o DIR` (ccsim.sweep), or remove [sweep] to run the base "
            "scenario once"
        )
    overrides = normalize_overrides(set)
    limit = _limit_text(memory_limit)
    where = str(base_dir) if base_dir is not None else base_dir_of(source)
    if progress is True:
        from ccsim._progress import LazyProgress

        with LazyProgress() as bar:
            result = _core.run(text, overrides, bar, limit, where)
    else:
        callback = progress if callable(progress) else None
        result = _core.run(text, overrides, callback, limit, where)
    return Run._from_core(result, _core.resolve(text, overrides), overrides)
