"""Study 001: Aggarwal, Savage, Anderson, *Understanding the Performance of TCP Pacing*.

The packet engine: TCP Reno against Paced Reno (``tcp.pacing = "leaky"``: one packet
per RTT/cwnd, §3.1) on the dumbbell of §4 (40 ms bottleneck, 5 ms side links at 4× the
bottleneck rate, MSS 576 B on the wire, drop-tail). Figures 3-4 (one flow, BDP/4
buffer: cumulative throughput and window against time) and 6-8 (50 flows at 57 Mb/s:
cumulative aggregate throughput, fairness and aggregate window against time). Figures
4, 7 and 8 are drawn from the runs of Figures 3 and 6 (same scenarios).

Also Figure 5 (one flow lasting one sawtooth: throughput difference against the BDP),
Figures 9-11 (two RTTs), 12-13 (closed-loop finite flows), 14-15 (mixed paced and
non-paced flows) and 16 (RED). Figures 5 and 15 run one sweep per bandwidth or flow
size (the rate and duration, or both groups' size, set together from here).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ccsim import plots
from ccsim.reproduce import Claim, Context, FigureResult, fmt, log_x, markdown_table, run_sweep

WIRE = 576.0  # bytes per packet on the wire (MSS 536 B + 40 B header)
MSS = 536.0
RATE = 57e6  # bottleneck, b/s
RTT = 0.1  # two-way propagation, s
BDP = RATE * RTT / (8 * WIRE)  # 1237 packets
BUFFER = int(0.25 * BDP)  # ccsim's rule rounds down: 309 packets
LABEL = {"none": "Reno", "leaky": "Paced Reno"}


def _plt():
    import matplotlib.pyplot as plt

    return plt


def _flow_series(run, metric: str) -> pd.DataFrame:
    """One column per flow, one row per sample time."""
    s = run.series
    s = s[(s["entity"] == "flow") & (s["metric"] == metric)]
    return s.pivot_table(index="time", columns="id", values="value", observed=True).sort_index()


def _cumulative(run) -> tuple[np.ndarray, np.ndarray]:
    """(times, per-flow bytes delivered up to each time) from the goodput series."""
    th = _flow_series(run, "throughput_bps").fillna(0.0)
    t = th.index.to_numpy(dtype=float)
    dt = np.diff(np.concatenate([[0.0], t]))
    return t, (th.to_numpy() * dt[:, None]).cumsum(axis=0) / 8.0


def _at(t: np.ndarray, y: np.ndarray, when: float) -> float:
    i = int(np.searchsorted(t, when, side="right")) - 1
    return float(y[max(i, 0)])


def _runs_by_pacing(ctx: Context, figure: str, quick: dict | None):
    sw, runs = ctx.sweep(figure, quick=quick)
    runs = runs.assign(pacing=runs["flows[0].tcp.pacing"].astype(str))
    return sw, runs


# ------------------------------------------------------------------ Figures 3-4

QUICK_1 = {"seeds": 1}


def _single(ctx: Context):
    sw, runs = _runs_by_pacing(ctx, "fig3", QUICK_1)
    out = {}
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        t, cum = _cumulative(run)
        cw = _flow_series(run, "cwnd_pkts")[0]
        ss = _flow_series(run, "ssthresh_pkts")[0]
        f = run.flows.iloc[0]
        out[row["pacing"]] = {
            "t": t,
            "cum_tput": cum[:, 0] * 8 / np.maximum(t, 1e-9),
            "cwnd_t": cw.index.to_numpy(dtype=float),
            "cwnd": cw.to_numpy(dtype=float),
            # the ssthresh of the last window reduction: the bottom of the sawtooth
            "ssthresh_final": float(ss.iloc[-1]),
            "cwnd_first_drop": float(f["cwnd_at_first_drop"]),
            "flight_first_drop": float(f["flight_at_first_drop"]),
            "timeouts": int(f["timeouts"]),
            "losses": int(f["losses"]),
            "goodput": float(f["goodput_bps"]),
        }
    return out


def fig3(ctx: Context) -> FigureResult:
    d = _single(ctx)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, v in d.items():
            ax.plot(v["t"], v["cum_tput"] / 1e6, label=LABEL[p])
        ax.axhline(RATE * MSS / WIRE / 1e6, color="grey", lw=0.8, ls=":")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cumulative throughput (Mb/s)")
        ax.set_title(f"Fig. 3: one flow, 57 Mb/s, buffer {BUFFER} pkts (BDP/4)")
        ax.legend()
        path = ctx.out / "fig3.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig3", "one flow, BDP/4 buffer: cumulative throughput", [path.name])
    r, p = d["none"], d["leaky"]
    early = [1.5, 2.0, 3.0, 5.0, 10.0]
    ahead = {w: (_at(p["t"], p["cum_tput"], w), _at(r["t"], r["cum_tput"], w)) for w in early}
    # steady state: from the time both flows have reached the link rate (Figure 4's
    # ramp) to the end of the run; the sawtooth's bottom is half of BDP + B
    since = max(_ramp(r), _ramp(p))
    steady = {k: _goodput_between(v, since, float(v["t"][-1])) for k, v in d.items()}
    bottom = (BDP + BUFFER) / 2
    res.claims += [
        Claim(
            "paced_ahead_early",
            "in the initial period pacing achieves much better (cumulative) throughput than Reno",
            "figure: paced well above Reno early",
            ", ".join(
                f"{w:g} s: {a / 1e6:.1f} vs {b / 1e6:.1f} Mb/s" for w, (a, b) in ahead.items()
            ),
            all(a > 1.3 * b for a, b in ahead.values()),
            "paced > 1.3 × Reno at 1.5, 2, 3, 5 and 10 s",
        ),
        Claim(
            "reno_first_loss_2b",
            "Reno's first loss comes when its window reaches about twice the buffer",
            f"≈ 2 × buffer = {2 * BUFFER} pkts",
            f"cwnd {r['cwnd_first_drop']:.0f} pkts = {r['cwnd_first_drop'] / BUFFER:.2f} × buffer",
            2 * BUFFER <= r["cwnd_first_drop"] <= 3 * BUFFER,
            "2B ≤ cwnd at the first drop ≤ 3B (slow start doubles from a window "
            "W/2 ∈ (B, 2B] whose burst just fit; the drop comes B packets into the next)",
        ),
        Claim(
            "paced_first_loss_pipe",
            "Paced Reno gets a loss only after it saturates the pipe",
            f"≈ BDP + buffer = {BDP + BUFFER:.0f} pkts",
            f"packets in flight {p['flight_first_drop']:.0f} (cwnd {p['cwnd_first_drop']:.0f})",
            abs(p["flight_first_drop"] / (BDP + BUFFER) - 1) < 0.1,
            "flight at the first drop within 10 % of BDP + B",
        ),
        Claim(
            "steady_state_similar",
            "in steady state both show the same sawtooth and similar throughput",
            "similar in steady state",
            f"goodput from {_fmt_t(since)} (both at the link rate) to {r['t'][-1]:.0f} s: "
            f"paced {steady['leaky'] / 1e6:.1f}, Reno {steady['none'] / 1e6:.1f} Mb/s; "
            f"last ssthresh paced {p['ssthresh_final']:.0f}, Reno {r['ssthresh_final']:.0f} "
            f"pkts ((BDP + B) / 2 = {bottom:.0f})",
            np.isfinite(since)
            and abs(steady["leaky"] / steady["none"] - 1) < 0.05
            and all(abs(v["ssthresh_final"] / bottom - 1) < 0.1 for v in (r, p)),
            "goodput after both reach 90 % of the link within 5 % of each other, and both "
            "flows' last ssthresh within 10 % of (BDP + B) / 2 (the sawtooth halves a "
            "full pipe and buffer)",
        ),
    ]
    res.values = {
        "buffer_pkts": BUFFER,
        "bdp_pkts": BDP,
        "reno": {k: v for k, v in r.items() if np.isscalar(v)},
        "paced": {k: v for k, v in p.items() if np.isscalar(v)},
        "cum_tput_early": {str(w): {"paced": a, "reno": b} for w, (a, b) in ahead.items()},
        "steady_since_s": since,
        "steady_goodput_bps": {"paced": steady["leaky"], "reno": steady["none"]},
    }
    return res


def fig4(ctx: Context) -> FigureResult:
    d = _single(ctx)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, v in d.items():
            ax.plot(v["cwnd_t"], v["cwnd"], label=LABEL[p], lw=0.8)
        ax.axhline(BDP + BUFFER, color="grey", lw=0.8, ls=":", label="BDP + buffer")
        ax.axhline(2 * BUFFER, color="grey", lw=0.8, ls="--", label="2 × buffer")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (packets)")
        ax.set_ylim(0, 1.3 * (BDP + BUFFER))
        ax.set_title("Fig. 4: window of one flow, BDP/4 buffer")
        ax.legend()
        path = ctx.out / "fig4.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig4", "one flow, BDP/4 buffer: window against time", [path.name])
    r, p = d["none"], d["leaky"]
    tr, tp = _ramp(r), _ramp(p)
    res.claims += [
        Claim(
            "reno_slow_ramp",
            "Reno falls out of slow start early and takes a long time in congestion "
            "avoidance to ramp up to the bottleneck bandwidth",
            "words (Figure 4)",
            f"first 1-s goodput ≥ 90 % of the link after 2 s: Reno at {_fmt_t(tr)}",
            tr > 10.0,
            "Reno needs more than 10 s (one packet per RTT from a small window)",
        ),
        Claim(
            "paced_fast_ramp",
            "Paced Reno, losing only once the pipe is full, reaches the bottleneck "
            "rate much sooner than Reno",
            "words (Figures 3-4)",
            f"Paced Reno at {_fmt_t(tp)}, Reno at {_fmt_t(tr)}",
            tp < tr / 2,
            "paced ramp time < half of Reno's",
        ),
    ]
    res.values = {"ramp_s": {"reno": tr, "paced": tp}}
    return res


def _ramp(v: dict, frac: float = 0.9, after: float = 2.0) -> float:
    """First time after *after* at which the goodput over the past second reaches
    *frac* of the link's payload rate; inf if never (within the run)."""
    t, cum = v["t"], v["cum_tput"] * v["t"] / 8  # bytes delivered
    target = frac * RATE * MSS / WIRE / 8
    for i in np.where(t >= after + 1.0)[0]:
        j = int(np.searchsorted(t, t[i] - 1.0))
        if (cum[i] - cum[j]) / (t[i] - t[j]) >= target:
            return float(t[i])
    return float("inf")


