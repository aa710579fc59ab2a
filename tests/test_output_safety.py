"""ccsim never deletes or overwrites what it did not write (README, *Outputs*).

Each case: a user's files survive; `.`, `~`, `/` and the directories above the current
one are refused even with --force; --force replaces what it is told to; a SIGKILL at
any moment of a write leaves the old complete directory or the new complete one and
nothing that the next write does not clean; Ctrl-C exits 130 with nothing partial.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ccsim
from ccsim._layout import MARKER_FILE, clean_siblings, owner, replace_dir

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"
FAST = ["--set", 'duration="2s"', "--set", 'warmup="0s"']
RUN_NAMES = ["flows.parquet", "scenario.toml", "series.parquet", "summary.json", "timing.json"]


def cli(*args, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ccsim", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )


def one_error_line(p: subprocess.CompletedProcess, code: int, *words: str) -> str:
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    assert "Traceback" not in p.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def listing(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


@pytest.fixture(scope="module")
def small_run():
    return ccsim.run(EXAMPLE, set=['duration="2s"', 'warmup="0s"'])


# ------------------------------------------------------------------ run directories


def test_user_directory_survives_run_output(tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("my notes")
    p = cli("run", EXAMPLE, "-q", "-o", target, *FAST)
    one_error_line(p, 2, str(target), "did not write", "--force")
    assert listing(target) == {"notes.txt": b"my notes"}
    assert sorted(x.name for x in tmp_path.iterdir()) == ["mine"]


def test_refused_before_simulating(tmp_path, small_run):
    # The API refuses too, and leaves the directory as it was.
    target = tmp_path / "mine"
    target.mkdir()
    (target / "summary.json").write_text("{}")  # a run file name is not a marker
    (target / "data.csv").write_text("1,2")
    with pytest.raises(ccsim.OutputRefused, match="did not write"):
        small_run.write(target)
    assert listing(target) == {"data.csv": b"1,2", "summary.json": b"{}"}


def test_ccsim_run_directory_is_replaced(tmp_path, small_run):
    target = small_run.write(tmp_path / "run")
    assert sorted(x.name for x in target.iterdir()) == sorted([MARKER_FILE, *RUN_NAMES])
    marker = json.loads((target / MARKER_FILE).read_text())
    assert marker == {"ccsim": ccsim.core_version(), "kind": "run"}
    (target / "summary.json").write_text("{}")
    small_run.write(target)  # ccsim's own: replaced without --force
    assert json.loads((target / "summary.json").read_text())["name"] == "dumbbell-example"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["run"]


def test_empty_and_legacy_run_directories_are_accepted(tmp_path, small_run):
    empty = tmp_path / "empty"
    empty.mkdir()
    small_run.write(empty)
    # A run directory written before the marker existed holds only run files.
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    for name in RUN_NAMES:
        if name != "timing.json":  # newer than the marker
            (legacy / name).write_text("old")
    assert owner(legacy) == "run"
    small_run.write(legacy)
    assert (legacy / MARKER_FILE).is_file()


def test_force_replaces_a_user_directory(tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("my notes")
    p = cli("run", EXAMPLE, "-q", "-o", target, "--force", *FAST)
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in target.iterdir()) == sorted([MARKER_FILE, *RUN_NAMES])
    assert sorted(x.name for x in tmp_path.iterdir()) == ["mine"]


@pytest.mark.parametrize("where", [".", "..", "/", "~", "HOME", "CWD"])
def test_protected_places_refused_even_with_force(tmp_path, where):
    home = tmp_path / "home"
    cwd = home / "work" / "here"
    cwd.mkdir(parents=True)
    (cwd / "keep.txt").write_text("keep")
    env = dict(os.environ, HOME=str(home))
    target = {"HOME": str(home), "CWD": str(cwd)}.get(where, where)
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    for force in ([], ["--force"]):
        p = cli("run", EXAMPLE, "-q", "-o", target, *force, *FAST, cwd=cwd, env=env)
        one_error_line(p, 2, "refusing to write there")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == before


def test_file_and_other_kinds_refused(tmp_path, small_run):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ccsim.OutputRefused, match="not a directory"):
        small_run.write(f)
    # A sweep directory is ccsim's, but not a run: replacing it would lose every run.
    sw = tmp_path / "sw"
    sw.mkdir()
    (sw / MARKER_FILE).write_text('{"ccsim": "0", "kind": "sweep"}')
    with pytest.raises(ccsim.OutputRefused, match="holds a ccsim sweep, not a run"):
        small_run.write(sw)


def test_interrupt_during_write_keeps_old_directory(tmp_path, small_run):
    target = small_run.write(tmp_path / "run")
    before = listing(target)

    def fill(d: Path) -> None:
        (d / "summary.json").write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        replace_dir(target, fill)
    assert listing(target) == before
    assert sorted(x.name for x in tmp_path.iterdir()) == ["run"]


# ------------------------------------------------------------------ kills and leftovers

WRITER = """
import sys, time
from pathlib import Path
from ccsim._layout import replace_dir
target = Path(sys.argv[1])
print("ready", flush=True)
gen = 0
while True:
    gen += 1
    def fill(d, gen=gen):
        for i in range(20):
            (d / f"part{i}").write_text(str(gen))
            time.sleep(0.001)
    replace_dir(target, fill)
