"""Parameter sweeps: grid expansion, replications, parallel execution, resumable storage.

A sweep is the cartesian product of a *grid* (``{"topology.buffer": ["0.25bdp", "bdp"],
"flows[0].cc": ["newreno", "cubic"]}``) times ``seeds`` replications. Every point is a
list of ``path=value`` overrides applied by the Rust core exactly as ``ccsim run --set``
applies them, so any scenario field can be swept, values with units and buffer rules
included.

On disk (``DIR``): ``sweep.json`` (scenario, base overrides, grid, seeds),
``scenario.toml`` (the base scenario as the core resolved it), ``runs/<id>/`` (one
finished run, with ``run.json`` and ``DONE``) and ``runs/<id>.failed.json``; the names
and the atomic-write rules are in ``ccsim._layout``. ``<id>`` is a hash of the run's
parameters and seed, so the same point always lands in the same directory. A run is
finished iff ``runs/<id>/DONE`` exists. Re-running a sweep skips finished runs and
retries failed ones; killing it at any moment leaves finished runs intact and at most
some temporary directories.

Replication ``k`` of a point runs with the core's replication seed of the scenario's
seed (``_core.replication_seed``: seed + k), the scenario's seed as the core reads it.

Workers only simulate and encode; the process that called :func:`sweep` writes every
file. So a Dask cluster needs no shared file system, and two workers can never race on
one directory.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import signal
import time
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from ccsim import _core
from ccsim._core import ScenarioError, SimulationError
from ccsim._layout import (
    MARKER_FILE,
    PCAP_SUFFIX,
    RUN_FILE,
    RUNS_DIR,
    SCENARIO_FILE,
    SWEEP_FILE,
    TIMING_FILE,
    check_target,
    clean,
    clean_temporaries,
    commit_run,
    finished_runs,
    is_done,
    is_sweep_dir,
    locked,
    owner,
    read_sweep,
    record_failure,
    replace_dir,
    with_timing,
    write_atomic,
    write_json,
    write_marker,
)
from ccsim._scenario import (
    Overrides,
    Scenario,
    check_syntax,
    limit_text,
    normalize_overrides,
    read_value,
    scenario_base_dir,
    text_of,
    toml_value,
)
from ccsim.store import catalogue, query, table

Grid = Mapping[str, Sequence[Any]]


# ------------------------------------------------------------------ grid and plan


@dataclass(frozen=True)
class RunSpec:
    """One point of a sweep: swept parameter values and the seed."""

    params: tuple[tuple[str, Any], ...]
    seed: int
    replication: int

    @property
    def id(self) -> str:
        """Hash of (parameters, seed): the run's directory name, stable across sweeps."""
        key = json.dumps(
            {"params": [[k, v] for k, v in self.params], "seed": self.seed},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=True,
        )
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    @property
    def overrides(self) -> list[str]:
        """The ``path=value`` strings the core applies for this point."""
        return [f"{k}={toml_value(v)}" for k, v in self.params] + [f"seed={self.seed}"]

    def record(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "params": dict(self.params),
            "seed": self.seed,
            "replication": self.replication,
            "overrides": self.overrides,
        }


def split_sweep_table(text: str, source: str = "<text>") -> tuple[str, dict[str, Any]]:
    """Remove the ``[sweep]`` table from scenario *text*.

    The Rust scenario parser rejects unknown fields, so ``[sweep]`` never reaches it:
    when present it is removed here and the scenario is re-serialised (comments are
    lost; the record in ``sweep.json`` keeps the parsed form). Returns
    ``(text_without_sweep, sweep_table)``; text without ``[sweep]`` comes back verbatim.
    """
    doc = check_syntax(text, source)
    if "sweep" not in doc:
        return text, {}
    table = doc.pop("sweep")
    if not isinstance(table, dict):
        raise ScenarioError(f"{source}: sweep: expected a table, got {type(table).__name__}")
    return tomli_w.dumps(doc), table


