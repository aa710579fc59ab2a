"""ccsim's linux profile held to the Linux testbed's tables (issue 15, item 4; docs/linux.md).

Every committed point (validation/linux/scenarios/*.toml) runs in ccsim with 10 seeds (flows
started 0-5 ms apart; more for the points whose spread is the tolerance's, `SEEDS_OF`), and
more as the precision rule asks (compare.SE_PER_TOL: until each metric's standard error
across seeds is at most a quarter of its tolerance, compare.MAX_SEEDS at most), and is
measured with testbed.py's estimators (validation/linux/compare.py). A metric passes
when |ccsim mean - Linux mean| <= max(abs, rel * |Linux mean|) with the issue's tolerances
(compare.TOLERANCES): utilization 0.01, shares 0.03, loss rate 25 %, β 0.02, CUBIC/Reno
epoch 25 %.  A point where ccsim differs is an xfail(strict=True) whose reason
gives the measured difference and its cause (docs/linux.md, "Remaining differences"): if ccsim
comes to agree, the xfail fails and must be removed.

All 26 points run (about 20 s of simulation on one core): no subset is needed for CI.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation" / "linux"))
import compare  # noqa: E402
import testbed  # noqa: E402

# Ten seeds: a 3-seed mean decided two points by its own sampling (two CUBIC flows' loss
# rate read 0.076 % over seeds 1-3 and 0.071 % over 1-10 against Linux's 0.059 %; the
# Reno + CUBIC share at 0.25 BDP 0.504 and 0.514 against 0.479).
SEEDS = tuple(range(1, 11))
# BBR beside CUBIC: the points whose ccsim metrics spread over seeds as widely as the
# tolerance, so that a 3-seed mean passes or fails by chance. At 3 BDP, 50 Mb/s the loss
# rate's sd over seeds is 0.048 % (a 3-seed mean's standard error 0.028 % against a
# tolerance of 0.043 %) and CUBIC's epoch's 1.1 s (its cycles are bimodal, 2.6-5.4 s and
# 15-18 s, 3-4 per run, in both simulators): 20 seeds. At 3 BDP, 20 Mb/s the loss rate's
# sd is 0.085 % (against a 0.062 % tolerance; Linux's ten runs read 0.14-0.41 %): 30
# seeds, a run taking about half a second. At 0.25 BDP CUBIC's β (sd 0.005 over seeds,
# 0.026 from Linux's against a 0.02 tolerance: seeds 1-3 alone read 0.633) and its epoch
# at 50 Mb/s (sd 0.13 s, 0.39 s from Linux's against 0.37 s): 20 seeds. The two points
# at 3 BDP and the two Reno + CUBIC points have 10 Linux runs.
SEEDS_OF = {
    "50m_100ms_b1238_1bbr+1cubic": tuple(range(1, 21)),
    "20m_50ms_b248_1bbr+1cubic": tuple(range(1, 31)),
    "20m_50ms_b21_1bbr+1cubic": tuple(range(1, 21)),
    "50m_100ms_b103_1bbr+1cubic": tuple(range(1, 21)),
}

# (point, metric) -> reason, with the measured values (compare.py, the seeds above)
XFAIL = {
    ("50m_100ms_b103_1cubic", "utilization"): "ccsim 0.990 ± 0.000 vs Linux 0.979 ± 0.004 "
    "(3 runs), 0.011 apart against a 0.01 tolerance: the testbed's delay hop stalled 7.2-35.9 "
    "ms in each of those runs, longer than the 23-27 packets (5.6 ms) queued on CUBIC's "
    "fast-convergence plateaus, and the link idled there; five runs without such a stall read "
    "0.987 ± 0.000, which ccsim meets in every metric (quiet_rerun.json; "
    "test_cubic_at_its_capacity_idles_the_link_where_the_delay_hop_stalls, "
    "test_against_linux_on_a_quiet_delay_hop; docs/linux.md, item 2)",
    ("20m_50ms_b83_1cubic", "loss_rate"): "ccsim 0.0168 % ± 0.002 % (13 seeds, the "
    "precision rule's; 0.016 % before CUBIC ran in the kernel's fixed point) vs Linux 0.023 % "
    "± 0.008 % (runs of 0.016, 0.020 and 0.032 %). Before the fixed point ccsim lost one "
    "segment per congestion event with 3.91 s epochs in every seed, as Linux's run 0 does "
    "(1.00, 3.85 s, 0.016 %); its runs 1 and 2 lose 1.8 and 2.6. On a quiet host Linux "
    "loses 0.016 % in four runs of four, with 1.0-1.1 per event and 3.8-4.3 s epochs "
    "(mode_rerun.json; "
    "test_against_linux_on_a_quiet_delay_hop). Before ccsim's slow start ended where Linux's "
    "does (test_slow_start_ends_where_linuxs_does: ssthresh 245 [229-247], 126 before) it "
    "read 0.021 % with 5.33 s epochs (docs/linux.md, Slow start's end)",
    ("50m_100ms_b1238_1bbr+1cubic", "loss_rate"): "ccsim 0.118 % ± 0.043 % (20 seeds) vs "
    "0.170 % ± 0.043 % (10 runs; on a quiet host 0.113 % over six, 0.083-0.168 %, which ccsim "
    "meets: test_against_linux_on_a_quiet_delay_hop). Linux's CUBIC leaves slow start by "
    "HyStart's ACK train (587-596 packets, first cut 6.6 s after the data starts, from "
    "1354-1382) or, where an ACK gap over 2 ms breaks the train, by the delay test a round "
    "later (649, first cut at 5.1 s from 1218-1226): seven and five of twelve runs (nstat). "
    "ccsim's ACKs have no such gap: every seed leaves by the train (604-606), cuts first at "
    "5.4 s from 1189-1196 and then runs longer epochs. With the testbed's measured ACK "
    "timing modelled, either way, loss and epoch are within tolerance "
    "(test_cubics_epoch_beside_bbr_at_3_bdp_moves_to_linuxs_with_the_testbeds_ack_timing; "
    "docs/linux.md, The testbed's ACK timing)",
}


@functools.cache
def result(point: str) -> dict:
    return compare.compare_point(point, SEEDS_OF.get(point, SEEDS), max_seeds=compare.MAX_SEEDS)


CASES = [(p, m) for p in compare.points() for m in compare.metrics_of(p)]


def _param(p, m):
    marks = []
    if (p, m) in XFAIL:
        marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[(p, m)]))
    return pytest.param(p, m, id=f"{p}-{m}", marks=marks)


def _cases(reference: dict, xfails: dict, prefix: str) -> list:
    """Every (point, metric) of a rerun reference, strict xfails where `xfails` says."""
    return [
        pytest.param(
            p,
            m,
            id=f"{prefix}-{p}-{m}",
            marks=[pytest.mark.xfail(strict=True, reason=xfails[(p, m)])]
            if (p, m) in xfails
            else [],
        )
        for p in reference
        for m in compare.metrics_of(p, reference)
    ]


@pytest.mark.parametrize(("point", "metric"), [_param(p, m) for p, m in CASES])
def test_linux_reference(point, metric):
    e = result(point)["metrics"][metric]
    assert e["pass"], (
        f"{point} {metric}: ccsim {e['ccsim']:.5g} ± {e['ccsim_sd']:.2g}, "
        f"Linux {e['linux']:.5g} ± {e['linux_sd']:.2g}, tolerance {e['tol']:.3g}"
    )


# The linux profile's default sender, unpaced, against Linux's unpaced senders: every
# point measured again with `testbed.py run --default-cc reno` (unpaced_check.json, two
# runs a point; five for the four points of unpaced_rerun.json), ccsim with the scenarios'
# `pacing = "linux"` turned off. The same tolerances; the same seeds.
UNPACED = compare.unpaced_summary()
# _CREDIT: Linux's tcp_cong_avoid_ai counts CUBIC's ACKs toward cnt and adds the segment at once
# when bictcp_update's next cnt is below the count (docs/algorithms.md, CUBIC's two forms);
# ccsim's CUBIC grew by acked/cnt before 2026-12-05. With the rule, the twelve Reno + CUBIC
# share comparisons (paced, unpaced, quiet, every segment ACKed paced and unpaced, held out
# paced and unpaced) moved from a mean distance of 0.0266 from Linux to 0.0255 over 20 seeds
# (0.0321 to 0.0289 over 10), the two open differences closer (every segment ACKed,
# unpaced: 0.090 to 0.074; held out unpaced: 0.094 to 0.070), five more closer and five
# farther; at the tests' seeds four share checks miss the 0.03 tolerance by 0.001-0.006
# (below). Three of the four are within 1.6 standard errors of the difference of the two
# means (ccsim's sd over seeds, Linux's over runs): sampling, at two runs or 0.06 of sd.
# The fourth, every segment ACKed and paced, is 3.0: ccsim's CUBIC there holds 0.036 more
# than Linux's over 16 runs, not isolated. Since Reno counts exactly a window per segment as
# Linux's does (2026-12-05, docs/linux.md), the other three pass again and that one stays;
# it passes since CUBIC counts in jiffies (2026-12-06, QUICKACK_XFAIL).
UNPACED_XFAIL: dict[tuple[str, str], str] = {
    ("50m_100ms_b103_1bbr", "loss_rate"): "ccsim 0.304 % vs 0.408 % ± 0.028 % (five runs on "
    "a quiet host; the reference's three on the loaded one read 0.342 %, which ccsim meets), "
    "10.2 drops per probe against 13.8: Linux's bandwidth estimate straddles the rate where "
    "BBR's TSO goal in a probe reaches 5 segments (bw >= 1.0022 x the link), ccsim's is "
    "below it (1.0009); Linux's probes below it drop 11.0, above it 14.8, ccsim's 10.2, and "
    "13.9 on a link 0.2 % faster "
    "(test_bbr_loses_more_per_probe_where_its_tso_goal_reaches_five_segments; docs/linux.md, "
    "BBR's probes and its TSO goal)",
}


@functools.cache
def unpaced_result(point: str) -> dict:
    return compare.compare_point(
        point,
        SEEDS_OF.get(point, SEEDS),
        {"tcp.pacing": "none"},
        reference=UNPACED,
        max_seeds=compare.MAX_SEEDS,
    )


def _unpaced_param(p, m):
    marks = []
    if (p, m) in UNPACED_XFAIL:
        marks.append(pytest.mark.xfail(strict=True, reason=UNPACED_XFAIL[(p, m)]))
    return pytest.param(p, m, id=f"unpaced-{p}-{m}", marks=marks)


@pytest.mark.parametrize(
    ("point", "metric"),
    [_unpaced_param(p, m) for p in UNPACED for m in compare.metrics_of(p, UNPACED)],
)
def test_default_profile_against_unpaced_linux(point, metric):
    e = unpaced_result(point)["metrics"][metric]
    assert e["pass"], (
        f"{point} {metric} (unpaced): ccsim {e['ccsim']:.5g} ± {e['ccsim_sd']:.2g}, "
        f"Linux {e['linux']:.5g} ± {e['linux_sd']:.2g}, tolerance {e['tol']:.3g}"
    )


def _covers_every_point(reference: dict, xfails: dict) -> None:
    """*reference* measured every committed point twice at least, and each of *xfails*
    names one of its (point, metric)s."""
    assert set(reference) == set(compare.points())
    assert all(reference[p]["runs"] >= 2 for p in reference)
    assert set(xfails) <= {(p, m) for p in reference for m in compare.metrics_of(p, reference)}


def test_unpaced_reference_covers_every_point():
    """Every committed point was measured unpaced too, twice."""
    _covers_every_point(UNPACED, UNPACED_XFAIL)


# A receiver that ACKs every segment (`testbed.py rerun --quickack`: route attribute
# quickack 1, no delayed ACK and no ACK at the application's reads), ccsim with
# `tcp.delayed_ack = false`: the experiment that localizes items 1 and 3 (docs/linux.md,
# "A receiver that ACKs every segment"). Two days: quickack_check.json (eight runs a point)
# and quickack_rerun.json (eight more of Reno + CUBIC, whose share read 0.608 +- 0.030 the
# first day and 0.635 +- 0.041 the second), pooled.
QUICKACK = compare.rerun_summary("quickack_check.json", "quickack_rerun.json")
# Every segment ACKed and paced, CUBIC's share beside Reno read 0.657 ± 0.018 against
# Linux's 0.622 ± 0.038 (16 runs over two days) with a continuous CUBIC clock, a strict
# xfail; counted in jiffies at HZ = 250 as the testbed's kernel does, 0.644 (0.652 over 30
# seeds, at the tolerance's edge): docs/linux.md, "CUBIC's clock".
QUICKACK_XFAIL: dict[tuple[str, str], str] = {
    ("20m_50ms_b21_1reno+1cubic", "share_cubic"): "ccsim 0.663 ± 0.034 (24 seeds, the "
    "precision rule's; 0.662 over 40) vs Linux 0.622 ± 0.038 (16 runs over two days), 0.041 "
    "apart against 0.03. Not the kernel's fixed point, which CUBIC runs in since 2026-12-06: "
    "with real-valued β, C and K it reads 0.656 over 40 seeds, outside too, where the ten "
    "seeds before the precision rule read 0.644 and passed. ccsim's overflows cut CUBIC "
    "alone in 0.035 of events against Linux's 0.083 (cuts.py --phase cubic). Explained by "
    "the testbed's ACK timing (p99 0.53-0.84 ms after the least delay, ccsim's 0.01): with "
    "the timing captured at this point modelled (testbed.ACK_JITTER_20M_QUICKACK, fitted to "
    "the ACKs' delays) the share is 0.622 and CUBIC is cut alone in 0.093 "
    "(test_every_segment_acked_cubic_holds_linuxs_share_with_the_testbeds_ack_timing; "
    "docs/linux.md, The ACK timing at the last two)",
    ("20m_50ms_b21_1reno+1cubic", "share_reno"): "the share_cubic entry seen from Reno",
}


@pytest.mark.parametrize(("point", "metric"), _cases(QUICKACK, QUICKACK_XFAIL, "quickack"))
def test_with_a_receiver_that_acks_every_segment(point, metric):
    """CUBIC beside BBR at 0.25 BDP, whose β differed with the testbed's receiver (item 3,
    closed since by PSH where the skbs end), is Linux's in every metric when both receivers
    ACK every segment: the difference was in how the delayed, read-driven ACKs met CUBIC's
    window of 5-8 segments, not in CUBIC or BBR. Reno + CUBIC is Linux's in every metric
    too, and in who each overflow cuts (test_who_each_overflow_cuts_with_every_segment_acked)."""
    e = _against(point, "quickack")["metrics"][metric]
    assert e["pass"], (
        f"{point} {metric} (quickack): ccsim {e['ccsim']:.5g} ± {e['ccsim_sd']:.2g}, "
        f"Linux {e['linux']:.5g} ± {e['linux_sd']:.2g}, tolerance {e['tol']:.3g}"
    )


def test_linux_profiles_cubic_counts_the_testbed_kernels_jiffies():
    """The clock of the linux profile's CUBIC is the testbed kernel's, read from the kernel
    itself (validation/linux/kernel_clock.json, kernel_clock.py: 6.18's cubictcp_cong_avoid
    disassembled through BPF): bictcp_update holds cnt while jiffies - last_time is at most
    HZ/32 = 7, jiffies advance 250 a second, and CONFIG_HZ is 250. The profile's default
    runs exactly as `hz = 250` does, and the parameter reaches the run (a continuous clock
    gives another share). The kernel module's parameters are recorded beside the clock:
    HyStart from 16 segments with 2 ms ACK trains and both detectors, fast convergence and
    the Reno-friendly region on, no initial ssthresh, as the linux profile's CUBIC
    (cc/cubic.rs HYSTART_LOW_WINDOW, HYSTART_ACK_DELTA); its β = 717/1024 and C =
    410/1024 where ccsim's are 0.7 and 0.4 (docs/linux.md, CUBIC's clock, measured)."""
    kc = json.loads((ROOT / "validation/linux/kernel_clock.json").read_text())
    assert kc["tcp_cubic_parameters"] == {
        "beta": 717,
        "bic_scale": 41,
        "fast_convergence": 1,
        "hystart": 1,
        "hystart_ack_delta_us": 2000,
        "hystart_detect": 3,
        "hystart_low_window": 16,
        "initial_ssthresh": 0,
        "tcp_friendliness": 1,
    }, kc
    assert kc["clock"] == "jiffies" and kc["kernel"].startswith("6.18"), kc
    assert kc["hz"] == kc["config_hz"] == 250, kc
    assert kc["hold"]["compared_with"] == kc["hz"] // 32, kc
    assert abs(kc["global_ticks_per_s"] - kc["hz"]) <= 0.01 * kc["hz"], kc
    assert kc["hold"]["stored_from_global"], kc
    point = "20m_50ms_b21_1reno+1cubic"
    seeds = SEEDS[:3]

    def share(hz=None):
        ov = {"tcp.delayed_ack": False}
        if hz is not None:
            ov["flows[1].cc"] = {"name": "cubic", "hz": hz}
        r = compare.compare_point(point, seeds, ov, reference=QUICKACK)
        return r["metrics"]["share_cubic"]["ccsim"]

    assert share() == share(kc["hz"])
    assert share() != share(0)


# The same receiver with Reno and CUBIC unpaced (`--default-cc reno`): six runs the first
# day (quickack_check.json, unpaced_points), eight the second (quickack_unpaced_rerun.json,
# with traces), pooled; ccsim with `tcp.pacing = "none"` too.
QUICKACK_UNPACED = compare.rerun_summary(
    ("quickack_check.json", "unpaced_points"), "quickack_unpaced_rerun.json"
)
# Linux's Reno adds its segment exactly one window after the last (tcp_cong_avoid_ai on
# snd_cwnd_cnt, at its ACK trains' last ACK in the third capture); ccsim's Reno grew by a
# 1/cwnd fraction per segment before 2026-12-05, which drifted through the window: its
# overflows then cut both flows in 0.69 of events against Linux's 0.87, CUBIC's share read
# 0.595 and the utilization 0.962. With the exact count, 0.84, 0.542 and 0.951 (docs/linux.md,
# A second day with every segment acknowledged).
QUICKACK_UNPACED_XFAIL: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize(
    ("point", "metric"),
    _cases(QUICKACK_UNPACED, QUICKACK_UNPACED_XFAIL, "quickack-unpaced"),
)
def test_with_a_receiver_that_acks_every_segment_unpaced(point, metric):
    e = _against(point, "quickack-unpaced")["metrics"][metric]
    assert e["pass"], (
        f"{point} {metric} (quickack, unpaced): ccsim {e['ccsim']:.5g} ± {e['ccsim_sd']:.2g}, "
        f"Linux {e['linux']:.5g} ± {e['linux_sd']:.2g}, tolerance {e['tol']:.3g}"
    )


@pytest.mark.parametrize(
    ("stem", "pacing", "linux_range"),
    [
        pytest.param("quickack_rerun", "linux", (0.35, 0.65), id="paced"),
        pytest.param("quickack_unpaced_rerun", "none", (0.8, 1.0), id="unpaced"),
    ],
)
def test_who_each_overflow_cuts_with_every_segment_acked(stem, pacing, linux_range):
    """Reno + CUBIC at 0.25 BDP, 20 Mb/s with a receiver that ACKs every segment: the share
    of congestion events that cut both flows (validation/linux/cuts.py over the second day's
    traces, eight runs each; an event is every flow's cuts within 0.2 s). Paced, Linux cuts
    both in about half its events and Reno alone in most of the rest (0.489 / 0.428, CUBIC
    alone 0.083); unpaced, both in 0.874. ccsim's ten seeds within 0.1 of Linux's share."""
    import cuts

    point = "20m_50ms_b21_1reno+1cubic"
    lo, hi = 10.0, 44.0
    lin = cuts.events_cutting_all(cuts.linux_runs(point, False, stem), lo, hi)
    assert linux_range[0] <= lin <= linux_range[1], lin
    ours = cuts.events_cutting_all(_quickack_traces(pacing), lo, hi)
    assert abs(ours - lin) <= 0.1, (ours, lin)


@functools.cache
def _quickack_traces(pacing: str) -> list:
    """ccsim's 20 ms windows of Reno + CUBIC at 0.25 BDP, 20 Mb/s with every segment ACKed,
    the tests' seeds (cuts.ccsim_runs), once per pacing."""
    import cuts

    over = {"tcp.delayed_ack": False, "tcp.pacing": pacing}
    return cuts.ccsim_runs("20m_50ms_b21_1reno+1cubic", SEEDS, over)


def test_cubic_meets_each_overflow_growing_as_in_linux():
    """CUBIC's phase before the overflows (cuts.phase: its growth from 350 to 100 ms before
    each event's first cut), unpaced with every segment ACKed: before the events that cut
    both flows Linux's CUBIC grew 0.78 segments per 100 ms and ccsim's 0.74, never flat.
    Linux's CUBIC grew as fast (0.80) before the few events that spared it; ccsim's spared
    it, before Reno counted exactly a window per segment, at the same growth as the rest
    (0.75), and now mostly near its plateau (0.45, flat in 0.09): reported, not held
    (docs/linux.md, A second day with every segment acknowledged)."""
    import cuts

    point, lo, hi = "20m_50ms_b21_1reno+1cubic", 10.0, 44.0
    lin = cuts.phase(cuts.linux_runs(point, False, "quickack_unpaced_rerun"), lo, hi, "cubic")
    ours = cuts.phase(_quickack_traces("none"), lo, hi, "cubic")
    both, spared = lin["cubic+reno"], lin["reno"]
    assert spared["events"] >= 10 and both["flat"] == 0 and spared["flat"] == 0, lin
    assert abs(spared["growth_per_100ms"] / both["growth_per_100ms"] - 1) <= 0.15, lin
    g, lg = ours["cubic+reno"]["growth_per_100ms"], both["growth_per_100ms"]
    assert ours["cubic+reno"]["flat"] == 0 and abs(g / lg - 1) <= 0.15, (g, lg)


# Every point measured again alone on the machine, the delay hop's stalls short: the whole
# campaign twice (quiet_full.json: 52 runs, 4 with a release more than 5 ms late, where the
# reference campaign's median largest lateness was 7.3 ms), pooled with the points measured
# so before it (quiet_rerun.json: one CUBIC flow at 0.25 BDP, 50 Mb/s, five runs, docs/linux.md
# item 2; mode_rerun.json: the two points whose runs start two ways, four runs each,
# "Slow start's end"): compare.quiet_summary(). ccsim's runs are the reference test's.
QUIET = compare.quiet_summary()
QUIET_XFAIL = {
    ("50m_100ms_b1238_1bbr+1cubic", "epoch_mean_s"): "ccsim 9.80 ± 1.9 s (20 seeds; 10.24 "
    "before CUBIC ran in the kernel's fixed point) vs 7.71 ± 0.09 s over six quiet runs "
    "(7.6-7.8 s in every one; the reference's ten read 8.11 s, which ccsim meets); "
    "loss 0.116 % [0.113 %]: the reference's XFAIL entry, the start-up and the ACK timing "
    "(test_cubics_epoch_beside_bbr_at_3_bdp_moves_to_linuxs_with_the_testbeds_ack_timing; "
    "docs/linux.md, The testbed's ACK timing)",
    ("20m_50ms_b248_1bbr+1cubic", "share_cubic"): "ccsim 0.630 ± 0.028 (30 seeds; 0.616 "
    "over 35 before CUBIC ran in the kernel's fixed point, 0.623 before its RTT samples "
    "timed the segments Linux's do) vs 0.577 over two quiet runs (0.553, 0.601); the "
    "reference's ten runs read 0.629 ± 0.026 and ccsim meets them: the share's sd over runs "
    "(0.026-0.034) makes a two-run mean uncertain by 0.024",
    ("20m_50ms_b248_1bbr+1cubic", "share_bbr"): "the share_cubic entry seen from BBR",
    ("50m_100ms_b103_1bbr", "loss_rate"): "ccsim 0.304 % vs 0.418 % over two quiet runs: "
    "Linux's bandwidth estimate straddles the rate where BBR's TSO goal in a probe reaches 5 "
    "segments, ccsim's is below it (UNPACED_XFAIL; "
    "test_bbr_loses_more_per_probe_where_its_tso_goal_reaches_five_segments)",
}


@pytest.mark.parametrize(("point", "metric"), _cases(QUIET, QUIET_XFAIL, "quiet"))
def test_against_linux_on_a_quiet_delay_hop(point, metric):
    e = result(point)["metrics"][metric]
    lm = float(QUIET[point][f"{metric}_mean"])
    tol = compare.tolerance(metric, lm)
    assert abs(e["ccsim"] - lm) <= tol, (
        f"{point} {metric} (quiet): ccsim {e['ccsim']:.5g} ± {e['ccsim_sd']:.2g}, "
        f"Linux {lm:.5g} ± {float(QUIET[point][f'{metric}_sd']):.2g} "
        f"({QUIET[point]['runs']} runs), tolerance {tol:.3g}"
    )


def test_quiet_reference_covers_every_point():
    """The quiet campaign measured every committed point, twice at least."""
    _covers_every_point(QUIET, QUIET_XFAIL)


# The held-out points (holdout.json: one Linux run each at rates, RTTs and buffers the tables
# do not have, measured after the model was built; the Reno + CUBIC point fourteen more times,
# holdout_rerun.json, its share's sd over runs 0.059; holdout2.json: five more points, two
# runs each, 2026-12-05): ccsim with the scenario testbed.py writes for each. The Reno +
# CUBIC share's sd over seeds is 0.041: 20 seeds.
HOLDOUT = compare.holdout_summary()
HOLDOUT_SEEDS = {"30m_80ms_b99_1reno+1cubic": tuple(range(1, 21))}


@functools.cache
def holdout_result(point: str) -> dict:
    return compare.compare_point(
        point, HOLDOUT_SEEDS.get(point, SEEDS), reference=HOLDOUT, max_seeds=compare.MAX_SEEDS
    )


def test_held_out_points_are_outside_the_tables():
    """Eight held-out points, none at a rate, RTT, buffer and mix of the tables, each with
    a committed Linux run or more (two or more for the five of holdout2.json)."""
    assert len(HOLDOUT) == 8 and not set(HOLDOUT) & set(compare.points())

    def key(r):
        mix = tuple(sorted(str(r["cc_mix"]).split("+")))
        return (float(r["rate_mbit"]), float(r["rtt_ms"]), int(float(r["buf_pkts"])), mix)

    table = {key(r) for r in compare.linux_summary().values()}
    assert (20.0, 50.0, 21, ("cubic", "reno")) in table  # the keys read the table
    for p, row in HOLDOUT.items():
        assert key(row) not in table, p
        assert row["runs"] >= 1
    assert sum(HOLDOUT[p]["runs"] >= 2 for p in HOLDOUT) >= 6


# Two Reno flows at 25 Mb/s x 60 ms, 0.25 BDP lose more a congestion event than Linux's
# (3.50 against 2.90 drops, every cut event alike: their epochs agree, 2.70 s [2.68]): the
# first flow to lose sends at its first duplicate ACKs into a queue still full, 0.93 of its
# segments a event dropped there against Linux's 0.47 (trains.py event_zones; docs/linux.md,
# Remaining differences): the queue then holds 29.5 packets in ccsim, 28.5 in Linux
# (event_queue, ack_timing_check.json), and 29.2 with the testbed's ACK timing modelled,
# which brings loss and utilization within tolerance but leaves those drops where they
# were; the testbed's ACK clock's round trip, 70 µs past the nominal RTT, moves them (the
# phase of the flows' arrivals against the bottleneck's departures). The loss rate sat at
# its tolerance's edge (0.077 % [0.062 %], the limit 0.0776 %); growing by what each ACK
# delivers, on the ACK that ends a recovery too, takes it over.
_TWO_RENO = (
    "growing by what each ACK delivers (tcp.grow_by_delivered, Linux's acked_sacked; the "
    "ACK that ends a recovery adds one credit or two) took it past the tolerance, where "
    "it sat at the edge: their drops per event are 3.50 against Linux's 2.90. Explained "
    "by the testbed's timing, which the scenarios leave out: its ACKs' delays "
    "(testbed.ACK_JITTER_25M_TWO_RENO) bring loss and utilization within tolerance, and "
    "its ACK clock's round trip, 70 µs longer than the nominal RTT (the hosts' and delay "
    "hop's processing), moves the flows' arrivals off the last 100 µs before the "
    "bottleneck's departures, where ccsim's first dropper lost the segments it sends at "
    "its duplicate ACKs: with both, 0.061 % at 0.894 with 2.84 drops an event "
    "(test_the_first_dropper_loses_as_linuxs_at_its_duplicate_acks; docs/linux.md, The "
    "first dropper's drops, in each mode)"
)
# The paced loss rate, 0.083 % over the precision rule's 13 seeds [0.067 %], passes by
# 0.0009 %; over seeds 1-10 it read 0.085 %, a strict xfail until 2026-12-06.
HOLDOUT_XFAIL: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize(("point", "metric"), _cases(HOLDOUT, HOLDOUT_XFAIL, "holdout"))
def test_held_out_points(point, metric):
    e = holdout_result(point)["metrics"][metric]
    assert e["pass"], (
        f"{point} {metric} (held out): ccsim {e['ccsim']:.5g} ± {e['ccsim_sd']:.2g}, "
        f"Linux {e['linux']:.5g} ± {e['linux_sd']:.2g} over {HOLDOUT[point]['runs']} runs, "
        f"tolerance {e['tol']:.3g}"
    )


# The held-out points but BBR alone with Reno and CUBIC unpaced (holdout_unpaced.json, two
# runs each, six for three), ccsim's default sender (`tcp.pacing = "none"`).
HOLDOUT_UNPACED = compare.holdout_unpaced_summary()
_HYSTART = (
    "ccsim's unpaced CUBIC leaves slow start by HyStart's delay test at about 100 packets "
    "whenever Reno's slow start leads by as little as 1 ms (Reno's round fills the queue "
    "before CUBIC's first 8 RTT samples of its next round), then holds less of the link all "
    "run: CUBIC first by 1 ms 0.693, Reno first 0.510 (6 seeds each); the "
    "comparison's starts (0-5 ms each) put Reno first in about half the seeds. Linux's "
    "CUBIC left by the ACK train at 256-263 in five runs and the delay test at 318 in one "
    "(nstat), never early, and led Reno's slow start in all six runs (its window crossed "
    "20, 40 and 80 packets earlier in the 20 ms samples): they started as ccsim's "
    "CUBIC-first seeds, which read 0.693. Started apart on purpose (stagger_check.json) "
    "Linux's CUBIC leaves early too (delay test at 154-169 in four of four); with Reno first "
    "by 29.6 ms as ccsim's (169 [176], share 0.479 [0.505]), with CUBIC first by 45-54 ms "
    "not (ccsim by the train at 258) (docs/linux.md, Held-out points)"
)
HOLDOUT_UNPACED_XFAIL = {
    ("25m_60ms_b31_2reno", "loss_rate"): "ccsim 0.080 % ± 0.006 % vs 0.062 % ± 0.005 % (6 "
    "runs; 0.077 % before): " + _TWO_RENO,
    ("25m_60ms_b31_2reno", "utilization"): "ccsim 0.911 ± 0.007 vs 0.898 ± 0.007 (6 runs; "
    "0.905 before): " + _TWO_RENO,
    ("30m_80ms_b99_1reno+1cubic", "share_cubic"): "ccsim 0.599 ± 0.113 (40 seeds, the "
    "precision rule's; 0.595 before CUBIC ran in the kernel's fixed point; 0.618 and 0.611 "
    "before its RTT samples timed the segments Linux's do, 0.567 "
    "and 0.584 before CUBIC's credit rule, _CREDIT, 0.585 and 0.600 before Reno's exact "
    "count) vs Linux 0.685 ± 0.035 (6 runs): " + _HYSTART,
    ("30m_80ms_b99_1reno+1cubic", "share_reno"): "the share_cubic difference seen from Reno",
}


@functools.cache
def _against(point: str, experiment: str) -> dict:
    """compare_point of *point* against one experiment's reference, once per point (as
    result() and unpaced_result() do for the tables)."""
    reference, overrides = {
        "quickack": (QUICKACK, {"tcp.delayed_ack": False}),
        "quickack-unpaced": (QUICKACK_UNPACED, {"tcp.delayed_ack": False, "tcp.pacing": "none"}),
        "holdout-unpaced": (HOLDOUT_UNPACED, {"tcp.pacing": "none"}),
    }[experiment]
    return compare.compare_point(
        point, SEEDS, overrides, reference=reference, max_seeds=compare.MAX_SEEDS
    )


@pytest.mark.parametrize(
    ("point", "metric"), _cases(HOLDOUT_UNPACED, HOLDOUT_UNPACED_XFAIL, "holdout-unpaced")
)
def test_held_out_points_unpaced(point, metric):
    e = _against(point, "holdout-unpaced")["metrics"][metric]
    assert e["pass"], (
        f"{point} {metric} (held out, unpaced): ccsim {e['ccsim']:.5g} ± "
        f"{e['ccsim_sd']:.2g}, Linux {e['linux']:.5g} ± {e['linux_sd']:.2g} over "
        f"{HOLDOUT_UNPACED[point]['runs']} runs, tolerance {e['tol']:.3g}"
    )


def test_unpaced_cubic_beside_reno_holds_the_share_linux_does_once_it_starts_first():
    """The held-out unpaced share's strict xfail, isolated: at 30 Mb/s x 80 ms, 0.5 BDP,
    ccsim's unpaced CUBIC started 1 ms before Reno holds Linux's share within 0.04 (Linux's
    six runs all left slow start late, by the ACK train at 256-263 or the delay test at 318,
    as ccsim's CUBIC does when it leads), and started 1 ms after it, 0.1 less or more:
    0.705 (the precision rule's 21 seeds, 0.589-0.761) against 0.685 ± 0.035, and 0.505
    (0.725 and 0.532 over six seeds, the test's before the rule; 0.693 and 0.510 with
    real-valued β and C; 0.733 and 0.506 before its RTT samples timed the segments Linux's
    do; docs/linux.md, "Which segment an RTT sample times")."""
    import re
    import statistics

    import ccsim

    point = "30m_80ms_b99_1reno+1cubic"
    base = compare.scenario_text(point, jitter=False)

    def share(reno_start: str, cubic_start: str, seed: int) -> float:
        starts = iter([reno_start, cubic_start])
        text = re.sub(r'^start = "0s"', lambda m: f'start = "{next(starts)}"', base, flags=re.M)
        run = ccsim.run(text, set={"seed": seed, "tcp.pacing": "none"})
        return run.summary["groups"][1]["share"]

    runs = json.loads((ROOT / "validation/linux/holdout_unpaced.json").read_text())["runs"]
    exits = [
        v
        for name, r in runs.items()
        if name.startswith(point)
        for k, v in r["hystart"].items()
        if k.endswith("Cwnd")
    ]
    assert len(exits) == 6 and min(exits) >= 250, exits  # Linux: never early
    import cuts

    def lead(rows):  # Reno's crossing of 20, 40, 80 packets less CUBIC's, summed
        at = {
            f: {w: next(x["t"] for x in r if x["cwnd"] >= w) for w in (20, 40, 80)}
            for f, r in rows.items()
        }
        return sum(at["reno"][w] - at["cubic"][w] for w in (20, 40, 80))

    leads = [lead(rows) for rows in cuts.linux_runs(point, False, "holdout_unpaced")]
    assert len(leads) == 6 and all(x > 0 for x in leads), leads  # CUBIC ahead in each
    linux = float(HOLDOUT_UNPACED[point]["share_cubic_mean"])
    shares = compare.precise(
        lambda seed: {"first": share("1ms", "0ms", seed), "second": share("0ms", "1ms", seed)},
        0.04,
    )
    first, second = (statistics.fmean(shares[k]) for k in ("first", "second"))
    assert abs(first - linux) <= 0.04, (first, linux)
    assert first - second >= 0.1, (first, second)


def test_unpaced_cubic_started_after_reno_holds_the_share_linux_did():
    """Started apart on purpose, Reno first by 29.6 ms (stagger_check.json, run 0): Linux's
    CUBIC left slow start by the delay test at 169 and held 0.479; ccsim's, at that offset
    (the precision rule's 22 seeds), within 0.04: 0.512 (0.450-0.621) in the kernel's fixed
    point (0.532 over the six seeds the test read before the rule); 0.515 over six seeds
    since CUBIC counts in jiffies at HZ = 250 as the testbed's kernel does; 0.533 with a
    continuous clock after the laws grew by what
    each ACK delivers (a strict xfail then), 0.505 before, 0.536 before its RTT samples
    timed the segments Linux's do, 0.513 before CUBIC's credit rule."""
    import re
    import statistics

    import ccsim

    point = "30m_80ms_b99_1reno+1cubic"
    st = json.loads((ROOT / "validation/linux/stagger_check.json").read_text())["runs"]
    r0 = st[f"{point}_stagger_r0"]
    assert r0["cubic_data_after_reno_ms"] > 20 and "TcpExtTCPHystartDelayCwnd" in r0["hystart"]
    starts = iter(["0ms", f"{r0['cubic_data_after_reno_ms']}ms"])
    text = re.sub(
        r'^start = "0s"',
        lambda m: f'start = "{next(starts)}"',
        compare.scenario_text(point, jitter=False),
        flags=re.M,
    )
    shares = compare.precise(
        lambda seed: {
            "cubic": ccsim.run(text, set={"seed": seed, "tcp.pacing": "none"}).summary["groups"][1][
                "share"
            ]
        },
        0.04,
    )
    ours = statistics.fmean(shares["cubic"])
    assert abs(ours - r0["share_cubic"]) <= 0.04, (ours, r0["share_cubic"])


def test_rtt_samples_time_the_segments_linux_times():
    """Which segment an RTT sample times (validation/linux/rtt_timing.json: three captures of
    two unpaced Reno flows at 25 Mb/s x 60 ms, 0.25 BDP, read by rtt_timing.py). Linux's
    receiver echoes the timestamp of the first segment a delayed ACK covers (RFC 7323 §4.3,
    `tcp_replace_ts_recent`: every ACK whose segments' timestamps differ), and its sender's
    SRTT times the oldest segment an ACK newly delivers (`tcp_ack_update_rtt`'s seq_rtt).
    That SRTT decides what a one-segment room does (`tcp_tso_should_defer`): where the
    ACK of the oldest segment out is due more than 1 ms later by an SRTT estimated from the
    capture so, Linux sends at once at 99 % of its one-segment ACKs, else it waits at 58-62 %.
    ccsim's senders (unpaced, seeds 1 and 2) follow the rule by the same estimate and
    release 0, 1 and 2 segments at a one-segment ACK in Linux's proportions within 0.05.
    Before, ccsim's receiver echoed the last segment and SRTT timed the newest: they waited
    at 42 % of the ACKs due later and released 0/1/2 at 0.44/0.17/0.38, Linux 0.24/0.49/0.27."""
    import rtt_timing

    ref = json.loads((ROOT / "validation/linux/rtt_timing.json").read_text())["runs"]
    assert len(ref) == 3
    pooled = {k: 0.0 for k in "012"}
    acks = 0
    for name, run in ref.items():
        one = run["one_segment_acks"]
        assert run["echo"]["acks"] >= 1000 and run["echo"]["first"] >= 0.99, (name, run["echo"])
        assert one["later"]["0"] <= 0.02 and one["soon"]["0"] >= 0.5, (name, one)
        acks += one["all"]["acks"]
        for k in pooled:
            pooled[k] += one["all"][k] * one["all"]["acks"]
    linux = {k: v / acks for k, v in pooled.items()}
    total: dict = {}
    for seed in (1, 2):
        counts = rtt_timing.ccsim_run("25m_60ms_b31_2reno", seed, {"tcp.pacing": "none"})
        for k, c in counts.items():
            total.setdefault(k, type(c)()).update(c)
    ours = rtt_timing.summarize(total)
    one = ours["one_segment_acks"]
    assert ours["echo"]["acks"] >= 1000 and ours["echo"]["first"] >= 0.99, ours["echo"]
    assert one["later"]["0"] <= 0.02 and one["soon"]["0"] >= 0.5, one
    for k in "012":
        assert abs(one["all"][k] - linux[k]) <= 0.05, (k, one["all"], linux)


def test_one_segment_rooms_leave_in_pairs_as_in_linux():
    """With a receiver that ACKs every segment each ACK frees one segment of the window.
    Linux's Reno and CUBIC (Reno + CUBIC at 0.25 BDP, 20 Mb/s; captures of the router's
    ingress, quickack_check.json) still send most of their segments in pairs, paced
    (50 % and 72 %) and unpaced (70 % and 85 %): its write-queue skbs are larger than the
    room, so tcp_write_xmit asks tcp_tso_should_defer, which waits for the next ACK while
    the head's ACK is due. ccsim's senders do the same (mean of 2 seeds, within 0.1);
    before they sent a one-segment room at once, and 92-96 % of their segments alone."""
    import statistics

    caps = json.loads((ROOT / "validation/linux/quickack_check.json").read_text())["captures"]
    point = "20m_50ms_b21_1reno+1cubic"
    for key, pacing in (("paced_quickack", "linux"), ("unpaced_quickack", "none")):
        runs = [
            compare.ccsim_bursts(
                point, seed, 12.0, 20.0, {"tcp.delayed_ack": False, "tcp.pacing": pacing}
            )
            for seed in (1, 2)
        ]
        for cc in ("reno", "cubic"):
            lin = caps[key]["bursts"][cc]
            paired = 2 * lin["bursts"].get("2", 0) / lin["segments"]
            mine = statistics.fmean(
                2 * r[cc].get(2, 0) / sum(k * c for k, c in r[cc].items()) for r in runs
            )
            assert paired >= 0.5 and abs(mine - paired) <= 0.1, (key, cc, mine, paired)


def test_psh_ends_the_skbs_sent_as_in_linux():
    """Where PSH falls (the receiver's reads ACK a lone segment only if it carries PSH):
    in the testbed's captures of the router's ingress (quickack_check.json, `psh_patterns`)
    every pair its Reno and CUBIC send carries PSH on its second segment, and a single
    segment, cut from a larger skb as the window opens one segment at a time, almost never
    does: with a receiver that ACKs every segment (Reno + CUBIC at 0.25 BDP) and with the
    usual one (one paced Reno flow at 0.5 BDP). ccsim's senders (`tcp.read_latency` set,
    seed 1, [10, 40] s) put it the same way: over 95 % of pairs '.P', under 10 % of singles
    'P', and PSH on the same share of segments within 0.05."""
    from testbed import pcap_psh_bursts

    import ccsim

    caps = json.loads((ROOT / "validation/linux/quickack_check.json").read_text())["captures"]

    def shares(h: dict) -> tuple[float, float, float]:
        pairs = sum(v for k, v in h.items() if len(k) == 2)
        singles = h.get(".", 0) + h.get("P", 0)
        segs = sum(len(k) * v for k, v in h.items())
        psh = sum(k.count("P") * v for k, v in h.items())
        return h.get(".P", 0) / pairs, h.get("P", 0) / singles, psh / segs

    for key, point, sets in (
        ("paced_quickack", "20m_50ms_b21_1reno+1cubic", {"tcp.delayed_ack": False}),
        ("paced_single_reno", "20m_50ms_b41_1reno", {}),
    ):
        ccs = compare.linux_summary()[point]["ccsim_flows"].split()
        links = [f"flow{i}.src_up" for i in range(len(ccs))]
        text = compare.scenario_text(point) + f"\n[output]\npcap = {links!r}\n".replace("'", '"')
        run = ccsim.run(text, set={"seed": 1, "duration": "40s", "warmup": "0s", **sets})
        for cc, link in zip(ccs, links, strict=True):
            lin = shares(caps[key]["psh_patterns"][cc])
            (ours,) = (shares(h) for h in pcap_psh_bursts(run.pcap[link], t_from=10.0).values())
            assert lin[0] > 0.95 and lin[1] < 0.1, (key, cc, lin)
            assert ours[0] > 0.95 and ours[1] < 0.1, (key, cc, ours)
            assert abs(ours[2] - lin[2]) <= 0.05, (key, cc, ours, lin)


def test_precision_rule_adds_seeds_by_the_spread_alone():
    """compare.precise reads seeds 1..n: a statistic without spread stays at ten seeds;
    one spread as a fair coin (sd 0.5) needs (0.5 / (0.25 x 0.1))^2 = 400 against a 0.1
    tolerance, capped at MAX_SEEDS; at sd 0.5 against a tolerance of 1, (0.5/0.25)^2 = 4,
    so ten suffice. The seeds it asks for are consecutive and each read once."""
    seen = []

    def sample(seed):
        seen.append(seed)
        return {"flat": 0.5, "coin": float(seed % 2)}

    out = compare.precise(sample, 0.1)
    assert seen == list(range(1, compare.MAX_SEEDS + 1))
    assert len(out["flat"]) == len(out["coin"]) == compare.MAX_SEEDS
    seen.clear()
    assert len(compare.precise(sample, 1.0)["coin"]) == 10 and seen == list(range(1, 11))
    # ten alternating 0/1: sd² = 2.5/9, and 2.5/9 / 0.025² = 444.4
    assert compare.seeds_for([0.0, 1.0] * 5, 0.1) == 445
    assert compare.seeds_for([0.3], 0.1) == 0 and compare.seeds_for([0.0, 1.0], 0.0) == 0


def test_xfail_entries_exist():
    """Every xfail names a point and metric that the tables have."""
    assert set(XFAIL) <= set(CASES)
    assert set(QUICKACK_XFAIL) <= {
        (p, m) for p in QUICKACK for m in compare.metrics_of(p, QUICKACK)
    }
    assert set(HOLDOUT_UNPACED_XFAIL) <= {
        (p, m) for p in HOLDOUT_UNPACED for m in compare.metrics_of(p, HOLDOUT_UNPACED)
    }
    assert set(QUICKACK_UNPACED_XFAIL) <= {
        (p, m) for p in QUICKACK_UNPACED for m in compare.metrics_of(p, QUICKACK_UNPACED)
    }


def test_scenarios_match_the_testbed():
    """The committed scenarios are the README's set-up: rate x 1500/1514, RTT/2 one way,
    buffer in packets, flows, duration and warm-up of summary.csv."""
    import tomllib

    for p, lin in compare.linux_summary().items():
        sc = tomllib.loads((ROOT / "validation/linux/scenarios" / f"{p}.toml").read_text())
        topo = sc["topology"]
        rate = float(topo["bottleneck_rate"].removesuffix("Mbps")) * 1e6
        assert rate == pytest.approx(float(lin["ccsim_rate_bps"]) * 1500 / 1514, rel=1e-5)
        one_way = 2 * float(topo["access_delay"].removesuffix("ms")) + float(
            topo["bottleneck_delay"].removesuffix("ms")
        )
        assert one_way == pytest.approx(float(lin["rtt_ms"]) / 2)
        assert topo["buffer"] == f"{lin['buf_pkts']}pkt"
        assert topo["queue"] == "droptail"
        assert sc["tcp"]["profile"] == "linux"
        # The testbed's sockets start as bbr and stay paced (README, "Pacing").
        assert sc["tcp"]["pacing"] == "linux"
        # Its receiver ACKs at iperf3's reads (docs/linux.md, "How the testbed's
        # receiver ACKs").
        assert sc["tcp"]["read_latency"] == {"normal": {"mean": "85us", "sd": "25us"}}
        # The delay hop's lateness is an experiment, not part of the scenarios (docs/linux.md,
        # "The testbed's ACK timing").
        assert "bottleneck_jitter" not in topo
        ccs = [f["cc"] for f in sc["flows"] for _ in range(f["count"])]
        assert ccs == lin["ccsim_flows"].split()
        assert sc["duration"] == f"{lin['dur_s']}s"
        assert sc["warmup"] == f"{lin['warm_s']}s"
        assert sc["sample_interval"] == "20ms"


@pytest.mark.parametrize(
    "point", ["20m_50ms_b21_1bbr", "20m_50ms_b248_1bbr", "50m_100ms_b103_1bbr"]
)
def test_linux_bbr_estimates_the_link_rate_and_queues_its_quantization_budget(point):
    """What decides BBR's probe loss at 0.25 BDP, held to the testbed's data. Linux's own
    bandwidth estimate (ss's bbr bw) stays within 2 % of the link's payload rate, so a
    1.25 probe on it adds about 0.25 BDP, no more. What overflows 0.25 BDP is that
    tcp_bbr.c ends the draining phase (and DRAIN) at bbr_inflight(bw, 1) = BDP + the
    quantization budget (3 TSO bursts of 2 segments at these rates, rounded up to even),
    not the bare BDP, and probes up to bbr_inflight(bw, 1.25): a queue of about 6 packets
    stands in the cruising phases (seen in the deep buffer, where nothing is lost), and the
    probe lands on it. ccsim's BBR follows those rules, so its queue keeps the same budget
    at the deep buffer (4+ packets on average; with the bare-BDP rule it was 2.4)."""
    import pandas as pd

    import ccsim

    lin = compare.linux_summary()[point]
    warm = float(lin["warm_s"])
    frames_per_s = float(lin["ccsim_rate_bps"]) / (1514 * 8)  # HTB counts 1514-byte frames
    payload_bps = frames_per_s * float(lin["ccsim_mss"]) * 8  # ss's bw: MSS payload
    for r in range(3):
        d = pd.read_csv(ROOT / "validation/linux/traces" / f"{point}_r{r}.cwnd.csv.gz")
        d = d[(d.t_s > warm) & (d.cwnd > 4)]  # past the warm-up, outside PROBE_RTT
        ratio = (d.bbr_bw_bps / payload_bps).median()
        assert 0.99 <= ratio <= 1.02, f"run {r}: Linux bw / link {ratio:.4f}"
    if float(lin["buf_bdp"]) < 1:
        return
    for r in range(3):
        c = pd.read_csv(ROOT / "validation/linux/traces" / f"{point}_r{r}.cwnd.csv.gz")
        q = pd.read_csv(ROOT / "validation/linux/traces" / f"{point}_r{r}.queue.csv.gz")
        c = c[(c.t_s > warm) & (c.cwnd > 4)].sort_values("t_s")
        m = pd.merge_asof(c, q.sort_values("t_s"), on="t_s", direction="nearest")
        cruising = m[m.pacing_gain == 1.0].backlog_pkts.median()
        assert 5 <= cruising <= 8, f"run {r}: Linux's queue while cruising {cruising}"
    run = ccsim.run(compare.scenario_text(point), set={"seed": 1, "sample_interval": "20ms"})
    assert run.summary["links"]["bottleneck"]["queue_mean_pkts"] >= 4.0


def _linux_probe_drops(stem: str, warm: float, threshold_bps: float) -> tuple[list, list]:
    """The drops of each probe of a Linux BBR run (each stretch of pacing gain 1.25 in its
    20 ms ss samples, drops counted by tc from 50 ms before it starts to 350 ms after),
    split by whether the bandwidth estimate at its start reaches `threshold_bps`."""
    import pandas as pd

    traces = ROOT / "validation/linux/traces"
    c = pd.read_csv(traces / f"{stem}.cwnd.csv.gz").sort_values("t_s")
    q = pd.read_csv(traces / f"{stem}.queue.csv.gz").sort_values("t_s")
    gain = c.pacing_gain.to_numpy()
    starts = [
        (t, bw)
        for i, (t, bw) in enumerate(zip(c.t_s, c.bbr_bw_bps, strict=True))
        if gain[i] == 1.25 and i and gain[i - 1] != 1.25 and warm < t < c.t_s.max() - 1.0
    ]
    dropped = dict(zip(q.t_s, q.dropped.diff().fillna(0), strict=True))
    above, below = [], []
    for t0, bw in starts:
        n = sum(d for t, d in dropped.items() if t0 - 0.05 <= t <= t0 + 0.35)
        (above if bw >= threshold_bps else below).append(n)
    return above, below


def test_bbr_loses_more_per_probe_where_its_tso_goal_reaches_five_segments():
    """BBR alone at 0.25 BDP, 50 Mb/s (unpaced reference: ccsim 10.2 drops per probe and
    0.304 % loss against Linux's 13.8 and 0.408 %), measured. Every probe overflows the
    buffer by a little: it adds about 0.25 BDP (104 packets) to a near-empty 103-packet
    queue, so the drops are a small difference of two large numbers. The probe's pacing
    rate, 1.25 x 0.99 x bw, sits at the edge of tcp_bbr.c's TSO goal: at bw >= 1.0022 x
    the link's payload rate, sk_pacing_rate >> 10 reaches 5 segments of 1448 B (4 below),
    which raises bbr_inflight's quantization budget (the phase ends later) and the bursts
    sent. Linux's estimate at its probes straddles that edge (medians 1.0010-1.0027 of the
    link over six runs), ccsim's is below it (1.0009 at seed 1's probes). Linux's probes
    that start above it drop 3-4 packets more than those below, and ccsim's match Linux's
    of their side: as it is, Linux's below; on a link 0.2 % faster, whose bandwidth puts
    its probes above the edge, Linux's above (docs/linux.md, "BBR's probes and its TSO
    goal")."""
    point = "50m_100ms_b103_1bbr"
    lin = compare.linux_summary()[point]
    warm = float(lin["warm_s"])
    frames_per_s = float(lin["ccsim_rate_bps"]) / (1514 * 8)  # HTB counts 1514-byte frames
    mss = float(lin["ccsim_mss"])
    # bbr_tso_segs_goal reaches 5 where the probe's rate >> sk_pacing_shift (10) holds 5 MSS
    threshold_bps = 5 * mss * 1024 / (1.25 * 0.99) * 8
    assert 1.001 < threshold_bps / (frames_per_s * mss * 8) < 1.004
    stems = [f"{point}_r{r}" for r in range(3)]  # the reference (paced default, loaded host)
    stems += [f"rerun/{point}_unpaced_rerun_r{r}" for r in range(3)]  # quiet host
    above, below = [], []
    for stem in stems:
        a, b = _linux_probe_drops(stem, warm, threshold_bps)
        assert len(a) + len(b) >= 45, stem  # a probe every 8 phases of ~100 ms
        above += a
        below += b
    assert len(above) >= 50 and len(below) >= 50, (len(above), len(below))
    lin_above, lin_below = sum(above) / len(above), sum(below) / len(below)
    assert lin_above - lin_below >= 2.5, (lin_above, lin_below)

    def ccsim_drops(rate_factor: float) -> float:
        text = compare.scenario_text(point)
        rate = 'bottleneck_rate = "49.5376Mbps"'
        assert rate in text
        faster = text.replace(rate, f'bottleneck_rate = "{49.5376 * rate_factor:.5f}Mbps"')
        saved = compare.scenario_text
        compare.scenario_text = lambda p, jitter=True: faster  # run_point's own estimators
        try:
            rows = [compare.run_point(point, s, {"tcp.pacing": "none"}) for s in (1, 2, 3, 4)]
        finally:
            compare.scenario_text = saved
        return sum(r["drops_per_event"] for r in rows) / len(rows)

    as_is, faster = ccsim_drops(1.0), ccsim_drops(1.002)
    assert faster - as_is >= 2.5, (as_is, faster)
    assert abs(as_is - lin_below) <= 0.15 * lin_below, (as_is, lin_below)
    assert abs(faster - lin_above) <= 0.15 * lin_above, (faster, lin_above)


def _cubic_cycles(series: list[tuple[float, float]], after: float = 5.0) -> list[tuple]:
    """(time, cwnd before the cut, epoch, plateau) of each window reduction of one flow's
    20 ms cwnd series past `after`: a cut is a fall of more than 20 segments between two
    samples (one per second at most), its cwnd the largest of the ten samples before it
    (PRR lowers cwnd over a round trip), the plateau the most common cwnd between cuts."""
    from collections import Counter

    cuts: list[tuple[float, int]] = []
    for i in range(1, len(series)):
        t, c1 = series[i]
        if c1 < series[i - 1][1] - 20 and t > after and (not cuts or t - cuts[-1][0] > 1.0):
            cuts.append((t, int(max(c for _, c in series[max(0, i - 10) : i]))))
    out = []
    for (t0, w), (t1, _) in zip(cuts, cuts[1:], strict=False):
        seg = [int(c) for t, c in series if t0 + 0.5 < t < t1 - 0.3]
        out.append((t0, w, t1 - t0, Counter(seg).most_common(1)[0][0]))
    return out


def test_cubic_at_its_capacity_alternates_once_a_cut_comes_a_packet_early():
    """Item 2 of docs/linux.md, held to the data. One CUBIC flow at 0.25 BDP, 50 Mb/s: its
    W_max is the path's capacity (517 packets). In every Linux run the cuts alternate: a cut
    a packet or more below the last W_max fires fast convergence (W_max = W·1741/2048, a
    plateau at 438-440 and a 12 s epoch), whose convex end overshoots the capacity (cuts at
    519-526), so the next cut again comes below W_max. ccsim with the testbed's receiver
    (ACKs at iperf3's reads: the scenario's `read_latency`) alternates the same way, and so
    does it with a receiver that ACKs as data arrives, since the window's room of one
    segment waits for the next ACK as Linux's does (its increases leave in skbs); a
    one-packet larger buffer for 2 s (one cut at 518) does not stop the alternation."""
    import gzip

    import pandas as pd

    import ccsim

    point = "50m_100ms_b103_1cubic"
    for r in range(3):
        tr = pd.read_csv(
            gzip.open(ROOT / f"validation/linux/traces/{point}_r{r}.cwnd.csv.gz", "rt")
        )
        cyc = _cubic_cycles(list(zip(tr.t_s, tr.cwnd, strict=True)))
        fast = [c for c in cyc if 430 <= c[3] <= 445]
        assert len(fast) >= 2 and all(c[2] > 10 for c in fast), cyc

    def ccsim_cycles(reads: bool, extra: str = "") -> list[tuple]:
        text = compare.scenario_text(point)
        if not reads:
            text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("read_latency"))
        run = ccsim.run(text + extra, set={"seed": 1})
        s = run.series
        c = s[(s.entity == "flow") & (s.metric == "cwnd_pkts")].sort_values("time")
        return _cubic_cycles(list(zip(c.time, c.value, strict=True)))

    read = ccsim_cycles(True)
    fast = [c for c in read if 430 <= c[3] <= 445]
    assert len(fast) >= 2 and all(c[2] > 10 for c in fast), read
    plain = ccsim_cycles(False)
    fast = [c for c in plain if 430 <= c[3] <= 445]
    assert len(fast) >= 2 and all(c[2] > 10 for c in fast), plain
    bump = "".join(
        f'\n[[events]]\nat = "{t}s"\nlink = "bottleneck"\nbuffer = "{b}pkt"\n'
        for t, b in ((8, 104), (10, 103))
    )
    bumped = ccsim_cycles(False, bump)
    fast = [c for c in bumped if 430 <= c[3] <= 445]
    assert len(fast) >= 2 and all(c[2] > 10 for c in fast), bumped


