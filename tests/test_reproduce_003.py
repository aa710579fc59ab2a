"""Study 003 (Augé, Roberts, draft) reproduced in quick mode: the findings that
docs/reproductions/003.md marks reproduced must keep holding.

One quick run of the study (133 packet-engine runs: Fig. 12 with 5 replications at
each of its four buffers, Figs. 7, 8 and 9 with 5, Figs. 10 and 13 with 3; about half a
minute with the fixture's two workers) is shared by every test.
"""

from __future__ import annotations

import pytest

import ccsim
from ccsim import reproduce
from ccsim.reproduce.s003 import reno_share


@pytest.fixture(scope="module")
def res(tmp_path_factory):
    out = tmp_path_factory.mktemp("r003")
    return reproduce.reproduce("003", quick=True, out=out, workers=2)


def test_reno_sawtooth_model_limits():
    """The reference curve: 3/4 of the link without a buffer (the draft's fluid bound),
    the full link from one BDP, increasing in between."""
    assert reno_share(0, 100) == pytest.approx(0.75)
    assert reno_share(100, 100) == pytest.approx(1.0)
    assert reno_share(250, 100) == 1.0
    u = [reno_share(b, 100) for b in range(0, 101, 10)]
    assert all(b > a for a, b in zip(u, u[1:], strict=False))


def test_fig6_single_reno_alone_follows_the_sawtooth_model_from_75_percent_to_full(res):
    """Fig. 6: one Reno flow alone on 25 Mb/s; its share of the link follows the
    deterministic sawtooth (3 + 6b − b²)/(4(1 + b)), b = buffer/BDP, within 5 points,
    and fills the link with a BDP buffer."""
    tab = res.figure("fig6").values["table"]
    for r in tab:
        assert abs(r["share"] - r["theory"]) < 0.05, r
    assert tab[-1]["share"] > 0.97, tab


def test_fig7_one_reno_with_20_packet_buffer_and_50pct_poisson_stays_below_40pct(res):
    """Fig. 7: 50 Mb/s, 50 % Poisson load, one Reno flow, 20-packet buffer: over five
    replications (Poisson arrivals, start time) the whole 95 % interval of the flow's
    throughput lies below 40 % of the link (it cannot use the 50 % available)."""
    fig = res.figure("fig7")
    assert fig.claim("tcp_below_40").holds, fig.claim("tcp_below_40")
    e = fig.values["reno"]["estimates"]
    assert e["tcp_link"]["n"] >= 5, e
    assert e["tcp_link"]["high"] < 0.4, e
    assert e["utilization"]["high"] < 0.9, e


def test_fig8_one_reno_with_a_bdp_buffer_and_50pct_poisson_keeps_the_link_near_full(res):
    """Fig. 8: the same with a BDP buffer (625 packets): over five replications the
    whole 95 % interval of the link utilization lies above 97 % and the flow takes
    more than 95 % of the available half; NewReno too."""
    fig = res.figure("fig8")
    assert fig.claim("near_100").holds, fig.claim("near_100")
    for cc in ("reno", "newreno"):
        e = fig.values[cc]["estimates"]
        assert e["utilization"]["n"] >= 5, (cc, e)
        assert e["utilization"]["low"] > 0.97, (cc, e)
        assert e["tcp_link"]["low"] > 0.95 * 0.5, (cc, e)


def test_fig10_one_reno_uses_well_under_the_available_capacity_with_20_packets(res):
    """Fig. 10: with 20 packets and 50 % Poisson load one Reno flow uses well under
    the available capacity (< 70 %), far below what it gets alone (Fig. 6 model)."""
    rows = {(r["load"], r["B"]): r for r in res.figure("fig10").values["table"]}
    s20 = rows[(0.5, 20.0)]["share"]
    assert s20 < 0.7, rows
    assert s20 < reno_share(20, 312.5) - 0.1, rows


def test_fig10_share_of_available_capacity_grows_with_the_buffer_up_to_the_bdp(res):
    """Fig. 10: the share grows with the buffer from 20 packets up to the BDP
    (625 packets), where it exceeds 90 %."""
    rows = {(r["load"], r["B"]): r["share"] for r in res.figure("fig10").values["table"]}
    s = [rows[(0.5, b)] for b in (20.0, 80.0, 312.0, 625.0)]
    assert s[0] < s[1] < s[2] < s[3], s
    assert s[3] > 0.9, s


def test_fig9_four_reno_flows_use_the_20_packet_link_better_than_one(res):
    """Fig. 9: with 4 Reno flows the 20-packet link is used better than with 1: over
    five replications the two 95 % intervals are more than 0.02 apart."""
    fig = res.figure("fig9")
    assert fig.claim("multiplexing_helps").holds, fig.claim("multiplexing_helps")
    est = {int(r["flows"]): r for r in fig.values["estimates"]}
    assert est[1]["n"] >= 5 and est[4]["n"] >= 5, est
    assert est[4]["low"] > est[1]["high"] + 0.02, est


