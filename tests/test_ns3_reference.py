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
