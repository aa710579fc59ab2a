"""Faults in sweeps (issue 18, item 4).

- 20 SIGKILLs of a sweep at seeded random points of its writing (a run's files, its
  DONE, the rename that commits it, ``sweep.json``, a failure record, the marker, the
  clean-up of what an earlier kill left), each followed by a resume: after every kill
  no finished run is lost or duplicated, every finished run holds the same bytes as an
  uninterrupted sweep's, and the DuckDB catalogue lists exactly the runs on disk.
- A real Dask cluster (a scheduler and two workers, processes started here on
  127.0.0.1): one worker is SIGKILLed while it holds runs; the sweep completes, with
  the same bytes.
- The same sweep on one local worker, two, and Dask gives byte-identical run files
  (only ``timing.json``, the wall-clock times, may differ: it is kept apart for that).

The reference for every comparison is an uninterrupted ``workers=1`` sweep of the same
points, never a number from this code.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ccsim._layout import (
    DONE_FILE,
    FAILED_SUFFIX,
    MARKER_FILE,
    RUNS_DIR,
    TIMING_FILE,
    TMP_PREFIX,
    check_target,
)
from ccsim.sweep import Sweep, sweep

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"
# A small dumbbell: each run is tens of milliseconds of CPU.
SMALL = [
    'duration="8s"',
    'warmup="1s"',
    'topology.bottleneck_rate="10Mbps"',
    'topology.bottleneck_delay="5ms"',
    'topology.access_delay="2.5ms"',
]
# "nonsense" is no buffer size: those four points fail (a failure record each, retried
# by every resume), the other eight finish.
GRID = {"topology.buffer": ["0.25bdp", "bdp", "nonsense"], "flows[0].cc": ["newreno", "cubic"]}
SEEDS = 2
N_RUNS, N_DONE, N_FAILED = 12, 8, 4
KILLS = 20
KILL_SEED = 18


def run_files(run_dir: Path) -> dict[str, bytes]:
    """A finished run's files but its timing record (wall-clock times vary by design)."""
    return {p.name: p.read_bytes() for p in sorted(run_dir.iterdir()) if p.name != TIMING_FILE}