def _fast_plateau_queue(cwnd: list[tuple[float, float]], queue: list[tuple[float, float]]):
    """The bottleneck's queue samples over one CUBIC flow's fast-convergence plateaus
    (`_cubic_cycles` past 15 s with a plateau of 430-445 packets), 4-9 s into each epoch."""
    out = []
    for t0, _, epoch, plateau in _cubic_cycles(cwnd, after=15.0):
        if 430 <= plateau <= 445:
            out += [q for t, q in queue if t0 + 4 < t < t0 + min(9.0, epoch - 0.5)]
    return out


def test_cubic_at_its_capacity_idles_the_link_where_the_delay_hop_stalls():
    """Item 2's utilization (ccsim 0.990 against the reference's 0.979), measured: the
    reference's link idled where the testbed's delay hop stalled. On a fast-convergence
    plateau the window is 438-440 packets, 23-27 above the BDP: the queue holds about
    5.6 ms of the link, and a delay-hop wake-up later than that (the ACKs and data it holds
    come late, the sender pauses) lets the queue run dry. Each of the reference's three
    runs had such a stall (nfq_delay's largest lateness 7.2, 7.5 and 35.9 ms), and in their
    traces the plateaus' queue is empty in 1.5-3.8 % of the 20 ms samples. Measured again
    alone on the machine (quiet_rerun.json, five runs, no release 5 ms late) the plateaus'
    queue never empties and Linux uses 0.987 of the link, where ccsim, whose hosts do not
    stall, sits (0.990)."""
    import gzip

    import pandas as pd

    import ccsim

    point = "50m_100ms_b103_1cubic"
    lin = ROOT / "validation" / "linux"
    ref = [r for r in _runs_csv() if r["point"] == point]
    quiet = json.loads((lin / "quiet_rerun.json").read_text())["points"][point]["runs"]
    assert len(ref) == 3 and all(float(r["nfq_max_late_us"]) > 5000 for r in ref), ref
    assert len(quiet) == 5 and all(r["nfq_late_over_5ms"] == 0 for r in quiet), quiet

    def series(stem: str) -> tuple[list, list]:
        c = pd.read_csv(gzip.open(lin / "traces" / f"{stem}.cwnd.csv.gz", "rt"))
        q = pd.read_csv(gzip.open(lin / "traces" / f"{stem}.queue.csv.gz", "rt"))
        return (
            list(zip(c.t_s, c.cwnd, strict=True)),
            list(zip(q.t_s, q.backlog_pkts, strict=True)),
        )

    def empty(samples: list) -> float:
        assert len(samples) >= 200, len(samples)
        return sum(q == 0 for q in samples) / len(samples)

    for r in range(3):
        assert empty(_fast_plateau_queue(*series(f"{point}_r{r}"))) >= 0.01, r
    for r in range(5):
        assert empty(_fast_plateau_queue(*series(f"rerun/{point}_quiet_rerun_r{r}"))) == 0.0, r
    ref_util = sum(float(r["utilization"]) for r in ref) / len(ref)
    quiet_util = sum(r["utilization"] for r in quiet) / len(quiet)
    assert quiet_util - ref_util >= 0.005, (quiet_util, ref_util)

    # ccsim's plateaus, like the quiet runs', keep their queue, and its utilization over the
    # test's seeds is the quiet runs' within the issue's tolerance
    run = ccsim.run(compare.scenario_text(point), set={"seed": 1})
    s = run.series
    cw = s[(s.entity == "flow") & (s.metric == "cwnd_pkts")].sort_values("time")
    ql = s[(s.entity == "link") & (s.id == 0) & (s.metric == "queue_pkts")].sort_values("time")
    plateau = _fast_plateau_queue(
        list(zip(cw.time, cw.value, strict=True)), list(zip(ql.time, ql.value, strict=True))
    )
    assert empty(plateau) == 0.0
    util = result(point)["metrics"]["utilization"]["ccsim"]
    assert abs(util - quiet_util) <= compare.TOLERANCES["utilization"]["abs"], (
        util,
        quiet_util,
    )


