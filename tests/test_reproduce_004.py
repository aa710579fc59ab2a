"""Study 004 (Kumar, Xue, Park 2014) reproduced in quick mode: the findings that
docs/reproductions/004.md marks reproduced must keep holding.

One quick run of the figures these tests need (~40 s on 2 cores) is shared by every
test; each test checks one finding on ccsim's numbers, against the study's reported
value where the study prints one.
"""

from __future__ import annotations

import pytest

import ccsim
from ccsim import reproduce

FIGS = [
    "fig2",
    "fig3",
    "fig4",
    "fig8",
    "fig9a",
    "fig9b",
    "fig9c",
    "fig9d",
    "fig10a",
    "fig10c",
    "fig11",
    "fig12",
]


@pytest.fixture(scope="module")
def res(tmp_path_factory):
    out = tmp_path_factory.mktemp("r004")
    return reproduce.reproduce("004", figure=FIGS, quick=True, out=out, workers=2)


def test_fig2_full_sync_stcp_starves_aimd_partial_sync_is_fair(res):
    """Fig. 2: STCP + AIMD, 1 Gb/s, 0.1 BDP. The study reports Jain 0.503 under full
    synchronization and 0.950 when only the fastest flow loses; ccsim must be within
    0.03 of both (the fluid model is the study's own model)."""
    v = res.figure("fig2").values
    assert abs(v["full"]["jain"] - 0.502684) < 0.03, v
    assert abs(v["partial"]["jain"] - 0.950005) < 0.03, v


def test_fig3_full_sync_short_rtt_stcp_wins_partial_sync_is_fair(res):
    """Fig. 3: STCP 40 ms vs 120 ms. Study: Jain 0.503 (full), 0.999 (partial),
    utilization 0.975 / 0.970; ccsim within 0.03 (Jain) and 0.05 (utilization)."""
    v = res.figure("fig3").values
    assert abs(v["full"]["jain"] - 0.50343) < 0.03, v
    assert abs(v["partial"]["jain"] - 0.998814) < 0.03, v
    assert abs(v["full"]["util"] - 0.974767) < 0.05, v
    assert abs(v["partial"]["util"] - 0.969627) < 0.05, v


def test_fig4_late_stcp_flow_loses_under_full_sync_and_partial_sync_restores_fairness(res):
    """Fig. 4: the STCP flow starting 10 s late gets less under full synchronization;
    dropping only the fastest flow improves fairness."""
    f = res.figure("fig4")
    assert f.claim("late_flow_loses").holds, f.claim("late_flow_loses")
    assert f.values["partial"]["jain"] > 0.9 > f.values["full"]["jain"], f.values


def _util(fig, frac, x):
    rows = [r for r in fig.values["table"] if abs(r["frac"] - frac) < 1e-9 and r["X"] == x]
    assert rows, (frac, x)
    return rows[0]["utilization"]


def test_fig8_hstcp_1gbps_lower_sync_level_raises_utilization_at_small_buffers(res):
    """Fig. 8 (§5.1): 10 HSTCP flows at 1 Gb/s; X = 0.3 gives higher utilization than
    X = 1 at buffers of 0.05 and 0.1 of 12 500 packets."""
    f = res.figure("fig8")
    for frac in (0.05, 0.1):
        assert _util(f, frac, 0.3) > _util(f, frac, 1.0) + 0.005, f.table


def test_fig9c_aimd_lower_sync_level_raises_utilization_at_small_buffers(res):
    """Fig. 9(c) / conclusion (iii): at 10 Gb/s lowering the synchronization level
    (X = 1 -> 0.3) raises AIMD's utilization at 0.02-0.1 BDP."""
    f = res.figure("fig9c")
    for frac in (0.02, 0.05, 0.1):
        assert _util(f, frac, 0.3) > _util(f, frac, 1.0) + 0.005, f.table


