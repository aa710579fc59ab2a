"""Where runs and sweeps live on disk: every file and directory name, and the helpers
that write them atomically and read them back.

A run directory (``Run.write``, ``ccsim run -o DIR``)::

    summary.json            the scalars
    series.parquet          the sampled time series
    flows.parquet           one row per flow
    scenario.toml           the scenario that ran, as the core resolved it (overrides applied)
    events.parquet          with [output] events = true
    <link>.pcap             with [output] pcap = ["<link>", ...]

A sweep directory (``ccsim.sweep``, ``ccsim sweep -o DIR``)::

    sweep.json              the scenario ([sweep] removed), base overrides, grid, seeds, run ids
    scenario.toml           the base scenario as the core resolved it (base overrides applied)
    runs/<id>/              a finished run: the run files above, run.json, DONE
    runs/<id>.failed.json   a run that raised: its parameters and the error message
    runs/.tmp-*             a run being written (ignored; removed by the next sweep)
    .lock                   held by the one sweep process writing the directory

A run directory under ``runs/`` appears by one ``rename`` of a complete temporary
directory whose last-written file is ``DONE``: a run is finished iff ``runs/<id>/DONE``
exists. ``sweep.py`` writes sweep directories, ``store.py`` reads them, ``_results.py``
writes and reads run directories; the names and the atomic-write rules live here only.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ccsim._core import ScenarioError

# ---- a run directory
SUMMARY_FILE = "summary.json"
SERIES_FILE = "series.parquet"
FLOWS_FILE = "flows.parquet"
SCENARIO_FILE = "scenario.toml"
RUN_FILES = (SUMMARY_FILE, SERIES_FILE, FLOWS_FILE, SCENARIO_FILE)
# Written only when the scenario asks for them ([output] events, pcap).
EVENTS_FILE = "events.parquet"
PCAP_SUFFIX = ".pcap"

# ---- a sweep directory
SWEEP_FILE = "sweep.json"
RUNS_DIR = "runs"
RUN_FILE = "run.json"
DONE_FILE = "DONE"
FAILED_SUFFIX = ".failed.json"
TMP_PREFIX = ".tmp-"
LOCK_FILE = ".lock"


# ------------------------------------------------------------------ writing


def fsync_dir(path: Path) -> None:
    """Make a directory's listing durable (best effort: not every file system can)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_synced(path: Path, data: bytes) -> None:
    """Write *data* to *path* and fsync it."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def write_atomic(path: Path, data: bytes) -> None:
    """Replace *path* by a file holding *data*: readers see the old file or the new one."""
    tmp = path.with_name(f"{TMP_PREFIX}{path.name}.{uuid.uuid4().hex[:8]}")
    write_synced(tmp, data)
    os.replace(tmp, path)


def replace_dir(directory: str | os.PathLike, fill: Callable[[Path], None]) -> Path:
    """Make *directory* hold what ``fill(tmp)`` writes into a fresh directory, atomically.

    The files are written into a temporary directory beside the target and renamed into
    place; an existing target is replaced as a whole. Readers see the old directory or
    the new one, never a partial one, and a failure leaves no trace.
    """
    target = Path(directory).absolute()
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and not target.is_dir():
        raise FileExistsError(f"{target} exists and is not a directory")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=parent))
    try:
        fill(tmp)
        fsync_dir(tmp)
        if target.exists():
            old = parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
            os.rename(target, old)
            try:
                os.rename(tmp, target)
            except BaseException:
                os.rename(old, target)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, target)
        fsync_dir(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


_io_pool = None


def _io_map(fn: Callable[[Any], Any], items: Iterable[Any]) -> None:
    """Run *fn* over *items* on a few I/O threads: concurrent fsyncs share one journal
    commit (about 4 ms each on ext4), where a loop would pay one commit per file."""
    global _io_pool
    if _io_pool is None:
        from concurrent.futures import ThreadPoolExecutor

        _io_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="ccsim-io")
    for _ in _io_pool.map(fn, items):
        pass


def commit_run(runs: Path, run_id: str, files: Mapping[str, bytes]) -> bool:
    """Write the finished run *run_id* (file name -> bytes) into ``runs/<id>/``
    atomically, ``DONE`` last. False if it was already there (a duplicate).

    Order of durability: every file is on disk (fsync) before DONE is written, DONE and
    the directory listing are on disk before the rename makes the run visible. The
    rename itself is not fsynced: after a power cut a finished run may be missing (and
    is run again) but never present and incomplete.
    """
    target = runs / run_id
    tmp = runs / f"{TMP_PREFIX}{run_id}.{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        _io_map(lambda item: write_synced(tmp / item[0], item[1]), files.items())
        # DONE is written last: a directory without it was never complete.
        write_synced(tmp / DONE_FILE, (run_id + "\n").encode())
        fsync_dir(tmp)
        try:
            os.rename(tmp, target)
        except OSError:
            if (target / DONE_FILE).exists():
                shutil.rmtree(tmp, ignore_errors=True)
                return False
            raise
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    with contextlib.suppress(FileNotFoundError):
        (runs / f"{run_id}{FAILED_SUFFIX}").unlink()
    return True


def record_failure(runs: Path, run_id: str, record: Mapping[str, Any]) -> None:
    """Write ``runs/<id>.failed.json`` (the run's parameters and its error)."""
    write_atomic(runs / f"{run_id}{FAILED_SUFFIX}", (json.dumps(record, indent=2) + "\n").encode())


def write_json(path: Path, record: Mapping[str, Any]) -> None:
    """Write *record* as indented JSON to *path*, atomically."""
    write_atomic(path, (json.dumps(record, indent=2, default=str) + "\n").encode())


def clean(runs: Path) -> None:
    """Remove what an interrupted sweep may have left: temporary directories and files,
    run directories without ``DONE`` (never produced by us, but never trusted), and
    failure markers of runs that have since finished."""
    for p in runs.iterdir():
        if p.name.startswith(TMP_PREFIX):
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()
        elif p.is_dir() and not (p / DONE_FILE).is_file():
            shutil.rmtree(p, ignore_errors=True)
        elif p.name.endswith(FAILED_SUFFIX) and is_done(runs, p.name[: -len(FAILED_SUFFIX)]):
            p.unlink()


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """One sweep process per directory at a time (an OS lock: freed when we die)."""
    fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ScenarioError(f"{directory}: another sweep is running there") from None
        yield
    finally:
        os.close(fd)


# ------------------------------------------------------------------ reading


def is_sweep_dir(directory: str | os.PathLike) -> bool:
    return (Path(directory) / SWEEP_FILE).is_file()


def read_sweep(directory: str | os.PathLike) -> dict[str, Any]:
    """The contents of ``sweep.json``; ScenarioError if *directory* holds no sweep."""
    d = Path(directory)
    if not is_sweep_dir(d):
        raise ScenarioError(f"{d}: not a sweep directory (no {SWEEP_FILE})")
    return json.loads((d / SWEEP_FILE).read_text(encoding="utf-8"))


def is_done(runs: Path, run_id: str) -> bool:
    return (runs / run_id / DONE_FILE).is_file()


def finished_runs(runs: Path) -> list[str]:
    """Ids of the finished runs under *runs*, sorted."""
    if not runs.is_dir():
        return []
    return sorted(
        p.name
        for p in runs.iterdir()
        if not p.name.startswith(TMP_PREFIX) and is_done(runs, p.name)
    )


def run_records(runs: Path) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any] | None]]:
    """Every run under *runs* as ``(run_id, status, record, summary)``: ``"done"`` runs
    with their ``run.json`` and ``summary.json``, ``"failed"`` ones (no finished run of
    the same id) with their failure record and no summary. Sorted by file name."""
    for p in sorted(runs.iterdir()) if runs.is_dir() else []:
        if p.name.startswith(TMP_PREFIX):
            continue
        if p.is_dir() and (p / DONE_FILE).is_file():
            record = json.loads((p / RUN_FILE).read_text(encoding="utf-8"))
            summary = json.loads((p / SUMMARY_FILE).read_text(encoding="utf-8"))
            yield p.name, "done", record, summary
        elif p.name.endswith(FAILED_SUFFIX):
            run_id = p.name[: -len(FAILED_SUFFIX)]
            if not (runs / run_id).is_dir():
                yield run_id, "failed", json.loads(p.read_text(encoding="utf-8")), None
