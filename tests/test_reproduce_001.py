"""Study 001 (Aggarwal, Savage, Anderson: TCP pacing) reproduced in quick mode: the
findings that docs/reproductions/001.md marks reproduced must keep holding.

One quick run of the study (~20 s on 2 cores: 2 single-flow runs of 200 s, 2 runs
of 50 flows, 4 runs of 50 flows with two RTTs, the closed-loop and mixed runs of
figures 12-16; figures 5 and 15 add 24 short single-flow runs, 100 mixed runs of
5000-packet flows and one closed-loop run) is shared by every test; each test checks
one finding on ccsim's numbers, against the study's formula where it gives one.
Scenario: 57 Mb/s bottleneck, RTT 100 ms, 576-byte packets (BDP 1237 packets), buffer
BDP/4 = 309 packets unless said otherwise.
"""

from __future__ import annotations

import pytest

from ccsim import reproduce

BDP, B = 57e6 * 0.1 / (8 * 576), 309


@pytest.fixture(scope="module")
def res(tmp_path_factory):
    out = tmp_path_factory.mktemp("r001")
    return reproduce.reproduce("001", quick=True, out=out, workers=2)


def test_fig3_single_paced_flow_beats_reno_early_with_bdp4_buffer(res):
    """Fig. 3 (§5.1): with a BDP/4 buffer, one Paced Reno flow's cumulative throughput
    is well above Reno's in the initial period (1.5-10 s)."""
    early = res.figure("fig3").values["cum_tput_early"]
    for when, v in early.items():
        assert v["paced"] > 1.3 * v["reno"], (when, v)


def test_fig3_reno_first_loss_at_about_twice_the_buffer(res):
    """§5.1 / §2.2.1: in slow start a window W queues W/2 at the bottleneck, so Reno's
    first drop comes at a window of about 2B; with windows doubling from 1 the drop
    comes B packets into a round whose previous window W/2 fit (B < W/2 ≤ 2B), so
    2B ≤ cwnd at the first drop ≤ 3B."""
    w = res.figure("fig3").values["reno"]["cwnd_first_drop"]
    assert 2 * B <= w <= 3 * B, w


def test_fig3_paced_first_loss_only_after_the_pipe_is_full(res):
    """§5.1: Paced Reno first loses only once it saturates the pipe: packets in flight
    at the first drop ≈ BDP + buffer (1546 packets), far above Reno's 2-3 B."""
    v = res.figure("fig3").values
    flight = v["paced"]["flight_first_drop"]
    assert abs(flight / (BDP + B) - 1) < 0.1, flight
    assert flight > 1.5 * v["reno"]["cwnd_first_drop"], v


def test_fig4_reno_takes_long_in_congestion_avoidance_to_reach_the_link_rate(res):
    """Fig. 4: after its early slow-start loss Reno climbs one packet per RTT and
    needs far more than 10 s to reach 90 % of the link."""
    assert res.figure("fig4").values["ramp_s"]["reno"] > 10.0


def test_fig6_fifty_flows_reno_beats_paced_early(res):
    """Fig. 6 (§5.2): 50 flows at 57 Mb/s, BDP/4 buffer: contrary to the single-flow
    case, Reno's cumulative aggregate throughput is above Paced Reno's early on."""
    for when, v in res.figure("fig6").values["cum_agg_early"].items():
        assert v["reno"] > 1.2 * v["paced"], (when, v)


def test_fig6_paced_better_in_steady_state(res):
    """Fig. 6 / §5.2.2: in steady state (after 20 s) pacing achieves slightly better
    link utilization than Reno."""
    u = res.figure("fig6").values["steady_util"]
    assert u["paced"] > u["reno"] + 0.005, u


def test_fig7_reno_less_fair_than_paced_early(res):
    """Fig. 7: Jain's index of the cumulative throughputs is lower for Reno than for
    Paced Reno during the initial period (1 and 2 s)."""
    for when, v in res.figure("fig7").values["jain_early"].items():
        assert v["paced"] > v["reno"] + 0.05, (when, v)


def test_fig8_paced_flows_lose_in_synchronized_burst_in_slow_start(res):
    """Fig. 8 / §5.2.1: paced flows all reduce their windows together in slow start
    (first reductions within a fraction of an RTT of each other); Reno's are spread
    over about an RTT."""
    s = res.figure("fig8").values["first_spread_s"]
    assert s["paced"] < 0.05 and s["reno"] > 2 * s["paced"], s


def test_fig8_pacing_desynchronizes_steady_state_losses(res):
    """§5.2.2: in steady state a congestion event hits a smaller fraction of the paced
    flows than of the Reno flows (every Reno flow sends back-to-back packets into the
    full queue)."""
    s = res.figure("fig8").values["sync_mean"]
    assert s["paced"] < s["reno"] - 0.1, s


