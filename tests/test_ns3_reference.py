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
_PHASE = (
    "Both simulators' Jain at this point is mostly the phase of identical paths: with each "
    "flow's access delay 0.5 +- 0.1 ms (runs_uneven.csv) ns-3 falls to 0.66-0.82 and ccsim "
    "with it, to within 0.03 at 10 NewReno flows (test_ns3_reference_uneven_paths). With "
    "identical paths ns-3 settles in one even phase for every start (sd 0.007-0.017 over 10 "
    "seeds) and ccsim in phases that vary with the start instants (sd 0.02-0.03). Not from "
    "the ssthresh rule (ssthresh from all data outstanding instead of BytesInFlight: {alt})"
)
XFAIL: dict[tuple[str, str], str] = {
    ("newreno_10_b132", "jain"): "ccsim 0.909 vs ns-3 0.973 over 10 seeds (ns-3 sd 0.007, "
    "ccsim 0.886-0.945). " + _PHASE.format(alt="0.936 over 3 seeds"),
    ("newreno_50_b20", "jain"): "ccsim 0.914 vs ns-3 0.950 over 10 seeds. "
    + _PHASE.format(alt="0.945 over 3 seeds"),
}
_RESIDUAL = (
    "With uneven paths ccsim's index is lower by {d} over 30 seeds (ns-3 {ns3}, ccsim {ours}; "
    "standard error of the difference {se}): a systematic tendency of ccsim's ns3 profile to "
    "share less evenly, a fifth of the effect of a tenth of a millisecond of path asymmetry "
    "(the first 10 seeds gave {d10}). Not ns-3's millisecond timestamps (ns-3 with "
    "TcpSocketBase::Timestamp off: 0.816 vs 0.824 at 10 CUBIC flows, same 10 seeds), nor the "
    "packet ns-3's device holds outside its B-packet queue (ccsim with B + 1: {b1}), nor "
    "delayed ACKs (both without them at 10 CUBIC flows, same 10 seeds: ns-3 0.701, ccsim "
    "0.651, the gap unchanged). Cause not isolated"
)
XFAIL_UNEVEN: dict[tuple[str, str], str] = {
    ("newreno_50_b20", "jain"): _RESIDUAL.format(
        d="0.043", ns3="0.667", ours="0.624", se="0.010", d10="0.038", b1="0.632"
    ),
    ("cubic_10_b132", "jain"): _RESIDUAL.format(
        d="0.063", ns3="0.815", ours="0.751", se="0.019", d10="0.047", b1="0.737"
    ),
}


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
    where ccsim's index stays lower (XFAIL_UNEVEN: enough seeds to tell a difference from
    noise)."""
    ref, uneven = reference(EXACT), reference(UNEVEN)
    assert set(ref) == set(P.POINTS)
    several = {p for p, v in P.POINTS.items() if v["flows"] > 1}
    assert set(uneven) <= several and uneven
    for table in (ref, uneven):
        for point, runs in table.items():
            n = 10 if point in several else 3
            if table is uneven and (point, "jain") in XFAIL_UNEVEN:
                n = 30
            assert sorted(int(r["seed"]) for r in runs) == list(range(1, n + 1)), point


def test_xfail_entries_exist():
    for table, xfail in ((EXACT, XFAIL), (UNEVEN, XFAIL_UNEVEN)):
        names = {(p, m) for p, runs in reference(table).items() for m in runs[0] if m in TOL}
        assert set(xfail) <= names
