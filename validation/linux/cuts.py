"""Which flows each congestion event cuts, from 20 ms cwnd traces (docs/linux.md, item 1):
Linux's committed traces of a point against ccsim's seeds, the windows read as `ss` reads
them (whole segments) and the cuts found by the testbed's own estimator (`reductions`).
An event is a cut of one flow and every cut of another flow within 0.2 s of it.

    python validation/linux/cuts.py 20m_50ms_b21_1reno+1cubic [--seeds 10] [--rerun]
    python validation/linux/cuts.py 20m_50ms_b21_1reno+1cubic --traces quickack_unpaced_rerun \
        --set tcp.delayed_ack=false --set tcp.pacing=none [--phase cubic]

prints, for Linux and for ccsim, the share of events that cut each set of flows, the cuts
per run of each flow and its mean window just before its cuts; with --phase FLOW, for each
set, where FLOW stood before those events (its growth from 350 to 100 ms before the
event's first cut, and its window then over its window at its last cut). --traces takes
Linux's runs from traces/rerun/<point>_<STEM>_r*.cwnd.csv.gz alone (an experiment's, e.g. with a
receiver that ACKs every segment) and --set runs ccsim as that experiment (compare.py's
--set)."""

from __future__ import annotations

import argparse
import bisect
import csv
import gzip
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare  # noqa: E402
from testbed import reductions  # noqa: E402

WINDOW_S = 0.2


def cuts_of(rows_by_flow: dict[str, list[dict]], lo: float, hi: float) -> dict[str, list]:
    """Each flow's cuts in [lo, hi]: (time, window before)."""
    return {
        f: [(t, w) for t, w, _ in reductions(rows, lo, hi, WINDOW_S)]
        for f, rows in rows_by_flow.items()
    }


def events(cuts: dict[str, list]) -> list[frozenset]:
    """Group the cuts of all flows into events: the flows each event cuts."""
    return [frozenset(fs) for _, fs in event_times(cuts)]


def events_cutting_all(runs: list[dict[str, list[dict]]], lo: float, hi: float) -> float:
    """The share of the congestion events of *runs* that cut every flow."""
    evs = [ev for rows in runs for ev in events(cuts_of(rows, lo, hi))]
    n = max(len(rows) for rows in runs)
    return sum(len(ev) == n for ev in evs) / len(evs)


def linux_runs(point: str, rerun: bool, stem: str | None = None) -> list[dict[str, list[dict]]]:
    """Linux's traces of *point*: the reference's (with *rerun*, and traces/rerun/'s
    `rerun` runs), or with *stem* only traces/rerun/<point>_<stem>_r*."""
    rr = HERE / "traces" / "rerun"
    if stem:
        paths = sorted(rr.glob(f"{point}_{stem}_r*.cwnd.csv.gz"))
    else:
        paths = sorted((HERE / "traces").glob(f"{point}_r*.cwnd.csv.gz"))
        if rerun:
            paths += sorted(rr.glob(f"{point}_rerun_r*.cwnd.csv.gz"))
    if not paths:
        raise FileNotFoundError(f"no Linux traces of {point} ({stem or 'reference'})")
    names = flow_names(compare._point(point)["ccsim_flows"].split())
    runs = []
    for p in paths:
        rows: dict[str, list[dict]] = {}
        with gzip.open(p, "rt") as f:
            for r in csv.DictReader(f):
                row = {"t": float(r["t_s"]), "cwnd": int(r["cwnd"])}
                rows.setdefault(names[int(r["flow"])], []).append(row)
        runs.append(rows)
    return runs


def flow_names(ccs: list[str]) -> list[str]:
    """Each flow's name: its algorithm, numbered where two flows share one (reno0, reno1)."""
    seen: dict[str, int] = {}
    out = []
    for cc in ccs:
        out.append(cc if ccs.count(cc) == 1 else f"{cc}{seen.get(cc, 0)}")
        seen[cc] = seen.get(cc, 0) + 1
    return out


def ccsim_runs(point: str, seeds, overrides: dict | None = None) -> list[dict[str, list[dict]]]:
    import ccsim

    names = flow_names(compare._point(point)["ccsim_flows"].split())
    runs = []
    for seed in seeds:
        sets = {"seed": seed, **(overrides or {})}
        s = ccsim.run(compare.scenario_text(point), set=sets).series
        fl = s[(s.entity == "flow") & (s.metric == "cwnd_pkts")]
        rows: dict[str, list[dict]] = {}
        for i, fid in enumerate(sorted(fl["id"].unique(), key=int)):
            f = fl[fl["id"] == fid].sort_values("time")
            rows[names[i]] = [
                {"t": t, "cwnd": math.floor(w + 1e-9)} for t, w in zip(f.time, f.value, strict=True)
            ]
        runs.append(rows)
    return runs