def _first_ssthresh_linux(path: Path) -> float:
    """The CUBIC flow's first finite ssthresh in a Linux trace (ss prints none before)."""
    import gzip

    import pandas as pd

    c = pd.read_csv(gzip.open(path, "rt"))
    c = c[(c.cc == "cubic") & c.ssthresh.notna()]
    return float(c.ssthresh.iloc[0])


def _first_ssthresh_ccsim(point: str, seed: int, pacing: str) -> float:
    import ccsim

    run = ccsim.run(compare.scenario_text(point), set={"seed": seed, "tcp.pacing": pacing})
    s = run.series
    st = s[(s.entity == "flow") & (s.metric == "ssthresh_pkts")].sort_values("time")
    return float(next(v for v in st.value if v < 1e6))


@pytest.mark.parametrize(
    ("point", "pacing", "traces"),
    [
        (p, "linux", f"{p}_r*.cwnd.csv.gz")
        for p in (
            "20m_50ms_b21_1cubic",
            "20m_50ms_b41_1cubic",
            "20m_50ms_b83_1cubic",
            "50m_100ms_b103_1cubic",
            "50m_100ms_b413_1cubic",
        )
    ]
    + [
        (p, "none", f"rerun/{p}_unpaced_rerun_r*.cwnd.csv.gz")
        for p in ("20m_50ms_b21_1cubic", "50m_100ms_b103_1cubic")
    ],
)
def test_slow_start_ends_where_linuxs_does(point, pacing, traces):
    """One CUBIC flow's first ssthresh (HyStart's ssthresh = cwnd, or 0.7 of the window
    at the first loss) within 5 % of Linux's runs' mean. It takes both of Linux's
    HyStart rules: a round ends at the ACK that covers the first segment sent after it
    began (`after(snd_una, end_seq)`), and a paced sender's ACK train must span the whole
    delay_min. Paced, Linux exits at 107-109/170/229-247/602-608/1059-1060 packets (the
    reference's traces); unpaced at 84-85 and 339-368 (unpaced_rerun.json's traces).
    With the round one ACK earlier and the train halved, ccsim exited at 126/126/126/
    590/1115 and 85/285: a round then began mid-train, where the queue was already
    13 ms deep, and the delay test fired (docs/linux.md, "Slow start's end")."""
    import glob

    files = sorted(glob.glob(str(ROOT / "validation" / "linux" / "traces" / traces)))
    assert len(files) >= 3, traces
    linux = sum(_first_ssthresh_linux(Path(f)) for f in files) / len(files)
    ours = [_first_ssthresh_ccsim(point, seed, pacing) for seed in (1, 2, 3)]
    assert all(abs(o - linux) <= 0.05 * linux for o in ours), (linux, ours)