def _goodput_between(v: dict, a: float, b: float) -> float:
    """Payload b/s delivered over (a, b] (NaN if a is not finite)."""
    if not np.isfinite(a):
        return float("nan")
    t, cum = v["t"], v["cum_tput"] * v["t"] / 8  # bytes delivered
    return float((_at(t, cum, b) - _at(t, cum, a)) * 8 / (b - a))


def _fmt_t(x: float) -> str:
    return "never (in the run)" if not np.isfinite(x) else f"{x:.1f} s"


def _point_sweep(ctx: Context, figure: str, tag: str, overrides: dict, quick: dict | None = None):
    """The sweep of ``<figure>.toml`` with *overrides* for every run (one point of a
    dimension the scenario's grid cannot express: a bandwidth with its duration, or one
    size for two flow groups), scaled down by *quick* in quick mode, into
    ``runs/<figure>-<tag>-<mode>``. Returns ``(Sweep, runs)``."""
    q = dict(quick or {}) if ctx.quick else {}
    mode = "quick" if ctx.quick else "full"
    sw, runs = run_sweep(
        ctx.scenario(figure),
        ctx.out / "runs" / f"{figure}-{tag}-{mode}",
        grid=q.get("grid"),
        seeds=q.get("seeds"),
        set={**q.get("set", {}), **overrides},
        workers=ctx.workers,
        progress=ctx.progress,
    )
    ctx._runs += len(runs)
    ctx._reused += sw.skipped
    return sw, runs


# ------------------------------------------------------------------ Figure 5

FIG5_MBPS = [5, 10, 20, 57, 100, 200]  # bottleneck rates: BDP 109 to 4340 packets
FIG5_MBPS_QUICK = [5, 10, 20]
FIG5_SMALL = [0.1, 0.25]  # "limited buffers" (below BDP/2)
FIG5_LARGE = [0.5, 1.0]  # "half the BDP" and beyond


def t_cycle(rate_bps: float) -> float:
    """Footnote 1: the duration of one sawtooth, T_cycle = RTT² · BW / packet_size (s),
    packet_size the 576 B packet on the wire (= RTT · BDP in packets)."""
    return RTT**2 * rate_bps / (8 * WIRE)


