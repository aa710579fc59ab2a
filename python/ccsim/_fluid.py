"""Batches and replications of fluid-engine scenarios (``engine = "fluid"``).

The work happens in the Rust core (``_core.fluid_batch``): every scenario is integrated
on its own thread, the GIL released, and the results come back as one table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ccsim import _core
from ccsim._core import ScenarioError
from ccsim._results import decode_table
from ccsim._scenario import Overrides, Scenario, check_syntax, normalize_overrides, text_of

if TYPE_CHECKING:  # pandas loads when a table is made, not on `import ccsim`
    import pandas as pd


def _texts(scenarios: Iterable[Scenario]) -> list[str]:
    if isinstance(scenarios, str | bytes | Mapping):
        raise TypeError("scenarios must be a list of scenarios (paths, TOML texts or dicts)")
    texts = []
    for i, sc in enumerate(scenarios):
        try:
            text, source = text_of(sc)
            check_syntax(text, source)
        except ScenarioError as e:
            raise ScenarioError(f"scenarios[{i}]: {e}") from None
        texts.append(text)
    return texts


def _check_count(name: str, value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ScenarioError(f"{name}: must be a whole number >= 1, got {value!r}")


Progress = bool | Callable[[int, int], Any]


def _batch(
    scenarios: Iterable[Scenario],
    set: Overrides,  # noqa: A002
    replications: int,
    threads: int | None,
    progress: Progress = False,
) -> dict[str, Any]:
    _check_count("replications", replications)
    _check_count("threads", threads)
    texts = _texts(scenarios)
    overrides = normalize_overrides(set)
    if progress is True:
        from ccsim._progress import LazyProgress

        with LazyProgress("fluid batch") as bar:
            return _core.fluid_batch(
                texts, overrides, replications, threads, lambda done, total: bar(done / total)
            )
    hook = progress if callable(progress) else None
    return _core.fluid_batch(texts, overrides, replications, threads, hook)


def fluid_batch(
    scenarios: Iterable[Scenario],
    *,
    set: Overrides = None,  # noqa: A002
    replications: int = 1,
    threads: int | None = None,
    progress: Progress = False,
) -> pd.DataFrame:
    """Integrate many fluid scenarios at once, on every core, and return one table.

    *scenarios*: paths, TOML texts or dicts, each with ``engine = "fluid"``.
    *set*: overrides applied to every scenario.
    *replications*: runs per scenario. With 1, each scenario runs with its own seed (a
    row equals ``ccsim.run`` of it); with n > 1, run k uses the core's replication seed
    (``_core.replication_seed``: the scenario's seed + k, as in a sweep).
    *threads*: worker threads (default: all cores).
    *progress*: ``True`` for a progress bar (shown if the batch takes more than half a
    second), or a callable receiving (runs done, runs in all). Ctrl-C stops the batch
    after the runs in flight.

    Returns one row per run: ``scenario`` (index in *scenarios*), ``name``,
    ``replication``, ``seed`` and the summary's scalars (``utilization``,
    ``drop_rate``, ``queue_mean_pkts``, ``jain_fairness``, ``goodput_bps_total``,
    ``congestion_events``, ``sync_level_mean``, ``wall_s``, ...).

    Raises ``ScenarioError`` naming the scenario's index (``scenarios[3]: ...``) if any
    scenario is invalid or not a fluid scenario; nothing runs then.
    """
    import pandas as pd

    result = _batch(scenarios, set, replications, threads, progress)
    df = decode_table(result["table"])
    df.insert(1, "name", pd.Categorical(result["names"]))
    return df


def fluid_replicate(
    scenario: Scenario,
    n: int = 10,
    *,
    set: Overrides = None,  # noqa: A002
    threads: int | None = None,
) -> pd.DataFrame:
    """Run *n* replications of a fluid scenario (study 004 averages 10 runs) and return,
    per metric, the ``mean`` and the 95 % confidence half-width ``ci95`` (the core's
    ``confidence_interval``: Student t with n − 1 degrees of freedom), and the number
    of runs ``n``. Runs where a metric
    is undefined (``sync_level_mean`` without congestion events) are left out of its
    mean. The seeds are those of ``fluid_batch(..., replications=n)``.
    """
    import pandas as pd

    _check_count("n", n)
    try:
        result = _batch([scenario], set, n, threads)
    except ScenarioError as e:
        # One scenario: its index says nothing.
        raise ScenarioError(str(e).removeprefix("scenarios[0]: ")) from None
    est = decode_table(result["estimates"])
    row = est.iloc[0]
    metrics = [c[: -len("_mean")] for c in est.columns if c.endswith("_mean")]
    return pd.DataFrame(
        {
            "mean": [row[f"{m}_mean"] for m in metrics],
            "ci95": [row[f"{m}_ci95"] for m in metrics],
            "n": int(row["runs"]),
        },
        index=pd.Index(metrics, name="metric"),
    )
