"""ccsim's ns3 profile held to ns-3.44 itself (issue 15, item 1; docs/tcp.md).

validation/ns3/reference.py ran each point of validation/ns3/points.py in ns-3.44 (the
`ns3` wheel) with 3 seeds (flow start instants per seed, the same in both simulators);
validation/ns3/runs.csv holds the goodput of every flow. Here ccsim runs the same points
and seeds with `tcp.profile = "ns3"`, and the mean over seeds must agree:

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
_JAIN = (
    "ns-3 shares the link more evenly than ccsim's ns3 profile on drop-tail dumbbells of "
    "several flows (every seed; utilization agrees within 0.01). Not from the ssthresh "
    "rule: with ssthresh from all data outstanding instead of ns-3's BytesInFlight the "
    "gap stays ({alt}). Cause not isolated; candidates: ns-3's millisecond timestamps "
    "(RTT samples and RTO), its delayed-ACK timer, phase effects of the access links"
)
XFAIL: dict[tuple[str, str], str] = {
    ("newreno_10_b132", "jain"): "ccsim 0.915 vs ns-3 0.973 (seeds 0.971/0.974/0.974; "
    "ccsim 0.937/0.922/0.886). " + _JAIN.format(alt="0.936"),
    ("newreno_50_b20", "jain"): "ccsim 0.916 vs ns-3 0.957 (seeds 0.955/0.958/0.957; "
    "ccsim 0.919/0.933/0.896). " + _JAIN.format(alt="0.945"),
    ("cubic_10_b132", "jain"): "ccsim 0.933 vs ns-3 0.965 (seeds 0.987/0.930/0.977; "
    "ccsim 0.938/0.973/0.887). " + _JAIN.format(alt="0.933"),
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
def reference() -> dict[str, list[dict[str, float]]]:
    out: dict[str, list[dict[str, float]]] = {}
    with (ROOT / "validation" / "ns3" / "runs.csv").open() as f:
        for r in csv.DictReader(f):
            g = [float(x) for x in r["goodput_bps"].split()]
            out.setdefault(r["point"], []).append(
                _metrics(r["point"], g) | {"seed": int(r["seed"])}
            )
    return out


@functools.cache
def simulated(point: str) -> list[dict[str, float]]:
    runs = []
    for ref in reference()[point]:
        run = ccsim.run(P.scenario_text(point, int(ref["seed"])))
        runs.append(_metrics(point, run.flows["goodput_bps"].tolist()))
    return runs


def _cases():
    cases = []
    for point, runs in reference().items():
        for m in TOL:
            if m in runs[0]:
                marks = (
                    [pytest.mark.xfail(strict=True, reason=XFAIL[(point, m)])]
                    if (point, m) in XFAIL
                    else []
                )
                cases.append(pytest.param(point, m, marks=marks, id=f"{point}-{m}"))
    return cases


@pytest.mark.parametrize("point,metric", _cases())
def test_ns3_reference(point, metric):
    ns3 = statistics.fmean(r[metric] for r in reference()[point])
    ours = statistics.fmean(r[metric] for r in simulated(point))
    assert abs(ours - ns3) <= TOL[metric], f"{metric}: ccsim {ours:.4f} vs ns-3 {ns3:.4f}"


def test_every_point_has_three_ns3_seeds():
    """The committed table covers every point of points.py with seeds 1-3."""
    ref = reference()
    assert set(ref) == set(P.POINTS)
    for point, runs in ref.items():
        assert sorted(int(r["seed"]) for r in runs) == [1, 2, 3], point


def test_xfail_entries_exist():
    names = {(p, m) for p, runs in reference().items() for m in runs[0] if m in TOL}
    assert set(XFAIL) <= names
