"""ccsim's ns3 profile held to ns-3.44 itself (issue 15, item 1; docs/tcp.md).

validation/ns3/reference.py ran each point of validation/ns3/points.py in ns-3.44 (the
`ns3` wheel) with 3 seeds, 10 for the points of several flows (flow start instants per
seed, the same in both simulators); validation/ns3/runs.csv holds the goodput of every
flow. runs_uneven.csv holds the same dumbbells of several flows with uneven paths: each
flow's access links 0.5 ± 0.1 ms (points.access_delays_us, the same in both), 10 seeds.
Here ccsim runs the same points and seeds with `tcp.profile = "ns3"`, and the mean over
seeds must agree:

- utilization (total goodput over the bottleneck's goodput capacity, rate x 1448/1502)
  within 0.01, as for the Linux comparison;
- Jain's fairness index of the flows' goodput within 0.03 (points of several flows).

A point where ccsim differs is an xfail(strict=True) whose reason gives the measured
difference; if ccsim comes to agree, the xfail fails and must be removed.
"""

from __future__ import annotations

import csv
import functools
import statistics
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation" / "ns3"))
import points as P  # noqa: E402

import ccsim  # noqa: E402

TOL = {"utilization": 0.01, "jain": 0.03}
EXACT, UNEVEN = "runs.csv", "runs_uneven.csv"
XFAIL: dict[tuple[str, str], str] = {}
XFAIL_UNEVEN: dict[tuple[str, str], str] = {
    ("cubic_10_b132", "jain"): "ccsim 0.784 vs ns-3 0.815 over 30 seeds (difference 0.030, "
    "standard error 0.015; 0.019 over the first 10): at the edge of the tolerance. ccsim now "
    "models ns-3.44's recovery (limited_transmit, prr_ns3, partial_ack_send, "
    "exit_ack_increase; fast retransmits per flow 19.5 vs ns-3's 19.7, timeouts 0.20 vs 0.20 "
    "over seeds 1-5), which took it from 0.756. Tried and ruled out (a throwaway build, all "
    "30 seeds): TcpCubic's CubicDelta, delay samples skipped for 10 ms after an epoch starts "
    "instead of Linux's 1 s (0.776; exact paths 0.940 against ns-3's 0.971), and CubicReset "
    "on a timeout keeping m_lastMaxCwnd, as a 2024 ns-3 tree has it, where Linux forgets "
    "W_max (0.790; exact 0.941); both within the seeds' noise. Untested: at most one "
    "segment per IncreaseWindow call (binds on the ACK that ends recovery, whose whole "
    "window exit_ack_increase counts). Not isolated",
}
# Points run with 30 seeds in runs_uneven.csv (10 elsewhere): ccsim once differed there,
# and 30 seeds tell a difference of 0.03 from noise.
SEEDS_30 = {"newreno_50_b20", "cubic_10_b132"}


def _metrics(point: str, goodputs: list[float]) -> dict[str, float]:
    p = P.POINTS[point]
    cap = p["rate_mbps"] * 1e6 * P.MSS / P.WIRE_NS3
    tot = sum(goodputs)
    m = {"utilization": tot / cap}
    if len(goodputs) > 1:
        m["jain"] = tot**2 / (len(goodputs) * sum(g * g for g in goodputs))
    return m


@functools.cache
def reference(table: str = "runs.csv") -> dict[str, list[dict[str, float]]]:
    out: dict[str, list[dict[str, float]]] = {}
    with (ROOT / "validation" / "ns3" / table).open() as f:
        for r in csv.DictReader(f):
            g = [float(x) for x in r["goodput_bps"].split()]
            out.setdefault(r["point"], []).append(
                _metrics(r["point"], g) | {"seed": int(r["seed"])}
            )
    return out


@functools.cache
def simulated(point: str, uneven: bool = False) -> list[dict[str, float]]:
    runs = []
    for ref in reference(UNEVEN if uneven else EXACT)[point]:
        run = ccsim.run(P.scenario_text(point, int(ref["seed"]), uneven=uneven))
        runs.append(_metrics(point, run.flows["goodput_bps"].tolist()))
    return runs


def _cases(table: str, xfail: dict[tuple[str, str], str]):
    cases = []
    for point, runs in reference(table).items():
        for m in TOL:
            if m in runs[0]:
                marks = (
                    [pytest.mark.xfail(strict=True, reason=xfail[(point, m)])]
                    if (point, m) in xfail
                    else []
                )
                cases.append(pytest.param(point, m, marks=marks, id=f"{point}-{m}"))
    return cases


def _compare(point: str, metric: str, uneven: bool):
    ns3 = statistics.fmean(r[metric] for r in reference(UNEVEN if uneven else EXACT)[point])
    ours = statistics.fmean(r[metric] for r in simulated(point, uneven))
    assert abs(ours - ns3) <= TOL[metric], f"{metric}: ccsim {ours:.4f} vs ns-3 {ns3:.4f}"


@pytest.mark.parametrize("point,metric", _cases(EXACT, XFAIL))
def test_ns3_reference(point, metric):
    _compare(point, metric, uneven=False)


@pytest.mark.parametrize("point,metric", _cases(UNEVEN, XFAIL_UNEVEN))
def test_ns3_reference_uneven_paths(point, metric):
    _compare(point, metric, uneven=True)


