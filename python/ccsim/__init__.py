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

from collections.abc import Callable, Iterable, Mapping
from importlib import metadata as _metadata
from typing import Any

from ccsim import _core
from ccsim._core import ScenarioError, SimulationError
from ccsim._fluid import fluid_batch, fluid_replicate
from ccsim._results import Run, decode_table, load
from ccsim._scenario import Scenario, apply_overrides, check_syntax, normalize_overrides, resolve
from ccsim.sweep import Sweep, sweep

try:
    __version__ = _metadata.version("ccsim")
except _metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = [
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

Overrides = str | Iterable[str] | Mapping[str, Any] | None


def core_version() -> str:
    """The version of the compiled Rust core."""
    return _core.version()


def scenario_text(scenario: Scenario) -> str:
    """The TOML text of *scenario* (a path, TOML text or a dict), syntax-checked."""
    text, source = resolve(scenario)
    check_syntax(text, source)
    return text


def validate(scenario: Scenario, *, set: Overrides = None) -> None:  # noqa: A002
    """Raise ``ScenarioError`` if *scenario* (with overrides *set*) is not valid."""
    text, source = resolve(scenario)
    check_syntax(text, source)
    _core.validate(text, normalize_overrides(set))


def run(
    scenario: Scenario,
    *,
    set: Overrides = None,  # noqa: A002
    progress: bool | Callable[[float], Any] = False,
) -> Run:
    """Run one scenario and return its results.

    *scenario*: a path to a ``.toml`` file, TOML text, or a dict in the scenario format.
    *set*: overrides, ``["topology.buffer=\\"0.5bdp\\"", "seed=3"]`` or
    ``{"topology.buffer": "0.5bdp", "seed": 3}``.
    *progress*: ``True`` for a progress bar (shown if the run takes more than half a
    second), or a callable receiving the fraction of simulated time done.

    Raises ``ScenarioError`` (a ``ValueError``) for a bad scenario or a missing file,
    ``SimulationError`` (a ``RuntimeError``) if the simulator fails.
    """
    text, source = resolve(scenario)
    check_syntax(text, source)
    overrides = normalize_overrides(set)
    if progress is True:
        from ccsim._progress import LazyProgress

        with LazyProgress() as bar:
            result = _core.run(text, overrides, bar)
    else:
        result = _core.run(text, overrides, progress if callable(progress) else None)
    return Run._from_core(result, apply_overrides(text, overrides), overrides)