@functools.cache
def _ack_timing_runs() -> dict:
    """validation/linux/ack_timing.json: r1 captures' ACK timing and the sender's HyStart
    counters (nstat) of short testbed runs (`testbed.py run ... --capture 0 S
    --capture-at r1`, then `testbed.py acktiming`)."""
    return json.loads((ROOT / "validation/linux/ack_timing.json").read_text())["runs"]


# A heavy-tailed read latency fitted so that ccsim's ACKs at BBR + CUBIC's 3-BDP point
# show the capture's excess delay (median 127 µs, p99 0.9 ms): the first of two models of
# the testbed's ACK timing tried (docs/linux.md, "The testbed's ACK timing").
READ_TAIL_50M = (
    '{ quantiles = [[0, "50us"], [0.1, "83us"], [0.25, "105us"], [0.5, "127us"], '
    '[0.75, "190us"], [0.9, "400us"], [0.95, "520us"], [0.98, "780us"], [0.99, "900us"], '
    '[0.995, "1150us"], [0.999, "1850us"], [1, "2200us"]] }'
)


def _cubic_first_ssthresh(point: str, seed: int, overrides: dict | None = None) -> float:
    """The CUBIC flow's first ssthresh in a 1.5 s run of *point* (its slow start's end)."""
    import ccsim

    sets = {"seed": seed, "duration": "1.5s", "warmup": "0s", **(overrides or {})}
    s = ccsim.run(compare.scenario_text(point), set=sets).series
    st = s[(s.entity == "flow") & (s.metric == "ssthresh_pkts")]
    cubic = sorted(st["id"].unique(), key=int)[
        compare._point(point)["ccsim_flows"].split().index("cubic")
    ]
    st = st[st["id"] == cubic].sort_values("time")
    return float(next(v for v in st.value if v < 1e6))


