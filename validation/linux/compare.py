"""ccsim's linux profile against the Linux testbed's tables (issue 15, item 4).

Runs each point's committed scenario (``scenarios/<point>.toml``) in ccsim with a few seeds,
flows started within 0-5 ms of each other (the testbed starts its iperf3 clients "within a few
ms"), samples every 20 ms (as the testbed's ``ss``/``tc`` sampler), and computes every metric
with testbed.py's own estimators (``drop_events``, ``reductions``) and window
([warm-up, duration - 1 s]).

    python validation/linux/compare.py [POINT ...] [--seeds 3] [--json out.json]

prints a markdown table: ccsim mean +- sd vs Linux mean +- sd, and pass/fail per tolerance
(TOLERANCES below: the issue's). `--unpaced` compares against unpaced_check.json with the
scenarios' pacing off; `--reference FILE[:KEY]` (repeatable, pooled) against `testbed.py
rerun` files (e.g. quickack_check.json and quickack_rerun.json, with `--set
tcp.delayed_ack=false` for their receiver that ACKs every segment); `--holdout` against
the held-out points (holdout.json, holdout_rerun.json, holdout2.json; with `--unpaced`,
holdout_unpaced.json), whose scenarios testbed.py writes; `--quiet` against every point's
runs made alone on the machine (QUIET_FILES, pooled).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from testbed import (  # noqa: E402  (the testbed's estimators)
    ack_timing,
    drop_events,
    pcap_bursts,
    pcap_tcp_headers,
    reductions,
)

# |ccsim mean - Linux mean| <= max(abs, rel * |Linux mean|)  (issue 15, item 4; the brief)
TOLERANCES = {
    "utilization": {"abs": 0.01, "rel": 0.0},
    "loss_rate": {"abs": 0.0, "rel": 0.25},
    "beta_mean": {"abs": 0.02, "rel": 0.0},
    "beta_cubic": {"abs": 0.02, "rel": 0.0},
    "beta_reno": {"abs": 0.02, "rel": 0.0},
    "epoch_mean_s": {"abs": 0.0, "rel": 0.25},
    "share_cubic": {"abs": 0.03, "rel": 0.0},
    "share_reno": {"abs": 0.03, "rel": 0.0},
    "share_bbr": {"abs": 0.03, "rel": 0.0},
}
# reported, not tested (no tolerance in the issue)
REPORTED = ["drops_per_event", "queue_mean_pkts", "jain"]

START_JITTER = '{ uniform = ["0s", "5ms"] }'
WIRE_BITS = 1500 * 8  # ccsim's scenarios: 1500-byte IP packets at rate x 1500/1514
WIRE_BITS_FRAME = 1514 * 8  # the testbed's BDP is in 1514-byte frames


def linux_summary() -> dict[str, dict[str, float | str]]:
    out = {}
    with open(HERE / "summary.csv") as f:
        for row in csv.DictReader(f):
            out[row["point"]] = row
    return out


def points() -> list[str]:
    return list(linux_summary())


def unpaced_summary() -> dict[str, dict[str, float | str]]:
    """The same points measured with Reno and CUBIC unpaced (`testbed.py run --default-cc
    reno`, unpaced_check.json, and unpaced_rerun.json's runs of four of them): per point,
    each metric's mean and sd over its runs, named as summary.csv names them
    ("utilization_mean", ...)."""
    runs = json.loads((HERE / "unpaced_check.json").read_text())["runs"]
    by_point: dict[str, list[dict]] = {}
    for name, row in runs.items():
        by_point.setdefault(name.rsplit("_r", 1)[0], []).append(row)
    # three more runs of four points (unpaced_rerun.json: `testbed.py rerun --default-cc reno`)
    more = json.loads((HERE / "unpaced_rerun.json").read_text())["points"]
    for point, v in more.items():
        by_point[point] += v["runs"]
    return _summarize(by_point)


# The paced runs made alone on the machine (testbed.py rerun, the reference's configuration
# with the delay hop's stalls short): the whole campaign twice (quiet_full.json), and the
# points measured again before it (quiet_rerun.json, mode_rerun.json).
QUIET_FILES = ("quiet_full.json", "quiet_rerun.json", "mode_rerun.json")


def quiet_summary() -> dict[str, dict[str, float | str]]:
    """Every point's quiet-host runs (QUIET_FILES) pooled, summarized as rerun_summary()."""
    return rerun_summary(*QUIET_FILES)


def rerun_summary(*files: str | tuple[str, str]) -> dict[str, dict[str, float | str]]:
    """`testbed.py rerun` files next to this script, each a name or (name, key) where its
    runs are not under "points", pooled per point and summarized as unpaced_summary() does
    (days of the same experiment: e.g. quickack_check.json and quickack_rerun.json)."""
    by_point: dict[str, list[dict]] = {}
    for f in files:
        name, key = (f, "points") if isinstance(f, str) else f
        for p, v in json.loads((HERE / name).read_text())[key].items():
            by_point.setdefault(p, []).extend(v["runs"])
    return _summarize(by_point)


def _summarize(by_point: dict[str, list[dict]]) -> dict[str, dict[str, float | str]]:
    out = {}
    for point, rows in by_point.items():
        ref = {"point": point, "runs": len(rows)}
        for m in list(TOLERANCES) + REPORTED:
            vals = [v for v in (_num(r.get(m)) for r in rows) if v is not None]
            if vals:
                ref[f"{m}_mean"] = statistics.fmean(vals)
                ref[f"{m}_sd"] = statistics.stdev(vals) if len(vals) > 1 else 0.0
        out[point] = ref
    return out


def holdout_summary() -> dict[str, dict[str, float | str]]:
    """The held-out points (holdout.json: one run each, at rates, RTTs and buffers the tables
    do not have, measured after the model was built; holdout_rerun.json: more runs of
    some; holdout2.json: five more points, two runs each, measured on 2026-12-05),
    summarized as unpaced_summary() does, with each point's testbed parameters."""
    first = json.loads((HERE / "holdout.json").read_text())["runs"]
    by_point = {p: [row] for p, row in first.items()}
    params = dict(first)
    more = json.loads((HERE / "holdout_rerun.json").read_text())["runs"]
    for name, row in more.items():
        by_point[name.rsplit("_rerun_r", 1)[0]].append(row)
    for name, row in json.loads((HERE / "holdout2.json").read_text())["runs"].items():
        p = name.rsplit("_r", 1)[0]
        by_point.setdefault(p, []).append(row)
        params.setdefault(p, row)
    out = _summarize(by_point)
    for p, row in params.items():
        out[p].update({k: row[k] for k in _PARAMS})
    return out


def holdout_unpaced_summary() -> dict[str, dict[str, float | str]]:
    """The held-out points but BBR alone measured with Reno and CUBIC unpaced
    (holdout_unpaced.json, two runs each, 2026-12-05), summarized as holdout_summary()."""
    params = holdout_summary()
    by_point: dict[str, list[dict]] = {}
    for name, row in json.loads((HERE / "holdout_unpaced.json").read_text())["runs"].items():
        by_point.setdefault(name.rsplit("_r", 1)[0], []).append(row)
    out = _summarize(by_point)
    for p in out:
        out[p].update({k: params[p][k] for k in _PARAMS})
    return out


# the testbed's parameters of a point that run_point and scenario_text need
_PARAMS = (
    "rate_mbit",
    "rtt_ms",
    "buf_pkts",
    "dur_s",
    "warm_s",
    "cc_mix",
    "ccsim_rate_bps",
    "ccsim_flows",
)


def _point(point: str) -> dict:
    """A point's row: summary.csv's, or a held-out point's (holdout_summary)."""
    table = linux_summary()
    return table[point] if point in table else holdout_summary()[point]


def _num(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def scenario_text(point: str, jitter: bool = True) -> str:
    path = HERE / "scenarios" / f"{point}.toml"
    if path.exists():
        text = path.read_text()
    else:  # a held-out point: the scenario testbed.py writes for it
        from testbed import scenario_toml

        row = holdout_summary()[point]
        bdp = float(row["rate_mbit"]) * 1e6 * float(row["rtt_ms"]) / 1e3 / WIRE_BITS_FRAME
        a = {k: row[k] if k in ("cc_mix", "ccsim_flows") else _num(row[k]) for k in _PARAMS}
        a.update(point=point, buf_bdp=round(float(row["buf_pkts"]) / bdp, 2))
        a.update({k: int(a[k]) for k in ("buf_pkts", "dur_s", "warm_s")})
        text = scenario_toml(a)
    if jitter:
        text = re.sub(r'^start = "0s"', f"start = {START_JITTER}", text, flags=re.M)
    return text


def run_point(point: str, seed: int, overrides: dict | None = None, jitter: bool = True) -> dict:
    """One ccsim run of *point*: the testbed's per-run metrics (analyze_run's names)."""
    import ccsim

    lin = _point(point)
    rate_bps = float(lin["ccsim_rate_bps"]) * 1500 / 1514  # the scenarios' bottleneck_rate
    rtt_s = float(lin["rtt_ms"]) / 1e3
    buf = int(lin["buf_pkts"])
    dur, warm = float(lin["dur_s"]), float(lin["warm_s"])
    ccs = lin["ccsim_flows"].split()
    sets = {"seed": seed, "sample_interval": "20ms"}
    sets.update(overrides or {})
    run = ccsim.run(scenario_text(point, jitter), set=sets)
    s = run.series
    lo, hi = warm, dur - 1.0
    links = s[s.entity == "link"]
    # the bottleneck's forward direction: the monitored link that carries the flows (the only
    # one with a per-flow series, jain_rtt); its reverse (ACKs) is the other
    fwd = links[links.metric == "jain_rtt"]["id"].unique()
    link = links[links["id"] == fwd[0]]
    # -- queue: utilization, drops (cumulative, as tc's counter), backlog
    util = link[link.metric == "utilization"].sort_values("time")
    win = util[(util.time > lo) & (util.time <= hi)]
    T = hi - lo
    utilization = float(win.value.mean())
    sent_p = utilization * rate_bps * T / WIRE_BITS
    dr = link[link.metric == "drops"].sort_values("time")
    cum = dr.value.cumsum().to_numpy()
    tc_rows = [(t, 0, 0, c, 0, 0) for t, c in zip(dr.time.to_numpy(), cum, strict=True)]
    drops = float(dr[(dr.time > lo) & (dr.time <= hi)].value.sum())
    gap = 2 * (rtt_s + buf * WIRE_BITS / rate_bps)
    ev = drop_events(tc_rows, lo, hi, gap)
    q = link[(link.metric == "queue_pkts") & (link.time >= lo) & (link.time <= hi)].value
    row = {
        "utilization": utilization,
        "loss_rate": drops / (sent_p + drops) if sent_p + drops else 0.0,
        "drops_per_event": drops / len(ev) if ev else 0.0,
        "queue_mean_pkts": float(q.mean()),
    }
    # -- flows: shares of goodput over the window, window reductions
    fl = s[s.entity == "flow"]
    ids = sorted(fl["id"].unique(), key=lambda x: int(x))
    thr, per = [], {}
    epochs, betas = [], []
    for i, fid in zip(range(len(ccs)), ids, strict=True):
        f = fl[fl["id"] == fid]
        tp = f[(f.metric == "throughput_bps") & (f.time > lo) & (f.time <= hi)].value
        thr.append(float(tp.mean()))
        if ccs[i] not in ("cubic", "reno"):
            continue
        cw = f[f.metric == "cwnd_pkts"].sort_values("time")
        st = f[f.metric == "ssthresh_pkts"].set_index("time").value
        # ss reports snd_cwnd, whole segments; ccsim's cwnd carries the fraction that is
        # Linux's snd_cwnd_cnt: read it as ss would.
        rows = [
            {"t": t, "cwnd": math.floor(c + 1e-9), "ssthresh": float(st.get(t, 0.0))}
            for t, c in zip(cw.time.to_numpy(), cw.value.to_numpy(), strict=True)
        ]
        red = reductions(rows, lo, hi, max(0.2, 3 * rtt_s))
        b_ = [st_ / c for _, c, st_ in red if c]
        e_ = [red[k + 1][0] - red[k][0] for k in range(len(red) - 1)]
        betas += b_
        epochs += e_
        per.setdefault(ccs[i], ([], []))
        per[ccs[i]][0].extend(b_)
        per[ccs[i]][1].extend(e_)
    tot = sum(thr)
    row["jain"] = tot**2 / (len(thr) * sum(x * x for x in thr)) if tot else float("nan")
    for c in sorted(set(ccs), key=ccs.index):
        mine = sum(x for x, k in zip(thr, ccs, strict=True) if k == c)
        row[f"share_{c}"] = mine / tot if tot else float("nan")
    if len(per) > 1:
        for c, (b_, e_) in per.items():
            row[f"beta_{c}"] = statistics.fmean(b_) if b_ else float("nan")
            row[f"epoch_{c}_s"] = statistics.fmean(e_) if e_ else float("nan")
    row["epoch_mean_s"] = statistics.fmean(epochs) if epochs else float("nan")
    row["beta_mean"] = statistics.fmean(betas) if betas else float("nan")
    row["reductions"] = len(betas)
    return row


def ccsim_bursts(
    point: str, seed: int, start: float, secs: float, overrides: dict | None = None
) -> dict[str, dict]:
    """Each flow's burst sizes (pcap_bursts: segments under 60 µs apart) where it enters the
    bottleneck router (its access link, Linux's r0), over [start, start + secs] of a run of
    *point* (with *overrides*): {cc: {size: count}}, as testbed.py's capture_bursts counts
    them."""
    import ccsim

    ccs = linux_summary()[point]["ccsim_flows"].split()
    links = [f"flow{i}.src_up" for i in range(len(ccs))]
    text = scenario_text(point) + f"\n[output]\npcap = {links!r}\n".replace("'", '"')
    sets = {"seed": seed, "duration": f"{start + secs}s", "warmup": "0s"}
    run = ccsim.run(text, set={**sets, **(overrides or {})})
    out: dict[str, dict] = {}
    for cc, link in zip(ccs, links, strict=True):
        hist: dict[int, int] = {}
        for h in pcap_bursts(run.pcap[link], t_from=start).values():
            for k, c in h.items():
                hist[k] = hist.get(k, 0) + c
        out[cc] = hist
    return out


def ccsim_acks(
    point: str,
    seed: int,
    start: float,
    secs: float,
    overrides: dict | None = None,
    reads: bool = True,
) -> dict[str, dict]:
    """Per flow of *point* (with *overrides*; *reads* False: without the scenario's
    `read_latency`, ACKs as data arrives) over [start, start + secs]: the share of its
    data segments that carry PSH, the segments each ACK newly acknowledges (0 for a
    duplicate) as shares, and the share of one-segment ACKs that acknowledge a PSH
    segment, as testbed.py's capture_drops counts them (drop_capture.json)."""
    import struct

    import ccsim

    ccs = linux_summary()[point]["ccsim_flows"].split()
    links = [f"flow{i}.src_{d}" for i in range(len(ccs)) for d in ("up", "down")]
    text = scenario_text(point)
    if not reads:
        text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("read_latency"))
    text += f"\n[output]\npcap = {links!r}\n".replace("'", '"')
    sets = {"seed": seed, "duration": f"{start + secs}s", "warmup": "0s"}
    run = ccsim.run(text, set={**sets, **(overrides or {})})
    mss = 1448
    out: dict[str, dict] = {}
    for i, cc in enumerate(ccs):
        psh: dict[int, bool] = {}
        for t, tcp, payload in pcap_tcp_headers(run.pcap[f"flow{i}.src_up"]):
            if payload > 0 and t >= start:
                psh[struct.unpack(">I", tcp[4:8])[0] + payload] = bool(tcp[13] & 0x08)
        sizes: dict[int, int] = {}
        single = [0, 0]
        prev = None
        for t, tcp, payload in pcap_tcp_headers(run.pcap[f"flow{i}.src_down"]):
            if payload:
                continue
            ack = struct.unpack(">I", tcp[8:12])[0]
            if prev is not None and t >= start:
                k = round((ack - prev) / mss)
                sizes[k] = sizes.get(k, 0) + 1
                if k == 1:
                    single[0] += 1
                    single[1] += psh.get(ack, False)
            prev = ack
        n = sum(sizes.values())
        out[cc] = {
            "psh_share_of_segments": sum(psh.values()) / max(len(psh), 1),
            "ack_sizes": {str(k): v / n for k, v in sorted(sizes.items())},
            "one_segment_acks_of_a_psh_segment": single[1] / single[0] if single[0] else None,
        }
    return out


def ccsim_ack_timing(
    point: str, seed: int, start: float, secs: float, overrides: dict | None = None
) -> dict:
    """testbed.ack_timing of a run of *point* (with *overrides*) over [start, start + secs]:
    its data segments where the bottleneck starts to send them (the testbed's r1 sees HTB
    release them) and its ACKs where they leave the reverse bottleneck's wire, at the
    senders' access links (r1 sees them after the delay hop)."""
    import ccsim

    n = len(_point(point)["ccsim_flows"].split())
    downs = [f"flow{i}.src_down" for i in range(n)]
    pcaps = ["bottleneck", *downs]
    text = scenario_text(point) + f"\n[output]\npcap = {pcaps!r}\n".replace("'", '"')
    sets = {"seed": seed, "duration": f"{start + secs}s", "warmup": "0s"}
    run = ccsim.run(text, set={**sets, **(overrides or {})})
    return ack_timing(run.pcap["bottleneck"], [run.pcap[d] for d in downs], start, start + secs)


_UNITS = {
    "s": 1.0,
    "ms": 1e-3,
    "us": 1e-6,
    "ns": 1e-9,
    "bps": 1.0,
    "kbps": 1e3,
    "Mbps": 1e6,
    "Gbps": 1e9,
}


def _quantity(text: str) -> float:
    """A scenario's time or rate ("0.5ms", "1Gbps") in seconds or bits/s."""
    m = re.fullmatch(r"([0-9.]+)\s*([a-zA-Z]+)", text.strip())
    if not m or m.group(2) not in _UNITS:
        raise ValueError(f"not a time or rate ccsim's scenarios write: {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def _topology_value(text: str, key: str) -> str:
    """A quoted value of the scenario text's *key* (e.g. access_delay)."""
    m = re.search(rf'^{key} = "([^"]+)"', text, re.M)
    if not m:
        raise ValueError(f"the scenario has no {key}")
    return m.group(1)


def ccsim_full_loop(
    point: str, seed: int, start: float, secs: float, overrides: dict | None = None
) -> dict:
    """testbed.full_loop of a run of *point* (with *overrides*) over [start, start +
    secs]: departures where the bottleneck starts to send them (r1), ACKs where they leave
    the router for the senders' access links, and each sender's segments where they reach
    the router (an access hop and their serialization after they leave): the senders'
    round trip from the router, two access hops, is the ACKs' *turn*."""
    import struct

    import testbed

    import ccsim

    n = len(_point(point)["ccsim_flows"].split())
    links = [f"flow{i}.src_{d}" for i in range(n) for d in ("up", "down")]
    text = scenario_text(point) + f"\n[output]\npcap = {['bottleneck', *links]!r}\n"
    sets = {"seed": seed, "duration": f"{start + secs}s", "warmup": "0s", **(overrides or {})}
    run = ccsim.run(text.replace("'", '"'), set=sets)
    access = _quantity(sets.get("topology.access_delay") or _topology_value(text, "access_delay"))
    rate = _quantity(sets.get("topology.access_rate") or _topology_value(text, "access_rate"))
    dep, again = {}, set()
    for t, port, seq, _, payload in testbed.pcap_packets(run.pcap["bottleneck"]):
        if payload > 0:
            again.update({(port, seq + payload)} & dep.keys())
            dep.setdefault((port, seq + payload), t)
    for key in again:  # sent more than once, as testbed_full_loop leaves out
        del dep[key]
    arrivals = {
        10000 + i: [
            t + access + ip_len * 8 / rate
            for t, _, _, ip_len, payload in testbed.pcap_packets(run.pcap[f"flow{i}.src_up"])
            if payload > 0
        ]
        for i in range(n)
    }
    acks = sorted(
        (t, 10000 + i, struct.unpack(">I", tcp[8:12])[0], testbed._has_sack(tcp))
        for i in range(n)
        for t, tcp, payload in testbed.pcap_tcp_headers(run.pcap[f"flow{i}.src_down"])
        if payload == 0
    )
    return testbed.full_loop(dep, acks, arrivals, 2 * access, start, start + secs)


def metrics_of(point: str, reference: dict | None = None) -> list[str]:
    """The metrics with a tolerance that the Linux table (or *reference*) has for *point*."""
    lin = (reference or linux_summary())[point]
    return [m for m in TOLERANCES if _num(lin.get(f"{m}_mean")) is not None]


def tolerance(metric: str, linux_mean: float) -> float:
    """The issue's tolerance for *metric* around Linux's mean: max(abs, rel x |mean|)."""
    return max(TOLERANCES[metric]["abs"], TOLERANCES[metric]["rel"] * abs(linux_mean))


# The tests' precision rule: ccsim's mean for a point is taken over seeds 1..n, where n
# grows from the given seeds until every compared metric's standard error across seeds is
# at most SE_PER_TOL of its tolerance, or MAX_SEEDS. Its trajectories are chaotic: a
# change of 0.03 % in CUBIC's beta reorders a run's congestion events, and at ten seeds
# a share's standard error (sd 0.03-0.04) is a third of its 0.03 tolerance, so a mean at
# the tolerance's edge passed or failed by the seeds' luck. The rule looks only at the
# spread, never at the verdict.
SE_PER_TOL = 0.25
MAX_SEEDS = 40


def seeds_for(values: list[float], tol: float) -> int:
    """The seeds at which *values*' spread gives a mean whose standard error is
    SE_PER_TOL of *tol* (0 when that cannot be read: fewer than two values, no tolerance)."""
    if len(values) < 2 or tol <= 0:
        return 0
    return math.ceil((statistics.stdev(values) / (SE_PER_TOL * tol)) ** 2)


def _seeds_needed(runs: list[dict], lin: dict) -> int:
    """The seeds the precision rule asks for a point, from the spread of its *runs*."""
    need = len(runs)
    for m in TOLERANCES:
        lm = _num(lin.get(f"{m}_mean"))
        if lm is not None:
            vals = [r[m] for r in runs if m in r and not math.isnan(r[m])]
            need = max(need, seeds_for(vals, tolerance(m, lm)))
    return need


def precise(sample, tol: float, first: int = 10) -> dict[str, list[float]]:
    """The precision rule for a statistic of one's own: *sample*(seed) -> {name: value}
    over seeds 1..n, n from *first* until each name's standard error is at most SE_PER_TOL
    of *tol* (MAX_SEEDS at most); the values by name."""
    rows = [sample(s) for s in range(1, first + 1)]
    while len(rows) < MAX_SEEDS:
        need = max([len(rows)] + [seeds_for([r[k] for r in rows], tol) for k in rows[0]])
        need = min(need, MAX_SEEDS)
        if need <= len(rows):
            break
        rows += [sample(s) for s in range(len(rows) + 1, need + 1)]
    return {k: [r[k] for r in rows] for k in rows[0]}


def compare_point(
    point: str,
    seeds=(1, 2, 3),
    overrides=None,
    jitter=True,
    reference: dict | None = None,
    max_seeds: int | None = None,
) -> dict:
    """ccsim's mean over *seeds* against Linux's mean for each metric of *point*: the
    reference tables (summary.csv), or *reference* (e.g. unpaced_summary()). With
    *max_seeds*, more seeds follow *seeds* as the precision rule asks, up to that many."""
    lin = (reference or linux_summary())[point]
    runs = [run_point(point, s, overrides, jitter) for s in seeds]
    while max_seeds and len(runs) < max_seeds:
        need = min(_seeds_needed(runs, lin), max_seeds)
        if need <= len(runs):
            break
        nxt = max(seeds) + 1 + len(runs) - len(seeds)
        runs += [run_point(point, s, overrides, jitter) for s in range(nxt, nxt + need - len(runs))]
    out = {"point": point, "seeds": len(runs), "metrics": {}}
    for m in list(TOLERANCES) + REPORTED:
        lm = _num(lin.get(f"{m}_mean"))
        if lm is None:
            continue
        vals = [r[m] for r in runs if m in r and not math.isnan(r[m])]
        if not vals:
            continue
        sm = statistics.fmean(vals)
        ssd = statistics.stdev(vals) if len(vals) > 1 else 0.0
        lsd = _num(lin.get(f"{m}_sd")) or 0.0
        entry = {"ccsim": sm, "ccsim_sd": ssd, "linux": lm, "linux_sd": lsd}
        if m in TOLERANCES:
            tol = tolerance(m, lm)
            entry["tol"] = tol
            entry["pass"] = abs(sm - lm) <= tol
        out["metrics"][m] = entry
    return out


def fmt(m: str, v: float) -> str:
    if m == "loss_rate":
        return f"{v * 100:.3f}%"
    if m in ("epoch_mean_s", "queue_mean_pkts", "drops_per_event"):
        return f"{v:.2f}"
    return f"{v:.3f}"


def table(results: list[dict]) -> str:
    lines = ["| point | metric | ccsim | Linux | tol | |", "|---|---|---|---|---|---|"]
    for r in results:
        for m, e in r["metrics"].items():
            ok = "" if "pass" not in e else ("pass" if e["pass"] else "**FAIL**")
            tol = fmt(m, e["tol"]) if "tol" in e else ""
            lines.append(
                f"| {r['point']} | {m} | {fmt(m, e['ccsim'])} ± {fmt(m, e['ccsim_sd'])} | "
                f"{fmt(m, e['linux'])} ± {fmt(m, e['linux_sd'])} | {tol} | {ok} |"
            )
    return "\n".join(lines)


def _toml_value(text: str):
    """`--set` values are TOML (`6`, `false`, `"20pkt"`); a bare word stays a string."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_sets(items: list[str]) -> dict:
    """`--set KEY=VALUE` arguments as ccsim overrides (values as _toml_value reads them)."""
    return {k: _toml_value(v) for k, v in (kv.split("=", 1) for kv in items)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("points", nargs="*")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument(
        "--precise",
        action="store_true",
        help=f"add seeds as the tests' precision rule asks (standard error <= "
        f"{SE_PER_TOL} of each tolerance, at most {MAX_SEEDS} seeds)",
    )
    ap.add_argument("--set", action="append", default=[], help="override KEY=VALUE (TOML value)")
    ap.add_argument("--no-jitter", action="store_true")
    ap.add_argument(
        "--unpaced",
        action="store_true",
        help="against unpaced_check.json, with the scenarios' pacing off (tcp.pacing none)",
    )
    ap.add_argument(
        "--reference",
        action="append",
        help="against `testbed.py rerun` files next to this script, pooled (repeatable; "
        "FILE or FILE:KEY for runs not under 'points', e.g. quickack_check.json:unpaced_points)",
    )
    ap.add_argument(
        "--holdout",
        action="store_true",
        help="the held-out points (holdout.json, holdout_rerun.json, holdout2.json; with "
        "--unpaced holdout_unpaced.json)",
    )
    ap.add_argument(
        "--quiet",
        action="store_true",
        help="against the quiet-host runs (quiet_full.json, quiet_rerun.json, mode_rerun.json)",
    )
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    ov = parse_sets(a.set)
    ref = None
    if a.unpaced:
        ref = unpaced_summary()
        ov = {"tcp.pacing": "none", **ov}
    if a.reference:
        ref = rerun_summary(*(tuple(f.split(":", 1)) if ":" in f else f for f in a.reference))
    if a.holdout:
        ref = holdout_unpaced_summary() if a.unpaced else holdout_summary()
    if a.quiet:
        ref = quiet_summary()
    res = []
    for p in a.points or (list(ref) if ref else points()):
        r = compare_point(
            p,
            tuple(range(1, a.seeds + 1)),
            ov,
            not a.no_jitter,
            ref,
            MAX_SEEDS if a.precise else None,
        )
        res.append(r)
        print(table([r]).split("\n", 2)[2], flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
