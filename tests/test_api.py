"""Tests of the Python API: ccsim.run, Run, Run.write, ccsim.load."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pandas as pd
import pytest

import ccsim
from ccsim.bench import CONFIGS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"
FAST = ['duration="3s"', 'warmup="1s"']
# A run directory: its marker (.ccsim: written by ccsim) and the four run files.
RUN_FILES = [
    ".ccsim",
    "flows.parquet",
    "scenario.toml",
    "series.parquet",
    "summary.json",
    "timing.json",
]


@pytest.fixture(scope="module")
def example_run() -> ccsim.Run:
    return ccsim.run(EXAMPLE, set=FAST)


def test_run_path_returns_dataframes(example_run):
    r = example_run
    assert isinstance(r, ccsim.Run)
    assert r.summary["name"] == "dumbbell-example"
    assert r.summary["duration_s"] == pytest.approx(3.0)
    assert 0 < r.bottleneck["utilization"] <= 1

    s = r.series
    assert isinstance(s, pd.DataFrame)
    assert list(s.columns)[:6] == ["time", "entity", "id", "name", "metric", "value"]
    assert set(s[s["entity"] == "link"]["name"].astype(str)) == {"bottleneck", "bottleneck_rev"}
    assert len(s) > 0
    assert s["time"].dtype == "float64"
    assert isinstance(s["entity"].dtype, pd.CategoricalDtype)
    assert isinstance(s["metric"].dtype, pd.CategoricalDtype)
    assert "link" in set(s["entity"].astype(str))
    assert s["time"].min() >= 0 and s["time"].max() <= 3.0 + 1e-9

    f = r.flows
    assert isinstance(f, pd.DataFrame)
    assert len(f) == 4
    assert "goodput_bps" in f.columns
    assert (f["goodput_bps"] > 0).all()
    total = r.summary["flows"]["goodput_bps_total"]
    assert f["goodput_bps"].sum() == pytest.approx(total, rel=1e-6)


def test_conservation_and_metric_ranges(example_run):
    s = example_run.summary
    c = s["conservation"]
    assert c["ok"] is True
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]
    j = s["flows"]["jain_fairness"]
    assert 1 / 4 - 1e-9 <= j <= 1 + 1e-9
    b = example_run.bottleneck
    assert 0 <= b["drop_rate"] <= 1
    assert b["queue_mean_pkts"] <= b["queue_max_pkts"]


def test_dict_and_text_scenarios_match_the_file(example_run):
    doc = tomllib.loads(EXAMPLE.read_text())
    by_dict = ccsim.run(doc, set=FAST)
    by_text = ccsim.run(EXAMPLE.read_text(), set=FAST)
    for r in (by_dict, by_text):
        a = dict(r.summary)
        b = dict(example_run.summary)
        a.pop("wall_s"), b.pop("wall_s")
        assert a == b
        pd.testing.assert_frame_equal(r.series, example_run.series)
        pd.testing.assert_frame_equal(r.flows, example_run.flows)


def test_dict_overrides_and_mapping_set():
    doc = tomllib.loads(EXAMPLE.read_text())
    doc["flows"][0]["count"] = 2
    r = ccsim.run(doc, set={"duration": "2s", "warmup": "500ms"})
    assert len(r.flows) == 2
    assert r.summary["flows"]["count"] == 2
    assert r.summary["duration_s"] == pytest.approx(2.0)


def test_progress_callback():
    seen: list[float] = []
    ccsim.run(EXAMPLE, set=FAST, progress=seen.append)
    assert all(0.0 <= x <= 1.0 for x in seen)
    assert seen == sorted(seen)


def test_errors():
    with pytest.raises(ccsim.ScenarioError, match="no-such.toml"):
        ccsim.run(ROOT / "no-such.toml")
    with pytest.raises(ccsim.ScenarioError, match="warp"):
        ccsim.run(EXAMPLE, set=['flows[0].cc="warp"'])
    with pytest.raises(ccsim.ScenarioError, match="bogus"):
        ccsim.validate("bogus = 1\n" + EXAMPLE.read_text())
    with pytest.raises(ccsim.ScenarioError, match="TOML"):
        ccsim.run("name = \n[[")
    # a measured distribution by its quantiles must run from probability 0 to 1
    bad = 'tcp.read_latency={ quantiles = [[0.1, "1ms"], [1, "2ms"]] }'
    with pytest.raises(ccsim.ScenarioError, match="read_latency: quantiles: the probabilities"):
        ccsim.run(EXAMPLE, set=[bad])
    assert issubclass(ccsim.ScenarioError, ValueError)
    assert issubclass(ccsim.SimulationError, RuntimeError)
    ccsim.validate(EXAMPLE)


def test_write_load_roundtrip(example_run, tmp_path):
    target = example_run.write(tmp_path / "run")
    assert sorted(p.name for p in target.iterdir()) == RUN_FILES
    back = ccsim.load(target)
    assert back.summary == json.loads(json.dumps(example_run.summary))
    pd.testing.assert_frame_equal(back.series, example_run.series)
    pd.testing.assert_frame_equal(back.flows, example_run.flows, check_dtype=False)
    # The recorded scenario has the overrides applied.
    recorded = tomllib.loads(back.scenario_text)
    assert recorded["duration"] == "3s"
    assert recorded["topology"]["buffer"] == "bdp"


def test_write_replaces_existing_run_dir_atomically(example_run, tmp_path):
    target = tmp_path / "run"
    example_run.write(target)
    (target / "summary.json").write_text("{}")
    example_run.write(target)
    assert sorted(p.name for p in target.iterdir()) == RUN_FILES
    assert json.loads((target / "summary.json").read_text())["name"] == "dumbbell-example"
    # No temporary or old directories are left beside it.
    assert [p.name for p in tmp_path.iterdir()] == ["run"]
    # A directory ccsim did not write is refused, untouched (tests/test_output_safety.py).
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "stale.txt").write_text("old")
    with pytest.raises(ccsim.OutputRefused):
        example_run.write(mine)
    assert (mine / "stale.txt").read_text() == "old"


def test_failed_write_leaves_nothing(example_run, tmp_path, monkeypatch):
    target = tmp_path / "run"

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", boom)
    with pytest.raises(OSError, match="disk full"):
        example_run.write(target)
    assert list(tmp_path.iterdir()) == []

    # An existing run survives a failed overwrite untouched.
    monkeypatch.undo()
    example_run.write(target)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    monkeypatch.setattr(pd.DataFrame, "to_parquet", boom)
    with pytest.raises(OSError):
        example_run.write(target)
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_bench_scenarios_validate():
    for cfg in CONFIGS.values():
        text = cfg.scenario(duration_scale=0.1)
        doc = tomllib.loads(text)
        assert doc["flows"][0]["count"] == cfg.flows
        ccsim.validate(text)


def test_decode_table():
    import numpy as np

    table = {
        "columns": {
            "t": ("<f8", np.array([0.5, 1.0], dtype="<f8").tobytes()),
            "kind": ("<u1", bytes([1, 0])),
            "n": ("<i4", np.array([7, -1], dtype="<i4").tobytes()),
        },
        "categories": {"kind": ["link", "flow"]},
    }
    df = ccsim.decode_table(table)
    assert list(df["t"]) == [0.5, 1.0]
    assert list(df["kind"].astype(str)) == ["flow", "link"]
    assert list(df["n"]) == [7, -1]
    assert ccsim.decode_table({"columns": {}, "categories": {}}).empty
    assert not math.isnan(df["t"].sum())


ROUND_TRIP_VALUES = [
    "5s",
    "0.5bdp",
    3,
    0.25,
    True,
    ["64ms", "100ms"],
    {"uniform": ["64ms", "100ms"]},
    {"kind": "red", "max_p": 0.2, "gentle": False},
    {"sync": {"min_level": 0.3}, "odd key": [1, 2]},
    {},
]


@pytest.mark.parametrize("value", ROUND_TRIP_VALUES, ids=repr)
def test_dict_override_values_reach_the_core_unchanged(value):
    """A value given in a dict (``set={"topology.buffer": "0.5bdp"}``) becomes one
    ``path=value`` string that the core reads back as the same value."""
    from ccsim import _core
    from ccsim._scenario import normalize_overrides

    [override] = normalize_overrides({"topology.buffer": value})
    assert "\n" not in override
    resolved = tomllib.loads(_core.resolve(EXAMPLE.read_text(), [override]))
    assert resolved["topology"]["buffer"] == value
    assert type(resolved["topology"]["buffer"]) is type(value)


def test_dict_overrides_are_spelled_as_before():
    from ccsim._scenario import normalize_overrides

    got = normalize_overrides(
        {"topology.buffer": "0.5bdp", "seed": 3, "topology.queue": {"kind": "red", "max_p": 0.2}}
    )
    assert got == [
        'topology.buffer="0.5bdp"',
        "seed=3",
        'topology.queue={ kind = "red", max_p = 0.2 }',
    ]


# Overrides of every kind: a number, a quoted quantity, a bare word (the core reads a
# value that is not TOML as a string) and an inline table.
RERUN_SET = [
    *FAST,
    "seed=3",
    'topology.buffer="0.5bdp"',
    "flows[0].cc=cubic",
    'flows[0].start={ uniform = ["0s", "2s"] }',
]


def _without_wall(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "wall_s"}


def test_recorded_scenario_runs_again_to_identical_numbers(tmp_path):
    """README: scenario.toml is "the scenario that ran, with any --set overrides
    applied; it can be run again as it is". Run with overrides, write, run the recorded
    scenario.toml with no overrides: the same numbers."""
    from ccsim import _core

    first = ccsim.run(EXAMPLE, set=RERUN_SET)
    # The record is the core's resolution of the text and the overrides.
    assert first.scenario_text == _core.resolve(EXAMPLE.read_text(), RERUN_SET)
    d = first.write(tmp_path / "first")
    recorded = (d / "scenario.toml").read_text()
    doc = tomllib.loads(recorded)
    assert doc["seed"] == 3 and doc["topology"]["buffer"] == "0.5bdp"
    assert doc["flows"][0]["cc"] == "cubic"
    assert doc["flows"][0]["start"] == {"uniform": ["0s", "2s"]}

    again = ccsim.run(d / "scenario.toml")
    assert _without_wall(again.summary) == _without_wall(first.summary)
    pd.testing.assert_frame_equal(again.flows, first.flows)
    pd.testing.assert_frame_equal(again.series, first.series)
    # Recording it again changes nothing: the record is a fixed point.
    assert again.scenario_text == recorded
    # The overrides mattered: without them the numbers differ.
    plain = ccsim.run(EXAMPLE, set=FAST)
    assert _without_wall(plain.summary) != _without_wall(first.summary)


def test_dict_and_string_overrides_record_the_same_scenario():
    a = ccsim.run(EXAMPLE, set={"duration": "2s", "warmup": "1s", "topology.buffer": "0.5bdp"})
    b = ccsim.run(EXAMPLE, set=['duration="2s"', 'warmup="1s"', "topology.buffer=0.5bdp"])
    assert a.scenario_text == b.scenario_text
    assert _without_wall(a.summary) == _without_wall(b.summary)