def window_at(rows: list[dict], t: float) -> int:
    """The flow's window at *t*: its last sample at or before it."""
    i = bisect.bisect_right([r["t"] for r in rows], t) - 1
    return rows[max(i, 0)]["cwnd"]


def phase(runs: list[dict[str, list[dict]]], lo: float, hi: float, flow: str) -> dict:
    """For each set of flows an event cuts: *flow*'s growth in segments per 100 ms from
    350 to 100 ms before the event's first cut (before the overflow, which comes about a
    round trip before the cut shows), the share of events where it did not grow, and its
    window at 100 ms before over its window before its last cut."""
    out: dict[str, list[tuple[float, float]]] = {}
    for rows in runs:
        c = cuts_of(rows, lo, hi)
        cut_at = {t: w for t, w in c[flow]}
        last = None
        for t0, fs in event_times(c):
            a, b = t0 - 0.35, t0 - 0.1
            w = rows[flow]
            growth = (window_at(w, b) - window_at(w, a)) / 2.5
            rel = window_at(w, b) / last if last else math.nan
            out.setdefault("+".join(sorted(fs)), []).append((growth, rel))
            mine = [cut_at[t] for t in cut_at if 0 <= t - t0 < WINDOW_S]
            if mine:
                last = mine[0]

    def of_last_cut(v: list[tuple[float, float]]) -> float:
        rel = [r for _, r in v if not math.isnan(r)]
        return statistics.fmean(rel) if rel else math.nan

    return {
        k: {
            "events": len(v),
            "growth_per_100ms": statistics.fmean(g for g, _ in v),
            "flat": sum(g <= 0 for g, _ in v) / len(v),
            "of_last_cut": of_last_cut(v),
        }
        for k, v in sorted(out.items())
    }


def event_times(cuts: dict[str, list]) -> list[tuple[float, set]]:
    """events(), each with the time of its first cut."""
    out: list[tuple[float, set]] = []
    for t, f in sorted((t, f) for f, c in cuts.items() for t, _ in c):
        if out and t - out[-1][0] < WINDOW_S and f not in out[-1][1]:
            out[-1][1].add(f)
        else:
            out.append((t, {f}))
    return out


def report(label: str, runs: list[dict[str, list[dict]]], lo: float, hi: float) -> None:
    kinds: dict[str, int] = {}
    per: dict[str, list] = {}
    for rows in runs:
        c = cuts_of(rows, lo, hi)
        for ev in events(c):
            k = "+".join(sorted(ev))
            kinds[k] = kinds.get(k, 0) + 1
        for f, cs in c.items():
            per.setdefault(f, []).extend(cs)
    n = sum(kinds.values())
    shares = ", ".join(f"{k} {v / n:.3f}" for k, v in sorted(kinds.items()))
    print(f"{label}: {len(runs)} runs, {n} events; cut: {shares}")
    for f, cs in sorted(per.items()):
        w = statistics.fmean(w for _, w in cs) if cs else float("nan")
        print(f"  {f}: {len(cs) / len(runs):.1f} cuts a run, window before a cut {w:.1f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("point")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--rerun", action="store_true", help="add traces/rerun/'s runs to Linux's")
    ap.add_argument("--traces", metavar="STEM", help="Linux: traces/rerun/<point>_<STEM>_r* only")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a ccsim override, the value in TOML (repeatable)",
    )
    ap.add_argument("--phase", metavar="FLOW", help="where FLOW stood before each kind of event")
    a = ap.parse_args(argv)
    lin = compare._point(a.point)
    lo, hi = float(lin["warm_s"]), float(lin["dur_s"]) - 1.0
    over = compare.parse_sets(a.set)
    for label, runs in (
        ("Linux", linux_runs(a.point, a.rerun, a.traces)),
        ("ccsim", ccsim_runs(a.point, range(1, a.seeds + 1), over)),
    ):
        report(label, runs, lo, hi)
        if a.phase:
            for k, v in phase(runs, lo, hi, a.phase).items():
                print(
                    f"  before {k} events ({v['events']}): {a.phase} grew "
                    f"{v['growth_per_100ms']:.2f} segments per 100 ms, flat in {v['flat']:.2f}, "
                    f"at {v['of_last_cut']:.3f} of its window at its last cut"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