def grid_from_table(table: Mapping[str, Any], source: str = "sweep") -> tuple[dict, int | None]:
    """``[sweep]`` -> ``(grid, seeds)``.

    Every key but ``seeds`` is a scenario path whose value is the list of values to
    sweep. Nested tables give dotted paths, so ``topology.buffer = [...]`` and
    ``"topology.buffer" = [...]`` mean the same; quote paths with indices
    (``"flows[0].cc" = [...]``).
    """
    grid: dict[str, list[Any]] = {}
    seeds = table.get("seeds")
    if seeds is not None:
        _check_seeds(seeds, f"{source}.seeds")

    def walk(node: Mapping[str, Any], prefix: str) -> None:
        for key, value in node.items():
            path = f"{prefix}{key}"
            if not prefix and key == "seeds":
                continue
            if isinstance(value, dict):
                walk(value, f"{path}.")
            elif isinstance(value, list):
                grid[path] = value
            else:
                raise ScenarioError(
                    f"{source}.{path}: expected a list of values to sweep, got {value!r}"
                )

    walk(table, "")
    return grid, seeds


def parse_grid_option(option: str) -> tuple[str, list[Any]]:
    """``'topology.buffer=["0.25bdp","bdp"]'`` (or ``topology.buffer=[0.25bdp,bdp]``)."""
    if "=" not in option:
        raise ScenarioError(f"--grid expects path=[v1,v2,...], got {option!r}")
    path, raw = (s.strip() for s in option.split("=", 1))
    if not path or not (raw.startswith("[") and raw.endswith("]")):
        raise ScenarioError(f"--grid expects path=[v1,v2,...], got {option!r}")
    values = read_value(raw)
    if not isinstance(values, list):
        # Bare words, as the shell leaves them: [0.25bdp, bdp] -> ["0.25bdp", "bdp"],
        # each read as the core reads an override's value.
        values = [read_value(p) for p in raw[1:-1].split(",") if p.strip()]
    return path, values


def _check_seeds(seeds: Any, where: str) -> None:
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ScenarioError(f"{where}: must be a whole number >= 1, got {seeds!r}")


def expand(grid: Grid, seeds: int, base_seed: int) -> list[RunSpec]:
    """The cartesian product of *grid* (in key order) times *seeds* replications.

    Replication ``i`` runs with the core's ``replication_seed(base_seed, i)``
    (``base_seed + i``): every grid point sees the same seeds (common random numbers),
    so differences between points are not seed noise.
    """
    paths = list(grid)
    for path in paths:
        values = grid[path]
        if isinstance(values, str | bytes) or not isinstance(values, Sequence):
            raise ScenarioError(f"grid.{path}: expected a list of values, got {values!r}")
        if len(values) == 0:
            raise ScenarioError(f"grid.{path}: empty list of values")
        if path.strip() == "seed":
            raise ScenarioError("grid.seed: use seeds = N for replications, not a seed grid")
    specs = []
    for combo in itertools.product(*(list(grid[p]) for p in paths)):
        params = tuple(zip(paths, combo, strict=True))
        for i in range(seeds):
            specs.append(RunSpec(params, _core.replication_seed(base_seed, i), i))
    ids = [s.id for s in specs]
    if len(set(ids)) != len(ids):
        raise ScenarioError("the grid lists the same value twice for one path")
    return specs


# ------------------------------------------------------------------ the worker side


def execute(
    scenario_text: str,
    overrides: list[str],
    memory_limit: str | None = None,
    base_dir: str | None = None,
) -> dict[str, Any]:
    """Run one point and return its files as bytes (runs on a worker process).

    The run's files hold results only: its wall-clock time leaves ``summary.json``
    for the timing record (``timing.json``), so that the same point gives the same
    bytes whichever worker, pool or cluster ran it. ``[output] events`` and ``pcap``
    travel with the run's files.

    Never raises for a bad point: the error comes back as ``{"ok": False, ...}`` so
    that one invalid combination cannot stop the sweep. *base_dir*: where the scenario's
    relative paths (trace files) are taken from, the scenario file's directory.
    """
    t0 = time.perf_counter()
    try:
        import ccsim

        run = ccsim.run(scenario_text, set=overrides, memory_limit=memory_limit, base_dir=base_dir)
        t1 = time.perf_counter()
        wall_s = run.summary.pop("wall_s", t1 - t0)
        files = run.encode()
        for link, path in run.pcap.items():
            files[f"{link}{PCAP_SUFFIX}"] = path.read_bytes()
        t2 = time.perf_counter()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - PyO3's PanicException is a BaseException
        return {
            "ok": False,
            "error_type": type(e).__name__,
            "error": " ".join(str(e).split()) or type(e).__name__,
            "worker_s": time.perf_counter() - t0,
        }
    return {
        "ok": True,
        "files": files,
        "sim_wall_s": float(wall_s),
        "call_s": t1 - t0,
        "encode_s": t2 - t1,
        "worker_s": t2 - t0,
    }