def _fig12_rows(res) -> dict[tuple[str, float], dict]:
    return {(r["pair"], r["B"]): r for r in res.figure("fig12").values["table"]}


def _hs_share(res) -> dict[float, dict]:
    """HSTCP's share of the two flows' goodput against Reno, per buffer: the 95 %
    interval over the seeds and both flow orders."""
    return {float(r["B"]): r for r in res.figure("fig12").values["hs_share"]}


def test_fig12_hstcp_causes_more_loss_for_the_poisson_flows(res):
    """Fig. 12 notes: with HSTCP the non-bottlenecked (Poisson) traffic loses more:
    per seed, two HSTCP flows cost it more than two Reno flows (mean over the four
    buffers; the whole 95 % interval of the difference above 0), and over twice as
    much at the BDP buffer (625 packets)."""
    c = res.figure("fig12").claim("hstcp_bg_loss")
    assert c.holds, c
    rows = _fig12_rows(res)
    b = max(b for _, b in rows)
    assert rows[("highspeed+highspeed", b)]["bg_loss"] > 2 * rows[("reno+reno", b)]["bg_loss"]


def test_fig12_hstcp_severe_bias_against_reno_from_312_packets_not_at_20(res):
    """Fig. 12 notes: "severe bias in favour of HSTCP", stated for the figure, buffers 20
    to 625 packets, tested at each buffer over 5 seeds x both flow orders: at 312 and
    625 packets HSTCP takes more than 60 % of the two flows' goodput (the whole 95 %
    interval), at 20 packets it does not (the interval lies below 0.6): the claim over
    every buffer of the figure does not hold."""
    share = _hs_share(res)
    assert set(share) == {20.0, 80.0, 312.0, 625.0}, share
    for b in (312.0, 625.0):
        assert share[b]["n"] >= 10 and share[b]["low"] > 0.6, share[b]
    assert share[20.0]["high"] < 0.6, share[20.0]
    assert share[625.0]["mean"] > share[20.0]["mean"] + 0.1, share
    assert not res.figure("fig12").claim("hstcp_bias").holds


def test_fig13_fair_queueing_has_almost_no_effect_on_fairness_with_20_packets(res):
    """Fig. 13: at 20 packets FQ changes the HSTCP/Reno Jain index by < 0.05."""
    v = res.figure("fig13").values
    assert res.figure("fig13").claim("fq_no_effect_20").holds
    assert abs(v["jain_gain_small"]) < 0.05, v


def test_fig13_fair_queueing_restores_fairness_with_a_large_buffer(res):
    """Fig. 13: with a not too small buffer (625 packets) FQ solves the fairness issue:
    under FIFO HSTCP takes most of the goodput (Jain well below 1), under FQ the two
    flows are close to even (Jain > 0.95)."""
    v = res.figure("fig13").values
    rows = {(r["queue"], r["B"]): r for r in v["table"]}
    fifo, fq = rows[("FIFO", 625.0)], rows[("FQ", 625.0)]
    assert res.figure("fig13").claim("fq_fair_large").holds, rows
    assert res.figure("fig13").claim("fq_jain_large").holds, rows
    assert fifo["hs_share"] > 0.65 and fifo["jain"] < 0.9, rows
    assert fq["jain"] > 0.95 and 0.4 < fq["hs_share"] < 0.6, rows
    assert v["jain_gain_large"] > 0.1, v


def test_fig13_fair_queueing_protects_the_poisson_flows(res):
    """Fig. 13 notes: FQ protects the non-bottlenecked flows: their loss under FQ is
    no higher than under FIFO at 20 and 625 packets."""
    c = res.figure("fig13").claim("fq_protects")
    assert c.holds, c
    rows = res.figure("fig13").values["table"]
    fq = [r["bg_loss"] for r in rows if r["queue"] == "FQ"]
    assert max(fq) < 1e-3, rows


def test_every_003_scenario_and_its_sweep_is_valid():
    from ccsim.sweep import plan

    for name in reproduce.figures("003"):
        text, base, grid, seeds, specs = plan(str(reproduce.scenario_path("003", name)))
        assert specs, name
        for spec in (specs[0], specs[-1]):
            ccsim.validate(text, set=spec.overrides)


def test_report_names_the_scenario_file_behind_every_figure(res):
    """Each figure records the scenario files its runs came from; each is a file of
    ``scenarios/papers/003`` and report.md names it under the figure's heading."""
    report = (res.out / "report.md").read_text()
    for fig in res.figures:
        assert fig.scenarios == [f"{fig.name}.toml"], (fig.name, fig.scenarios)
        for name in fig.scenarios:
            assert reproduce.scenario_path("003", name[: -len(".toml")]).is_file()
            assert f"`scenarios/papers/003/{name}`" in report, name
