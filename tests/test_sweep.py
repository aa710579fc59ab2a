"""Sweeps: grid expansion, the catalogue and its table, resuming, Dask, kills, failures.

Issue 7's validation list: 2x2x3 -> 12 runs / 12 rows / 4 table rows with CIs; running
again runs nothing; deleting one run re-runs only it; a Dask LocalCluster gives
byte-identical summaries; SIGKILL midway then restart completes with no duplicates or
corrupt files; a failing point is recorded with its message while the rest succeed.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import ccsim
from ccsim._layout import DONE_FILE, FAILED_SUFFIX, RUNS_DIR, TMP_PREFIX
from ccsim.sweep import Sweep, expand, parse_grid_option, plan, sweep

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"
# A small dumbbell (10 Mb/s, 20 ms base RTT) so that 3 s of simulated time already has
# losses and the buffer size and the algorithm change the results.
SMALL = [
    'duration="3s"',
    'warmup="1s"',
    'topology.bottleneck_rate="10Mbps"',
    'topology.bottleneck_delay="5ms"',
    'topology.access_delay="2.5ms"',
]
GRID = {"topology.buffer": ["0.25bdp", "bdp"], "flows[0].cc": ["newreno", "cubic"]}

# Two-sided 95 % Student t quantile with 2 degrees of freedom (tables: 4.303).
T95_DF2 = 4.302652729911275


def done_ids(d: Path) -> list[str]:
    return sorted(
        p.name
        for p in (d / RUNS_DIR).iterdir()
        if not p.name.startswith(TMP_PREFIX) and (p / DONE_FILE).is_file()
    )


def _stamp(p: Path) -> tuple[int, int]:
    st = p.stat()
    return st.st_ino, st.st_mtime_ns


def summary_bytes(path: Path) -> bytes:
    """summary.json of a sweep's run: results only; its wall time is in timing.json."""
    raw = path.read_bytes()
    assert "wall_s" not in json.loads(raw)
    assert json.loads((path.parent / "timing.json").read_text())["sim_wall_s"] > 0
    return raw