def test_fig10_paced_better_rtt_normalized_fairness_with_two_rtts(res):
    """Fig. 10 (§5.3): 25 flows at 100 ms + 25 at 280 ms: the RTT-normalized Jain
    index is clearly higher with pacing, at both buffers."""
    j = res.figure("fig10").values["jain_rtt_end"]
    for buf in ("309pkt", "1237pkt"):
        assert j[f"leaky,{buf}"] > j[f"none,{buf}"] + 0.05, j


def test_fig11_reno_forms_larger_queues_with_two_rtts(res):
    """§5.3: Reno forms larger queues at the bottleneck than Paced Reno (mean queue),
    at BDP/4 and at one BDP."""
    q = res.figure("fig11").values["queue_mean_pkts"]
    for buf in ("309pkt", "1237pkt"):
        assert q[f"none,{buf}"] > q[f"leaky,{buf}"], q


def _latency(fig, pacing: str, size: float) -> float:
    rows = [r for r in fig.values["table"] if r["pacing"] == pacing and r["size"] == size]
    assert rows, (pacing, size)
    return rows[0]["latency"]


def test_fig12_small_closed_loop_flows_paced_lags_reno_slightly(res):
    """Fig. 12 phase 1 (§5.4): 20 closed-loop nodes, flows of 10 packets never lose;
    Reno finishes at about its ideal latency and the paced flow, spreading each window
    over an RTT, a little (< 30 %) later."""
    f = res.figure("fig12")
    reno, paced = _latency(f, "none", 10.0), _latency(f, "leaky", 10.0)
    assert abs(reno - 1.0) < 0.1, reno
    assert reno < paced < 1.3 * reno, (reno, paced)


def test_fig12_long_closed_loop_flows_paced_much_worse_synchronized_drops(res):
    """Fig. 12 phase 3: with flows of 3000 packets, new flows' slow starts cause
    synchronized drops among the paced flows: their mean normalized latency is more
    than 1.5 × Reno's."""
    f = res.figure("fig12")
    assert _latency(f, "leaky", 3000.0) > 1.5 * _latency(f, "none", 3000.0)


def test_fig13_bdp_buffer_reno_uniformly_better_than_paced(res):
    """Fig. 13: with a BDP buffer Reno's mean normalized latency is below pacing's at
    every flow size."""
    f = res.figure("fig13")
    for size in {r["size"] for r in f.values["table"]}:
        assert _latency(f, "none", size) < _latency(f, "leaky", size), size


def test_fig14_mixed_reno_flows_finish_much_sooner_than_paced(res):
    """Fig. 14 (§5.5): 10 Reno + 10 paced flows of 300 packets starting together: the
    paced flows' packets land in Reno bursts and are dropped; Reno's mean latency is
    below 0.8 × the paced flows'."""
    v = res.figure("fig14").values
    assert v["ratio"] < 0.8, v


def test_fig15_mixed_5000_packet_flows_paced_still_worse(res):
    """Fig. 15 line B (§5.5): 10 Reno + 10 paced flows of 5000 packets starting
    together: the paced flows' mean latency is still above Reno's (ratio Reno / paced
    below 1), by more than twice the standard error of the per-seed paired difference
    (the gap is small: about 1 %, 100 seeds), and every flow finishes."""
    b = res.figure("fig15").values["simultaneous"]["5000"]
    assert b["ratio"] < 1.0, b
    assert b["diff"] > 2 * b["diff_se"], b
    assert b["unfinished"] == 0, b


def test_fig15_closed_loop_mix_paced_deteriorates_further(res):
    """Fig. 15 line C (§5.5): with the closed-loop model of §5.4 (10 Reno + 10 paced
    nodes, think time 1 s, new flows starting in slow start) the ratio Reno / paced of
    5000-packet flows is below line B's (20 flows started together)."""
    v = res.figure("fig15").values
    assert v["ratio_c"] < v["ratio_b"], v
    assert v["closed_loop"]["5000"]["flows"]["paced"] > 0, v


def test_fig16_red_with_a_high_minimum_threshold_hurts_paced_flows(res):
    """Fig. 16 (§5.6): with pacing even a small queue means congestion, so a RED whose
    minimum threshold is high (100 packets) gives paced closed-loop flows a higher
    normalized latency than one with a low threshold (5 packets), at every flow size
    of 1000 packets or more."""
    v = res.figure("fig16").values
    rows = [r for r in v["table"] if r["pacing"] == "leaky" and r["size"] >= 1000]
    sizes = {r["size"] for r in rows}
    assert sizes, v

    def lat(q: str, size: float) -> float:
        return next(r["latency"] for r in rows if r["queue"] == q and r["size"] == size)

    for size in sizes:
        assert lat(v["high"], size) > lat(v["low"], size), size