def _fig5_runs(ctx: Context) -> pd.DataFrame:
    """One row per (bandwidth, buffer, pacing): the flow's throughput over T_cycle and
    what its losses did to it."""
    rows = []
    for mbps in FIG5_MBPS_QUICK if ctx.quick else FIG5_MBPS:
        rate = mbps * 1e6
        dur = t_cycle(rate)
        sw, runs = _point_sweep(
            ctx,
            "fig5",
            f"{mbps:g}mbps",
            {
                "topology.bottleneck_rate": f"{mbps:g}Mbps",
                "topology.access_rate": f"{4 * mbps:g}Mbps",
                "duration": f"{dur:.3f}s",
            },
        )
        for _, row in runs.iterrows():
            run = sw.load(row["run_id"])
            f = run.flows.iloc[0]
            tput = float(f["bytes_delivered"]) * 8 / dur
            # the lowest ssthresh the flow's reductions set: where its congestion
            # avoidance started from, at worst
            ss = _flow_series(run, "ssthresh_pkts")[0]
            rows.append(
                {
                    "mbps": float(mbps),
                    "bdp": float(run.summary["bdp_pkts"]),
                    "buffer": float(str(row["topology.buffer"]).removesuffix("bdp")),
                    "pacing": str(row["flows[0].tcp.pacing"]),
                    "t_cycle": dur,
                    "tput_bps": tput,
                    "frac": tput / (rate * MSS / WIRE),
                    "losses": int(f["losses"]),
                    "timeouts": int(f["timeouts"]),
                    "fast_retransmits": int(f["fast_retransmits"]),
                    "ssthresh_min": float(ss.min()),
                }
            )
    return pd.DataFrame(rows)


def fig5(ctx: Context) -> FigureResult:
    d = _fig5_runs(ctx)
    w = d.pivot_table(index=["mbps", "bdp", "buffer"], columns="pacing", values="frac")
    w = w.reset_index()
    w["diff"] = w["leaky"] - w["none"]
    w["diff_mbps"] = w["diff"] * w["mbps"] * MSS / WIRE  # the link's payload rate × diff
    by = d.set_index(["mbps", "buffer", "pacing"])
    w["timeouts"] = [
        " / ".join(f"{by.loc[(r.mbps, r.buffer, p), 'timeouts']:d}" for p in ("none", "leaky"))
        for r in w.itertuples()
    ]
    w["ssthresh_min"] = [
        " / ".join(
            f"{by.loc[(r.mbps, r.buffer, p), 'ssthresh_min']:.0f}" for p in ("none", "leaky")
        )
        for r in w.itertuples()
    ]
    bufs = sorted(w["buffer"].unique())
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axs = plt.subplots(1, 2, figsize=(9.0, 3.4))
        for ax, col, ylabel in (
            (axs[0], "diff_mbps", "throughput paced − Reno (Mb/s)"),
            (axs[1], "diff", "paced − Reno (fraction of the link)"),
        ):
            for b in bufs:
                g = w[w["buffer"] == b].sort_values("bdp")
                ax.plot(g["bdp"].round(), g[col], marker="o", label=f"buffer {b:g} × BDP")
            ax.axhline(0.0, color="grey", lw=0.8, ls=":")
            log_x(ax, w["bdp"].round())
            ax.set_xlabel("delay-bandwidth product (packets)")
            ax.set_ylabel(ylabel)
        axs[0].legend(fontsize=7)
        fig.suptitle(
            "Fig. 5: one flow over one sawtooth (T_cycle = RTT² · BW / 576 B), "
            "RTT 100 ms, 5-200 Mb/s",
            fontsize=9,
        )
        path = ctx.out / "fig5.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig5", "one flow, one sawtooth: throughput difference vs BDP", [path.name])

    def series(b: float) -> pd.DataFrame:
        return w[w["buffer"] == b].sort_values("bdp")

    def listing(bs: list[float], col: str = "diff", unit: str = "") -> str:
        return "; ".join(
            f"{b:g} BDP: "
            + ", ".join(f"{x:+.3f}" if not unit else f"{x:+.1f}" for x in series(b)[col])
            + unit
            for b in bs
        )

    bdps = ", ".join(f"{x:.0f}" for x in series(FIG5_SMALL[0])["bdp"])
    # "the difference in the bandwidth achieved" (§5.1): in Mb/s. As a fraction of the
    # link it would not be expected to grow: T_cycle is BDP round trips at any rate
    grows = {
        b: bool((series(b)["diff_mbps"] > 0).all())
        and float(series(b)["diff_mbps"].iloc[-1]) > float(series(b)["diff_mbps"].iloc[0])
        for b in FIG5_SMALL
    }
    gone = {b: bool(series(b)["diff"].between(-0.10, 0.02).all()) for b in FIG5_LARGE}
    res.claims += [
        Claim(
            "gap_grows_with_bdp",
            "for limited buffers the difference in throughput (paced − Reno) increases "
            "with the delay-bandwidth product",
            'paced ahead, more so at larger BDPs ("the difference in the bandwidth achieved")',
            f"paced − Reno at BDP {bdps}: "
            + listing(FIG5_SMALL, "diff_mbps", " Mb/s")
            + "; as a fraction of the link "
            + listing(FIG5_SMALL),
            all(grows.values()),
            "at 0.1 and 0.25 BDP: difference in Mb/s > 0 at every BDP and larger at the "
            "largest BDP than at the smallest",
        ),
        Claim(
            "gap_gone_half_bdp",
            "the difference disappears when the buffer grows beyond half the BDP; there "
            "pacing performs slightly worse (it lags behind by an RTT)",
            "≈ 0, paced slightly below",
            f"paced − Reno (fraction of the link) at BDP {bdps}: " + listing(FIG5_LARGE),
            all(gone.values()),
            "at 0.5 and 1 BDP: −0.10 ≤ difference ≤ +0.02 of the link at every BDP",
        ),
    ]
    tab = w.rename(
        columns={
            "bdp": "BDP (pkts)",
            "buffer": "buffer / BDP",
            "none": "Reno",
            "leaky": "Paced Reno",
            "diff": "paced − Reno",
            "diff_mbps": "paced − Reno (Mb/s)",
            "timeouts": "timeouts (Reno / paced)",
            "ssthresh_min": "lowest ssthresh (Reno / paced)",
        }
    )
    tab.insert(0, "Mb/s", tab.pop("mbps").map(lambda x: f"{x:g}"))
    tab["BDP (pkts)"] = tab["BDP (pkts)"].map(lambda x: f"{x:.0f}")
    tab["buffer / BDP"] = tab["buffer / BDP"].map(lambda x: f"{x:g}")
    res.table = (
        "Throughput over T_cycle as a fraction of the link's payload rate:\n\n"
        + markdown_table(
            tab[
                [
                    "Mb/s",
                    "BDP (pkts)",
                    "buffer / BDP",
                    "Reno",
                    "Paced Reno",
                    "paced − Reno",
                    "paced − Reno (Mb/s)",
                    "timeouts (Reno / paced)",
                    "lowest ssthresh (Reno / paced)",
                ]
            ]
        )
    )
    res.values = {
        "diff": {f"{r.mbps:g},{r.buffer:g}": float(r.diff) for r in w.itertuples()},
        "diff_mbps": {f"{r.mbps:g},{r.buffer:g}": float(r.diff_mbps) for r in w.itertuples()},
        "runs": d.to_dict("records"),
        "grows": {str(k): v for k, v in grows.items()},
        "gone": {str(k): v for k, v in gone.items()},
    }
    return res