def test_every_point_has_its_ns3_seeds():
    """The exact-path table covers every point of points.py with seeds 1-3, or 1-10 for
    the points of several flows; the uneven-path table those points with seeds 1-10, 1-30
    where ccsim's index was lower (SEEDS_30: enough seeds to tell a difference from
    noise)."""
    ref, uneven = reference(EXACT), reference(UNEVEN)
    assert set(ref) == set(P.POINTS)
    several = {p for p, v in P.POINTS.items() if v["flows"] > 1}
    assert set(uneven) <= several and uneven
    for table in (ref, uneven):
        for point, runs in table.items():
            n = 10 if point in several else 3
            if table is uneven and point in SEEDS_30:
                n = 30
            assert sorted(int(r["seed"]) for r in runs) == list(range(1, n + 1)), point


def test_xfail_entries_exist():
    for table, xfail in ((EXACT, XFAIL), (UNEVEN, XFAIL_UNEVEN)):
        names = {(p, m) for p, runs in reference(table).items() for m in runs[0] if m in TOL}
        assert set(xfail) <= names


@functools.cache
def _hystart_reference() -> dict:
    """validation/ns3/hystart.json: ns-3.44's slow starts (hystart.py)."""
    import json

    return json.loads((ROOT / "validation" / "ns3" / "hystart.json").read_text())


def _ccsim_slow_start(name: str) -> tuple[list[dict], list[int]]:
    """ccsim's ns3 profile on a hystart.py case: its first ssthresh changes (time from
    the flow's start, ssthresh, cwnd then) and its cwnd every 10 ms, as hystart.py reads
    ns-3's."""
    import hystart

    run = ccsim.run(hystart.scenario_text(name), set={"sample_interval": "1ms"})
    s = run.series
    f = s[s.entity == "flow"]
    start = P.start_times_us(1, 1)[0] / 1e6
    cw = f[f.metric == "cwnd_pkts"].sort_values("time")
    st = f[f.metric == "ssthresh_pkts"].sort_values("time")
    cw_at = dict(zip(cw.time.round(6), cw.value, strict=True))
    events, prev = [], st.value.iloc[0]
    for t, v in zip(st.time, st.value, strict=True):
        if v != prev:
            events.append({"t_s": t - start, "ssthresh": int(v), "cwnd": int(cw_at[round(t, 6)])})
        prev = v
    ms = {round(t - start, 3): int(c) for t, c in zip(cw.time, cw.value, strict=True)}
    cwnd_10ms = [
        ms.get(round(0.01 * k, 3), ms[min(ms, key=lambda x: abs(x - 0.01 * k))])
        for k in range(1, 61)
    ]
    return events, cwnd_10ms


@pytest.mark.parametrize(
    "name", ["c100_50_b832", "c100_100_b1664", "c20_50_b249", "c50_20_b250", "c10_100_b250"]
)
def test_cubic_leaves_slow_start_where_ns3_does(name):
    """ns-3.44's TcpCubic run in ns-3 itself (validation/ns3/hystart.py, hystart.json):
    where HyStart ends slow start (ssthresh = cwnd) and where the first loss then cuts,
    one flow on deep-buffered dumbbells. Two of ns-3's rules decide it: its receiver ACKs
    the first data segment at once (TcpSocketBase sets m_delAckCount = m_delAckMaxCount
    at the handshake), so slow start's rounds run 10, 19, 37, 73, ... (ccsim's 10, 20, 40,
    80 before: `quickack = 1`); and TcpCubic::HystartUpdate's thresholds: the ACK train
    must span delay_min (Linux: delay_min + ack_delay, halved unpaced, as ccsim's ns3
    profile had it) and the delay test's margin is clamp(delay_min, 4 ms, 1 s) (Linux:
    clamp(delay_min/8, 4 ms, 16 ms)). Before, ccsim's ns3 profile left slow start at 532,
    1044, 148, 148 and 148 packets here (ns-3: 995, 1987, 229, 229, 595)."""
    ref = _hystart_reference()[name]
    events, cwnd_10ms = _ccsim_slow_start(name)
    ns3_exit, ns3_cut = ref["ssthresh"][0], ref["ssthresh"][1]
    assert ns3_exit["ssthresh"] == ns3_exit["cwnd"]  # HyStart, not a loss, came first
    exit_, cut = events[0], events[1]
    assert exit_["ssthresh"] == exit_["cwnd"], events[:2]
    assert abs(exit_["ssthresh"] - ns3_exit["ssthresh"]) <= 0.02 * ns3_exit["ssthresh"], (
        exit_,
        ns3_exit,
    )
    assert abs(exit_["t_s"] - ns3_exit["t_s"]) <= 0.01 * ns3_exit["t_s"] + 0.002, (exit_, ns3_exit)
    # the first loss: its time and the window it cuts
    assert abs(cut["cwnd"] - ns3_cut["cwnd"]) <= 0.02 * ns3_cut["cwnd"], (cut, ns3_cut)
    assert abs(cut["t_s"] - ns3_cut["t_s"]) <= 0.03 * ns3_cut["t_s"], (cut, ns3_cut)

    # slow start's rounds, read every 10 ms before the exit: the windows held for a
    # whole round (two samples running) are ns-3's
    def held(seq: list[int], until_s: float) -> list[int]:
        n = min(int(until_s / 0.01), len(seq))
        return sorted({a for a, b in zip(seq[: n - 1], seq[1:n], strict=True) if a == b})

    assert held(cwnd_10ms, ns3_exit["t_s"]) == held(ref["cwnd_10ms"], ns3_exit["t_s"])