def _worker_init() -> None:
    # Ctrl-C goes to the whole process group; the parent alone decides what to do.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    import ccsim  # noqa: F401 - pay the import once per worker, not in the first run


def _die_with_parent() -> None:
    """End this worker when the sweep's process ends. A worker is the fork server's
    child and holds the fork server's liveness pipe, so neither goes by itself: a sweep
    killed with SIGKILL left each worker to finish the run it held (minutes at a study's
    scale) and the next one queued to it. The worker's parent sentinel (the end of the
    pipe the sweep's process sent it work on) closes when that process dies; a thread
    waits on it (the simulation releases the GIL). Only the sweep's process writes to the
    store, so a worker ended mid-run loses nothing that a resume does not redo."""
    import multiprocessing
    import threading
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="ccsim-parent-watch", daemon=True).start()


# ------------------------------------------------------------------ the store side


def _commit_run(runs: Path, spec: RunSpec, result: dict[str, Any], timing: dict) -> bool:
    """Write a finished run atomically (``_layout.commit_run``) with its ``run.json``
    (what ran) and ``timing.json`` (how long it took: the one file that differs between
    two executions of the same point). False if it was already there (a duplicate)."""
    files = dict(result["files"])
    files[RUN_FILE] = (json.dumps(spec.record(), indent=2) + "\n").encode()
    files[TIMING_FILE] = (json.dumps(timing, indent=2) + "\n").encode()
    return commit_run(runs, spec.id, files)


def _record_failure(runs: Path, spec: RunSpec, result: dict[str, Any]) -> None:
    record = spec.record() | {"error_type": result["error_type"], "error": result["error"]}
    record_failure(runs, spec.id, record)


# ------------------------------------------------------------------ the sweep


@dataclass
class Sweep:
    """A sweep directory: its runs, the catalogue, queries, tables.

    ``Sweep(DIR)`` opens an existing directory; :func:`sweep` makes and fills one.
    After :func:`sweep`, ``ran``, ``skipped`` and ``failed`` count what that call did.
    """

    directory: Path
    ran: int = 0
    skipped: int = 0
    failed: int = 0
    wall_s: float = 0.0
    timings: list[dict[str, float]] = field(default_factory=list, repr=False)

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)
        read_sweep(self.directory)  # raises if it holds no sweep
        self.ran = self.skipped = self.failed = 0
        self.wall_s = 0.0
        self.timings = []

    @property
    def spec(self) -> dict[str, Any]:
        """The contents of ``sweep.json``: scenario, base overrides, grid, seeds."""
        return read_sweep(self.directory)

    @property
    def params(self) -> list[str]:
        """The swept paths, in grid order."""
        return list(self.spec["grid"])

    @property
    def runs_dir(self) -> Path:
        """``DIR/runs``: one directory per finished run, named by its id."""
        return self.directory / RUNS_DIR

    def run_ids(self) -> list[str]:
        """Ids of the finished runs."""
        return finished_runs(self.runs_dir)

    def load(self, run_id: str):
        """The finished run *run_id* as a :class:`ccsim.Run`."""
        from ccsim._results import load

        if not is_done(self.runs_dir, run_id):
            raise KeyError(f"no finished run {run_id!r} in {self.directory}")
        run = load(self.runs_dir / run_id)
        with_timing(self.runs_dir / run_id, run.summary)
        return run

    def catalogue(self):
        """One row per run (finished or failed): parameters, seed, summary metrics."""
        return catalogue(self.directory)

    def failures(self):
        """The failed runs: parameters, seed and error message."""
        cat = self.catalogue()
        return cat[cat["status"] == "failed"].reset_index(drop=True)

    def query(self, sql: str):
        """Run DuckDB *sql* over the views ``runs``, ``series`` and ``flows``."""
        return query(self.directory, sql)

    def table(self, metrics: Sequence[str] | None = None, by: Sequence[str] | None = None):
        """Per parameter combination: runs, and each metric's mean and 95 % CI."""
        return table(self.directory, metrics=metrics, by=by)