# ------------------------------------------------------------------ Figures 6-8

QUICK_50 = {"seeds": 1}


def _fifty(ctx: Context) -> dict:
    sw, runs = _runs_by_pacing(ctx, "fig6", QUICK_50)
    out: dict[str, list[dict]] = {}
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        t, cum = _cumulative(run)
        n = cum.shape[1]
        agg = cum.sum(axis=1) * 8 / np.maximum(t, 1e-9)
        jain = cum.sum(axis=1) ** 2 / np.maximum(n * (cum**2).sum(axis=1), 1e-30)
        cw = _flow_series(run, "cwnd_pkts")
        first = []
        for c in cw.columns:
            w = cw[c].to_numpy(dtype=float)
            down = np.where(np.diff(w) < 0)[0]
            first.append(float(cw.index[down[0] + 1]) if len(down) else np.nan)
        first = np.array(first)
        u = run.series
        u = u[(u["entity"] == "link") & (u["id"] == 0) & (u["metric"] == "utilization")]
        steady = float(u[u["time"] > 20.0]["value"].mean())
        b = run.summary["links"]["bottleneck"]
        out.setdefault(row["pacing"], []).append(
            {
                "t": t,
                "agg": agg,
                "jain": jain,
                "cwnd_t": cw.index.to_numpy(dtype=float),
                "cwnd_sum": cw.fillna(0).sum(axis=1).to_numpy(),
                "first_spread": float(np.nanpercentile(first, 90) - np.nanpercentile(first, 10)),
                "first_range": float(np.nanmax(first) - np.nanmin(first)),
                "steady_util": steady,
                "sync_mean": float(b["sync"]["mean"]),
                "utilization": float(b["utilization"]),
                "timeouts": int(run.flows["timeouts"].sum()),
            }
        )
    return out


def _mean_at(runs: list[dict], key: str, when: float) -> float:
    return float(np.mean([_at(r["t"], r[key], when) for r in runs]))


def _mean(runs: list[dict], key: str) -> float:
    return float(np.mean([r[key] for r in runs]))


def fig6(ctx: Context) -> FigureResult:
    d = _fifty(ctx)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, rs in d.items():
            ax.plot(rs[0]["t"], rs[0]["agg"] / 1e6, label=LABEL[p])
        ax.axhline(RATE * MSS / WIRE / 1e6, color="grey", lw=0.8, ls=":")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cumulative aggregate throughput (Mb/s)")
        ax.set_title("Fig. 6: 50 flows, 57 Mb/s, RTT 100 ms, BDP/4")
        ax.legend()
        path = ctx.out / "fig6.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig6", "50 flows: cumulative aggregate throughput", [path.name])
    r, p = d["none"], d["leaky"]
    early = [2.0, 3.0, 5.0]
    vals = {w: (_mean_at(r, "agg", w), _mean_at(p, "agg", w)) for w in early}
    su_r, su_p = _mean(r, "steady_util"), _mean(p, "steady_util")
    res.claims += [
        Claim(
            "reno_ahead_early",
            "contrary to intuition, during the initial period Reno achieves better "
            "throughput than Paced Reno",
            "figure: Reno above paced early",
            ", ".join(
                f"{w:g} s: Reno {a / 1e6:.1f} vs paced {b / 1e6:.1f} Mb/s"
                for w, (a, b) in vals.items()
            ),
            all(a > 1.2 * b for a, b in vals.values()),
            "Reno > 1.2 × paced (cumulative aggregate) at 2, 3 and 5 s",
        ),
        Claim(
            "paced_ahead_steady",
            "during steady state pacing achieves (slightly) better throughput",
            "slightly better",
            f"link utilization after 20 s: paced {fmt(su_p)}, Reno {fmt(su_r)}",
            su_p > su_r,
            "utilization over (20 s, end]: paced > Reno",
        ),
    ]
    res.values = {
        "cum_agg_early": {str(w): {"reno": a, "paced": b} for w, (a, b) in vals.items()},
        "steady_util": {"reno": su_r, "paced": su_p},
    }
    return res


def fig7(ctx: Context) -> FigureResult:
    d = _fifty(ctx)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, rs in d.items():
            ax.plot(rs[0]["t"], rs[0]["jain"], label=LABEL[p])
        ax.set_xlabel("time (s)")
        ax.set_ylabel("Jain index of cumulative throughputs")
        ax.set_ylim(0, 1.02)
        ax.set_title("Fig. 7: 50 flows, fairness against time")
        ax.legend()
        path = ctx.out / "fig7.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig7", "50 flows: fairness of cumulative throughput", [path.name])
    r, p = d["none"], d["leaky"]
    early = [1.0, 2.0]
    vals = {w: (_mean_at(r, "jain", w), _mean_at(p, "jain", w)) for w in early}
    end_r, end_p = _mean_at(r, "jain", 1e9), _mean_at(p, "jain", 1e9)
    res.claims += [
        Claim(
            "reno_less_fair_early",
            "Reno is less fair than Paced Reno during the initial period",
            "figure",
            ", ".join(f"{w:g} s: Reno {fmt(a)} vs paced {fmt(b)}" for w, (a, b) in vals.items()),
            all(b > a + 0.05 for a, b in vals.values()),
            "Jain(paced) > Jain(Reno) + 0.05 at 1 and 2 s",
        ),
        Claim(
            "similar_long_run",
            "over longer periods the fairness is similar",
            "similar",
            f"at the end: Reno {fmt(end_r)}, paced {fmt(end_p)}",
            abs(end_r - end_p) < 0.05,
            "|difference| < 0.05 at the end of the run",
        ),
    ]
    res.values = {
        "jain_early": {str(w): {"reno": a, "paced": b} for w, (a, b) in vals.items()},
        "jain_end": {"reno": end_r, "paced": end_p},
    }
    return res