def test_cubic_leaves_slow_start_beside_bbr_by_the_train_or_a_round_later_as_the_acks_decide():
    """Linux's CUBIC beside BBR at 3 BDP, 50 Mb/s leaves slow start by either of HyStart's
    tests (nstat over twelve runs, ack_timing.json): the ACK train at 587-596 packets in
    seven, the delay increase at 649, one round later, in five; alone at 1 BDP, 20 Mb/s by
    the train in six of six (246-248). The train ends slow start once a round's ACKs,
    each within 2 ms of the one before (`hystart_ack_delta_us`), span delay_min + 1 ms; one
    gap over 2 ms ends the train for the round, and the delay test fires in the next
    (a capture of a delay run has a 5-segment ACK 2.74 ms after the one before, 95 ms
    into the round; the train runs have none in their first 110 ms). ccsim's ACKs have no
    such gap (their excess delay ends at 0.16 ms, the testbed's at 1-2 ms): its seeds all
    leave by the train, at Linux's train exit. With a read latency whose tail gives its
    ACKs the capture's excess delay (READ_TAIL_50M), the seeds split as Linux's runs do
    (seven by the train at 559-581, three by the delay test at 599-612: a round later, but
    6-8 % below Linux's 649)."""
    runs = [r for r in _ack_timing_runs().values() if r["hystart"]]
    assert len(runs) >= 15

    def exits(rs, test):
        return [
            r["hystart"][f"TcpExtTCPHystart{test}Cwnd"]
            for r in rs
            if f"TcpExtTCPHystart{test}Detect" in r["hystart"]
        ]

    beside = [r for r in runs if r["flows"] == ["bbr", "cubic"] and r["buf_pkts"] == 1238]
    alone = [r for r in runs if r["flows"] == ["cubic"] and r["buf_pkts"] == 83]
    train, delay = exits(beside, "Train"), exits(beside, "Delay")
    assert len(train) >= 4 and len(delay) >= 4 and len(train) + len(delay) == len(beside)
    assert max(train) < min(delay)
    assert len(exits(alone, "Train")) == len(alone) >= 4
    point = "50m_100ms_b1238_1bbr+1cubic"
    mean_train = sum(train) / len(train)
    plain = [_cubic_first_ssthresh(point, seed) for seed in range(1, 7)]
    assert all(abs(x - mean_train) <= 0.03 * mean_train for x in plain), (mean_train, plain)
    alone_train = sum(exits(alone, "Train")) / len(alone)
    x = _cubic_first_ssthresh("20m_50ms_b83_1cubic", 1)
    assert abs(x - alone_train) <= 0.03 * alone_train, (alone_train, x)

    # Two clusters (the train's exits, and the delay test's a round later) are apart by
    # the largest gap between sorted exits, with two seeds or more on each side; the
    # plain seeds form one.
    def clusters(xs):
        xs = sorted(xs)
        k = max(range(1, len(xs)), key=lambda i: xs[i] - xs[i - 1])
        return xs[:k], xs[k:], xs[k] - xs[k - 1]

    assert clusters(plain)[2] < 10, plain
    tail = {"tcp.read_latency": compare._toml_value(READ_TAIL_50M)}
    split = [_cubic_first_ssthresh(point, seed, tail) for seed in range(1, 11)]
    by_train, by_delay, gap = clusters(split)
    assert gap >= 15 and len(by_train) >= 2 and len(by_delay) >= 2, split


@pytest.mark.parametrize(
    ("run", "point", "start", "secs"),
    [
        ("ad50", "50m_100ms_b1238_1bbr+1cubic", 4.0, 11.0),
        ("ad50b", "50m_100ms_b103_1bbr", 3.0, 12.0),
        ("ad50c", "50m_100ms_b103_1cubic", 3.0, 12.0),
    ],
)
def test_the_delay_hops_lateness_gives_ccsims_acks_the_testbeds_timing(run, point, start, secs):
    """The testbed's ACKs, at the router's interface towards the receiver (r1), come later
    after the segment they acknowledge than the least such delay by 0.24-0.26 ms (p90)
    and 0.60-0.72 ms (p99), and 0.7-1.1 % of consecutive ACKs grow 0.5 ms further apart
    than their segments (three 50 Mb/s points, ack_timing.json): the delay hop's late
    releases and iperf3's wake-ups. ccsim's, without them, stay within 0.16 ms and never
    grow apart. With the delay hop's lateness as `topology.bottleneck_jitter`
    (testbed.DELAY_HOP_JITTER_50M, half the releases on time) they match within 35 % at
    p90-p99 and a factor 3 in gap growth (CUBIC alone's tail is the lightest, p99 0.51
    against 0.72 ms)."""
    lin = _ack_timing_runs()[run]["ack_timing"]
    jitter = {"topology.bottleneck_jitter": compare._toml_value(testbed.DELAY_HOP_JITTER_50M)}
    ours = compare.ccsim_ack_timing(point, 1, start, secs, jitter)
    plain = compare.ccsim_ack_timing(point, 1, start, secs)
    for p in ("0.9", "0.95", "0.98", "0.99"):
        assert abs(ours["excess_ms"][p] / lin["excess_ms"][p] - 1) <= 0.35, (p, ours, lin)
        assert plain["excess_ms"][p] <= 0.6 * lin["excess_ms"][p], (p, plain, lin)
    g = lin["grows_over_ms"]["0.5"]
    assert g / 3 <= ours["grows_over_ms"]["0.5"] <= 3 * g, (ours, lin)
    assert plain["grows_over_ms"]["0.5"] < g / 10, (plain, lin)


def test_cubics_epoch_beside_bbr_at_3_bdp_moves_to_linuxs_with_the_testbeds_ack_timing():
    """ccsim's CUBIC epoch beside BBR at 3 BDP, 50 Mb/s (10.1 s over 20 seeds against
    Linux's 8.11, 7.71 on a quiet host: QUIET_XFAIL) depends on the ACKs' sub-millisecond
    timing: with either model of the testbed's measured ACK timing, each fitted to the
    captures' ACK delays and not to the epoch (the delay hop's lateness, or a read
    latency with its tail), it is within the tolerance of Linux's over seeds 1-10, and the
    loss rate too (docs/linux.md, "The testbed's ACK timing")."""
    point = "50m_100ms_b1238_1bbr+1cubic"
    lin = compare._point(point)
    for sets in (
        {"topology.bottleneck_jitter": compare._toml_value(testbed.DELAY_HOP_JITTER_50M)},
        {"tcp.read_latency": compare._toml_value(READ_TAIL_50M)},
    ):
        rows = [compare.run_point(point, seed, sets) for seed in range(1, 11)]
        for m in ("epoch_mean_s", "loss_rate"):
            ours = sum(r[m] for r in rows) / len(rows)
            want = float(lin[f"{m}_mean"])
            assert abs(ours - want) <= compare.tolerance(m, want), (sets, m, ours, want)


def _check_runs(prefix: str) -> dict:
    """validation/linux/ack_timing_check.json's runs of one point: the r0 and r1 captures of
    the last two differences' points, measured against the testbed's ACK timing
    (`testbed.py acktiming --metrics`)."""
    runs = json.loads((ROOT / "validation/linux/ack_timing_check.json").read_text())["runs"]
    return {k: v for k, v in runs.items() if k.startswith(prefix)}


# The points of the last two differences (the first explained by the testbed's ACK timing,
# the second in its metrics only): the runs in ack_timing_check.json, the point, the law
# fitted to their ACKs, and ccsim's settings.
_TIMED = {
    "two-reno-unpaced": (
        "25m_60ms_b31_2reno_unpaced",
        "25m_60ms_b31_2reno",
        testbed.ACK_JITTER_25M_TWO_RENO,
        {"tcp.pacing": "none"},
    ),
    "quickack": (
        "20m_50ms_b21_1reno+1cubic_quickack",
        "20m_50ms_b21_1reno+1cubic",
        testbed.ACK_JITTER_20M_QUICKACK,
        {"tcp.delayed_ack": False},
    ),
}