@pytest.fixture(scope="module")
def base_sweep(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("sweep") / "s"
    s = sweep(EXAMPLE, GRID, seeds=3, set=SMALL, directory=d, workers=2, progress=False)
    assert (s.ran, s.skipped, s.failed) == (12, 0, 0)
    return d


def test_expand_is_the_cartesian_product_with_derived_seeds():
    specs = expand({"a": [1, 2], "b": ["x", "y", "z"]}, seeds=2, base_seed=7)
    assert len(specs) == 12
    assert [dict(s.params) for s in specs[:2]] == [{"a": 1, "b": "x"}] * 2
    assert [s.seed for s in specs[:2]] == [7, 8]
    assert len({s.id for s in specs}) == 12
    # The id depends on parameters and seed only: stable across calls and orderings.
    again = expand({"a": [2, 1], "b": ["z", "y", "x"]}, seeds=2, base_seed=7)
    assert {s.id for s in again} == {s.id for s in specs}
    assert specs[0].overrides == ["a=1", 'b="x"', "seed=7"]


def test_replication_seeds_are_the_cores_rule():
    """Replication k of every point runs with the core's replication_seed(seed, k):
    seed + k modulo 2^63, so that even the largest seeds stay TOML integers."""
    from ccsim import _core

    top = 2**63 - 2
    specs = expand({"a": [1, 2]}, seeds=3, base_seed=top)
    assert [s.seed for s in specs] == [top, top + 1, 0] * 2
    assert [s.seed for s in specs[:3]] == [_core.replication_seed(top, k) for k in range(3)]
    assert specs[2].overrides == ["a=1", "seed=0"]


def test_sweep_seeds_start_at_the_seed_the_core_reads():
    text = EXAMPLE.read_text()
    no_seed = "\n".join(line for line in text.splitlines() if not line.startswith("seed"))
    assert "seed" not in ccsim.scenario_text(no_seed).split("[topology]")[0]
    # No seed in the scenario: the core's default.
    assert [s.seed for s in plan(no_seed, seeds=2, set=SMALL)[4]] == [1, 2]
    assert [s.seed for s in plan(no_seed, seeds=2, set=[*SMALL, "seed=41"])[4]] == [41, 42]
    assert [s.seed for s in plan(text, seeds=2, set={"seed": 7})[4]] == [7, 8]
    with pytest.raises(ccsim.ScenarioError, match="seed"):
        plan(text, seeds=2, set=["seed=-1"])


def test_grid_values_are_read_as_the_core_reads_an_override():
    # Bare words (as the shell leaves them) are strings, numbers stay numbers, and an
    # inline table is a table: what `--set PATH=VALUE` would give for each value.
    assert parse_grid_option("duration=[3s, 0.5s]") == ("duration", ["3s", "0.5s"])
    assert parse_grid_option("topology.buffer=[20, bdp]") == ("topology.buffer", [20, "bdp"])
    assert parse_grid_option('flows[0].start=[{ exponential = "1s" }, "2s"]') == (
        "flows[0].start",
        [{"exponential": "1s"}, "2s"],
    )


def test_grid_option_parsing():
    assert parse_grid_option('topology.buffer=["0.25bdp","bdp"]') == (
        "topology.buffer",
        ["0.25bdp", "bdp"],
    )
    assert parse_grid_option("topology.buffer=[0.25bdp, bdp]") == (
        "topology.buffer",
        ["0.25bdp", "bdp"],
    )
    assert parse_grid_option("flows[0].count=[1,2,4]") == ("flows[0].count", [1, 2, 4])
    with pytest.raises(ccsim.ScenarioError, match="path=\\[v1,v2"):
        parse_grid_option("topology.buffer=bdp")


def test_2x2x3_sweep_catalogue_and_table(base_sweep):
    s = Sweep(base_sweep)
    assert len(done_ids(base_sweep)) == 12
    cat = s.catalogue()
    assert len(cat) == 12 and (cat["status"] == "done").all()
    assert sorted(set(cat["seed"])) == [1, 2, 3]  # scenario seed 1, replications 1..3
    assert set(cat["topology.buffer"]) == {"0.25bdp", "bdp"}
    assert set(cat["flows[0].cc"]) == {"newreno", "cubic"}
    # Each stored run is exactly what a single ccsim.run of that point gives.
    row = cat.iloc[5]
    direct = ccsim.run(
        EXAMPLE,
        set=SMALL
        + [
            f'topology.buffer="{row["topology.buffer"]}"',
            f'flows[0].cc="{row["flows[0].cc"]}"',
            f"seed={row['seed']}",
        ],
    )
    assert row["utilization"] == direct.bottleneck["utilization"]
    assert row["flows_goodput_bps_total"] == direct.summary["flows"]["goodput_bps_total"]

    tab = s.table(metrics=["utilization", "queue_mean_pkts"])
    assert len(tab) == 4
    assert list(tab["runs"]) == [3, 3, 3, 3]
    # The grid's order of values, not sorted order.
    assert list(tab["topology.buffer"]) == ["0.25bdp", "0.25bdp", "bdp", "bdp"]
    for _, r in tab.iterrows():
        g = cat[(cat["topology.buffer"] == r["topology.buffer"])
                & (cat["flows[0].cc"] == r["flows[0].cc"])]  # fmt: skip
        x = g["queue_mean_pkts"].to_numpy(float)
        mean = sum(x) / 3
        sd = math.sqrt(sum((v - mean) ** 2 for v in x) / 2)
        assert r["queue_mean_pkts_mean"] == pytest.approx(mean, rel=1e-12)
        assert r["queue_mean_pkts_ci95"] == pytest.approx(T95_DF2 * sd / math.sqrt(3), rel=1e-9)
        assert r["queue_mean_pkts_ci95"] > 0
    # The buffer matters: a one-BDP buffer holds a longer mean queue than a quarter BDP.
    by_buf = tab.groupby("topology.buffer")["queue_mean_pkts_mean"].mean()
    assert by_buf["bdp"] > 2 * by_buf["0.25bdp"]


def test_every_recorded_scenario_runs_again_to_its_numbers(base_sweep):
    """A run's scenario.toml is the core's resolution of the scenario with the run's
    overrides (base, grid values, seed): run as it is, it gives the stored summary."""
    from ccsim import _core

    s = Sweep(base_sweep)
    cat = s.catalogue()
    row = cat.iloc[7]
    d = base_sweep / RUNS_DIR / row["run_id"]
    record = json.loads((d / "run.json").read_text())
    recorded = (d / "scenario.toml").read_text()
    assert recorded == _core.resolve(EXAMPLE.read_text(), SMALL + record["overrides"])
    again = ccsim.run(d / "scenario.toml")
    stored = json.loads((d / "summary.json").read_text())
    again.summary.pop("wall_s")  # the stored summary keeps it in timing.json
    assert again.summary == json.loads(json.dumps(stored))
    assert again.summary["seed"] == row["seed"] == 2
    # The directory's scenario.toml: the base scenario with the --set values applied.
    base = (base_sweep / "scenario.toml").read_text()
    assert base == _core.resolve(EXAMPLE.read_text(), SMALL)
    ccsim.validate(base)


T95 = {2: 12.706204736174707, 3: 4.302652729911275, 4: 3.182446305284263}


def test_table_interval_is_the_student_t_interval(tmp_path):
    """Sweep.table's mean and ci95 per point: the mean and t(0.975, n−1)·s/√n, computed
    here with `statistics` and published t quantiles; NaN below two runs."""
    import statistics

    from ccsim._layout import RUN_FILE, SUMMARY_FILE, SWEEP_FILE, commit_run

    values = {"a": [0.91, 0.87, 0.95, 0.90], "b": [0.5, 0.75], "c": [0.3, 0.31, 0.35], "d": [0.4]}
    d = tmp_path / "fake"
    runs = d / RUNS_DIR
    runs.mkdir(parents=True)
    ids = []
    for x, us in values.items():
        for k, u in enumerate(us):
            rid = f"{x}{k}"
            ids.append(rid)
            record = {"id": rid, "params": {"x": x}, "seed": 1 + k, "replication": k}
            summary = {"bottleneck": "l", "links": {"l": {"utilization": u}}}
            commit_run(
                runs,
                rid,
                {RUN_FILE: json.dumps(record).encode(), SUMMARY_FILE: json.dumps(summary).encode()},
            )
    (d / SWEEP_FILE).write_text(json.dumps({"grid": {"x": list(values)}, "runs": ids}))
    tab = Sweep(d).table(metrics=["utilization"]).set_index("x")
    assert list(tab.index) == list(values)
    for x, us in values.items():
        n = len(us)
        assert tab.loc[x, "runs"] == n
        assert tab.loc[x, "utilization_mean"] == pytest.approx(statistics.mean(us), rel=1e-12)
        ci = tab.loc[x, "utilization_ci95"]
        if n < 2:
            assert math.isnan(ci)
        else:
            expected = T95[n] * statistics.stdev(us) / math.sqrt(n)
            assert ci == pytest.approx(expected, rel=1e-9)


def test_sql_over_runs_series_and_flows(base_sweep):
    s = Sweep(base_sweep)
    n = s.query('SELECT "flows[0].cc" AS cc, count(*) AS n FROM runs GROUP BY 1 ORDER BY 1')
    assert list(n["cc"]) == ["cubic", "newreno"] and list(n["n"]) == [6, 6]
    # 4 flows per run, 12 runs; the series view carries the run id for joins.
    f = s.query("SELECT count(*) AS n, count(DISTINCT run_id) AS r FROM flows")
    assert (int(f["n"][0]), int(f["r"][0])) == (48, 12)
    j = s.query(
        "SELECT runs.seed, max(series.time) AS t FROM series JOIN runs USING (run_id) "
        "GROUP BY runs.seed ORDER BY 1"
    )
    assert list(j["seed"]) == [1, 2, 3]
    assert all(t == pytest.approx(3.0, abs=0.11) for t in j["t"])
    with pytest.raises(ccsim.ScenarioError, match="query:.*nope"):
        s.query("SELECT nope FROM runs")


def test_rerun_runs_nothing_and_deleted_run_is_redone(base_sweep, tmp_path):
    before = {i: _stamp(base_sweep / RUNS_DIR / i / DONE_FILE) for i in done_ids(base_sweep)}
    s = sweep(EXAMPLE, GRID, seeds=3, set=SMALL, directory=base_sweep, progress=False)
    assert (s.ran, s.skipped, s.failed) == (0, 12, 0)

    victim = sorted(before)[4]
    old = summary_bytes(base_sweep / RUNS_DIR / victim / "summary.json")
    import shutil

    shutil.rmtree(base_sweep / RUNS_DIR / victim)
    s = sweep(EXAMPLE, GRID, seeds=3, set=SMALL, directory=base_sweep, progress=False)
    assert (s.ran, s.skipped, s.failed) == (1, 11, 0)
    after = {i: _stamp(base_sweep / RUNS_DIR / i / DONE_FILE) for i in done_ids(base_sweep)}
    assert set(after) == set(before)
    # Only the deleted run was written again; it came back the same.
    assert [i for i in after if after[i] != before[i]] == [victim]
    assert summary_bytes(base_sweep / RUNS_DIR / victim / "summary.json") == old


def test_dask_local_cluster_is_byte_identical(base_sweep, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:  # fmt: skip
        s = sweep(EXAMPLE, GRID, seeds=3, set=SMALL, directory=tmp_path / "d", client=client,
                  progress=False)  # fmt: skip
        assert (s.ran, s.failed) == (12, 0)
        # The command line's --scheduler path: a client of its own on the same cluster.
        sets = [x for o in SMALL for x in ("--set", o)]
        grid = [x for k, v in GRID.items() for x in ("--grid", f"{k}={json.dumps(v)}")]
        p = _cli("sweep", EXAMPLE, "-o", tmp_path / "e", *grid, "--seeds", "3", *sets,
                 "--scheduler", cluster.scheduler_address, "-q")  # fmt: skip
        assert p.returncode == 0, p.stderr
    for d in (tmp_path / "d", tmp_path / "e"):
        ids = done_ids(d)
        assert ids == done_ids(base_sweep)
        for i in ids:
            a = summary_bytes(base_sweep / RUNS_DIR / i / "summary.json")
            b = summary_bytes(d / RUNS_DIR / i / "summary.json")
            assert a == b, i
            fa = pd.read_parquet(base_sweep / RUNS_DIR / i / "flows.parquet")
            fb = pd.read_parquet(d / RUNS_DIR / i / "flows.parquet")
            pd.testing.assert_frame_equal(fa, fb)


def test_failing_point_is_recorded_and_the_rest_succeed(tmp_path):
    # warmup = 1 s: duration 0.5 s is an invalid combination, 3 s is fine.
    grid = {"duration": ["3s", "0.5s"], "flows[0].cc": ["newreno", "cubic"]}
    small = [o for o in SMALL if not o.startswith("duration")]
    s = sweep(EXAMPLE, grid, seeds=2, set=small, directory=tmp_path / "f", progress=False)
    assert (s.ran, s.failed) == (4, 4)
    fails = s.failures()
    assert len(fails) == 4
    assert set(fails["duration"]) == {"0.5s"}
    assert all("warmup" in e and "shorter than the duration" in e for e in fails["error"])
    cat = s.catalogue()
    assert list(cat["status"]).count("done") == 4
    assert cat.loc[cat["status"] == "failed", "utilization"].isna().all()
    markers = list((tmp_path / "f" / RUNS_DIR).glob(f"*{FAILED_SUFFIX}"))
    assert len(markers) == 4
    # Running again retries the failed points (and only those).
    s = sweep(EXAMPLE, grid, seeds=2, set=small, directory=tmp_path / "f", progress=False)
    assert (s.ran, s.skipped, s.failed) == (0, 4, 4)
    # The report lists them with their messages; the results table has only the others.
    from ccsim.report import report

    text = report(tmp_path / "f", tmp_path / "f.html", image_format="png").read_text()
    failed_part = text[text.index("<h2>Failed runs</h2>") : text.index("<h2>Figures</h2>")]
    assert failed_part.count("<tr>") == 1 + 4  # header + 4 failed runs
    assert failed_part.count("shorter than the duration") == 4
    results = text[text.index('<table id="results">') : text.index("</table>")]
    assert results.count("<tr>") == 1 + 2  # header + (3 s) x 2 algorithms


def test_bad_sweeps_are_rejected_before_anything_is_written(tmp_path):
    d = tmp_path / "bad"
    with pytest.raises(ccsim.ScenarioError, match="topology.nope"):
        sweep(EXAMPLE, {"topology.nope": [1, 2]}, set=SMALL, directory=d, progress=False)
    with pytest.raises(ccsim.ScenarioError, match="grid.topology.buffer: empty"):
        sweep(EXAMPLE, {"topology.buffer": []}, set=SMALL, directory=d, progress=False)
    with pytest.raises(ccsim.ScenarioError, match="seeds"):
        sweep(EXAMPLE, GRID, seeds=0, set=SMALL, directory=d, progress=False)
    assert not d.exists()
    # A directory holding another scenario's sweep is not mixed with this one.
    sweep(EXAMPLE, {}, set=SMALL, directory=d, progress=False)
    with pytest.raises(ccsim.ScenarioError, match="another scenario"):
        sweep(EXAMPLE, {}, set=[*SMALL, 'topology.buffer="2bdp"'], directory=d, progress=False)


def test_sweep_table_in_scenario_file(tmp_path):
    text = EXAMPLE.read_text() + (
        '\n[sweep]\nseeds = 2\ntopology.buffer = ["20pkt", "0.5bdp"]\n"flows[0].count" = [1, 2]\n'
    )
    path = tmp_path / "with_sweep.toml"
    path.write_text(text)
    _, _, grid, seeds, specs = plan(path, set=SMALL)
    assert grid == {"topology.buffer": ["20pkt", "0.5bdp"], "flows[0].count": [1, 2]}
    assert seeds == 2 and len(specs) == 8
    # The CLI's --grid and --seeds override the file's values.
    _, _, grid, seeds, specs = plan(path, {"flows[0].count": [3]}, seeds=1, set=SMALL)
    assert grid["flows[0].count"] == [3] and len(specs) == 2
    s = sweep(path, directory=tmp_path / "t", set=SMALL, progress=False)
    assert s.ran == 8
    # The Rust parser never sees [sweep]: the stored base scenario has none.
    assert "[sweep]" not in (tmp_path / "t" / "scenario.toml").read_text()
    cat = s.catalogue()
    assert sorted(cat["flows_count"].unique()) == [1, 2]


def _cli(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ccsim", *map(str, args)],
        capture_output=True, text=True, timeout=300, cwd=ROOT, **kw,
    )  # fmt: skip


def test_cli_sweep_query_and_failure_exit_code(tmp_path):
    d = tmp_path / "c"
    sets = [x for o in SMALL if not o.startswith("duration") for x in ("--set", o)]
    p = _cli(
        "sweep", EXAMPLE, "-o", d, "--grid", "duration=[3s,0.5s]", "--grid",
        'topology.buffer=["0.25bdp","bdp"]', "--seeds", "2", *sets,
    )  # fmt: skip
    assert p.returncode == 3, p.stderr
    assert "Traceback" not in p.stderr
    assert p.stderr.count("failed: run") == 4 and "shorter than the duration" in p.stderr
    assert "4 ran, 0 already done, 4 failed" in p.stdout
    q = _cli("query", d, "SELECT status, count(*) AS n FROM runs GROUP BY 1 ORDER BY 1", "--csv")
    assert q.returncode == 0, q.stderr
    assert q.stdout.splitlines() == ["status,n", "done,4", "failed,4"]
    q = _cli("query", d, "SELEC nonsense")
    assert q.returncode == 2 and q.stderr.startswith("error: query:")
    p = _cli("sweep", EXAMPLE, "-o", tmp_path / "x", "--grid", "topology.buffer=bdp")
    assert p.returncode == 2 and "path=[v1,v2" in p.stderr
    assert not (tmp_path / "x").exists()


KILL_SCRIPT = """
import sys
from ccsim.sweep import sweep
if __name__ == "__main__":
    grid = {{"flows[0].cc": ["newreno", "cubic"], "topology.buffer": ["0.5bdp", "bdp"]}}
    sweep(sys.argv[1], grid, seeds=6, set={small!r}, directory=sys.argv[2], workers=2,
          progress=False)
"""


def test_sigkill_midway_then_restart_completes(tmp_path):
    # 24 runs of 20 s simulated each (tens of ms of CPU); kill after a few finished.
    small = [o for o in SMALL if not o.startswith(("duration", "warmup"))]
    small += ['duration="20s"', 'warmup="5s"']
    script = tmp_path / "kill_me.py"
    script.write_text(KILL_SCRIPT.format(small=small))
    d = tmp_path / "k"
    proc = subprocess.Popen(
        [sys.executable, str(script), str(EXAMPLE), str(d)],
        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            runs = d / RUNS_DIR
            if runs.is_dir() and len(done_ids(d)) >= 3:
                break
            if proc.poll() is not None:
                pytest.fail(f"the sweep ended before it was killed: {proc.stderr.read()}")
            time.sleep(0.01)
        else:
            pytest.fail("no run finished in 120 s")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the sweep, its forkserver and its workers
        proc.wait()
    finished = done_ids(d)
    assert 3 <= len(finished) < 24, "the kill came too late to test anything"
    # Every directory visible under runs/ is complete or an ignorable temporary.
    for p in (d / RUNS_DIR).iterdir():
        assert p.name.startswith(TMP_PREFIX) or (p / DONE_FILE).is_file(), p

    # What a crash of a careless writer could leave: a half-written temporary directory
    # and a run directory without DONE. Neither may count as a finished run.
    (d / RUNS_DIR / f"{TMP_PREFIX}deadbeef.0").mkdir(exist_ok=True)
    (d / RUNS_DIR / f"{TMP_PREFIX}deadbeef.0" / "summary.json").write_text("{trunc")
    unfinished = next(s.id for s in plan(EXAMPLE, {"flows[0].cc": ["newreno", "cubic"],
                      "topology.buffer": ["0.5bdp", "bdp"]}, seeds=6, set=small)[4]
                      if s.id not in finished)  # fmt: skip
    (d / RUNS_DIR / unfinished).mkdir()
    (d / RUNS_DIR / unfinished / "summary.json").write_text('{"links": {')

    s = sweep(EXAMPLE, {"flows[0].cc": ["newreno", "cubic"],
                        "topology.buffer": ["0.5bdp", "bdp"]},
              seeds=6, set=small, directory=d, progress=False)  # fmt: skip
    assert s.ran == 24 - len(finished) and s.skipped == len(finished) and s.failed == 0
    entries = sorted(p.name for p in (d / RUNS_DIR).iterdir())
    assert len(entries) == 24 and not any(e.startswith(TMP_PREFIX) for e in entries)
    assert len(set(entries)) == 24
    cat = s.catalogue()
    assert len(cat) == 24 and cat["run_id"].is_unique and (cat["status"] == "done").all()
    for rid in entries:  # nothing corrupt: every file parses
        r = s.load(rid)
        assert r.summary["conservation"]["ok"] is True
        assert len(r.flows) == 4 and len(r.series) > 0
        assert json.loads((d / RUNS_DIR / rid / "run.json").read_text())["id"] == rid


def test_events_and_pcap_are_kept_with_the_run(tmp_path):
    """Regression: a sweep's run kept only the four run files; ``[output] events`` and
    ``pcap`` were computed by the worker and lost."""
    sets = [*SMALL, "output.events=true", 'output.pcap=["bottleneck"]']
    s = sweep(EXAMPLE, {"flows[0].cc": ["newreno"]}, set=sets, directory=tmp_path / "s",
              workers=1, progress=False)  # fmt: skip
    (rid,) = s.run_ids()
    d = tmp_path / "s" / RUNS_DIR / rid
    seed = json.loads((d / "run.json").read_text())["seed"]
    alone = ccsim.run(EXAMPLE, set=[*sets, "flows[0].cc=newreno", f"seed={seed}"])
    pd.testing.assert_frame_equal(pd.read_parquet(d / "events.parquet"), alone.events)
    assert (d / "bottleneck.pcap").read_bytes() == alone.pcap["bottleneck"].read_bytes()
    assert s.load(rid).pcap == {"bottleneck": d / "bottleneck.pcap"}


def test_relative_trace_paths_are_taken_from_the_scenario_files_directory(tmp_path, monkeypatch):
    """Regression: ``ccsim.run`` read a relative trace path from the scenario file's
    directory, but a sweep handed its workers the scenario's text, so the same file
    failed as a sweep ("cannot read ../traces/...") unless run from its own directory."""
    (tmp_path / "traces").mkdir()
    # A Mahimahi trace: one 1500-byte opportunity per millisecond (12 Mb/s).
    (tmp_path / "traces" / "flat.mahimahi").write_text("".join(f"{t}\n" for t in range(1, 101)))
    sc = tmp_path / "scenarios" / "trace.toml"
    sc.parent.mkdir()
    sc.write_text(
        'duration = "2s"\nwarmup = "0.5s"\n[topology]\nkind = "dumbbell"\n'
        'bottleneck_rate = { trace = "../traces/flat.mahimahi" }\nbottleneck_delay = "10ms"\n'
        'buffer = "50pkt"\n[[flows]]\ncount = 2\ncc = "newreno"\n'
        "[sweep]\n" + 'topology.buffer = ["20pkt", "50pkt"]\n'
    )
    elsewhere = tmp_path / "a" / "b"  # where ../traces does not exist
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    ccsim.validate(sc)
    s = sweep(sc, directory=tmp_path / "out", workers=1, progress=False)
    assert (s.ran, s.failed) == (2, 0)
    cat = s.catalogue()
    # The trace read: 12 Mb/s of capacity at every point.
    assert (cat["links.bottleneck.capacity_bps"].round() == 12e6).all()
    # Text has no file: its paths are taken from base_dir (default the current directory).
    text = sc.read_text().split("[sweep]")[0]
    with pytest.raises(ccsim.ScenarioError, match="cannot read"):
        ccsim.run(text)
    run = ccsim.run(text, base_dir=sc.parent)
    assert run.summary["links"]["bottleneck"]["capacity_bps"] == pytest.approx(12e6)
