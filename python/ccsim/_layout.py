"""Where runs and sweeps live on disk: every file and directory name, and the helpers
that write them atomically and read them back.

A run directory (``Run.write``, ``ccsim run -o DIR``)::

    summary.json            the scalars (without wall_s)
    timing.json             wall_s (as sim_wall_s): the only bytes that vary between
                            two executions of the same scenario and seed
    series.parquet          the sampled time series
    flows.parquet           one row per flow
    scenario.toml           the scenario that ran, as the core resolved it (overrides applied)
    events.parquet          with [output] events = true
    <link>.pcap             with [output] pcap = ["<link>", ...]

A sweep directory (``ccsim.sweep``, ``ccsim sweep -o DIR``)::

    sweep.json              the scenario ([sweep] removed), base overrides, grid, seeds, run ids
    scenario.toml           the base scenario as the core resolved it (base overrides applied)
    runs/<id>/              a finished run: the run files above (summary.json without
                            wall_s), run.json, timing.json (wall_s and the sweep's
                            timings: the only bytes that vary between executions), DONE
    runs/<id>.failed.json   a run that raised: its parameters and the error message
    runs/.tmp-*             a run being written (ignored; removed by the next sweep)
    .lock                   held by the one sweep process writing the directory

Every directory ccsim writes (run, sweep, reproduction) holds ``.ccsim``, its marker
(``{"ccsim": version, "kind": ...}``), written first. ccsim replaces or writes into an
existing directory only if it carries the marker of the same kind (or is empty); any
other is refused unless the caller forces it, and the root, the home directory, the
current directory and its ancestors are refused always (``check_target``).

A run directory under ``runs/`` appears by one ``rename`` of a complete temporary
directory whose last-written file is ``DONE``: a run is finished iff ``runs/<id>/DONE``
exists. ``sweep.py`` writes sweep directories, ``store.py`` reads them, ``_results.py``
writes and reads run directories; the names and the atomic-write rules live here only.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import re
import shutil
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ccsim import _core
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
# How long a sweep's run took (its wall-clock times); kept out of the run's result
# files so that those are the same bytes wherever the run ran.
TIMING_FILE = "timing.json"
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


def replace_dir(
    directory: str | os.PathLike,
    fill: Callable[[Path], None],
    *,
    kind: str = "run",
    force: bool = False,
) -> Path:
    """Make *directory* hold what ``fill(tmp)`` writes into a fresh directory, atomically.

    The target must be new, empty, or a directory ccsim wrote for *kind* (its marker
    file says so); anything else is refused (``OutputRefused``) unless *force*, and some
    places are refused even then (``check_target``). The files are written into a
    temporary directory beside the target, marker first, then swapped in by one atomic
    exchange (``renameat2(RENAME_EXCHANGE)`` on Linux): at every instant the target is
    the old complete directory or the new complete one. A failure, Ctrl-C or SIGKILL
    leaves at most a temporary directory named ``.<name>.ccsim-tmp-<pid>-<hex>``, which
    the next write of the same target removes once that process is gone.
    """
    target = check_target(directory, kind, force=force)
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    clean_siblings(target)
    tmp = _sibling(target, "tmp")
    tmp.mkdir()
    try:
        write_marker(tmp, kind)
        fill(tmp)
        fsync_dir(tmp)
        if target.exists():
            if not _exchange(tmp, target):
                # No atomic exchange here (not Linux, or the file system lacks it): the
                # old directory steps aside under a recognisable name first; a kill
                # between the two renames leaves it there, and the next write of this
                # target puts it back (``clean_siblings``).
                old = _sibling(target, "old")
                os.rename(target, old)
                try:
                    os.rename(tmp, target)
                except BaseException:
                    os.rename(old, target)
                    raise
                tmp = old
            # ``tmp`` now holds the old directory.
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            os.rename(tmp, target)
        fsync_dir(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


# ------------------------------------------------------------------ what ccsim may touch

# Every directory ccsim writes (run, sweep, reproduction) holds this file, written
# first: {"ccsim": version, "kind": "run" | "sweep" | "reproduction"}.
MARKER_FILE = ".ccsim"
KINDS = ("run", "sweep", "reproduction")
# Temporary siblings of a target: .<name>.ccsim-tmp-<pid>-<hex> (being written) and
# .<name>.ccsim-old-<pid>-<hex> (the old directory, between two renames).
_SIBLING = re.compile(r"^\.(?P<name>.+)\.ccsim-(?P<what>tmp|old)-(?P<pid>\d+)-[0-9a-f]{8}$")


class OutputRefused(ScenarioError):
    """An output target that ccsim will not write: it holds files ccsim did not write
    (pass ``force=True`` / ``--force`` to replace it), or it is a place never replaced
    (``/``, the home directory, the current directory or one of its ancestors)."""


def write_marker(directory: Path, kind: str) -> None:
    """Mark *directory* as written by ccsim, holding a *kind*."""
    record = {"ccsim": _core.version(), "kind": kind}
    # Atomically: a kill while writing it in place left an empty or torn marker, and a
    # directory with a marker that does not parse is foreign: the resume was refused.
    try:
        write_atomic(directory / MARKER_FILE, (json.dumps(record) + "\n").encode())
    except FileNotFoundError:
        # Another process of ours, starting on the same directory, tidied our
        # temporary away after writing the same marker.
        if not (directory / MARKER_FILE).is_file():
            raise


def is_temporary(name: str) -> bool:
    """A file ccsim writes beside its target and renames (``write_atomic``): one left
    by a killed writer is ccsim's own, never the user's."""
    return name.startswith(TMP_PREFIX)


def clean_temporaries(directory: Path) -> None:
    """Remove the files a killed ``write_atomic`` left in *directory* (``.tmp-*``:
    ``sweep.json``, ``scenario.toml``, the marker). Call it holding the directory's lock."""
    for p in directory.iterdir():
        if is_temporary(p.name) and p.is_file() and not p.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                p.unlink()