@pytest.mark.parametrize("case", list(_TIMED))
def test_the_testbeds_ack_timing_at_the_last_two_differences(case):
    """The testbed's ACKs at the two points of the last differences, captured at the router
    (ack_timing_check.json): two unpaced Reno flows at 25 Mb/s x 60 ms with the delayed,
    read-driven ACKs come 0.13-0.17 ms (p50), 1.0-1.3 ms (p99) and 3.3-3.7 ms (p99.9)
    later after their segments than the least such delay; with every segment ACKed at
    once (Reno + CUBIC, 20 Mb/s) 0.10, 0.53-0.84 and 0.90-1.24 ms. ccsim's, without the
    delay hop's lateness and the reads' tail, stay under 0.6 of that at every quantile
    from p50 to p99.9; with each point's law (testbed.ACK_JITTER_*, fitted to these
    quantiles and to nothing compared) within 25 % of the runs' mean at every one, and
    the share of consecutive ACKs growing 0.5 ms further apart than their segments (0.023-
    0.037 and 0.003-0.017 in Linux) within a factor 2."""
    prefix, point, law, sets = _TIMED[case]
    import statistics

    runs = list(_check_runs(prefix).values())
    assert len(runs) >= 2, prefix
    lin = [r["ack_timing"]["excess_ms"] for r in runs]
    timed = {**sets, "topology.bottleneck_jitter": compare._toml_value(law)}
    timing = compare.ccsim_ack_timing(point, 1, 10, 30, timed)
    ours = timing["excess_ms"]
    plain = compare.ccsim_ack_timing(point, 1, 10, 30, sets)["excess_ms"]
    for p in ("0.5", "0.75", "0.9", "0.95", "0.98", "0.99", "0.995", "0.999"):
        want = statistics.fmean(x[p] for x in lin)
        assert abs(ours[p] / want - 1) <= 0.25, (p, ours[p], want)
        assert plain[p] <= 0.6 * want, (p, plain[p], want)
    # and the gaps the late releases open between consecutive ACKs, which the law was not
    # fitted to: the share growing 0.5 ms further apart, within a factor 2
    gaps = statistics.fmean(r["ack_timing"]["grows_over_ms"]["0.5"] for r in runs)
    assert gaps / 2 <= timing["grows_over_ms"]["0.5"] <= 2 * gaps, (timing, gaps)


def test_two_reno_flows_lose_as_linuxs_with_the_testbeds_ack_timing():
    """The held-out unpaced two Reno flows (HOLDOUT_UNPACED_XFAIL: loss 0.080 % against
    0.062 %, utilization 0.911 against 0.898): with the ACK timing captured at that point
    (ACK_JITTER_25M_TWO_RENO) both are within tolerance over the precision rule's seeds,
    and the drops per congestion event (3.50 against Linux's 2.90) come closer, 3.27; where
    in the event the extra drops fall does not follow (docs/linux.md). Three more Linux
    runs with the captures (ack_timing_check.json) read as the reference does: loss
    0.066 %, utilization 0.902, 2.94 drops per event. Reno + CUBIC at 0.25 BDP, 20 Mb/s,
    which this law was not fitted to, passes every check with it too (CUBIC's share 0.490
    paced [0.479], 0.595 unpaced [0.604]). With the testbed's ACK clock's round trip
    as well (_with_loop), every check passes paced and unpaced and the drops per event
    are Linux's: 2.84 [2.90] unpaced, 2.76 [2.76] paced."""
    import statistics

    prefix, point, law, sets = _TIMED["two-reno-unpaced"]
    checks = [r["metrics"] for r in _check_runs(prefix).values()]
    ref = HOLDOUT_UNPACED[point]
    for m in ("loss_rate", "utilization"):
        again = statistics.fmean(r[m] for r in checks)
        assert abs(again - float(ref[f"{m}_mean"])) <= compare.tolerance(m, again), (m, again)
    timed = {**sets, "topology.bottleneck_jitter": compare._toml_value(law)}
    r = compare.compare_point(
        point, SEEDS, timed, reference=HOLDOUT_UNPACED, max_seeds=compare.MAX_SEEDS
    )["metrics"]
    for m in ("loss_rate", "utilization"):
        assert r[m]["pass"], (m, r[m])
    plain = _against(point, "holdout-unpaced")["metrics"]["drops_per_event"]["ccsim"]
    want = float(ref["drops_per_event_mean"])
    assert abs(r["drops_per_event"]["ccsim"] - want) < abs(plain - want) - 0.15, (
        r["drops_per_event"],
        plain,
    )
    # With the ACK clock's round trip too (_with_loop, measured from the captures), paced
    # and unpaced, the drops per event are Linux's within 0.15 as well.
    for case, reference in (("two-reno-unpaced", HOLDOUT_UNPACED), ("two-reno-paced", HOLDOUT)):
        looped = _with_loop(case)[1]
        e = compare.compare_point(
            point, SEEDS, looped, reference=reference, max_seeds=compare.MAX_SEEDS
        )["metrics"]
        assert all(e[m]["pass"] for m in compare.metrics_of(point, reference)), (case, e)
        dpe = e["drops_per_event"]["ccsim"]
        assert abs(dpe - float(reference[point]["drops_per_event_mean"])) <= 0.15, (case, dpe)
    # Not fitted there, the same receiver: Reno + CUBIC at 0.25 BDP, 20 Mb/s, paced and
    # not, keeps every check within tolerance with this timing.
    other = "20m_50ms_b21_1reno+1cubic"
    for extra, reference in (({}, None), ({"tcp.pacing": "none"}, UNPACED)):
        o = {"topology.bottleneck_jitter": timed["topology.bottleneck_jitter"], **extra}
        e = compare.compare_point(
            other, SEEDS, o, reference=reference, max_seeds=compare.MAX_SEEDS
        )["metrics"]
        assert all(e[m]["pass"] for m in compare.metrics_of(other, reference)), (extra, e)


def test_every_segment_acked_cubic_holds_linuxs_share_with_the_testbeds_ack_timing():
    """CUBIC's share beside Reno with every segment ACKed, paced (QUICKACK_XFAIL: 0.663
    against 0.622), explained: with the ACK timing captured at that point
    (ACK_JITTER_20M_QUICKACK) it is within tolerance over the precision rule's seeds, and
    so is who each overflow cuts: CUBIC alone in 0.08 of the events as Linux's eight
    traced runs (cuts.py; 0.035 without the timing), both flows and Reno alone within
    0.05. Unpaced, which the law was not fitted to, every check passes with it too
    (CUBIC's share 0.536 [0.519])."""
    import cuts

    prefix, point, law, sets = _TIMED["quickack"]
    timed = {**sets, "topology.bottleneck_jitter": compare._toml_value(law)}
    r = compare.compare_point(point, SEEDS, timed, reference=QUICKACK, max_seeds=compare.MAX_SEEDS)[
        "metrics"
    ]
    for m in ("share_cubic", "utilization", "loss_rate", "beta_mean", "epoch_mean_s"):
        assert r[m]["pass"], (m, r[m])
    # Not fitted there, the same receiver: every segment ACKed and unpaced.
    e = compare.compare_point(
        point,
        SEEDS,
        {**timed, "tcp.pacing": "none"},
        reference=QUICKACK_UNPACED,
        max_seeds=compare.MAX_SEEDS,
    )["metrics"]
    assert all(e[m]["pass"] for m in compare.metrics_of(point, QUICKACK_UNPACED)), e
    # With the testbed's ACK clock's round trip too (_with_loop: 31 µs here), still
    # every check (CUBIC's share 0.633).
    looped = _with_loop("quickack")[1]
    e = compare.compare_point(
        point, SEEDS, looped, reference=QUICKACK, max_seeds=compare.MAX_SEEDS
    )["metrics"]
    assert all(e[m]["pass"] for m in compare.metrics_of(point, QUICKACK)), e

    lo, hi = 10.0, 44.0

    def kinds(runs) -> dict:
        evs = [ev for rows in runs for ev in cuts.events(cuts.cuts_of(rows, lo, hi))]
        return {
            k: sum(ev == frozenset(k.split("+")) for ev in evs) / len(evs)
            for k in ("cubic", "cubic+reno", "reno")
        }

    lin = kinds(cuts.linux_runs(point, False, "quickack_rerun"))
    ours = kinds(cuts.ccsim_runs(point, range(1, 21), timed))
    plain = kinds(cuts.ccsim_runs(point, range(1, 21), sets))
    assert abs(ours["cubic"] - lin["cubic"]) <= 0.03, (ours, lin)
    assert plain["cubic"] <= lin["cubic"] / 2, (plain, lin)
    for k in ("cubic+reno", "reno"):
        assert abs(ours[k] - lin[k]) <= 0.05, (k, ours, lin)


# The points' modes captured with both router interfaces (ack_timing_check.json): the run
# prefix, the point, the ACK-timing law fitted at it and ccsim's settings for the mode.
_LOOPS = {
    "two-reno-unpaced": _TIMED["two-reno-unpaced"],
    "two-reno-paced": (
        "25m_60ms_b31_2reno_paced",
        "25m_60ms_b31_2reno",
        testbed.ACK_JITTER_25M_TWO_RENO,
        {},
    ),
    "quickack": _TIMED["quickack"],
}


@functools.cache
def _with_loop(case: str) -> tuple[dict, dict, float]:
    """ccsim's settings for a captured mode with its ACK-timing law, and with the law and
    the testbed's ACK clock's round trip: the mean over p1, p10 and p50 of how much
    longer the testbed's loop is (testbed.full_loop, averaged over the runs) than ccsim's
    with the law (seed 1, 10-40 s), added to the bottleneck's propagation (half each
    way). Returns both settings and that extra in ms."""
    import statistics

    prefix, point, law, sets = _LOOPS[case]
    timed = {**sets, "topology.bottleneck_jitter": compare._toml_value(law)}
    runs = list(_check_runs(prefix).values())
    ours = compare.ccsim_full_loop(point, 1, 10, 30, timed)["loop_ms"]
    extra = statistics.fmean(
        statistics.fmean(r["full_loop"]["loop_ms"][q] for r in runs) - ours[q]
        for q in ("0.01", "0.1", "0.5")
    )
    one_way = compare._quantity(
        compare._topology_value(compare.scenario_text(point), "bottleneck_delay")
    )
    looped = {**timed, "topology.bottleneck_delay": f"{one_way * 1e3 + extra / 2:.4f}ms"}
    return timed, looped, extra


@pytest.mark.parametrize("case", list(_LOOPS))
def test_the_testbeds_ack_clock_runs_longer_than_its_rtt(case):
    """The ACK clock's round trip at the bottleneck (testbed.full_loop: a segment's
    departure to the arrival of what its ACK releases) is longer in the testbed than its
    nominal RTT by its hosts' and delay hop's fixed processing, which the ACK-timing laws,
    fitted to the delays' excess over their least, leave out: with the point's law
    ccsim's loop is 20-120 µs shorter than Linux's at p1-p50 (two Reno flows 70 µs
    unpaced, 84 µs paced; Reno + CUBIC with every segment ACKed 31 µs), and with that
    much added to its propagation it is Linux's within 20 µs at p1, p10 and p50 and
    60 µs at p90, which the extra was not fitted to."""
    import statistics

    prefix, point, _, _ = _LOOPS[case]
    _, looped, extra = _with_loop(case)
    assert 0.02 <= extra <= 0.12, extra
    runs = list(_check_runs(prefix).values())
    ours = compare.ccsim_full_loop(point, 1, 10, 30, looped)["loop_ms"]
    for q, tol in (("0.01", 0.02), ("0.1", 0.02), ("0.5", 0.02), ("0.9", 0.06)):
        lin = statistics.fmean(r["full_loop"]["loop_ms"][q] for r in runs)
        assert abs(ours[q] - lin) <= tol, (q, ours[q], lin)


def test_two_reno_flows_captured_paced_read_as_the_held_out_reference():
    """The two Reno flows at the held-out point, paced, captured again with both router
    interfaces (ack_timing_check.json, two runs) read as the held-out paced reference's
    two runs do, within the tolerance widened by their standard error: loss 0.061 %
    [0.067 % ± 0.014 %], utilization 0.901 [0.914 ± 0.014], 2.79 drops an event [2.76]; their
    ACKs are timed as the unpaced runs' that ACK_JITTER_25M_TWO_RENO was fitted to (p50
    within 30 % of that law's in ccsim, p99 within 25 %). And where ccsim and Linux agree on
    the whole (Reno + CUBIC with every segment ACKed, with its ACK timing), they agree on
    the measures the two Reno flows' difference was read by: none of either's fast
    retransmissions is dropped again, and the first dropper's drops among what it sends
    at its duplicate ACKs are within 0.1 (0.31 [0.22-0.30])."""
    import statistics

    import trains

    point = "25m_60ms_b31_2reno"
    runs = list(_check_runs(_LOOPS["two-reno-paced"][0]).values())
    ref = HOLDOUT[point]
    for m in ("loss_rate", "utilization"):
        again = statistics.fmean(r["metrics"][m] for r in runs)
        spread = float(ref[f"{m}_sd"]) / len(runs) ** 0.5
        assert abs(again - float(ref[f"{m}_mean"])) <= compare.tolerance(m, again) + spread, (
            m,
            again,
        )
    law = {"topology.bottleneck_jitter": compare._toml_value(testbed.ACK_JITTER_25M_TWO_RENO)}
    ours = compare.ccsim_ack_timing(point, 1, 10, 30, law)["excess_ms"]
    for q, tol in (("0.5", 0.3), ("0.99", 0.25)):
        lin = statistics.fmean(r["ack_timing"]["excess_ms"][q] for r in runs)
        assert abs(ours[q] - lin) <= tol * lin, (q, ours[q], lin)

    prefix, other, qlaw, sets = _TIMED["quickack"]
    lin = [(r["events"]["zones"], r["events"]["queue"]) for r in _check_runs(prefix).values()]
    timed = {**sets, "topology.bottleneck_jitter": compare._toml_value(qlaw)}
    ccs = [trains.ccsim_run(other, s, timed) for s in range(1, 9)]
    assert sum(q["retransmissions_lost"] for _, q in lin) == 0
    assert sum(r["_queue"]["retransmissions_lost"] for r in ccs) == 0
    lin_zone = statistics.fmean(q["drops_sent_at_it"] for _, q in lin)
    ours_zone = statistics.fmean(r["_queue"]["drops_sent_at_it"] for r in ccs)
    assert abs(ours_zone - lin_zone) <= 0.1, (ours_zone, lin_zone)


def _events_of(runs) -> tuple[float, float, float]:
    """Over congestion events of trains.testbed_run / ccsim_run results: the first
    dropper's drops at its duplicate ACKs per event, the share of its fast retransmissions
    dropped again, and the events."""
    events = sum(z["events"] for z, _ in runs)
    zone = sum(z.get("detection_same", 0.0) * z["events"] for z, _ in runs) / events
    resent = sum(q["retransmissions"] for _, q in runs)
    return zone, sum(q["retransmissions_lost"] for _, q in runs) / resent, events


_PACED_DROPPER = (
    "paced, the drops at the first dropper's duplicate ACKs come down from 1.15 (0.55 with "
    "the ACK timing alone) to 0.43 with the loop, against Linux's 0.22 over 49 events, 0.21 "
    "apart where two standard errors are 0.16; its retransmissions dropped again (3 of 182 "
    "[none of 49]), its drops per event (2.76 [2.76]), loss and utilization agree"
)