def fig8(ctx: Context) -> FigureResult:
    d = _fifty(ctx)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, rs in d.items():
            ax.plot(rs[0]["cwnd_t"], rs[0]["cwnd_sum"], label=LABEL[p], lw=0.8)
        ax.axhline(BDP + BUFFER, color="grey", lw=0.8, ls=":", label="BDP + buffer")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("aggregate cwnd (packets)")
        ax.set_title("Fig. 8: 50 flows, aggregate window")
        ax.legend()
        path = ctx.out / "fig8.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig8", "50 flows: aggregate window against time", [path.name])
    r, p = d["none"], d["leaky"]
    sp_r, sp_p = _mean(r, "first_spread"), _mean(p, "first_spread")
    sy_r, sy_p = _mean(r, "sync_mean"), _mean(p, "sync_mean")
    res.claims += [
        Claim(
            "paced_sync_slow_start",
            "in slow start the paced flows synchronize: all reduce their windows at the "
            "same time; Reno flows drop at different times",
            "words (Figure 8)",
            f"spread (10th-90th percentile) of the flows' first window reductions: "
            f"paced {sp_p * 1e3:.0f} ms, Reno {sp_r * 1e3:.0f} ms",
            sp_p < RTT / 2 and sp_r > 2 * sp_p,
            "paced spread < RTT/2 and Reno's > 2 × paced's",
        ),
        Claim(
            "paced_desync_steady",
            "in steady state pacing de-synchronizes the flows' losses",
            "words",
            f"mean fraction of flows losing per congestion event: paced {fmt(sy_p)}, "
            f"Reno {fmt(sy_r)}",
            sy_p < sy_r - 0.1,
            "sync(paced) < sync(Reno) − 0.1 (ccsim's loss-synchronization metric)",
        ),
    ]
    res.values = {
        "first_spread_s": {"reno": sp_r, "paced": sp_p},
        "sync_mean": {"reno": sy_r, "paced": sy_p},
    }
    return res


# ------------------------------------------------------------------ Figures 9-11

QUICK_VAR = {"seeds": 1}


def _variable(ctx: Context) -> dict:
    """Per (pacing, buffer): the runs' time series and scalars."""
    sw, runs = ctx.sweep("fig9", quick=QUICK_VAR)
    out: dict[tuple[str, str], list[dict]] = {}
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        t, cum = _cumulative(run)
        rtt = run.flows.set_index("flow")["rtt_prop_s"]
        ths = _flow_series(run, "throughput_bps")
        w = rtt.reindex(ths.columns).to_numpy(dtype=float)
        xr = cum * w[None, :]
        n = cum.shape[1]
        b = run.summary["links"]["bottleneck"]
        out.setdefault((str(row["tcp.pacing"]), str(row["topology.buffer"])), []).append(
            {
                "t": t,
                "agg": cum.sum(axis=1) * 8 / np.maximum(t, 1e-9),
                "jain_rtt": xr.sum(axis=1) ** 2 / np.maximum(n * (xr**2).sum(axis=1), 1e-30),
                "drop_rate": float(b["drop_rate"]),
                "queue_mean": float(b["queue_mean_pkts"]),
                "utilization": float(b["utilization"]),
                "jain_rtt_end": float(run.summary["flows"]["jain_fairness_rtt"])
                if "jain_fairness_rtt" in run.summary.get("flows", {})
                else float("nan"),
            }
        )
    return out


def _time_plot(ctx, name, d, key, ylabel, title, scale=1.0, ylim=None) -> str:
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for (p, buf), rs in sorted(d.items()):
            ax.plot(rs[0]["t"], rs[0][key] / scale, label=f"{LABEL[p]}, {buf}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        ax.set_title(title)
        ax.legend(fontsize=7)
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def fig9(ctx: Context) -> FigureResult:
    d = _variable(ctx)
    f = _time_plot(
        ctx,
        "fig9",
        d,
        "agg",
        "cumulative aggregate throughput (Mb/s)",
        "Fig. 9: 25 flows at 100 ms + 25 at 280 ms, 57 Mb/s",
        1e6,
    )
    res = FigureResult("fig9", "50 flows, RTT 100 / 280 ms: cumulative throughput", [f])
    u = {k: _mean(v, "utilization") for k, v in d.items()}
    bufs = sorted({b for _, b in d}, key=lambda b: float(b.removesuffix("pkt")))
    res.claims.append(
        Claim(
            "similar_throughput",
            "Reno and Paced Reno achieve similar throughput",
            "similar",
            ", ".join(f"{b}: Reno {fmt(u['none', b])}, paced {fmt(u['leaky', b])}" for b in bufs),
            all(abs(u["none", b] - u["leaky", b]) < 0.05 for b in bufs),
            "|utilization(paced) − utilization(Reno)| < 0.05 at each buffer",
        )
    )
    res.values = {"utilization": {f"{p},{b}": v for (p, b), v in u.items()}}
    return res


def fig10(ctx: Context) -> FigureResult:
    d = _variable(ctx)
    f = _time_plot(
        ctx,
        "fig10",
        d,
        "jain_rtt",
        "RTT-normalized Jain index (cumulative)",
        "Fig. 10: normalized fairness, RTT 100 / 280 ms",
        ylim=(0, 1.02),
    )
    res = FigureResult("fig10", "50 flows, RTT 100 / 280 ms: normalized fairness", [f])
    j = {k: _mean_at(v, "jain_rtt", 1e9) for k, v in d.items()}
    bufs = sorted({b for _, b in d}, key=lambda b: float(b.removesuffix("pkt")))
    small = bufs[0]
    res.claims.append(
        Claim(
            "paced_fairer",
            "pacing achieves much better normalized fairness than TCP Reno",
            "figure: paced above Reno",
            ", ".join(f"{b}: Reno {fmt(j['none', b])}, paced {fmt(j['leaky', b])}" for b in bufs),
            j["leaky", small] > j["none", small] + 0.05,
            f"normalized Jain at the end: paced > Reno + 0.05 at {small}",
        )
    )
    res.values = {"jain_rtt_end": {f"{p},{b}": v for (p, b), v in j.items()}}
    return res


def fig11(ctx: Context) -> FigureResult:
    d = _variable(ctx)
    bufs = sorted({b for _, b in d}, key=lambda b: float(b.removesuffix("pkt")))
    x = [float(b.removesuffix("pkt")) for b in bufs]
    dr = {k: _mean(v, "drop_rate") for k, v in d.items()}
    q = {k: _mean(v, "queue_mean") for k, v in d.items()}
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p in ("none", "leaky"):
            ax.plot(x, [100 * dr[p, b] for b in bufs], marker="o", label=LABEL[p])
        ax.set_xlabel("buffer (packets)")
        ax.set_ylabel(plots.label("drop_rate"))
        ax.set_title("Fig. 11: drop rate, 50 flows, RTT 100 / 280 ms")
        ax.legend()
        path = ctx.out / "fig11.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig11", "50 flows, RTT 100 / 280 ms: drop rate", [path.name])
    res.claims += [
        Claim(
            "reno_more_drops",
            "Reno has a higher drop rate than pacing, also with a buffer of one BDP",
            "figure",
            ", ".join(
                f"{b}: Reno {100 * dr['none', b]:.2f} %, paced {100 * dr['leaky', b]:.2f} %"
                for b in bufs
            ),
            all(dr["none", b] > dr["leaky", b] for b in bufs),
            "drop rate(Reno) > drop rate(paced) at each buffer",
        ),
        Claim(
            "reno_larger_queue",
            "Reno forms larger queues at the bottleneck",
            "words",
            ", ".join(
                f"{b}: Reno {q['none', b]:.0f}, paced {q['leaky', b]:.0f} pkts" for b in bufs
            ),
            all(q["none", b] > q["leaky", b] for b in bufs),
            "mean queue(Reno) > mean queue(paced) at each buffer",
        ),
    ]
    res.values = {
        "drop_rate": {f"{p},{b}": v for (p, b), v in dr.items()},
        "queue_mean_pkts": {f"{p},{b}": v for (p, b), v in q.items()},
    }
    return res


