"""Study 001 (Aggarwal, Savage, Anderson: TCP pacing) reproduced in quick mode: the
findings that docs/reproductions/001.md marks reproduced must keep holding.

One quick run of the study (67 runs, under a minute on 2 cores: 2 single-flow runs
of 200 s, 24 single-flow runs of one sawtooth at 5-20 Mb/s, 2 runs of 50 flows, 4 runs
of 50 flows with two RTTs, the closed-loop runs of figures 12-13 and 16, and the mixed
runs of figures 14-15: 4 + 10 simultaneous starts and one closed-loop run) is shared
by every test; each test checks one finding on ccsim's numbers, against the study's
formula where it gives one.
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


def test_fig3_steady_state_same_sawtooth_and_similar_throughput(res):
    """Fig. 3 (§5.1): once both flows have reached the link rate, Reno and Paced Reno
    show the same sawtooth (each reduction halves a full pipe and buffer: last ssthresh
    within 10 % of (BDP + B) / 2) and their goodput over the rest of the 200 s run is
    within 5 %."""
    v = res.figure("fig3").values
    g = v["steady_goodput_bps"]
    assert v["steady_since_s"] < 150.0, v["steady_since_s"]
    assert abs(g["paced"] / g["reno"] - 1) < 0.05, g
    for who in ("reno", "paced"):
        ss = v[who]["ssthresh_final"]
        assert abs(ss / ((BDP + B) / 2) - 1) < 0.1, (who, ss)


def test_fig4_reno_takes_long_in_congestion_avoidance_to_reach_the_link_rate(res):
    """Fig. 4: after its early slow-start loss Reno climbs one packet per RTT and
    needs far more than 10 s to reach 90 % of the link."""
    assert res.figure("fig4").values["ramp_s"]["reno"] > 10.0


def test_fig4_paced_flow_reaches_the_link_rate_much_sooner_than_reno(res):
    """Figs. 3-4 (§5.1): Paced Reno leaves slow start only with the pipe full; after
    its overshoot is repaired it continues in congestion avoidance from near the link
    rate and reaches 90 % of it in less than half the time Reno needs."""
    r = res.figure("fig4").values["ramp_s"]
    assert r["paced"] < r["reno"] / 2, r


def test_fig5_limited_buffer_pacing_gain_in_mbps_grows_with_the_bdp(res):
    """Fig. 5 (§5.1): one flow lasting one sawtooth (T_cycle = RTT² · BW / 576 B), buffer
    0.1 and 0.25 × BDP: Paced Reno delivers more than Reno at every bandwidth, and the
    difference in Mb/s (the study's "difference in the bandwidth achieved") is larger
    at the largest BDP than at the smallest (quick mode: 5, 10 and 20 Mb/s, BDP 109 to
    434 packets)."""
    d = res.figure("fig5").values["diff_mbps"]
    for buf in ("0.1", "0.25"):
        xs = [d[f"{m},{buf}"] for m in (5, 10, 20)]
        assert all(x > 0 for x in xs), (buf, xs)
        assert xs[-1] > xs[0], (buf, xs)


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


def test_fig7_fairness_similar_over_long_periods(res):
    """Fig. 7: over longer periods Reno's and Paced Reno's fairness is similar: Jain's
    index of the cumulative throughputs at the end of the run within 0.05 of each
    other, both above 0.9."""
    v = res.figure("fig7").values["jain_end"]
    assert abs(v["reno"] - v["paced"]) < 0.05, v
    assert min(v.values()) > 0.9, v


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


def test_fig9_two_rtts_reno_and_paced_reach_similar_throughput(res):
    """Fig. 9 (§5.3): 25 flows at 100 ms + 25 at 280 ms: Reno and Paced Reno reach
    similar link utilization (within 0.05) at BDP/4 and at one BDP."""
    u = res.figure("fig9").values["utilization"]
    for buf in ("309pkt", "1237pkt"):
        assert abs(u[f"leaky,{buf}"] - u[f"none,{buf}"]) < 0.05, u


def test_fig10_paced_better_rtt_normalized_fairness_with_two_rtts(res):
    """Fig. 10 (§5.3): 25 flows at 100 ms + 25 at 280 ms: the RTT-normalized Jain
    index is clearly higher with pacing, at both buffers."""
    j = res.figure("fig10").values["jain_rtt_end"]
    for buf in ("309pkt", "1237pkt"):
        assert j[f"leaky,{buf}"] > j[f"none,{buf}"] + 0.05, j


def test_fig11_reno_has_the_higher_drop_rate_with_two_rtts(res):
    """Fig. 11 (§5.3): with two RTTs Reno's drop rate at the bottleneck is higher than
    Paced Reno's, at BDP/4 and also with a buffer of one BDP."""
    dr = res.figure("fig11").values["drop_rate"]
    for buf in ("309pkt", "1237pkt"):
        assert dr[f"none,{buf}"] > dr[f"leaky,{buf}"], dr


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


def test_fig12_medium_closed_loop_flows_reno_loses_more_and_paced_is_ahead(res):
    """Fig. 12 phase 2 (§5.4): at 1000 packets, the smallest size at which flows lose,
    Reno loses more packets per flow in slow start than Paced Reno and the paced
    flows' mean normalized latency is below Reno's."""
    f = res.figure("fig12")
    assert _latency(f, "leaky", 1000.0) < _latency(f, "none", 1000.0)
    c = f.claim("phase2_paced_ahead")
    assert c.holds, c.ccsim
    assert c.ccsim.startswith("1000 pkts"), c.ccsim


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
    (10 seeds; the gap is about 4.9 s, one run's spread about 0.4 s), and every flow
    finishes."""
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


def test_fig16_red_with_a_high_minimum_threshold_does_not_perform_well(res):
    """Fig. 16 (§5.6): the closed-loop workload of Fig. 12 through RED; for paced flows
    a high minimum threshold (min_th 100, max_th 300, max_p 0.1) gives a higher mean
    normalized latency than a low one (min_th 5, max_th 250, max_p 0.02) at every
    size that loses (quick mode: 1000 and 10 000 packets, one seed)."""
    f = res.figure("fig16")
    v = f.values
    for size in (1000.0, 10000.0):
        lat = {
            r["queue"]: r["latency"]
            for r in v["table"]
            if r["pacing"] == "leaky" and r["size"] == size
        }
        assert lat[v["high"]] > lat[v["low"]], (size, lat)
    assert f.claim("high_min_th_bad").holds, f.claim("high_min_th_bad").ccsim