@pytest.mark.parametrize(
    "case",
    [
        "two-reno-unpaced",
        pytest.param("two-reno-paced", marks=pytest.mark.xfail(strict=True, reason=_PACED_DROPPER)),
    ],
)
def test_the_first_dropper_loses_as_linuxs_at_its_duplicate_acks(case):
    """The two Reno flows' last difference, explained (docs/linux.md, "The first
    dropper's drops, in each mode"): with the point's ACK timing and the testbed's ACK
    clock's round trip (test_the_testbeds_ack_clock_runs_longer_than_its_rtt), the first
    flow to lose in a congestion event loses as many of the segments it sends at its
    duplicate ACKs (65-95 ms after the drop) as Linux's within two standard errors (the
    per-event counts' variance taken as their mean; unpaced 0.60 [0.68]), and loses its
    fast retransmission again no more than 2 % more often (Linux: none of 74 unpaced);
    with the ACK timing alone it loses two standard errors more at least (1.05) and its
    retransmission in one event of ten: the nominal RTT puts the answers to its duplicate
    ACKs just before the bottleneck's next departure, where the queue is full."""
    import trains

    timed, looped, _ = _with_loop(case)
    prefix, point, _, _ = _LOOPS[case]
    lin = _events_of(
        [(r["events"]["zones"], r["events"]["queue"]) for r in _check_runs(prefix).values()]
    )

    def ours(sets: dict) -> tuple[float, float, float]:
        ccs = [trains.ccsim_run(point, s, sets) for s in range(1, 13)]
        return _events_of([(r["_zones"], r["_queue"]) for r in ccs])

    def two_se(o: tuple) -> float:
        return 2 * (lin[0] / lin[2] + o[0] / o[2]) ** 0.5

    with_loop = ours(looped)
    assert abs(with_loop[0] - lin[0]) <= two_se(with_loop), (with_loop, lin)
    assert with_loop[1] <= lin[1] + 0.02, (with_loop, lin)
    without = ours(timed)
    assert without[0] >= lin[0] + two_se(without), (without, lin)


def test_linux_cubic_beta_is_its_truncated_ssthresh():
    """β of Linux's CUBIC, measured from the traces, is ⌊cwnd·717/1024⌋/cwnd at the
    whole-segment cwnd it had at each cut (cubictcp_recalc_ssthresh): applying the rule to
    the traces' own cwnds reproduces the measured β within 0.005 at every point with
    CUBIC, from 0.651 beside BBR at 0.25 BDP (cwnd 5-13) to 0.700 alone at 50 Mb/s
    (cwnd 500+). The linux profile does the same (cc/cubic.rs), so its β differs from
    Linux's only where CUBIC's windows at its cuts do (the xfail of BBR + CUBIC at
    0.25 BDP)."""
    import math

    import pandas as pd

    for point, lin in compare.linux_summary().items():
        if "cubic" not in lin["ccsim_flows"].split():
            continue
        lo, hi = float(lin["warm_s"]), float(lin["dur_s"]) - 1.0
        gap = max(0.2, 3 * float(lin["rtt_ms"]) / 1e3)
        rule, measured = [], []
        for trace in sorted((ROOT / "validation/linux/traces").glob(f"{point}_r*.cwnd.csv.gz")):
            d = pd.read_csv(trace)
            for _, c in d[d.cc == "cubic"].groupby("flow"):
                c = c.sort_values("t_s")
                rows = [
                    {"t": t, "cwnd": w, "ssthresh": s}
                    for t, w, s in zip(c.t_s, c.cwnd, c.ssthresh.fillna(0.0), strict=True)
                ]
                for _, w, st in compare.reductions(rows, lo, hi, gap):
                    measured.append(st / w)
                    rule.append(math.floor(w * 717 / 1024) / w)
        assert measured, point
        m, r = sum(measured) / len(measured), sum(rule) / len(rule)
        assert abs(m - r) <= 0.005, f"{point}: measured {m:.4f}, rule {r:.4f}"


def _burst_shares(hist: dict) -> dict[int, float]:
    """The share of segments sent in bursts of each size."""
    n = sum(int(k) * c for k, c in hist.items())
    return {int(k): int(k) * c / n for k, c in hist.items()}


def _bursts_agree(point: str, cc: str, sim: dict, lin: dict) -> None:
    """ccsim's burst sizes of `cc` at `point` against Linux's (bursts.json): the mean within
    10 %, the share of segments in bursts of each size within 0.1."""
    mean = sum(k * c for k, c in sim.items()) / sum(sim.values())
    assert abs(mean - lin["mean_burst"]) <= 0.1 * lin["mean_burst"], (
        f"{point}: ccsim's {cc} bursts average {mean:.2f} segments, Linux's {lin['mean_burst']:.2f}"
    )
    ours, theirs = _burst_shares(sim), _burst_shares(lin["bursts"])
    for k in set(ours) | set(theirs):
        assert abs(ours.get(k, 0.0) - theirs.get(k, 0.0)) <= 0.1, (
            f"{point}: {cc}'s segments in bursts of {k}: ccsim {ours.get(k, 0.0):.2f}, "
            f"Linux {theirs.get(k, 0.0):.2f}"
        )


def test_linux_bbr_leaves_in_gso_bursts():
    """Linux's TCP builds GSO skbs (always, whatever the device offers, since 4.17) of
    `tcp_tso_autosize` segments, about 1 ms at the pacing rate and at least 2, and paces
    BBR one skb at a time: its segments reach the bottleneck in pairs at 20 Mb/s and in
    bursts of 2-4 at 50 Mb/s (validation/linux/bursts.json: tshark at the router's
    ingress, `testbed.py bursts`). ccsim's linux profile (`tcp.gso_bursts`) sends them
    alike: the mean burst size within 10 % of Linux's and the share of segments sent
    in bursts of each size within 0.1, at every captured point (seed 1, the same
    window of the run)."""
    ref = json.loads((ROOT / "validation" / "linux" / "bursts.json").read_text())
    start, secs = ref["capture_s"]
    points = [p for p, flows in ref["points"].items() if "bbr" in flows]
    assert len(points) == 4
    for point in points:
        sim = compare.ccsim_bursts(point, 1, start, secs)["bbr"]
        _bursts_agree(point, "bbr", sim, ref["points"][point]["bbr"])


def test_linux_loss_based_senders_leave_in_tso_skbs():
    """The testbed's Reno and CUBIC flows are paced by Linux itself (README, "Pacing") and
    leave in skbs of `tcp_tso_autosize` of their pacing rate, 120 % of cwnd/SRTT
    (`tcp_update_pacing_rate`); an skb the window cannot take whole waits for the next ACK
    (`tcp_tso_should_defer`), a single segment never does. One CUBIC flow at 50 Mb/s sends
    4-segment skbs, one every other ACK (97 % of its segments), one Reno flow at 20 Mb/s
    pairs (validation/linux/bursts.json); the scenarios' `pacing = "linux"` sends them
    alike. Without the deferral CUBIC's segments leave in pairs, one per ACK."""
    ref = json.loads((ROOT / "validation" / "linux" / "bursts.json").read_text())
    start, secs = ref["capture_s"]
    for point, cc in (("50m_100ms_b413_1cubic", "cubic"), ("20m_50ms_b41_1reno", "reno")):
        sim = compare.ccsim_bursts(point, 1, start, secs)[cc]
        _bursts_agree(point, cc, sim, ref["points"][point][cc])
    # The deferral is what makes CUBIC's skbs whole at 50 Mb/s.
    point = "50m_100ms_b413_1cubic"
    text = compare.scenario_text(point).replace(
        'profile = "linux"', 'profile = "linux"\ntso_defer = false'
    )
    import ccsim

    links = ["flow0.src_up"]
    text += f"\n[output]\npcap = {links!r}\n".replace("'", '"')
    run = ccsim.run(text, set={"seed": 1, "duration": f"{start + secs}s", "warmup": "0s"})
    hist: dict[int, int] = {}
    for h in compare.pcap_bursts(run.pcap[links[0]], t_from=start).values():
        for k, c in h.items():
            hist[k] = hist.get(k, 0) + c
    assert _burst_shares(hist).get(4, 0.0) < 0.1, hist


def test_linux_unpaced_senders_send_only_at_acks():
    """Reno and CUBIC as a Linux host whose default is not bbr sends them, unpaced (the
    linux profile's default, `pacing = "none"`): skbs of `tcp_tso_autosize` of 120 % of
    cwnd/SRTT, an skb the window cannot take whole waiting for the next ACK and a single
    segment never waiting. Measured with `testbed.py run --default-cc reno`
    (validation/linux/bursts_unpaced.json): every burst of both flows leaves within 25 µs
    of an ACK's arrival, one CUBIC flow at 50 Mb/s in 4s (93 % of its segments), one Reno
    flow at 20 Mb/s in pairs (90 %)."""
    ref = json.loads((ROOT / "validation" / "linux" / "bursts_unpaced.json").read_text())
    start, secs = ref["capture_s"]
    for point, flows in ref["points"].items():
        for cc, lin in flows.items():
            sim = compare.ccsim_bursts(point, 1, start, secs, {"tcp.pacing": "none"})[cc]
            _bursts_agree(point, cc, sim, lin)


def test_pacing_moves_the_shares_as_in_linux():
    """Whether Reno and CUBIC are paced changes who wins, in Linux and in ccsim alike. At
    0.25 BDP, 20 Mb/s, CUBIC takes 0.60 of the goodput beside Reno unpaced (two runs with
    `testbed.py run --default-cc reno`, validation/linux/unpaced_check.json) and 0.48 paced
    (the reference's ten runs); beside BBR at 3 BDP 0.57 unpaced and 0.63 paced. ccsim's
    linux profile, unpaced (its default) and with `pacing = "linux"` (the reference
    scenarios), is held to each within the shares' tolerance (0.03), mean over 10 seeds
    (30 beside BBR, whose runs spread as widely). Beside Reno pacing moves the share by
    0.12 in Linux and, since a window's room of one segment waits as Linux's does and PSH
    ends the skbs sent, by 0.14 in ccsim (0.60 unpaced, 0.46 paced; it moved by 0.02
    before: docs/linux.md, item 1)."""
    import statistics

    ref = json.loads((ROOT / "validation" / "linux" / "unpaced_check.json").read_text())["runs"]
    for point, cc in (
        ("20m_50ms_b21_1reno+1cubic", "cubic"),
        ("20m_50ms_b248_1bbr+1cubic", "cubic"),
    ):
        unpaced_linux = statistics.fmean(
            float(r[f"share_{cc}"]) for k, r in ref.items() if k.startswith(point + "_r")
        )
        paced_linux = float(compare.linux_summary()[point][f"share_{cc}_mean"])
        seeds = SEEDS_OF.get(point, SEEDS)
        unpaced = statistics.fmean(
            compare.run_point(point, s, {"tcp.pacing": "none"})[f"share_{cc}"] for s in seeds
        )
        paced = result(point)["metrics"][f"share_{cc}"]["ccsim"]
        assert abs(unpaced - unpaced_linux) <= 0.03, (point, unpaced, unpaced_linux)
        assert abs(paced - paced_linux) <= 0.03, (point, paced, paced_linux)
        assert (paced > unpaced) == (paced_linux > unpaced_linux), (point, paced, unpaced)


def test_linux_shares_reproduce_on_another_day():
    """The shares the comparison holds ccsim to are the testbed's, not one day's: the
    points re-run on another day (`testbed.py rerun`, share_rerun.json: BBR + CUBIC at
    3 BDP four runs each, Reno + CUBIC at 0.25 BDP ten) give a mean share within the
    comparison's tolerance (0.03) of the reference's, and every rerun lies within the
    reference's own range widened by that tolerance."""
    import statistics

    summary = compare.linux_summary()
    rerun = json.loads((ROOT / "validation" / "linux" / "share_rerun.json").read_text())
    assert "20m_50ms_b21_1reno+1cubic" in rerun["points"]
    for point, rec in rerun["points"].items():
        ref = float(summary[point]["share_cubic_mean"])
        ref_runs = [
            float(r["share_cubic"])
            for r in _runs_csv()
            if r["point"] == point and r["share_cubic"] not in ("", None)
        ]
        shares = [float(r["share_cubic"]) for r in rec["runs"]]
        assert len(shares) >= 4 and len(ref_runs) >= 10, (point, len(shares), len(ref_runs))
        assert abs(statistics.fmean(shares) - ref) <= 0.03, (point, shares, ref)
        assert min(ref_runs) - 0.03 <= min(shares) and max(shares) <= max(ref_runs) + 0.03, (
            point,
            shares,
            ref_runs,
        )


@functools.cache
def _runs_csv() -> list[dict]:
    import csv

    with open(ROOT / "validation" / "linux" / "runs.csv") as f:
        return list(csv.DictReader(f))


def _growth_by_age(rows_of_flows, lo, hi, ages):
    """Mean window gained since 0.25 s after each cut, at each age (s since the cut), over
    every epoch of every flow given (rows: {t, cwnd}, whole segments)."""
    from testbed import reductions

    out = {a: [] for a in ages}
    for rows in rows_of_flows:
        red = reductions(rows, lo, hi, 0.2)
        for (t0, _, _), (t1, _, _) in zip(red, red[1:], strict=False):
            seg = [r for r in rows if t0 + 0.25 <= r["t"] <= t1 - 0.02]
            if len(seg) < 10:
                continue
            for a in ages:
                at = [r["cwnd"] for r in seg if abs(r["t"] - t0 - a) <= 0.01]
                if at:
                    out[a].append(at[0] - seg[0]["cwnd"])
    return {a: sum(v) / len(v) for a, v in out.items() if len(v) >= 15}


def test_reno_and_cubic_grow_as_in_linux_between_their_cuts():
    """Where Reno and CUBIC share 0.25 BDP (docs/linux.md, item 1), each grows between its
    cuts as in Linux: the window gained since 0.25 s after a cut, averaged over every epoch
    of the reference's ten traces, is ccsim's (10 seeds) within 1 segment at 0.5-2 s, about
    18 segments a second for Reno (one per round trip of 56-62 ms) and 9 for CUBIC (its
    concave curve and α_cubic). What decides the share is which flow is cut, not how the
    windows grow."""
    import math

    import pandas as pd

    import ccsim

    point = "20m_50ms_b21_1reno+1cubic"
    ages = (0.5, 1.0, 1.5, 2.0)
    lo, hi = 10.0, 44.0
    linux: dict[str, list] = {"reno": [], "cubic": []}
    for trace in sorted((ROOT / "validation/linux/traces").glob(f"{point}_r*.cwnd.csv.gz")):
        d = pd.read_csv(trace)
        for cc, c in d.groupby("cc"):
            c = c.sort_values("t_s")
            linux[cc].append([{"t": t, "cwnd": int(w)} for t, w in zip(c.t_s, c.cwnd, strict=True)])
    ccs = compare.linux_summary()[point]["ccsim_flows"].split()
    sim: dict[str, list] = {"reno": [], "cubic": []}
    for seed in SEEDS:
        run = ccsim.run(compare.scenario_text(point), set={"seed": seed})
        s = run.series
        fl = s[(s.entity == "flow") & (s.metric == "cwnd_pkts")]
        for i, fid in enumerate(sorted(fl["id"].unique(), key=int)):
            f = fl[fl["id"] == fid].sort_values("time")
            sim[ccs[i]].append(
                [
                    {"t": t, "cwnd": math.floor(w + 1e-9)}
                    for t, w in zip(f.time, f.value, strict=True)
                ]
            )
    for cc, rate in (("reno", 18.0), ("cubic", 9.0)):
        lin = _growth_by_age(linux[cc], lo, hi, ages)
        ours = _growth_by_age(sim[cc], lo, hi, ages)
        assert set(lin) == set(ours) == set(ages), (cc, lin, ours)
        for a in ages:
            assert abs(ours[a] - lin[a]) <= 1.0, (cc, a, ours, lin)
        slope = (lin[2.0] - lin[0.5]) / 1.5
        assert abs(slope - rate) <= 0.15 * rate, (cc, slope)