def plan(
    scenario: Scenario,
    grid: Grid | None = None,
    *,
    seeds: int | None = None,
    set: Overrides = None,  # noqa: A002
) -> tuple[str, list[str], dict[str, list[Any]], int, list[RunSpec]]:
    """Resolve a sweep without running it.

    Returns ``(scenario_text, base_overrides, grid, seeds, runs)``. The grid is the
    scenario's ``[sweep]`` table with *grid* on top (a path in both takes *grid*'s
    values); *seeds* likewise overrides ``[sweep] seeds`` (default 1). The seeds start
    at the base scenario's seed as the core reads it (which parses the base scenario).
    """
    text, source = text_of(scenario)
    text, table = split_sweep_table(text, source)
    file_grid, file_seeds = grid_from_table(table, f"{source}: sweep")
    merged = dict(file_grid)
    for path, values in (grid or {}).items():
        merged[path] = values
    n = seeds if seeds is not None else (file_seeds or 1)
    _check_seeds(n, "seeds")
    base = normalize_overrides(set)
    if any(o.split("=", 1)[0].strip() in merged for o in base):
        clash = [o for o in base if o.split("=", 1)[0].strip() in merged]
        raise ScenarioError(f"{clash[0]}: this path is also swept; give it in one place")
    specs = expand(merged, n, _core.scenario_seed(text, base))
    return text, base, {k: list(v) for k, v in merged.items()}, n, specs


def sweep(
    scenario: Scenario,
    grid: Grid | None = None,
    *,
    directory: str | os.PathLike,
    seeds: int | None = None,
    set: Overrides = None,  # noqa: A002
    workers: int | None = None,
    client: Any = None,
    scheduler: str | None = None,
    progress: bool = True,
    console: Any = None,
    force: bool = False,
    memory_limit: str | int | None = None,
) -> Sweep:
    """Run every point of a sweep that is not finished yet, and return the :class:`Sweep`.

    *scenario*: a path, TOML text or dict; its ``[sweep]`` table (if any) gives the grid
    and ``seeds``. *grid*: ``{path: [values]}`` added to (and overriding) ``[sweep]``.
    *seeds*: replications per point (seeds ``seed``, ``seed+1``, ...). *set*: overrides
    applied to every run. *directory*: where runs are stored; an existing sweep there is
    resumed (it must be of the same scenario and base overrides). *workers*: local
    processes (default: every core). *client* / *scheduler*: run on Dask instead, with
    this ``distributed.Client`` or a new client connected to the scheduler address
    (Dask is optional: ``pip install 'ccsim[dask]'``; without it a ScenarioError says so).
    *memory_limit*: the memory the sweep's runs may need together, as in
    :func:`ccsim.run` (default: ``CCSIM_MEMORY_LIMIT``, else half of this machine's
    memory); the local worker processes divide it (each run gets 1/N of it with N
    workers). On Dask each run gets the limit whole on its worker's machine (given, or
    that machine's default).

    *directory* must be new, empty or a ccsim sweep directory; any other raises
    ``OutputRefused`` unless *force*, which replaces it (and a sweep of another
    scenario) with a fresh sweep (``_layout.check_target`` lists what is refused even
    so).

    Runs that raise are recorded as failed (``Sweep.failures()``) and do not stop the
    sweep; running it again retries them. Raises ``ScenarioError`` for a bad sweep
    definition (nothing is written then).
    """
    text, base, merged, n, specs = plan(scenario, grid, seeds=seeds, set=set)
    limit = limit_text(memory_limit)
    _core.memory_limit_bytes(limit)  # a bad limit is bad input: raise before writing
    directory = check_target(directory, "sweep", force=force)
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ScenarioError(f"workers: must be a whole number >= 1, got {workers!r}")
    # The base scenario itself is checked once, here, before anything is written: a
    # bad base would make every run fail for the same reason. The core returns it
    # resolved (base overrides applied): the directory's scenario.toml.
    base_dir = scenario_base_dir(scenario)
    resolved = _core.validate(text, base, limit, base_dir)
    # A path that no point can use (a typo, a field that does not exist) is a bad
    # sweep, not N failed runs; a point that fails alone is an invalid combination
    # and is recorded as a failed run like any other error.
    errors = []
    for spec in specs:
        try:
            _core.validate(text, base + spec.overrides, limit, base_dir)
            break
        except ScenarioError as e:
            errors.append(e)
    else:
        raise ScenarioError(f"no point of the sweep is a valid scenario: {errors[0]}")
    doc = tomllib.loads(text)
    # What must not change under a sweep directory: the parsed scenario (comments and
    # layout may) and the overrides applied to every run.
    identity = hashlib.sha256(
        json.dumps({"scenario": doc, "set": base}, sort_keys=True, default=str).encode()
    ).hexdigest()
    record = {
        "identity": identity,
        "scenario": text,
        "scenario_doc": doc,
        "set": base,
        "grid": merged,
        "seeds": n,
        "runs": [s.id for s in specs],
    }
    if force and directory.is_dir() and any(directory.iterdir()):
        same = owner(directory) == "sweep" and (
            not is_sweep_dir(directory) or read_sweep(directory).get("identity") == identity
        )
        if not same:
            replace_dir(directory, lambda d: None, kind="sweep", force=True)
    own_client = None
    if client is None and scheduler is not None:
        # Connect before anything is written: an unreachable scheduler is bad input.
        own_client = client = _connect(scheduler)
    try:
        return _run(
            directory, record, text, resolved, base, specs, workers, client, progress, console,
            limit, base_dir,
        )  # fmt: skip
    finally:
        if own_client is not None:
            own_client.close()