"""


def complete(target: Path) -> str:
    """The generation a complete directory holds (every part the same)."""
    names = sorted(p.name for p in target.iterdir())
    assert names == sorted([MARKER_FILE, *(f"part{i}" for i in range(20))]), names
    gens = {(target / f"part{i}").read_text() for i in range(20)}
    assert len(gens) == 1, gens
    return gens.pop()


def test_sigkill_at_random_moments_leaves_a_complete_directory(tmp_path):
    target = tmp_path / "out"
    rng = random.Random(7)
    seen = set()
    for _ in range(8):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.01, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if target.exists():
            seen.add(complete(target))
        # What the killed writer left beside it: only ccsim's temporary names, which
        # the next write (or clean_siblings) removes now that the process is gone.
        for p in tmp_path.iterdir():
            assert p.name == "out" or p.name.startswith(".out.ccsim-"), p.name
        clean_siblings(target)
        assert sorted(p.name for p in tmp_path.iterdir()) == (["out"] if target.exists() else [])
    assert len(seen) > 1  # the kills landed at different generations


def test_stale_temporaries_cleaned_only_when_ccsim_and_dead(tmp_path, small_run):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    stray = tmp_path / f".run.ccsim-tmp-{dead}-0123abcd"
    stray.mkdir()
    (stray / "summary.json").write_text("partial")
    live = tmp_path / f".run.ccsim-tmp-{os.getppid()}-0123abcd"  # a live process's
    live.mkdir()
    users = [tmp_path / ".run.tmp-1-0123abcd", tmp_path / ".other.ccsim-tmp-1-0123abcd"]
    for u in users:
        u.mkdir()
    small_run.write(tmp_path / "run")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert stray.name not in names
    assert live.name in names and all(u.name in names for u in users)


def test_old_directory_put_back_after_a_kill_between_renames(tmp_path, small_run):
    # Where no atomic exchange exists the old directory steps aside first; a kill
    # before the new one arrives leaves it under ccsim's name, and it comes back.
    dead = 2**22 + 12345  # above pid_max's default: no such process
    old = tmp_path / f".run.ccsim-old-{dead}-0123abcd"
    small_run.write(old)
    before = listing(old)
    clean_siblings(tmp_path / "run")
    assert listing(tmp_path / "run") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_sigint_exits_130_with_nothing_written(tmp_path):
    target = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "run", str(EXAMPLE), "-q", "-o", str(target),
         "--set", 'duration="3000s"'],
        cwd=ROOT, stderr=subprocess.PIPE, text=True,
        # A shell's background job inherits SIGINT ignored (and Python then installs
        # no handler): give the child Ctrl-C's default, as a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines() == ["error: interrupted"], stderr
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ sweeps, reports, figures

SWEEP = """
name = "s"
duration = "1s"
sample_interval = "100ms"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
buffer = "bdp"
[[flows]]
cc = "reno"
[sweep]
"topology.buffer" = ["bdp", "0.5bdp"]
"""


def test_sweep_refuses_user_directory_and_force_replaces(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SWEEP)
    target = tmp_path / "mine"
    (target / "runs" / "keep").mkdir(parents=True)
    (target / "runs" / "keep" / "data").write_text("precious")
    p = cli("sweep", scenario, "-q", "-o", target, "--workers", "1")
    one_error_line(p, 2, "did not write")
    assert (target / "runs" / "keep" / "data").read_text() == "precious"
    p = cli("sweep", scenario, "-q", "-o", target, "--workers", "1", "--force")
    assert p.returncode == 0, p.stderr
    assert not (target / "runs" / "keep").exists()
    assert owner(target) == "sweep" and len(ccsim.Sweep(target).run_ids()) == 2
    # Resuming needs no --force; a different scenario there needs it.
    p = cli("sweep", scenario, "-q", "-o", target, "--workers", "1")
    assert p.returncode == 0, p.stderr
    p = cli("sweep", scenario, "-q", "-o", target, "--workers", "1", "--set", "seed=9")
    one_error_line(p, 2, "another scenario", "--force")
    # A report over a user's file is refused; over its own, fine.
    page = tmp_path / "page.html"
    page.write_text("<p>mine</p>")
    p = cli("report", target, "-o", page)
    one_error_line(p, 2, "not written by ccsim")
    assert page.read_text() == "<p>mine</p>"
    p = cli("report", target, "-o", tmp_path / "r.html")
    assert p.returncode == 0, p.stderr
    p = cli("report", target, "-o", tmp_path / "r.html")
    assert p.returncode == 0, p.stderr
    # A figure over a user's file likewise.
    fig = tmp_path / "fig.png"
    fig.write_bytes(b"\x89PNG not ours")
    p = cli("plot", target, "--series", "queue_pkts", "-o", fig)
    one_error_line(p, 2, "not written by ccsim")
    p = cli("plot", target, "--series", "queue_pkts", "-o", tmp_path / "q.png")
    assert p.returncode == 0, p.stderr
    p = cli("plot", target, "--series", "queue_pkts", "-o", tmp_path / "q.png")
    assert p.returncode == 0, p.stderr


def test_reproduction_refuses_user_directory(tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "results.json").write_text("{}")
    p = cli("reproduce", "004", "--quick", "-o", target)
    one_error_line(p, 2, "did not write")
    assert listing(target) == {"results.json": b"{}"}