# The test's tolerance on a flow's share of drops that are the second of a pair. A seed's
# share spreads with sd 0.05-0.09 for the loss-based flows (Reno beside CUBIC: 0.72-0.92),
# so the precision rule (compare.precise) reads 16 seeds there, 10 beside BBR; fixed seeds
# read three, then ten, before 2026-12-06.
DROP_TOL = 0.1


@functools.cache
def _second_of_a_pair(point: str) -> dict[str, list[float]]:
    """Per flow of *point*, over the seeds compare.precise asks for (ten at least): the
    share of its dropped segments that were the second of a GSO pair at the router
    (testbed.drop_stats on ccsim's pcap traces of each sender's access link and the
    bottleneck over [10, 40] s)."""
    from testbed import drop_stats, pcap_packets

    import ccsim

    ccs = compare.linux_summary()[point]["ccsim_flows"].split()
    links = [f"flow{i}.src_up" for i in range(len(ccs))] + ["bottleneck"]
    text = compare.scenario_text(point) + "\n[output]\npcap = [{}]\n".format(
        ", ".join(f'"{x}"' for x in links)
    )

    def sample(seed: int) -> dict[str, float]:
        run = ccsim.run(text, set={"seed": seed, "duration": "40s"})
        ing, ports = [], {}
        for i, cc in enumerate(ccs):
            pk = list(pcap_packets(run.pcap[f"flow{i}.src_up"]))
            ports.update({p[1]: cc for p in pk if p[4] > 0})
            ing += pk
        ing.sort()
        st = drop_stats(ing, pcap_packets(run.pcap["bottleneck"]), ports, 10.0, 40.0)
        for cc, f in st["flows"].items():
            assert f["dropped"] >= 20, (point, seed, cc, f)
        return {
            cc: f["dropped_in_burst"].get("2of2", 0) / f["dropped"] for cc, f in st["flows"].items()
        }

    return compare.precise(sample, DROP_TOL)


DROP_CAPTURE = json.loads((ROOT / "validation" / "linux" / "drop_capture.json").read_text())


@pytest.mark.parametrize(
    ("point", "cc"),
    [
        ("20m_50ms_b21_1reno+1cubic", "reno"),
        ("20m_50ms_b21_1reno+1cubic", "cubic"),
        ("20m_50ms_b21_1bbr+1cubic", "bbr"),
        ("20m_50ms_b21_1bbr+1cubic", "cubic"),
    ],
)
def test_drops_fall_where_linux_drops_them(point, cc):
    """At the shallow-buffer mixes, which of a flow's segments the full pfifo drops is
    Linux's: in the testbed's captures of the router's ingress and egress
    (drop_capture.json, testbed.capture_drops) 92-98 % of Reno's, CUBIC's (beside Reno)
    and BBR's dropped segments are the second of a GSO pair, and 63 % of CUBIC's beside
    BBR, whose windows of 4-8 segments leave as many single segments; ccsim's, read the
    same way (testbed.drop_stats) from its pcap traces of each sender's access link and
    the bottleneck over [10, 40] s, agree within 0.1 for every flow (mean over the seeds
    the precision rule asks for, compare.precise).
    CUBIC beside Reno used to lose 12-21 % singles or first segments of a pair (Linux 2 %),
    when a one-segment ACK let a single segment out; a window's room of one segment now
    waits for the next ACK as Linux's does (docs/linux.md, item 1)."""
    assert set(DROP_CAPTURE["points"]) == {
        "20m_50ms_b21_1reno+1cubic",
        "20m_50ms_b21_1bbr+1cubic",
    }
    lf = DROP_CAPTURE["points"][point]["flows"][cc]
    linux = lf["dropped_in_burst"].get("2of2", 0) / lf["dropped"]
    fr = _second_of_a_pair(point)[cc]
    assert abs(sum(fr) / len(fr) - linux) <= DROP_TOL, (point, cc, fr, linux)


def test_htb_release_lateness_replays_the_token_rule(tmp_path):
    """The estimator behind validation/linux/htb_release.json (testbed.htb_release_lateness)
    replays HTB's token rule over captures of the router's ingress and egress. Applied to
    ccsim's own bottleneck, which implements that rule (`topology.shaper`), it reads zero
    lateness for every packet; applied to a serializing bottleneck of the same rate, which
    never sends before the rule allows but starts a packet only after the previous one has
    left, it reads no negative lateness and at most the bucket's depth in time (the third
    of three packets that found it full waits two packet times there). The ingress capture
    is each sender's access link shifted by its transmission and propagation time (12 µs at
    1 Gb/s, 0.5 ms)."""
    import re
    import struct

    from testbed import htb_release_lateness

    import ccsim

    point = "20m_50ms_b21_1bbr+1cubic"
    links = ["flow0.src_up", "flow1.src_up", "bottleneck"]
    shaped = compare.scenario_text(point) + f"\n[output]\npcap = {links!r}\n".replace("'", '"')
    serial = re.sub(r"^shaper = .*$", "", shaped, flags=re.M)
    rate = float(re.search(r'bottleneck_rate = "([\d.]+)Mbps"', shaped)[1]) * 1e6

    def lateness(text: str, name: str) -> list[float]:
        run = ccsim.run(text, set={"seed": 1, "duration": "8s", "warmup": "0s"})
        ingress = tmp_path / f"{name}_ingress.pcap"
        shift_ns = 12_000 + 500_000
        with open(ingress, "wb") as out:
            for i, link in enumerate(links[:2]):
                raw = Path(run.pcap[link]).read_bytes()
                if i == 0:
                    out.write(raw[:24])
                k = 24
                while k + 16 <= len(raw):
                    sec, ns, incl, orig = struct.unpack("<IIII", raw[k : k + 16])
                    t = sec * 1_000_000_000 + ns + shift_ns
                    out.write(struct.pack("<IIII", t // 10**9, t % 10**9, incl, orig))
                    out.write(raw[k + 16 : k + 16 + incl])
                    k += 16 + incl
        return htb_release_lateness(ingress, run.pcap["bottleneck"], rate, 3000, l2_bytes=0)

    exact = lateness(shaped, "shaped")
    assert len(exact) > 5000
    worst = max(exact, key=abs)
    assert abs(worst) < 0.01, f"shaped: a packet {worst:.3f} µs off HTB's rule"
    wire = lateness(serial, "serial")
    frame_us, depth_us = 1500 * 8 / rate * 1e6, 3000 * 8 / rate * 1e6
    assert min(wire) > -0.01, f"serializing: a packet {min(wire):.3f} µs early"
    assert frame_us - 1 < max(wire) < depth_us + 0.01, f"serializing: {max(wire):.1f} µs late"
    assert sum(x > 1 for x in wire) > 0.01 * len(wire)


def test_acks_at_the_applications_reads_pair_up_as_linuxs():
    """The testbed's receiver ACKs at iperf3's reads (`tcp_cleanup_rbuf`: two segments or
    more, or a drained PSH segment) and its sender puts PSH on the last segment of each
    skb; drop_capture.json counts the ACKs of Reno + CUBIC at 0.25 BDP, 20 Mb/s: 83-85 %
    acknowledge two segments, 8-9 % one, and 99 % of those one a PSH segment. The
    committed scenarios set `tcp.read_latency` (iperf3's wake-up: the capture's ACK delay,
    median 104 us and p90 135 us, less the delay hop's 20 us lateness: 85 us, sd 25 us)
    and reproduce the pairing: two-segment ACKs most of them, three-segment ones within
    1.5 points of Linux's share, one-segment ACKs almost all of PSH segments, PSH on about
    half the segments. Without it the receiver ACKs every second segment as it arrives
    and sends almost no one-segment ACK (under 1 %, in recoveries). With the senders'
    one-segment deferral and PSH where the skbs end, the one-segment ACKs are Linux's within
    1.5 points too (Reno 8.2 % [7.9 %], CUBIC 7.6 % [8.9 %]; docs/linux.md, "ACKs at the
    application's reads")."""
    point = "20m_50ms_b21_1reno+1cubic"
    lin = json.loads((ROOT / "validation/linux/drop_capture.json").read_text())
    lin = lin["points"][point]["flows"]
    on = compare.ccsim_acks(point, 1, 10.0, 20.0)
    off = compare.ccsim_acks(point, 1, 10.0, 20.0, reads=False)
    for cc in ("reno", "cubic"):
        lf, cf = lin[cc], on[cc]
        assert abs(cf["ack_sizes"].get("2", 0) - lf["ack_sizes"]["2"]) <= 0.1, (cc, cf, lf)
        assert abs(cf["ack_sizes"].get("3", 0) - lf["ack_sizes"]["3"]) <= 0.015, (cc, cf, lf)
        assert abs(cf["ack_sizes"].get("1", 0) - lf["ack_sizes"]["1"]) <= 0.015, (cc, cf, lf)
        assert cf["one_segment_acks_of_a_psh_segment"] >= 0.95, (cc, cf)
        assert lf["one_segment_acks_of_a_psh_segment"] >= 0.95
        assert abs(cf["psh_share_of_segments"] - lf["psh_share_of_segments"]) <= 0.05, (cc, cf)
        assert off[cc]["ack_sizes"].get("1", 0) < 0.01, (cc, off[cc])


# Where each flow sends what its ACKs do not free (validation/linux/trains.py): Reno + CUBIC
# unpaced at 0.25 BDP, 20 Mb/s, every segment ACKed, in three router captures on three
# days (train_starts.json). Beside Reno, each flow's ACKs come in trains; Linux's CUBIC opens
# 0.17-0.33 of its trains by sending two segments for the first ACK's one (its window's
# increase: tcp_cong_avoid_ai adds the segment at once when bictcp_update's next cnt, after
# HZ/32, often at a train's first ACK, is below the ACKs counted), and its dropped segments
# are mostly those pairs, where the queue is still full from Reno's train (8 of 17, 30 of 38
# and 8 of 18 drops opened a run of CUBIC's segments at the router); its Reno never opens a
# train so, and closes 0.20 of its trains by sending three segments for the last ACK's one
# (a room deferred at the ACK before, and its increase: third capture), where ccsim's Reno
# closes 0.02-0.03 so.
# ccsim's CUBIC, growing by acked/cnt before 2026-12-05, opened under 0.01 of its trains so
# and none of its drops opened a run; with Linux's counter 0.16 and 0.34 (seeds 1-6 pooled;
# the seeds follow two trajectories, 0.12 and 0.29). docs/linux.md, "A second day with
# every segment acknowledged". Since the laws grow by what each ACK delivers, on the ACK
# that ends a recovery too (tcp.grow_by_delivered, Linux's acked_sacked), CUBIC opens 0.19
# of its trains with a pair and 68 of its 128 drops open a run (0.53, were 0.27), and Reno
# closes 0.185 of its trains with a triple (was 0.090): docs/linux.md, "Growth by what an
# ACK delivers". A seed's closing share spreads with sd 0.22 (its trajectories again): over
# seeds 1-6 the pooled share moved by 0.037 with CUBIC's clock (HZ = 250 against a
# continuous one), over 1-12 by 0.019; twelve seeds since 2026-12-06: Reno closes 0.189,
# CUBIC opens 0.177 and 0.606 of its drops open a run (docs/linux.md, "CUBIC's clock").
TRAINS = json.loads((ROOT / "validation" / "linux" / "train_starts.json").read_text())
TRAIN_SEEDS = tuple(range(1, 13))


@functools.cache
def _ccsim_trains(cc: str) -> dict:
    """ccsim's figures for flow *cc*, pooled over TRAIN_SEEDS."""
    import trains

    tot = dict.fromkeys(
        (
            "trains",
            "opening_pairs",
            "closing_trains",
            "closing_triples",
            "dropped",
            "opening_a_run",
        ),
        0,
    )
    for seed in TRAIN_SEEDS:
        r = trains.ccsim_run(
            TRAINS["point"], seed, {"tcp.delayed_ack": False, "tcp.pacing": "none"}
        )[cc]
        for k in tot:
            tot[k] += r[k]
    return tot


def _linux_trains(cc: str) -> list[dict]:
    return [c[cc] for c in TRAINS["captures"].values()]


@pytest.mark.parametrize("cc", ["reno", "cubic"])
def test_where_each_flow_sends_its_window_increase_in_its_ack_trains(cc):
    """The share of the flow's ACK trains that open with two segments for one acknowledged:
    ccsim's within 0.1 of the range of Linux's three captures (CUBIC 0.17-0.33, Reno under
    0.01)."""
    shares = [x["share"] for x in _linux_trains(cc)]
    if cc == "cubic":
        assert min(shares) >= 0.15, shares
    else:
        assert max(shares) <= 0.01, shares
    ours = _ccsim_trains(cc)
    share = ours["opening_pairs"] / ours["trains"]
    assert min(shares) - 0.1 <= share <= max(shares) + 0.1, (share, shares)


@pytest.mark.parametrize("cc", ["reno", "cubic"])
def test_where_each_flows_drops_fall_in_its_runs(cc):
    """The share of the flow's dropped segments that were in the first burst of a run of its
    segments at the router (after more than 1.5 ms without one): ccsim's within 0.1 of the
    range of Linux's three captures (CUBIC 0.44-0.79, Reno none)."""
    opening = [x["opening_a_run"] / x["dropped"] for x in _linux_trains(cc)]
    if cc == "cubic":
        assert min(opening) >= 0.4, opening
    else:
        assert max(opening) == 0.0, opening
    ours = _ccsim_trains(cc)
    frac = ours["opening_a_run"] / ours["dropped"]
    assert min(opening) - 0.1 <= frac <= max(opening) + 0.1, (frac, opening)


@pytest.mark.parametrize("cc", ["reno", "cubic"])
def test_where_each_flow_closes_its_ack_trains(cc):
    """The share of the flow's ACK trains (of two or more ACKs) whose last ACK acknowledges
    one segment and releases three: ccsim's within 0.05 of Linux's third capture (Reno 0.20,
    CUBIC 0.005)."""
    lin = [x for x in _linux_trains(cc) if "closing_share" in x]
    assert len(lin) == 1, lin
    if cc == "reno":
        assert lin[0]["closing_share"] >= 0.15, lin
    else:
        assert lin[0]["closing_share"] <= 0.02, lin
    ours = _ccsim_trains(cc)
    share = ours["closing_triples"] / ours["closing_trains"]
    assert abs(share - lin[0]["closing_share"]) <= 0.05, (share, lin)