def _run(
    directory, record, text, resolved, base, specs, workers, client, progress, console, limit,
    base_dir,
) -> Sweep:  # fmt: skip
    identity = record["identity"]
    directory.mkdir(parents=True, exist_ok=True)
    if not (directory / MARKER_FILE).is_file():
        write_marker(directory, "sweep")
    with locked(directory):
        clean_temporaries(directory)
        if (directory / SWEEP_FILE).exists():
            old = read_sweep(directory)
            if old.get("identity") != identity:
                raise ScenarioError(
                    f"{directory} holds a sweep of another scenario or other --set values; "
                    "use a new directory, or --force (force=True) to replace it"
                )
        write_json(directory / SWEEP_FILE, record)
        if not (directory / SCENARIO_FILE).exists():
            write_atomic(directory / SCENARIO_FILE, resolved.encode())
        runs = directory / RUNS_DIR
        runs.mkdir(exist_ok=True)
        clean(runs)
        result = Sweep(directory)
        todo = [s for s in specs if not is_done(runs, s.id)]
        result.skipped = len(specs) - len(todo)
        t0 = time.perf_counter()
        with _Progress(len(specs), result.skipped, enabled=progress, console=console) as bar:
            jobs = _execute_all(text, base, todo, workers, client, limit, base_dir)
            for spec, outcome in jobs:
                t_write = time.perf_counter()
                if outcome["ok"]:
                    timing = {
                        k: outcome[k] for k in ("sim_wall_s", "call_s", "encode_s", "worker_s")
                    }
                    _commit_run(runs, spec, outcome, timing)
                    result.ran += 1
                else:
                    _record_failure(runs, spec, outcome)
                    result.failed += 1
                    timing = {"worker_s": outcome["worker_s"]}
                timing["write_s"] = time.perf_counter() - t_write
                result.timings.append(timing)
                bar.advance(ok=outcome["ok"])
        result.wall_s = time.perf_counter() - t0
    return result


def _execute_all(
    text: str,
    base: list[str],
    todo: list[RunSpec],
    workers: int | None,
    client: Any,
    limit: str | None,
    base_dir: str | None,
) -> Iterator[tuple[RunSpec, dict[str, Any]]]:
    if not todo:
        return
    if client is not None:
        yield from _execute_dask(text, base, todo, client, limit, base_dir)
    else:
        yield from _execute_local(text, base, todo, workers, limit, base_dir)


