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
RUN_FILES = ["flows.parquet", "scenario.toml", "series.parquet", "summary.json"]


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
    assert list(s.columns)[:5] == ["time", "entity", "id", "metric", "value"]
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


def test_write_replaces_existing_dir_atomically(example_run, tmp_path):
    target = tmp_path / "run"
    target.mkdir()
    (target / "stale.txt").write_text("old")
    (target / "summary.json").write_text("{}")
    example_run.write(target)
    assert sorted(p.name for p in target.iterdir()) == RUN_FILES
    assert json.loads((target / "summary.json").read_text())["name"] == "dumbbell-example"
    # No temporary or old directories are left beside it.
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


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


def test_override_values_round_trip_as_one_line_toml():
    """A swept value of any TOML type, inline tables included, becomes a one-line
    `path=value` override that parses back to the same value."""
    from ccsim._scenario import _toml_value, parse_value

    for v in [
        "5s",
        3,
        0.25,
        True,
        ["64ms", "100ms"],
        {"kind": "red", "max_p": 0.2, "gentle": False},
        {"sync": {"min_level": 0.3}, "odd key": [1, 2]},
        {},
    ]:
        text = _toml_value(v)
        assert "\n" not in text
        assert parse_value(text) == v, (v, text)