def owner(directory: Path) -> str | None:
    """The kind of ccsim directory *directory* is (``"run"``, ``"sweep"``,
    ``"reproduction"``), or None if ccsim did not write it (or it is not a directory).

    Directories from before the marker are recognised by their contents: a sweep by
    its ``sweep.json``; a run when it holds nothing but run files; a reproduction by its
    ``results.json`` naming a study."""
    if not directory.is_dir():
        return None
    marker = directory / MARKER_FILE
    if marker.is_file():
        try:
            kind = json.loads(marker.read_text(encoding="utf-8")).get("kind")
        except (OSError, ValueError, AttributeError):
            return None
        return kind if kind in KINDS else None
    if (directory / SWEEP_FILE).is_file():
        return "sweep"
    names = {p.name for p in directory.iterdir()}
    run_names = set(RUN_FILES) | {EVENTS_FILE}
    if SUMMARY_FILE in names and all(n in run_names or n.endswith(PCAP_SUFFIX) for n in names):
        return "run"
    results = directory / "results.json"
    if results.is_file() and (directory / "report.md").is_file():
        try:
            if "study" in json.loads(results.read_text(encoding="utf-8")):
                return "reproduction"
        except (OSError, ValueError, TypeError):
            return None
    return None


def protected(path: Path) -> str | None:
    """Why *path* (absolute, resolved) may never be replaced, or None: the root, the
    home directory, the current directory and every directory above it."""
    cwd = Path.cwd().resolve()
    home = Path.home().resolve()
    if path == Path(path.anchor):
        return "it is the file system's root"
    if path == home:
        return "it is the home directory"
    if path == cwd:
        return "it is the current directory"
    if path in cwd.parents:
        return "it contains the current directory"
    if path in home.parents:
        return "it contains the home directory"
    return None


def check_target(directory: str | os.PathLike, kind: str, *, force: bool = False) -> Path:
    """The absolute path of output *directory* if ccsim may write a *kind* there;
    else ``OutputRefused`` with a one-line reason.

    Allowed: a path that does not exist, an empty directory, or a directory ccsim wrote
    for the same *kind*. With *force*, any other directory too (it is replaced), except
    the places ``protected`` names, which are refused whatever the flag says.
    """
    given = str(directory)
    target = Path(directory).expanduser().absolute()
    why = protected(target.resolve())
    if why is not None:
        raise OutputRefused(
            f"output {given}: refusing to write there ({why}); choose a new directory"
        )
    if not target.exists() and not target.is_symlink():
        return target
    if not target.is_dir():
        raise OutputRefused(f"output {given} exists and is not a directory")
    if force:
        return target
    found = owner(target)
    if found == kind:
        return target
    # Empty, or holding only what a killed ccsim left before its marker was in place.
    if found is None and all(
        is_temporary(p.name) and p.name[len(TMP_PREFIX) :].startswith(MARKER_FILE + ".")
        for p in target.iterdir()
    ):
        return target
    what = (
        f"holds a ccsim {found}, not a {kind}"
        if found is not None
        else "holds files that ccsim did not write"
    )
    raise OutputRefused(
        f"output {given} {what}; choose a new directory, or pass --force "
        f"(force=True) to replace it and everything in it"
    )