def test_fig9a_hstcp_above_90_percent_with_a_tenth_of_the_bdp(res):
    """Conclusion (i) for HSTCP: a buffer of 0.1 BDP gives more than 90 % utilization
    (10 flows, 10 Gb/s), and utilization never falls as the buffer grows."""
    f = res.figure("fig9a")
    assert _util(f, 0.1, 0.3) > 0.9 and _util(f, 0.1, 1.0) > 0.9, f.table
    for x in (0.3, 1.0):
        u = [_util(f, b, x) for b in (0.02, 0.05, 0.1, 0.3)]
        assert all(b >= a - 0.005 for a, b in zip(u, u[1:], strict=False)), (x, u)


def test_fig9b_cubic_below_hstcp_at_small_buffers(res):
    """Fig. 9(b), in shape: CUBIC is "drastically affected by smaller buffer size" and
    "HSTCP performs better than CUBIC": at 0.02-0.1 BDP CUBIC's utilization is below
    HSTCP's for each X. (Below 90 % for every X, the value, is not reproduced.)"""
    cubic, hstcp = res.figure("fig9b"), res.figure("fig9a")
    for frac in (0.02, 0.05, 0.1):
        for x in (0.3, 1.0):
            assert _util(cubic, frac, x) < _util(hstcp, frac, x), (frac, x)


def test_fig9d_desynchronized_htcp_does_better_at_small_buffers(res):
    """Fig. 9(d), in shape: synchronized H-TCP "performs poorly" at 0.05 BDP and
    "desynchronized flows are able to show better performance": X = 0.3 above X = 1
    there by more than a point. (Synchronized H-TCP keeps 0.92, so "poorly", the
    value, is not reproduced.)"""
    f = res.figure("fig9d")
    assert _util(f, 0.05, 0.3) > _util(f, 0.05, 1.0) + 0.01, f.table


def _m_table(fig):
    return {r["m"]: r for r in fig.values["table"]}


def test_fig11_aimd_fewer_flows_losing_per_event_raises_utilization_and_fairness(res):
    """Fig. 11: 10 AIMD flows; decreasing the synchronization level m improves both
    link utilization and Jain fairness (m = 1 against m = 10)."""
    t = _m_table(res.figure("fig11"))
    assert t[1]["utilization"] > t[10]["utilization"] + 0.05, t
    assert t[1]["flows_jain_fairness"] > t[10]["flows_jain_fairness"] + 0.3, t


def test_fig10a_cubic_utilization_improves_as_m_decreases(res):
    """Fig. 10(a): 10 CUBIC flows; utilization rises as m falls (rank correlation)."""
    c = res.figure("fig10a").claim("utilization_trend")
    assert c.holds, c


def test_fig10c_htcp_utilization_decreases_as_m_grows(res):
    """Fig. 10(c): 10 H-TCP flows; utilization falls as m grows."""
    c = res.figure("fig10c").claim("utilization_trend")
    assert c.holds, c


def test_fig12_mixed_variants_fairness_better_below_m_4(res):
    """Fig. 12: two flows of each of five variants; fairness is higher for m <= 3
    than for m > 4."""
    c = res.figure("fig12").claim("low_m_fairer")
    assert c.holds, c


def test_outputs_written(res):
    """Every figure is a PNG in the output directory, with results.json and report.md."""
    for f in res.figures:
        assert (res.out / f"{f.name}.png").stat().st_size > 1000
    assert "fig11" in (res.out / "report.md").read_text()
    assert (res.out / "results.json").is_file()


def test_unknown_study_or_figure_is_a_clear_error_and_writes_nothing(tmp_path):
    out = tmp_path / "x"
    with pytest.raises(ccsim.ScenarioError, match="unknown study '999'"):
        reproduce.reproduce("999", out=out)
    with pytest.raises(ccsim.ScenarioError, match="no figure 'fig99'.*fig2"):
        reproduce.reproduce("004", figure="fig99", out=out)
    assert not out.exists()


def test_every_004_scenario_and_its_sweep_is_valid():
    """Each figure's scenario file parses and every point of its sweep validates."""
    from ccsim.sweep import plan

    for name in reproduce.figures("004"):
        text, base, grid, seeds, specs = plan(str(reproduce.scenario_path("004", name)))
        assert specs, name
        for spec in (specs[0], specs[-1]):
            ccsim.validate(text, set=spec.overrides)