# ------------------------------------------------------------------ Figures 12-13

QUICK_CL = {"grid": {"workloads[0].size": ["10pkt", "100pkt", "3000pkt"]}, "seeds": 1}
# Figure 12 adds the 1000-packet flows of phase 2 (the first size that loses)
QUICK_CL12 = {"grid": {"workloads[0].size": ["10pkt", "100pkt", "1000pkt", "3000pkt"]}, "seeds": 1}


def _closed_loop(ctx: Context, name: str, quick: dict = QUICK_CL) -> pd.DataFrame:
    """Mean and median normalized latency per (pacing, size) over the flows that
    started after the warmup and finished, with their mean losses per flow."""
    sw, runs = ctx.sweep(name, quick=quick)
    rows = []
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        f = run.flows
        warm = float(run.summary.get("warmup_s", 10.0))
        done = f[f["fct_s"].notna() & (f["start_s"] >= warm)]
        rows.append(
            {
                "pacing": str(row["tcp.pacing"]),
                "size": float(str(row["workloads[0].size"]).removesuffix("pkt")),
                "latency": float(done["normalized_latency"].mean()),
                "median": float(done["normalized_latency"].median()),
                "flows": len(done),
                "timeouts": float(done["timeouts"].sum()),
                "losses": float(done["losses"].mean()),
            }
        )
    d = pd.DataFrame(rows)
    return d.groupby(["pacing", "size"], as_index=False).mean().sort_values(["pacing", "size"])


def _latency_plot(ctx: Context, name: str, d: pd.DataFrame, title: str) -> str:
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, g in d.groupby("pacing"):
            ax.plot(g["size"], g["latency"], marker="o", label=LABEL[p])
        ax.set_xscale("log")
        ax.set_xlabel("flow size (packets)")
        ax.set_ylabel("mean normalized latency")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_title(title)
        ax.legend()
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def _lat(d: pd.DataFrame, p: str, size: float) -> float:
    return float(d[(d["pacing"] == p) & (d["size"] == size)]["latency"].iloc[0])


def _latency_table(d: pd.DataFrame) -> str:
    w = d.pivot(index="size", columns="pacing", values="latency").reset_index()
    w = w.rename(columns={"size": "flow size (pkts)", "none": "Reno", "leaky": "Paced Reno"})
    return markdown_table(w[["flow size (pkts)", "Reno", "Paced Reno"]])


def fig12(ctx: Context) -> FigureResult:
    d = _closed_loop(ctx, "fig12", QUICK_CL12)
    f = _latency_plot(ctx, "fig12", d, "Fig. 12: 20 closed-loop nodes, think 1 s, BDP/4")
    res = FigureResult("fig12", "closed-loop flows, BDP/4: normalized latency vs size", [f])
    res.table = _latency_table(d)
    sizes = sorted(d["size"].unique())
    small, large = sizes[0], sizes[-1]
    # phase 2: the smallest size at which Reno's flows lose packets
    lossy = d[(d["pacing"] == "none") & (d["losses"] > 0)]["size"]
    mid = float(lossy.min()) if len(lossy) else float("nan")

    def loss(p: str, size: float) -> float:
        return float(d[(d["pacing"] == p) & (d["size"] == size)]["losses"].iloc[0])

    res.claims += [
        Claim(
            "phase1_paced_lags",
            "phase 1 (no losses): Paced Reno's latency is slightly higher (it spreads "
            "its packets over the RTT and lags behind Reno)",
            "slightly higher",
            f"{small:g} pkts: Reno {fmt(_lat(d, 'none', small))}, paced "
            f"{fmt(_lat(d, 'leaky', small))}",
            _lat(d, "none", small) < _lat(d, "leaky", small) < 1.3 * _lat(d, "none", small),
            "Reno < paced < 1.3 × Reno at the smallest size",
        ),
        Claim(
            "phase2_paced_ahead",
            "phase 2: Reno experiences more losses in slow start; pacing has some "
            "performance advantage",
            "paced slightly better",
            f"{mid:g} pkts (the smallest size that loses): Reno {fmt(_lat(d, 'none', mid))}, "
            f"paced {fmt(_lat(d, 'leaky', mid))}; losses per flow Reno "
            f"{loss('none', mid):.1f}, paced {loss('leaky', mid):.1f}"
            if np.isfinite(mid)
            else "no size loses",
            bool(np.isfinite(mid))
            and _lat(d, "leaky", mid) < _lat(d, "none", mid)
            and loss("none", mid) > loss("leaky", mid),
            "at the smallest size where Reno's flows lose: paced latency < Reno's and Reno "
            "loses more packets per flow",
        ),
        Claim(
            "phase3_paced_worse",
            "phase 3: synchronized drops severely diminish the paced flows' performance",
            "paced much worse",
            f"{large:g} pkts: Reno {fmt(_lat(d, 'none', large))}, paced "
            f"{fmt(_lat(d, 'leaky', large))}",
            _lat(d, "leaky", large) > 1.5 * _lat(d, "none", large),
            "paced > 1.5 × Reno at the largest size",
        ),
    ]
    res.values = {"table": d.to_dict("records")}
    return res