def check_file_target(path: str | os.PathLike, *, force: bool = False) -> Path:
    """The absolute path of output file *path* if ccsim may write it: a new file, or
    one ccsim wrote (a report or figure names ccsim as its generator near its start or
    end); with *force* any file. Else ``OutputRefused``."""
    given = str(path)
    target = Path(path).expanduser().absolute()
    if target.is_dir():
        raise OutputRefused(f"output {given} is a directory; give a file name")
    if not target.exists() or force:
        return target
    if not _names_ccsim(target):
        raise OutputRefused(
            f"output {given} exists and was not written by ccsim; choose a new file name, "
            "or pass --force (force=True) to replace it"
        )
    return target


def _names_ccsim(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
            f.seek(max(0, os.fstat(f.fileno()).st_size - 65536))
            tail = f.read(65536)
    except OSError:
        return False
    return b"ccsim" in head or b"ccsim" in tail


def replace_file(
    path: str | os.PathLike, write: Callable[[Path], None], *, force: bool = False
) -> Path:
    """Make file *path* hold what ``write(tmp)`` writes, atomically (a temporary file
    beside it, then one rename), after ``check_file_target``."""
    target = check_file_target(path, force=force)
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_siblings(target)
    tmp = _sibling(target, "tmp")
    try:
        write(tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    return target


def _sibling(target: Path, what: str) -> Path:
    return target.parent / f".{target.name}.ccsim-{what}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_siblings(target: Path) -> None:
    """Tidy what a killed write of *target* left beside it: put an old directory back
    if the target is missing, and remove ccsim's temporary directories whose process is
    gone. Only names of ccsim's own pattern are touched."""
    parent = target.parent
    if not parent.is_dir():
        return
    stale = []
    for p in parent.iterdir():
        m = _SIBLING.match(p.name)
        if m is None or m["name"] != target.name or p.is_symlink():
            continue
        if _alive(int(m["pid"])):
            continue
        stale.append((m["what"], p))
    # An old directory whose replacement never arrived goes back first.
    for what, p in sorted(stale, key=lambda x: x[0] != "old"):
        if what == "old" and not target.exists():
            with contextlib.suppress(OSError):
                os.rename(p, target)
                continue
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()


_renameat2: Any = None


def _exchange(a: Path, b: Path) -> bool:
    """Swap directories *a* and *b* atomically; False where the system cannot."""
    global _renameat2
    if _renameat2 is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _renameat2 = libc.renameat2
            _renameat2.argtypes = [
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_uint,
            ]
        except (OSError, AttributeError):
            _renameat2 = False
    if _renameat2 is False:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if _renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


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


def with_timing(run_dir: Path, summary: dict[str, Any]) -> dict[str, Any]:
    """*summary* with the run's ``wall_s`` from its ``timing.json`` (where a sweep's run
    and ``Run.write`` keep it; an older run directory has it in its summary)."""
    timing = run_dir / TIMING_FILE
    if "wall_s" not in summary and timing.is_file():
        summary["wall_s"] = json.loads(timing.read_text(encoding="utf-8")).get("sim_wall_s")
    return summary


def run_records(runs: Path) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any] | None]]:
    """Every run under *runs* as ``(run_id, status, record, summary)``: ``"done"`` runs
    with their ``run.json`` and ``summary.json``, ``"failed"`` ones (no finished run of
    the same id) with their failure record and no summary. Sorted by file name."""
    for p in sorted(runs.iterdir()) if runs.is_dir() else []:
        if p.name.startswith(TMP_PREFIX):
            continue
        if p.is_dir() and (p / DONE_FILE).is_file():
            record = json.loads((p / RUN_FILE).read_text(encoding="utf-8"))
            summary = with_timing(p, json.loads((p / SUMMARY_FILE).read_text(encoding="utf-8")))
            yield p.name, "done", record, summary
        elif p.name.endswith(FAILED_SUFFIX):
            run_id = p.name[: -len(FAILED_SUFFIX)]
            if not (runs / run_id).is_dir():
                yield run_id, "failed", json.loads(p.read_text(encoding="utf-8")), None