def done_ids(d: Path) -> set[str]:
    runs = d / RUNS_DIR
    if not runs.is_dir():
        return set()
    return {p.name for p in runs.iterdir() if not p.name.startswith(TMP_PREFIX) and p.is_dir()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("ref") / "j1"
    s = sweep(EXAMPLE, GRID, seeds=SEEDS, set=SMALL, directory=d, workers=1, progress=False)
    assert (s.ran, s.skipped, s.failed) == (N_DONE, 0, N_FAILED)
    return d


def assert_same_runs(d: Path, reference: Path, *, complete: bool = True) -> None:
    """Every finished run under *d* holds the reference's bytes (and, if *complete*,
    *d* has exactly the reference's finished runs)."""
    ref = done_ids(reference)
    got = done_ids(d)
    if complete:
        assert got == ref
    assert got <= ref, got - ref
    for rid in got:
        a, b = run_files(reference / RUNS_DIR / rid), run_files(d / RUNS_DIR / rid)
        assert a.keys() == b.keys(), rid
        for name in a:
            assert a[name] == b[name], f"{rid}/{name} differs"
        json.loads((d / RUNS_DIR / rid / TIMING_FILE).read_text())


def test_one_two_workers_give_the_same_bytes(reference, tmp_path):
    d = tmp_path / "j2"
    s = sweep(EXAMPLE, GRID, seeds=SEEDS, set=SMALL, directory=d, workers=2, progress=False)
    assert (s.ran, s.failed) == (N_DONE, N_FAILED)
    assert_same_runs(d, reference)
    # The catalogue keeps the wall time, read from timing.json.
    cat = s.catalogue()
    done = cat[cat["status"] == "done"]
    assert len(done) == N_DONE and (done["wall_s"] > 0).all()
    rid = done["run_id"].iloc[0]
    assert s.load(rid).summary["wall_s"] == done["wall_s"].iloc[0]


# ------------------------------------------------------------------ kills


# The child: a sweep that SIGKILLs its own process group (itself, and its workers when
# it has a pool) at the n-th call of one writing step of ccsim._layout.
CHILD = r"""
import json, os, signal, sys
import ccsim.sweep
import ccsim._layout as L

S = sys.modules["ccsim.sweep"]  # the package's name "sweep" is the function

scenario, directory, spec = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
point, nth, how = spec["point"], spec["nth"], spec["how"]
calls = [0]

def die():
    os.killpg(0, signal.SIGKILL)

def hit(name):
    if name == point:
        calls[0] += 1
        return calls[0] == nth
    return False

real_write = L.write_synced
def write_synced(path, data):
    if hit("write"):
        if how == "torn":  # half the bytes reached the file
            with open(path, "wb") as f:
                f.write(data[: len(data) // 2])
                f.flush()
                os.fsync(f.fileno())
        die()
    real_write(path, data)
L.write_synced = write_synced

real_fsync_dir = L.fsync_dir
def fsync_dir(path):
    if hit("fsync_dir"):
        die()
    real_fsync_dir(path)
L.fsync_dir = fsync_dir

class Proxy:
    def __init__(self, mod, **hooks):
        self._mod, self._hooks = mod, hooks
    def __getattr__(self, name):
        return self._hooks.get(name) or getattr(self._mod, name)

def renaming(fn):
    def wrapped(a, b, *args, **kw):
        kill = hit("rename")
        if kill and how == "before":
            die()
        r = fn(a, b, *args, **kw)
        if kill:
            die()
        return r
    return wrapped

L.os = Proxy(os, rename=renaming(os.rename), replace=renaming(os.replace))

import shutil
def rmtree(path, *a, **kw):
    if hit("rmtree"):
        # Part of the tree is gone when the kill comes.
        for p in sorted(os.listdir(path))[:1]:
            os.unlink(os.path.join(path, p))
        die()
    shutil.rmtree(path, *a, **kw)
L.shutil = Proxy(shutil, rmtree=rmtree)

if spec["workers"] == 0:
    # In this process (no pool to start): the kills are in the writing, which is here.
    def serial(text, base, todo, workers, limit, base_dir):
        for s in todo:
            yield s, S.execute(text, base + s.overrides, limit, base_dir)
    S._execute_local = serial

if __name__ == "__main__":
    S.sweep(scenario, json.loads(spec["grid"]), seeds=spec["seeds"], set=spec["set"],
            directory=directory, workers=max(1, spec["workers"]), progress=False)
"""

# Where a kill may come, with how many calls of that step one child makes at most
# before it would finish: a run commit is 7 file writes, 1 fsync of its directory and
# 1 rename; a failure record, sweep.json, scenario.toml and the marker are a write and
# a rename each.
POINTS = [
    ("write", 30, ("clean", "torn")),
    ("fsync_dir", 6, ("clean",)),
    ("rename", 8, ("before", "after")),
    ("rmtree", 2, ("clean",)),
]


def kill_plan(seed: int):
    """Kill points drawn from a seeded generator: the same sequence on every run."""
    rng = random.Random(seed)
    i = 0
    while True:
        point, most, hows = rng.choice(POINTS)
        yield {
            "point": point,
            "nth": rng.randint(1, most),
            "how": rng.choice(hows),
            # Every fifth with the real process pool (its workers die too).
            "workers": 2 if i % 5 == 4 else 0,
        }
        i += 1


def check_consistent(d: Path, reference: Path, seen: set[str]) -> set[str]:
    """What must hold after any kill; returns the finished runs."""
    runs = d / RUNS_DIR
    if runs.is_dir():
        for p in runs.iterdir():
            ok = (
                p.name.startswith(TMP_PREFIX)
                or (p.is_dir() and (p / DONE_FILE).is_file())
                or (p.is_file() and p.name.endswith(FAILED_SUFFIX))
            )
            assert ok, f"{p.name}: neither a finished run, a failure record nor a temporary"
    got = done_ids(d)
    assert seen <= got, f"finished runs lost: {seen - got}"
    assert_same_runs(d, reference, complete=False)
    # Whatever the kill left, the directory is still one ccsim may resume into.
    check_target(d, "sweep")
    if (d / "sweep.json").is_file():
        s = Sweep(d)
        cat = s.catalogue()
        if len(cat):
            assert cat["run_id"].is_unique
            assert set(cat.loc[cat["status"] == "done", "run_id"]) == got
            failed = {
                p.name[: -len(FAILED_SUFFIX)]
                for p in runs.iterdir()
                if p.name.endswith(FAILED_SUFFIX)
            } - got
            assert set(cat.loc[cat["status"] == "failed", "run_id"]) == failed
        if got:
            # The flows view reads exactly the finished runs' tables, each whole.
            q = s.query("SELECT run_id, count(*) AS n FROM flows GROUP BY 1")
            assert dict(zip(q["run_id"], q["n"], strict=True)) == {
                rid: len(s.load(rid).flows) for rid in got
            }
    return got


def test_twenty_sigkills_at_seeded_points_then_resume(reference, tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    d = tmp_path / "k"
    seen: set[str] = set()
    killed = []
    plan = kill_plan(KILL_SEED)
    # A drawn point past the end of the work kills nothing: draw until 20 kills came.
    for i in range(3 * KILLS):
        if len(killed) == KILLS:
            break
        spec = next(plan)
        arg = dict(spec, grid=json.dumps(GRID), seeds=SEEDS, set=SMALL)
        p = subprocess.run(
            [sys.executable, str(script), str(EXAMPLE), str(d), json.dumps(arg)],
            start_new_session=True,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert p.returncode in (0, -signal.SIGKILL), f"kill {i} {spec}: {p.stderr[-3000:]}"
        if p.returncode == -signal.SIGKILL:
            killed.append(spec)
        if p.returncode == 0 and len(done_ids(d)) == N_DONE:
            # Finished before this kill point came: start over, so that every kill
            # meets a sweep with work left (the seen runs start over with it).
            check_consistent(d, reference, seen)
            shutil.rmtree(d)
            seen = set()
            continue
        seen = check_consistent(d, reference, seen)
    assert len(killed) == KILLS, killed
    assert {k["point"] for k in killed} >= {"write", "rename", "fsync_dir"}
    assert any(k["workers"] for k in killed)

    if d.exists():
        s = sweep(EXAMPLE, GRID, seeds=SEEDS, set=SMALL, directory=d, progress=False)
        assert s.skipped == len(seen) and s.ran == N_DONE - len(seen)
        assert s.failed == N_FAILED
    else:
        s = sweep(EXAMPLE, GRID, seeds=SEEDS, set=SMALL, directory=d, progress=False)
    assert_same_runs(d, reference)
    cat = s.catalogue()
    assert len(cat) == N_RUNS and cat["run_id"].is_unique
    assert (cat["status"] == "done").sum() == N_DONE
    # Nothing of the kills is left: no temporary in the sweep or its runs.
    leftovers = [p.name for p in [*d.iterdir(), *(d / RUNS_DIR).iterdir()]]
    assert not [n for n in leftovers if n.startswith(TMP_PREFIX) or ".ccsim-" in n], leftovers


@pytest.mark.parametrize("nth", [1, 2, 3], ids=["marker", "sweep.json", "scenario.toml"])
def test_torn_write_of_the_sweeps_own_files_then_resume(reference, tmp_path, nth):
    """Regressions. A fresh sweep writes its marker, then sweep.json, then
    scenario.toml. The marker was written in place: a kill while writing it left a
    torn ``.ccsim`` and the next sweep refused the directory as not ccsim's. A kill
    during the others left ``.tmp-*`` files in the sweep directory for good."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    d = tmp_path / "m"
    arg = {"point": "write", "nth": nth, "how": "torn", "workers": 0}
    arg.update(grid=json.dumps(GRID), seeds=SEEDS, set=SMALL)
    p = subprocess.run(
        [sys.executable, str(script), str(EXAMPLE), str(d), json.dumps(arg)],
        start_new_session=True, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert p.returncode == -signal.SIGKILL, p.stderr
    check_target(d, "sweep")  # raised OutputRefused on a torn marker
    assert [q for q in d.iterdir() if q.name.startswith(TMP_PREFIX)], "no torn file left"
    s = sweep(EXAMPLE, GRID, seeds=SEEDS, set=SMALL, directory=d, progress=False)
    assert (s.ran, s.failed) == (N_DONE, N_FAILED)
    assert json.loads((d / MARKER_FILE).read_text())["kind"] == "sweep"
    assert not [q.name for q in d.iterdir() if q.name.startswith(TMP_PREFIX)]
    assert_same_runs(d, reference)


# A sweep whose runs each take tens of seconds (a 1 Gb/s dumbbell, 600 s simulated).
_SLOW_SWEEP = """
import sys
from ccsim.sweep import sweep
slow = ['duration="600s"', 'topology.bottleneck_rate="1Gbps"', 'flows[0].count=20']
sweep(sys.argv[1], directory=sys.argv[2], seeds=4, set=slow, workers=2, progress=False)
"""


def _descendants(pid: int) -> set[int]:
    """Every process below *pid* (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


def _running(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_sweep_killed_with_sigkill_leaves_no_worker_running(tmp_path):
    """SIGKILL of the sweep's process: each worker ends within seconds (it watches its
    parent sentinel) instead of running its run to the end and taking the next one queued
    to it, and the fork server and resource tracker then end with it."""
    p = subprocess.Popen(
        [sys.executable, "-c", _SLOW_SWEEP, str(EXAMPLE), str(tmp_path / "s")],
        stderr=open(tmp_path / "log", "wb"),
        start_new_session=True,
    )
    below: set[int] = set()
    try:
        # The fork server and two workers, all importing and then in their runs.
        def started():
            d = _descendants(p.pid)
            return d if len(d) >= 3 else None

        below = _poll(started, 60, "the fork server and two workers")
        time.sleep(2.0)
        below |= _descendants(p.pid)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        _poll(lambda: not any(_running(q) for q in below), 10, "the workers to end")
    finally:
        for q in below | {p.pid}:
            try:
                os.kill(q, signal.SIGKILL)
            except OSError:
                pass


# ------------------------------------------------------------------ Dask


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=open(log, "wb"), start_new_session=True
    )


def _poll(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = condition()
        if v:
            return v
        time.sleep(0.005)
    pytest.fail(f"timed out waiting for {what}")


def _scheduler_address(path: Path) -> str | None:
    """The scheduler writes its file in place, not atomically: a poll can find it
    present but empty or half written (CI saw ``''``). Wait for a whole document."""
    try:
        return json.loads(path.read_text())["address"]
    except (FileNotFoundError, json.JSONDecodeError, KeyError):
        return None


def test_dask_worker_killed_mid_sweep(reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    bindir = Path(sys.executable).parent
    dask = str(bindir / "dask") if (bindir / "dask").exists() else shutil.which("dask")
    if dask is None:
        pytest.skip("no dask command")
    sched_file = tmp_path / "scheduler.json"
    procs = {}
    procs["scheduler"] = _start(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
         "--scheduler-file", str(sched_file)],
        tmp_path / "scheduler.log",
    )  # fmt: skip
    try:
        address = _poll(lambda: _scheduler_address(sched_file), 60, "the scheduler")
        for name in ("wa", "wb"):
            # No nanny: the worker is the process, and a SIGKILL ends it for good.
            procs[name] = _start(
                [dask, "worker", address, "--name", name, "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--host", "127.0.0.1"],
                tmp_path / f"{name}.log",
            )  # fmt: skip
        with distributed.Client(address, timeout="30s") as client:
            _poll(lambda: len(client.scheduler_info()["workers"]) == 2, 60, "two workers")
            by_name = {w["name"]: a for a, w in client.scheduler_info()["workers"].items()}
            d = tmp_path / "dask"
            out: dict = {}

            def go():
                try:
                    out["sweep"] = sweep(
                        EXAMPLE, GRID, seeds=SEEDS, set=SMALL, directory=d, client=client,
                        progress=False,
                    )  # fmt: skip
                except BaseException as e:  # noqa: BLE001 - reported below
                    out["error"] = e

            t = threading.Thread(target=go)
            t.start()

            # Mid-sweep: worker wa holds a run (the scheduler has given it one).
            def wa_busy():
                held = client.processing().get(by_name["wa"], [])
                return any("ccsim-run-" in str(k) for k in held)

            _poll(wa_busy, 120, "worker wa to hold a run")
            before = len(done_ids(d))
            os.kill(procs["wa"].pid, signal.SIGKILL)
            procs["wa"].wait()
            t.join(180)
            assert not t.is_alive()
            assert "error" not in out, out.get("error")
            s = out["sweep"]
            assert before < N_DONE, "the kill came after the sweep's last run"
            assert len(client.scheduler_info()["workers"]) == 1
        assert (s.ran, s.failed) == (N_DONE, N_FAILED)
        assert_same_runs(d, reference)
        assert len(s.catalogue()) == N_RUNS
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