def worker_share(limit: str | None, workers: int) -> str | None:
    """The memory limit of each of *workers* local processes running at once: the
    sweep's limit (*limit*, else the default) divided among them, as the fluid batch
    divides its own. ``"off"`` stays off."""
    total = _core.memory_limit_bytes(limit)
    return "off" if total is None else str(max(1, total // max(1, workers)))


def _execute_local(
    text, base, todo, workers, limit, base_dir
) -> Iterator[tuple[RunSpec, dict[str, Any]]]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    n = min(workers or os.cpu_count() or 1, len(todo))
    share = worker_share(limit, n)
    # forkserver, not fork: the parent may hold threads (progress bar, Arrow's pool),
    # and forking a threaded process can deadlock the child.
    ctx = multiprocessing.get_context("forkserver")
    # The fork server imports ccsim (numpy, pandas, pyarrow: most of a second) once;
    # every worker forked from it starts with it imported.
    ctx.set_forkserver_preload(["ccsim.sweep", "pyarrow.parquet"])
    pool = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_worker_init)
    try:
        # Keep a bounded window in flight so that Ctrl-C has little to cancel and a
        # million-run sweep does not hold a million futures.
        pending = iter(todo)
        inflight = {}
        for spec in itertools.islice(pending, 2 * n):
            inflight[pool.submit(execute, text, base + spec.overrides, share, base_dir)] = spec
        while inflight:
            done, _ = wait(inflight, return_when=FIRST_COMPLETED)
            for fut in done:
                spec = inflight.pop(fut)
                try:
                    outcome = fut.result()
                except Exception as e:  # a worker died (killed, out of memory)
                    outcome = {
                        "ok": False,
                        "error_type": type(e).__name__,
                        "error": f"worker failed: {e}",
                        "worker_s": 0.0,
                    }
                yield spec, outcome
                nxt = next(pending, None)
                if nxt is not None:
                    try:
                        job = (execute, text, base + nxt.overrides, share, base_dir)
                        inflight[pool.submit(*job)] = nxt
                    except BrokenProcessPool:
                        raise SimulationError(
                            "a worker process died (killed or out of memory); the runs "
                            "that finished are kept: run the sweep again to go on"
                        ) from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


DASK_MISSING = (
    "a Dask scheduler needs Dask, an optional part of ccsim: pip install 'ccsim[dask]' "
    "(or run the sweep without a scheduler, on local processes)"
)


def _distributed():
    """The ``distributed`` package, or a ScenarioError naming the extra to install."""
    try:
        import distributed
    except ImportError:
        raise ScenarioError(DASK_MISSING) from None
    return distributed


def _connect(scheduler: str):
    Client = _distributed().Client  # noqa: N806 - the class, as distributed names it

    try:
        return Client(scheduler, timeout="10s")
    except (OSError, ValueError) as e:
        raise ScenarioError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None


def _execute_dask(text, base, todo, client, limit, base_dir) -> Iterator[tuple[RunSpec, dict]]:
    as_completed = _distributed().as_completed

    futures = {}
    for spec in todo:
        fut = client.submit(
            execute, text, base + spec.overrides, limit, base_dir,
            key=f"ccsim-run-{spec.id}", pure=False,
        )  # fmt: skip
        futures[fut.key] = (fut, spec)
    for fut in as_completed([f for f, _ in futures.values()]):
        spec = futures[fut.key][1]
        try:
            outcome = fut.result()
        except Exception as e:  # the worker died or the task was lost
            outcome = {
                "ok": False,
                "error_type": type(e).__name__,
                "error": f"worker failed: {e}",
                "worker_s": 0.0,
            }
        fut.release()
        yield spec, outcome


class _Progress:
    """A rich progress bar over runs, with ETA, in a terminal or a Jupyter notebook;
    silent elsewhere (a log file, a pipe)."""

    def __init__(self, total: int, done: int, *, enabled: bool, console: Any = None):
        self.total, self.done, self.failed = total, done, 0
        self.enabled = enabled
        self.console = console
        self._progress = None

    def __enter__(self) -> _Progress:
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        from ccsim._progress import can_draw

        console = self.console or Console(stderr=True)
        if not can_draw(console):  # a terminal, or Jupyter
            return self
        self._progress = Progress(
            TextColumn("[bold]sweep"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("runs, [red]{task.fields[failed]} failed"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
        )
        self._task = self._progress.add_task("sweep", total=self.total, failed=0)
        self._progress.update(self._task, completed=self.done)
        self._progress.start()
        return self

    def advance(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        if self._progress is not None:
            self._progress.update(self._task, completed=self.done, failed=self.failed)

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()


def describe_grid(grid: Mapping[str, Sequence[Any]], seeds: int) -> str:
    """``topology.buffer ∈ {0.25bdp, bdp} × flows[0].cc ∈ {newreno, cubic} × 3 seeds``."""
    parts = [f"{p} ∈ {{{', '.join(_short(v) for v in vals)}}}" for p, vals in grid.items()]
    parts.append(f"{seeds} seed{'s' if seeds != 1 else ''}")
    return " × ".join(parts)


def _short(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)