def fig13(ctx: Context) -> FigureResult:
    d = _closed_loop(ctx, "fig13")
    f = _latency_plot(ctx, "fig13", d, "Fig. 13: 20 closed-loop nodes, think 1 s, BDP")
    res = FigureResult("fig13", "closed-loop flows, BDP buffer: normalized latency vs size", [f])
    res.table = _latency_table(d)
    sizes = sorted(d["size"].unique())
    worse = [s for s in sizes if _lat(d, "leaky", s) > _lat(d, "none", s)]
    res.claims.append(
        Claim(
            "reno_uniformly_better",
            "with a BDP buffer Reno performs uniformly better than pacing",
            "every size",
            f"paced slower at {len(worse)} of {len(sizes)} sizes",
            len(worse) == len(sizes),
            "mean normalized latency(paced) > Reno's at every size",
        )
    )
    res.values = {"table": d.to_dict("records")}
    return res


# ------------------------------------------------------------------ Figures 14-15

QUICK_MIX = {"seeds": 4}


def _mixed_flows(sw, runs) -> pd.DataFrame:
    """Every flow of every run of a simultaneous-start mixed sweep, with its seed."""
    return pd.concat(
        [
            sw.load(r).flows.assign(seed=s)
            for r, s in zip(runs["run_id"], runs["seed"], strict=True)
        ],
        ignore_index=True,
    )


def _fig14_flows(ctx: Context) -> pd.DataFrame:
    sw, runs = ctx.sweep("fig14", quick=QUICK_MIX)
    return _mixed_flows(sw, runs)


def fig14(ctx: Context) -> FigureResult:
    fl = _fig14_flows(ctx)
    unfinished = int(fl["fct_s"].isna().sum())
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for g, lab in (("reno", "Reno"), ("paced", "Paced Reno")):
            x = np.sort(fl[fl["group"] == g]["fct_s"].dropna().to_numpy())
            ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=lab)
        ax.set_xlabel("latency (FCT, s)")
        ax.set_ylabel("fraction of flows")
        ax.set_title("Fig. 14: 10 Reno + 10 paced flows of 300 packets, BDP/4")
        ax.legend()
        path = ctx.out / "fig14.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig14", "mixed Reno and paced flows: latency", [path.name])
    m = fl.groupby("group", observed=True)["fct_s"].mean()
    ratio = float(m["reno"] / m["paced"])
    res.claims.append(
        Claim(
            "reno_better_mixed",
            "mixed together, Reno flows have much better latency than paced flows",
            "Reno much better (Fig. 15, line A: Reno/paced < 1)",
            f"mean FCT Reno {m['reno']:.2f} s, paced {m['paced']:.2f} s (ratio {ratio:.2f}); "
            f"{unfinished} unfinished",
            ratio < 0.8 and unfinished == 0,
            "mean FCT ratio Reno / paced < 0.8, every flow finished",
        )
    )
    res.values = {"mean_fct_s": {k: float(v) for k, v in m.items()}, "ratio": ratio}
    return res


FIG15_SIZES = [1000, 3000, 5000]  # simultaneous start (line B: 5000; line A: Fig. 14)
FIG15_SIZES_QUICK = [5000]
FIG15C_SIZES = [300, 1000, 3000, 5000]  # closed-loop nodes (line C)
FIG15C_SIZES_QUICK = [5000]
QUICK_15 = {"seeds": 10}  # line B: paced − Reno ≈ 4.9 s, one run's spread ≈ 0.4 s
QUICK_15C = {"seeds": 1, "set": {"duration": "120s"}}
LINE_B = 5000.0


def _group_stats(fl: pd.DataFrame) -> dict:
    """Mean FCT per group and their ratio Reno / paced, and the per-seed paired
    difference paced − Reno (mean and standard error over seeds)."""
    m = fl.groupby("group", observed=True)["fct_s"].mean()
    per = fl.groupby(["seed", "group"], observed=True)["fct_s"].mean().unstack()
    dif = (per["paced"] - per["reno"]).to_numpy(dtype=float)
    n = len(dif)
    return {
        "reno": float(m["reno"]),
        "paced": float(m["paced"]),
        "ratio": float(m["reno"] / m["paced"]),
        "diff": float(dif.mean()),
        "diff_se": float(dif.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan"),
        "seeds": n,
        "flows": {
            g: int(c)
            for g, c in fl["fct_s"].notna().groupby(fl["group"], observed=True).sum().items()
        },
        "unfinished": int(fl["fct_s"].isna().sum()),
        "timeouts": {
            g: float(v) / n for g, v in fl.groupby("group", observed=True)["timeouts"].sum().items()
        },
    }


def _fig15_simultaneous(ctx: Context) -> dict[float, dict]:
    out = {300.0: _group_stats(_fig14_flows(ctx))}  # line A: Figure 14's runs
    for size in FIG15_SIZES_QUICK if ctx.quick else FIG15_SIZES:
        v = f"{size}pkt"
        sw, runs = _point_sweep(
            ctx, "fig15", f"{size}pkt", {"flows[0].size": v, "flows[1].size": v}, QUICK_15
        )
        out[float(size)] = _group_stats(_mixed_flows(sw, runs))
    return out


def _fig15_closed_loop(ctx: Context) -> dict[float, dict]:
    out = {}
    for size in FIG15C_SIZES_QUICK if ctx.quick else FIG15C_SIZES:
        v = f"{size}pkt"
        sw, runs = _point_sweep(
            ctx,
            "fig15c",
            f"{size}pkt",
            {"workloads[0].size": v, "workloads[1].size": v},
            QUICK_15C,
        )
        fl = []
        for r, seed in zip(runs["run_id"], runs["seed"], strict=True):
            run = sw.load(r)
            f = run.flows
            warm = float(run.summary.get("warmup_s", 10.0))
            fl.append(f[f["start_s"] >= warm].assign(seed=seed))
        out[float(size)] = _group_stats(pd.concat(fl, ignore_index=True).dropna(subset=["fct_s"]))
        out[float(size)]["unfinished"] = int(sum(g["fct_s"].isna().sum() for g in fl))
    return out


def fig15(ctx: Context) -> FigureResult:
    ab = _fig15_simultaneous(ctx)
    c = _fig15_closed_loop(ctx)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        xs = sorted(ab)
        ax.plot(xs, [ab[x]["ratio"] for x in xs], marker="o", label="20 flows start together")
        for x, lab in ((300.0, "A"), (LINE_B, "B")):
            if x in ab:
                ax.annotate(lab, (x, ab[x]["ratio"]), textcoords="offset points", xytext=(4, 6))
        xc = sorted(c)
        ax.plot(xc, [c[x]["ratio"] for x in xc], marker="s", label="C: 20 closed-loop nodes")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        log_x(ax, list(ab) + list(c))
        ax.set_ylim(0, 1.2)
        ax.set_xlabel("flow size (packets)")
        ax.set_ylabel("mean latency Reno / mean latency paced")
        ax.set_title("Fig. 15: 10 Reno + 10 paced, 57 Mb/s, BDP/4")
        ax.legend()
        path = ctx.out / "fig15.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig15", "mixed Reno and paced flows: latency ratio", [path.name])
    b, cb = ab[LINE_B], c[LINE_B]
    res.claims += [
        Claim(
            "b_paced_still_worse",
            "with a large flow size of 5000 packets (20 flows starting together), pacing "
            "still performs worse",
            "ratio Reno / paced < 1 (line B)",
            f"mean FCT Reno {b['reno']:.2f} s, paced {b['paced']:.2f} s: ratio "
            f"{b['ratio']:.3f}; paced − Reno per seed {b['diff']:+.3f} ± {b['diff_se']:.3f} s "
            f"({b['seeds']} seeds, {b['unfinished']} unfinished)",
            b["ratio"] < 1 and b["diff"] > 2 * b["diff_se"] and b["unfinished"] == 0,
            "ratio < 1, the paired per-seed difference paced − Reno > 2 standard errors, "
            "every flow finished",
        ),
        Claim(
            "c_below_b",
            "with the closed-loop model of §5.4 (new flows keep starting) pacing "
            "deteriorates further",
            "line C below line B",
            f"at {LINE_B:g} packets: C {cb['ratio']:.3f} (Reno {cb['reno']:.1f} s, paced "
            f"{cb['paced']:.1f} s, {cb['flows'].get('reno', 0)} + "
            f"{cb['flows'].get('paced', 0)} flows), B {b['ratio']:.3f}",
            cb["ratio"] < b["ratio"],
            f"ratio C < ratio B at {LINE_B:g} packets",
        ),
    ]
    rows = []
    for line, d in (("20 flows together (A: 300, B: 5000)", ab), ("C: closed-loop nodes", c)):
        for x in sorted(d):
            v = d[x]
            rows.append(
                {
                    "scenario": line,
                    "flow size (pkts)": f"{x:g}",
                    "mean FCT Reno (s)": v["reno"],
                    "mean FCT paced (s)": v["paced"],
                    "Reno / paced": v["ratio"],
                    "seeds": str(v["seeds"]),
                    "flows Reno + paced": f"{v['flows'].get('reno', 0)} + "
                    f"{v['flows'].get('paced', 0)}",
                }
            )
    res.table = markdown_table(pd.DataFrame(rows))
    res.values = {
        "simultaneous": {f"{k:g}": v for k, v in ab.items()},
        "closed_loop": {f"{k:g}": v for k, v in c.items()},
        "ratio_a": ab[300.0]["ratio"],
        "ratio_b": b["ratio"],
        "ratio_c": cb["ratio"],
    }
    return res


# ------------------------------------------------------------------ Figure 16

QUICK_RED = {
    "grid": {"workloads[0].size": ["1000pkt", "10000pkt"], "tcp.pacing": ["leaky"]},
    "seeds": 1,
}


def _queue_label(q) -> str:
    """The sweep stores a table value as its JSON text."""
    import json

    if isinstance(q, str) and q.startswith("{"):
        q = json.loads(q)
    if isinstance(q, dict):
        lo = float(str(q["min_th"]).removesuffix("pkt"))
        hi = float(str(q["max_th"]).removesuffix("pkt"))
        return f"RED {lo:g}-{hi:g} pkts, max_p {q['max_p']:g}"
    return "drop-tail"


def _min_th(label: str) -> float:
    return float(label.split()[1].split("-")[0])


def fig16(ctx: Context) -> FigureResult:
    sw, runs = ctx.sweep("fig16", quick=QUICK_RED)
    rows = []
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        f = run.flows
        warm = float(run.summary.get("warmup_s", 10.0))
        done = f[f["fct_s"].notna() & (f["start_s"] >= warm)]
        rows.append(
            {
                "queue": _queue_label(row["topology.queue"]),
                "pacing": str(row["tcp.pacing"]),
                "size": float(str(row["workloads[0].size"]).removesuffix("pkt")),
                "latency": float(done["normalized_latency"].mean()),
            }
        )
    d = pd.DataFrame(rows).groupby(["queue", "pacing", "size"], as_index=False).mean()
    red = sorted((q for q in d["queue"].unique() if q != "drop-tail"), key=_min_th)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for (q, p), g in d.groupby(["queue", "pacing"], sort=False):
            g = g.sort_values("size")
            ls = "-" if p == "leaky" else "--"
            ax.plot(g["size"], g["latency"], ls, marker="o", label=f"{LABEL[p]}, {q}")
        ax.set_xscale("log")
        ax.set_xlabel("flow size (packets)")
        ax.set_ylabel("mean normalized latency")
        ax.set_title("Fig. 16: closed-loop flows, BDP/4, RED settings")
        ax.legend(fontsize=6)
        path = ctx.out / "fig16.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig16", "closed-loop flows with RED: normalized latency", [path.name])
    paced = d[(d["pacing"] == "leaky") & (d["size"] >= 1000)]
    lat = paced.pivot(index="size", columns="queue", values="latency")
    low, high = red[0], red[-1]  # the lowest and the highest minimum threshold
    res.table = markdown_table(lat.reset_index().rename(columns={"size": "size (pkts)"}))
    res.claims += [
        Claim(
            "high_min_th_bad",
            "for paced flows a RED with a high minimum threshold does not perform well",
            "words",
            ", ".join(
                f"{s:g} pkts: {fmt(lat.loc[s, high])} vs {fmt(lat.loc[s, low])}" for s in lat.index
            )
            + f" ({high} vs {low})",
            bool((lat[high] > lat[low]).all()),
            "paced latency with the high min_th > with the low one, every size ≥ 1000",
        ),
        Claim(
            "low_thresholds_best",
            "very low min and high max thresholds with a low max_p work best",
            "words",
            f"mean over sizes ≥ 1000: {low} {fmt(lat[low].mean())}, drop-tail "
            f"{fmt(lat['drop-tail'].mean())}",
            float(lat[low].mean()) < 0.95 * float(lat["drop-tail"].mean()),
            "paced latency with the low-threshold RED < 0.95 × drop-tail's (mean over sizes "
            "≥ 1000): clearly better, not a tie",
        ),
    ]
    res.values = {"table": d.to_dict("records"), "low": low, "high": high}
    return res


FIGURES = {
    "fig3": fig3,
    "fig4": fig4,
    "fig5": fig5,
    "fig6": fig6,
    "fig7": fig7,
    "fig8": fig8,
    "fig9": fig9,
    "fig10": fig10,
    "fig11": fig11,
    "fig12": fig12,
    "fig13": fig13,
    "fig14": fig14,
    "fig15": fig15,
    "fig16": fig16,
}
