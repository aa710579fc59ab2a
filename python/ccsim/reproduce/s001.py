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
from ccsim.reproduce import (
    Claim,
    Context,
    FigureResult,
    buffer_fraction,
    log_x,
    markdown_table,
    run_sweep,
)
from ccsim.reproduce.claims import (
    Estimate,
    above,
    below,
    claim,
    claim_all,
    estimate,
    estimates,
    exceeds,
    falls_short_of,
    jain_rows,
    within,
    within_rel,
)

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

QUICK_1 = {"seeds": 3}
EARLY = [1.5, 2.0, 3.0, 5.0, 10.0]  # Figure 3's "initial period" (s)


def _ramp(t: np.ndarray, cum: np.ndarray, frac: float = 0.9, after: float = 2.0) -> float:
    """First time after *after* at which the goodput over the past second (from the
    cumulative bytes delivered *cum*) reaches *frac* of the link's payload rate; inf
    if never (within the run)."""
    target = frac * RATE * MSS / WIRE / 8
    for i in np.where(t >= after + 1.0)[0]:
        j = int(np.searchsorted(t, t[i] - 1.0))
        if (cum[i] - cum[j]) / (t[i] - t[j]) >= target:
            return float(t[i])
    return float("inf")


def fig3_series(ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs of fig3.toml (one flow, Reno and Paced Reno, one run per seed with
    jittered access delays): a per-run table (pacing, seed; the core's flow metrics:
    cwnd and flight at the first drop, timeouts, losses; and from the flow's series:
    the last ssthresh, the ramp time, the goodput after the ramp and the cumulative
    throughput at the early times) and the series for the plots (time, cumulative
    throughput, cwnd) of every run."""
    sw, runs = _runs_by_pacing(ctx, "fig3", QUICK_1)
    rows, series = [], []
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        t, cum = _cumulative(run)
        cum = cum[:, 0]
        cw = _flow_series(run, "cwnd_pkts")[0]
        ss = _flow_series(run, "ssthresh_pkts")[0]
        f = run.flows.iloc[0]
        rows.append(
            {
                "pacing": row["pacing"],
                "seed": int(row["seed"]),
                "rtt_s": float(row["mean_rtt_s"]),
                "cwnd_first_drop": float(f["cwnd_at_first_drop"]),
                "flight_first_drop": float(f["flight_at_first_drop"]),
                "timeouts": int(f["timeouts"]),
                "losses": int(f["losses"]),
                # the ssthresh of the last window reduction: the bottom of the sawtooth
                "ssthresh_final": float(ss.iloc[-1]),
                "ramp_s": _ramp(t, cum),
                "end_s": float(t[-1]),
                **{f"cum_{w:g}": _at(t, cum, w) * 8 / w for w in EARLY},
            }
        )
        series.append(
            pd.DataFrame(
                {
                    "pacing": row["pacing"],
                    "seed": int(row["seed"]),
                    "t": t,
                    "cum_tput": cum * 8 / np.maximum(t, 1e-9),
                    "cum_bytes": cum,
                }
            ).merge(
                pd.DataFrame({"t": cw.index.to_numpy(float), "cwnd": cw.to_numpy(float)}),
                on="t",
                how="left",
            )
        )
    d = pd.DataFrame(rows).sort_values(["pacing", "seed"]).reset_index(drop=True)
    s = pd.concat(series, ignore_index=True)
    # steady state: from the time both flows of a seed have reached the link rate to
    # the end of the run, each flow's goodput over that span
    since = d.groupby("seed")["ramp_s"].max()
    d["steady_since_s"] = d["seed"].map(since)
    good = []
    for r in d.itertuples():
        g = s[(s["pacing"] == r.pacing) & (s["seed"] == r.seed)]
        a, b = r.steady_since_s, r.end_s
        t, cum = g["t"].to_numpy(), g["cum_bytes"].to_numpy()
        good.append((_at(t, cum, b) - _at(t, cum, a)) * 8 / (b - a) if np.isfinite(a) else np.nan)
    d["steady_goodput_bps"] = good
    return d, s


def _pair(d: pd.DataFrame, col: str, how: str = "ratio") -> Estimate:
    """Per seed (the Reno and paced runs of a seed share its draws): paced / Reno
    (``ratio``), Reno / paced (``inverse``), paced − Reno (``diff``) or Reno − paced
    (``inverse_diff``) of *col*, as an :class:`Estimate` over the seeds."""
    w = d.pivot(index="seed", columns="pacing", values=col)
    p, r = w["leaky"], w["none"]
    x = {"ratio": p / r, "inverse": r / p, "diff": p - r, "inverse_diff": r - p}[how]
    return estimate(x)


def _of(d: pd.DataFrame, p: str, col: str) -> Estimate:
    return estimate(d[d["pacing"] == p][col])


def fig3_plot(ctx: Context, s: pd.DataFrame) -> str:
    plt = _plt()
    first = s[s["seed"] == s["seed"].min()]
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, g in first.groupby("pacing", sort=False):
            ax.plot(g["t"], g["cum_tput"] / 1e6, label=LABEL[p])
        ax.axhline(RATE * MSS / WIRE / 1e6, color="grey", lw=0.8, ls=":")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cumulative throughput (Mb/s)")
        ax.set_title(f"Fig. 3: one flow, 57 Mb/s, buffer {BUFFER} pkts (BDP/4), first seed")
        ax.legend()
        path = ctx.out / "fig3.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def fig3_claims(d: pd.DataFrame) -> list[Claim]:
    bottom = (BDP + BUFFER) / 2
    ahead = {f"{w:g} s": _pair(d, f"cum_{w:g}") for w in EARLY}
    c_ss = claim_all(
        "steady_state_similar",
        "in steady state both show the same sawtooth and similar throughput",
        study="similar in steady state",
        values={
            "goodput paced / Reno after both reach the link rate": _pair(d, "steady_goodput_bps"),
        },
        test=within(1.0, tol=0.05),
        note="per seed, goodput from the time both flows first reach 90 % of the link to "
        "the end of the run",
    )
    sawtooth = within_rel(bottom, rel=0.1)
    ss = {p: _of(d, p, "ssthresh_final") for p in ("none", "leaky")}
    c_ss.ccsim += (
        "; last ssthresh "
        + ", ".join(f"{LABEL[p]} {e.text(0)}" for p, e in ss.items())
        + f" pkts ((BDP + B) / 2 = {bottom:.0f})"
    )
    c_ss.check += (
        f"; both flows' last ssthresh {sawtooth.describe} (the sawtooth halves a full "
        "pipe and buffer)"
    )
    c_ss.holds = bool(c_ss.holds) and all(sawtooth(e) for e in ss.values())
    return [
        claim_all(
            "paced_ahead_early",
            "in the initial period pacing achieves much better (cumulative) throughput than Reno",
            study="figure: paced well above Reno early",
            values=ahead,
            test=above(1.3),
            note="per seed, cumulative throughput paced / Reno",
        ),
        claim(
            "reno_first_loss_2b",
            "Reno's first loss comes when its window reaches about twice the buffer",
            study=f"≈ 2 × buffer = {2 * BUFFER} pkts",
            value=_of(d, "none", "cwnd_first_drop"),
            test=within(2.5 * BUFFER, tol=0.5 * BUFFER),
            digits=0,
            note="2B ≤ cwnd at the first drop ≤ 3B (slow start doubles from a window "
            "W/2 ∈ (B, 2B] whose burst just fit; the drop comes B packets into the next)",
        ),
        claim(
            "paced_first_loss_pipe",
            "Paced Reno gets a loss only after it saturates the pipe",
            study=f"≈ BDP + buffer = {BDP + BUFFER:.0f} pkts",
            value=_of(d, "leaky", "flight_first_drop"),
            test=within_rel(BDP + BUFFER, rel=0.1),
            digits=0,
            note="packets in flight at the first drop",
        ),
        c_ss,
    ]


def fig3_table(d: pd.DataFrame) -> str:
    """Mean ± 95 % interval over the seeds of each per-run quantity, Reno and paced."""
    rows = [(f"cumulative throughput at {w:g} s (Mb/s)", f"cum_{w:g}", 1e-6, 1) for w in EARLY]
    rows += [
        ("cwnd at the first drop (pkts)", "cwnd_first_drop", 1.0, 0),
        ("packets in flight at the first drop", "flight_first_drop", 1.0, 0),
        ("first second at ≥ 90 % of the link (s)", "ramp_s", 1.0, 1),
        ("goodput after both reach the link rate (Mb/s)", "steady_goodput_bps", 1e-6, 1),
        ("last ssthresh (pkts)", "ssthresh_final", 1.0, 0),
        ("timeouts", "timeouts", 1.0, 1),
    ]
    out = []
    for label, col, scale, digits in rows:
        row = {"": label}
        for p in ("none", "leaky"):
            e = _of(d, p, col)
            row[LABEL[p]] = Estimate(e.mean * scale, e.half_width * scale, e.n).text(digits)
        out.append(row)
    return markdown_table(pd.DataFrame(out))


def fig3(ctx: Context) -> FigureResult:
    d, s = fig3_series(ctx)
    res = FigureResult("fig3", "one flow, BDP/4 buffer: cumulative throughput", [fig3_plot(ctx, s)])
    res.claims += fig3_claims(d)
    res.table = fig3_table(d)
    res.values = {
        "buffer_pkts": BUFFER,
        "bdp_pkts": BDP,
        "runs": d.to_dict("records"),
    }
    return res


def fig4_plot(ctx: Context, s: pd.DataFrame) -> str:
    plt = _plt()
    first = s[s["seed"] == s["seed"].min()].dropna(subset=["cwnd"])
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, g in first.groupby("pacing", sort=False):
            ax.plot(g["t"], g["cwnd"], label=LABEL[p], lw=0.8)
        ax.axhline(BDP + BUFFER, color="grey", lw=0.8, ls=":", label="BDP + buffer")
        ax.axhline(2 * BUFFER, color="grey", lw=0.8, ls="--", label="2 × buffer")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (packets)")
        ax.set_ylim(0, 1.3 * (BDP + BUFFER))
        ax.set_title("Fig. 4: window of one flow, BDP/4 buffer, first seed")
        ax.legend()
        path = ctx.out / "fig4.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def fig4(ctx: Context) -> FigureResult:
    d, s = fig3_series(ctx)
    res = FigureResult("fig4", "one flow, BDP/4 buffer: window against time", [fig4_plot(ctx, s)])
    tr, tp = _of(d, "none", "ramp_s"), _of(d, "leaky", "ramp_s")
    res.claims += [
        claim(
            "reno_slow_ramp",
            "Reno falls out of slow start early and takes a long time in congestion "
            "avoidance to ramp up to the bottleneck bandwidth",
            study="words (Figure 4)",
            value=tr,
            test=above(10.0),
            digits=1,
            note="first 1-s goodput ≥ 90 % of the link after 2 s, Reno (s): more than 10 s "
            "(one packet per RTT from a small window)",
        ),
        claim(
            "paced_fast_ramp",
            "Paced Reno, losing only once the pipe is full, reaches the bottleneck "
            "rate much sooner than Reno",
            study="words (Figures 3-4)",
            value=_pair(d, "ramp_s"),
            test=below(0.5),
            note=f"per seed, ramp time paced / Reno (paced {tp.text(1)} s, Reno {tr.text(1)} s)",
        ),
    ]
    res.values = {"runs": d.to_dict("records")}
    return res


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

FIG5_MBPS = [5, 10, 20, 57]  # bottleneck rates: BDP 109 to 1237 packets
FIG5_MBPS_QUICK = [5, 20]
FIG5_SMALL = [0.1, 0.25]  # "limited buffers" (below BDP/2)
FIG5_LARGE = [0.5, 1.0]  # "half the BDP" and beyond
# ten replications per point in both modes: the access delays are drawn per seed
# (fig5.toml), and a 0.1-0.2 ms shift flips single runs at 0.5 BDP
QUICK_5 = {"seeds": 10}


def t_cycle(rate_bps: float) -> float:
    """Footnote 1: the duration of one sawtooth, T_cycle = RTT² · BW / packet_size (s),
    packet_size the 576 B packet on the wire (= RTT · BDP in packets)."""
    return RTT**2 * rate_bps / (8 * WIRE)


def _groups(sw, runs: pd.DataFrame) -> pd.DataFrame:
    """The core's groups table (one row per run and flow group: goodput, share,
    losses, timeouts ...) joined to the runs' parameters and seed."""
    from ccsim import store

    g = store.groups(sw.directory).rename(columns={"name": "group"})
    return g.merge(runs, on="run_id", suffixes=("", "_run"))


def fig5_data(ctx: Context) -> pd.DataFrame:
    """One row per run: bandwidth, BDP, buffer (fraction of the BDP), pacing, seed, and
    the flow's goodput over T_cycle (the core's ``goodput_bps``: payload delivered over
    the run, which lasts T_cycle) in b/s and as a fraction of the link's payload rate,
    with its losses and timeouts."""
    frames = []
    for mbps in FIG5_MBPS_QUICK if ctx.quick else FIG5_MBPS:
        rate = mbps * 1e6
        sw, runs = _point_sweep(
            ctx,
            "fig5",
            f"{mbps:g}mbps",
            {
                "topology.bottleneck_rate": f"{mbps:g}Mbps",
                "topology.access_rate": f"{4 * mbps:g}Mbps",
                "duration": f"{t_cycle(rate):.3f}s",
            },
            QUICK_5,
        )
        g = _groups(sw, runs)
        frames.append(
            pd.DataFrame(
                {
                    "mbps": float(mbps),
                    "bdp": RTT * rate / (8 * WIRE),
                    "buffer": buffer_fraction(g["topology.buffer"]),
                    "pacing": g["flows[0].tcp.pacing"].astype(str),
                    "seed": g["seed"].astype(int),
                    "rtt_s": g["mean_rtt_s"].astype(float),
                    "goodput_bps": g["goodput_bps"].astype(float),
                    "frac": g["goodput_bps"].astype(float) / (rate * MSS / WIRE),
                    "losses": g["losses"].astype(int),
                    "timeouts": g["timeouts"].astype(int),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def fig5_gaps(d: pd.DataFrame) -> pd.DataFrame:
    """Per (bandwidth, buffer): mean Reno and paced fractions of the link and the
    paired per-seed difference paced − Reno (same seed, same drawn delays) with its
    95 % interval, as a fraction of the link and in Mb/s."""
    w = d.pivot_table(index=["mbps", "bdp", "buffer", "seed"], columns="pacing", values="frac")
    w = w.reset_index()
    w["diff"] = w["leaky"] - w["none"]
    w["diff_mbps"] = w["diff"] * w["mbps"] * MSS / WIRE
    rows = []
    for (mbps, bdp, buf), g in w.groupby(["mbps", "bdp", "buffer"], sort=True):
        e, em = estimate(g["diff"]), estimate(g["diff_mbps"])
        rows.append(
            {
                "mbps": mbps,
                "bdp": bdp,
                "buffer": buf,
                "reno": float(g["none"].mean()),
                "paced": float(g["leaky"].mean()),
                "diff": e.mean,
                "diff_ci95": e.half_width,
                "diff_min": float(g["diff"].min()),
                "diff_max": float(g["diff"].max()),
                "diff_mbps": em.mean,
                "diff_mbps_ci95": em.half_width,
                "n": e.n,
            }
        )
    return pd.DataFrame(rows)


def _est(row, col: str = "diff") -> Estimate:
    return Estimate(float(row[col]), float(row[f"{col}_ci95"]), int(row["n"]))


def fig5_plot(ctx: Context, gaps: pd.DataFrame) -> str:
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axs = plt.subplots(1, 2, figsize=(9.0, 3.4))
        for ax, col, ylabel in (
            (axs[0], "diff_mbps", "throughput paced − Reno (Mb/s)"),
            (axs[1], "diff", "paced − Reno (fraction of the link)"),
        ):
            for b, g in gaps.groupby("buffer"):
                g = g.sort_values("bdp")
                ax.errorbar(
                    g["bdp"].round(),
                    g[col],
                    yerr=g[f"{col}_ci95"].fillna(0.0),
                    marker="o",
                    capsize=3,
                    label=f"buffer {b:g} × BDP",
                )
            ax.axhline(0.0, color="grey", lw=0.8, ls=":")
            log_x(ax, gaps["bdp"].round())
            ax.set_xlabel("delay-bandwidth product (packets)")
            ax.set_ylabel(ylabel)
        axs[0].legend(fontsize=7)
        n = int(gaps["n"].max())
        fig.suptitle(
            "Fig. 5: one flow over one sawtooth (T_cycle = RTT² · BW / 576 B), RTT ≈ 100 ms, "
            f"mean of {n} jittered replications ± 95 % CI",
            fontsize=9,
        )
        path = ctx.out / "fig5.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def fig5_claims(gaps: pd.DataFrame) -> list[Claim]:
    def at(buf: float) -> pd.DataFrame:
        return gaps[gaps["buffer"] == buf].sort_values("bdp")

    def per_bdp(bufs: list[float], col: str = "diff") -> dict[str, Estimate]:
        return {
            f"{r['buffer']:g} BDP, BDP {r['bdp']:.0f}": _est(r, col)
            for b in bufs
            for _, r in at(b).iterrows()
        }

    # "increases with the BDP": judged as a fraction of the link (the share of one
    # sawtooth the flow loses); in Mb/s it grows with the rate alone (shown, not tested)
    ends = {b: (_est(at(b).iloc[0]), _est(at(b).iloc[-1])) for b in FIG5_SMALL}
    bdp0, bdp1 = float(at(FIG5_SMALL[0])["bdp"].iloc[0]), float(at(FIG5_SMALL[0])["bdp"].iloc[-1])
    mbps = per_bdp(FIG5_SMALL, "diff_mbps")
    return [
        claim_all(
            "paced_ahead_limited",
            "for limited buffers (0.1 and 0.25 BDP) Paced Reno delivers more than Reno "
            "over one sawtooth",
            study="paced ahead (Fig. 5's lines above 0)",
            values=per_bdp(FIG5_SMALL),
            test=above(0.0),
            note="paired per-seed difference paced − Reno, fraction of the link",
        ),
        Claim(
            "gap_grows_with_bdp",
            "for limited buffers the difference in throughput increases with the "
            "delay-bandwidth product",
            "increases with the BDP",
            "as a fraction of the link: "
            + "; ".join(
                f"{b:g} BDP: {a.text()} at BDP {bdp0:.0f} → {z.text()} at {bdp1:.0f}"
                for b, (a, z) in ends.items()
            )
            + "; in Mb/s: "
            + ", ".join(f"{k}: {v.text(2)}" for k, v in mbps.items()),
            all(exceeds(a)(z) for a, z in ends.values()),
            "as a fraction of the link, the difference at the largest BDP exceeds the one "
            "at the smallest (intervals apart) at 0.1 and 0.25 BDP; in Mb/s it grows with "
            "the rate alone (a fixed fraction of a 10× faster link is 10× the Mb/s), so "
            "Mb/s is shown, not tested",
        ),
        claim_all(
            "gap_gone_half_bdp",
            "the difference disappears when the buffer grows to half the BDP",
            study="≈ 0 at 0.5 BDP",
            values=per_bdp([0.5]),
            test=within(0.0, tol=0.05),
            note="paired difference, fraction of the link",
        ),
        claim_all(
            "paced_worse_one_bdp",
            "with larger buffers pacing performs slightly worse (it lags behind by an RTT)",
            study="paced slightly below 0",
            values=per_bdp([1.0]),
            test=below(0.0),
            note="at one BDP: paired difference, fraction of the link",
        ),
    ]


def fig5(ctx: Context) -> FigureResult:
    d = fig5_data(ctx)
    gaps = fig5_gaps(d)
    res = FigureResult(
        "fig5", "one flow, one sawtooth: throughput difference vs BDP", [fig5_plot(ctx, gaps)]
    )
    res.claims += fig5_claims(gaps)
    tab = pd.DataFrame(
        {
            "Mb/s": gaps["mbps"].map(lambda x: f"{x:g}"),
            "BDP (pkts)": gaps["bdp"].map(lambda x: f"{x:.0f}"),
            "buffer / BDP": gaps["buffer"].map(lambda x: f"{x:g}"),
            "Reno": gaps["reno"],
            "Paced Reno": gaps["paced"],
            "paced − Reno": [_est(r).text() for _, r in gaps.iterrows()],
            "min / max over seeds": [
                f"{r['diff_min']:+.3f} / {r['diff_max']:+.3f}" for _, r in gaps.iterrows()
            ],
            "paced − Reno (Mb/s)": [_est(r, "diff_mbps").text(2) for _, r in gaps.iterrows()],
        }
    )
    to = d.groupby(["mbps", "buffer", "pacing"])["timeouts"].mean().unstack()
    tab["mean timeouts (Reno / paced)"] = [
        f"{to.loc[(r.mbps, r.buffer), 'none']:.1f} / {to.loc[(r.mbps, r.buffer), 'leaky']:.1f}"
        for r in gaps.itertuples()
    ]
    res.table = (
        "Throughput over T_cycle as a fraction of the link's payload rate (mean over "
        "seeds), and the paired difference paced − Reno with its 95 % interval:\n\n"
        + markdown_table(tab)
    )
    res.values = {"gaps": gaps.to_dict("records"), "runs": d.to_dict("records")}
    return res


# ------------------------------------------------------------------ Figures 6-8

QUICK_50 = {"seeds": 3}
EARLY_AGG = [2.0, 3.0, 5.0]  # Figure 6's initial period (s)
EARLY_JAIN = [1.0, 2.0]  # Figure 7's


def fig6_data(ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs of fig6.toml (50 flows, one run per pacing and seed): a per-run table
    (pacing, seed; the core's utilization, Jain index of the goodputs over the run and
    loss-synchronization mean; from the series: the cumulative aggregate throughput
    and Jain index of the cumulative throughputs at the early times, the mean link
    utilization after 20 s, the spread of the flows' first window reductions) and the
    first seed's series for the plots."""
    sw, runs = _runs_by_pacing(ctx, "fig6", QUICK_50)
    rows, series = [], []
    first_seed = int(runs["seed"].min())
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        t, cum = _cumulative(run)
        agg = cum.sum(axis=1) * 8 / np.maximum(t, 1e-9)
        jain = jain_rows(cum)
        cw = _flow_series(run, "cwnd_pkts")
        first = []
        for c in cw.columns:
            w = cw[c].to_numpy(dtype=float)
            down = np.where(np.diff(w) < 0)[0]
            first.append(float(cw.index[down[0] + 1]) if len(down) else np.nan)
        u = run.series
        u = u[(u["entity"] == "link") & (u["id"] == 0) & (u["metric"] == "utilization")]
        rows.append(
            {
                "pacing": row["pacing"],
                "seed": int(row["seed"]),
                **{f"agg_{w:g}": _at(t, agg, w) for w in EARLY_AGG},
                **{f"jain_{w:g}": _at(t, jain, w) for w in EARLY_JAIN},
                "jain_end": float(row["flows_jain_fairness"]),
                "steady_util": float(u[u["time"] > 20.0]["value"].mean()),
                "first_spread": float(np.nanpercentile(first, 90) - np.nanpercentile(first, 10)),
                "sync_mean": float(run.summary["links"]["bottleneck"]["sync"]["mean"]),
                "utilization": float(row["utilization"]),
            }
        )
        if int(row["seed"]) == first_seed:
            series.append(
                pd.DataFrame({"pacing": row["pacing"], "t": t, "agg": agg, "jain": jain}).merge(
                    pd.DataFrame(
                        {
                            "t": cw.index.to_numpy(dtype=float),
                            "cwnd_sum": cw.fillna(0).sum(axis=1).to_numpy(),
                        }
                    ),
                    on="t",
                    how="left",
                )
            )
    d = pd.DataFrame(rows).sort_values(["pacing", "seed"]).reset_index(drop=True)
    return d, pd.concat(series, ignore_index=True)


def _time_lines(ctx, name: str, s: pd.DataFrame, key: str, ylabel: str, title: str, **kw) -> str:
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, g in s.dropna(subset=[key]).groupby("pacing", sort=False):
            ax.plot(g["t"], g[key] / kw.get("scale", 1.0), label=LABEL[p], lw=kw.get("lw", 1.5))
        for y, ls, lab in kw.get("hlines", []):
            ax.axhline(y, color="grey", lw=0.8, ls=ls, label=lab)
        if "ylim" in kw:
            ax.set_ylim(*kw["ylim"])
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        ax.set_title(title + " (first seed)")
        ax.legend()
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def _seeds_note(d: pd.DataFrame) -> str:
    return f"per seed ({d['seed'].nunique()} seeds)"


def fig6(ctx: Context) -> FigureResult:
    d, s = fig6_data(ctx)
    f = _time_lines(
        ctx,
        "fig6",
        s,
        "agg",
        "cumulative aggregate throughput (Mb/s)",
        "Fig. 6: 50 flows, 57 Mb/s, RTT 100 ms, BDP/4",
        scale=1e6,
        hlines=[(RATE * MSS / WIRE / 1e6, ":", None)],
    )
    res = FigureResult("fig6", "50 flows: cumulative aggregate throughput", [f])
    res.claims += [
        claim_all(
            "reno_ahead_early",
            "contrary to intuition, during the initial period Reno achieves better "
            "throughput than Paced Reno",
            study="figure: Reno above paced early",
            values={f"{w:g} s": _pair(d, f"agg_{w:g}", "inverse") for w in EARLY_AGG},
            test=above(1.2),
            note=f"{_seeds_note(d)}, cumulative aggregate throughput Reno / paced",
        ),
        claim(
            "paced_ahead_steady",
            "during steady state pacing achieves (slightly) better throughput",
            study="slightly better",
            value=_pair(d, "steady_util", "diff"),
            test=above(0.0),
            note=f"{_seeds_note(d)}, link utilization over (20 s, end], paced − Reno "
            f"(Reno {_of(d, 'none', 'steady_util').text()}, paced "
            f"{_of(d, 'leaky', 'steady_util').text()})",
        ),
    ]
    res.values = {"runs": d.to_dict("records")}
    return res


def fig7(ctx: Context) -> FigureResult:
    d, s = fig6_data(ctx)
    f = _time_lines(
        ctx,
        "fig7",
        s,
        "jain",
        "Jain index of cumulative throughputs",
        "Fig. 7: 50 flows, fairness against time",
        ylim=(0, 1.02),
    )
    res = FigureResult("fig7", "50 flows: fairness of cumulative throughput", [f])
    res.claims += [
        claim_all(
            "reno_less_fair_early",
            "Reno is less fair than Paced Reno during the initial period",
            study="figure",
            values={f"{w:g} s": _pair(d, f"jain_{w:g}", "diff") for w in EARLY_JAIN},
            test=above(0.05),
            note=f"{_seeds_note(d)}, Jain index of the cumulative throughputs, paced − Reno",
        ),
        claim(
            "similar_long_run",
            "over longer periods the fairness is similar",
            study="similar",
            value=_pair(d, "jain_end", "diff"),
            test=within(0.0, tol=0.05),
            note=f"{_seeds_note(d)}, the core's Jain index of the goodputs over the run, "
            f"paced − Reno (Reno {_of(d, 'none', 'jain_end').text()}, paced "
            f"{_of(d, 'leaky', 'jain_end').text()})",
        ),
    ]
    res.values = {"runs": d.to_dict("records")}
    return res


def fig8(ctx: Context) -> FigureResult:
    d, s = fig6_data(ctx)
    f = _time_lines(
        ctx,
        "fig8",
        s,
        "cwnd_sum",
        "aggregate cwnd (packets)",
        "Fig. 8: 50 flows, aggregate window",
        lw=0.8,
        hlines=[(BDP + BUFFER, ":", "BDP + buffer")],
    )
    res = FigureResult("fig8", "50 flows: aggregate window against time", [f])
    spread_p = _of(d, "leaky", "first_spread")
    ratio = _pair(d, "first_spread", "inverse")
    c = claim(
        "paced_sync_slow_start",
        "in slow start the paced flows synchronize: all reduce their windows at the "
        "same time; Reno flows drop at different times",
        study="words (Figure 8)",
        value=spread_p,
        test=below(RTT / 2),
        note=f"spread (10th-90th percentile) of the flows' first window reductions, "
        f"paced (s) < RTT/2, and {_seeds_note(d)} Reno / paced > 2 "
        f"({ratio.text()}; Reno {_of(d, 'none', 'first_spread').text()} s)",
    )
    c.holds = bool(c.holds) and above(2.0)(ratio)
    res.claims += [
        c,
        claim(
            "paced_desync_steady",
            "in steady state pacing de-synchronizes the flows' losses",
            study="words",
            value=_pair(d, "sync_mean", "inverse_diff"),
            test=above(0.1),
            note=f"{_seeds_note(d)}, the core's loss-synchronization mean (fraction of "
            f"flows losing per congestion event), Reno − paced (Reno "
            f"{_of(d, 'none', 'sync_mean').text()}, paced {_of(d, 'leaky', 'sync_mean').text()})",
        ),
    ]
    res.values = {"runs": d.to_dict("records")}
    return res


# ------------------------------------------------------------------ Figures 9-11

QUICK_VAR = {"seeds": 3}


def fig9_data(ctx: Context) -> tuple[object, pd.DataFrame]:
    """The sweep and one row per run (pacing, buffer, seed) with the core's bottleneck
    metrics (utilization, drop rate, mean queue) and RTT-normalized Jain index of the
    flows' goodputs over the run (``flows_jain_fairness_rtt``: x_i · RTT_i, §4)."""
    sw, runs = ctx.sweep("fig9", quick=QUICK_VAR)
    d = pd.DataFrame(
        {
            "run_id": runs["run_id"],
            "pacing": runs["tcp.pacing"].astype(str),
            "buffer": runs["topology.buffer"].astype(str),
            "seed": runs["seed"].astype(int),
            "utilization": runs["utilization"].astype(float),
            "drop_rate": runs["drop_rate"].astype(float),
            "queue_mean_pkts": runs["queue_mean_pkts"].astype(float),
            "jain_rtt": runs["flows_jain_fairness_rtt"].astype(float),
        }
    )
    return sw, d


def fig9_series(sw, d: pd.DataFrame) -> pd.DataFrame:
    """For the plots, the first seed's runs over time: cumulative aggregate throughput
    and the RTT-normalized Jain index of the flows' cumulative throughputs."""
    rows = []
    first = d[d["seed"] == d["seed"].min()]
    for r in first.itertuples():
        run = sw.load(r.run_id)
        t, cum = _cumulative(run)
        ths = _flow_series(run, "throughput_bps")
        rtt = run.flows.set_index("flow")["rtt_prop_s"].reindex(ths.columns).to_numpy(float)
        xr = cum * rtt[None, :]
        rows.append(
            pd.DataFrame(
                {
                    "pacing": r.pacing,
                    "buffer": r.buffer,
                    "t": t,
                    "agg_bps": cum.sum(axis=1) * 8 / np.maximum(t, 1e-9),
                    "jain_rtt": jain_rows(xr),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _time_plot(ctx, name, s: pd.DataFrame, key, ylabel, title, scale=1.0, ylim=None) -> str:
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for (p, buf), g in s.groupby(["pacing", "buffer"], sort=True):
            ax.plot(g["t"], g[key] / scale, label=f"{LABEL[p]}, {buf}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        ax.set_title(title + " (first seed)")
        ax.legend(fontsize=7)
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def _bufs(d: pd.DataFrame) -> list[str]:
    return sorted(d["buffer"].unique(), key=lambda b: float(b.removesuffix("pkt")))


def paired(d: pd.DataFrame, metric: str, first: str = "none", second: str = "leaky"):
    """Per buffer: the per-seed difference metric(first) − metric(second) (the two runs
    of a seed share its drawn start times) as an :class:`Estimate`."""
    w = d.pivot_table(index=["buffer", "seed"], columns="pacing", values=metric).reset_index()
    return {b: estimate(w[w["buffer"] == b][first] - w[w["buffer"] == b][second]) for b in _bufs(d)}


def per_pacing(d: pd.DataFrame, metric: str) -> dict[tuple[str, str], Estimate]:
    return {(p, b): estimate(g[metric]) for (p, b), g in d.groupby(["pacing", "buffer"])}


def _both(e: dict, b: str, scale: float = 1.0, digits: int = 3) -> str:
    def t(x: Estimate) -> str:
        return Estimate(x.mean * scale, x.half_width * scale, x.n).text(digits)

    return f"{b}: Reno {t(e['none', b])}, paced {t(e['leaky', b])}"


def fig9(ctx: Context) -> FigureResult:
    sw, d = fig9_data(ctx)
    f = _time_plot(
        ctx,
        "fig9",
        fig9_series(sw, d),
        "agg_bps",
        "cumulative aggregate throughput (Mb/s)",
        "Fig. 9: 25 flows at 100 ms + 25 at 280 ms, 57 Mb/s",
        1e6,
    )
    res = FigureResult("fig9", "50 flows, RTT 100 / 280 ms: cumulative throughput", [f])
    u = per_pacing(d, "utilization")
    res.claims.append(
        claim_all(
            "similar_throughput",
            "Reno and Paced Reno achieve similar throughput",
            study="similar",
            values={b: e for b, e in paired(d, "utilization").items()},
            test=within(0.0, tol=0.05),
            note="per-seed difference of link utilization Reno − paced; utilization "
            + "; ".join(_both(u, b) for b in _bufs(d)),
        )
    )
    res.values = {
        "utilization": {f"{p},{b}": e.mean for (p, b), e in u.items()},
        "paired_utilization": {b: vars(e) for b, e in paired(d, "utilization").items()},
    }
    return res


def fig10(ctx: Context) -> FigureResult:
    sw, d = fig9_data(ctx)
    f = _time_plot(
        ctx,
        "fig10",
        fig9_series(sw, d),
        "jain_rtt",
        "RTT-normalized Jain index (cumulative)",
        "Fig. 10: normalized fairness, RTT 100 / 280 ms",
        ylim=(0, 1.02),
    )
    res = FigureResult("fig10", "50 flows, RTT 100 / 280 ms: normalized fairness", [f])
    j = per_pacing(d, "jain_rtt")
    res.claims.append(
        claim_all(
            "paced_fairer",
            "pacing achieves much better normalized fairness than TCP Reno",
            study="figure: paced above Reno",
            values=paired(d, "jain_rtt", "leaky", "none"),
            test=above(0.05),
            note="per-seed difference of the RTT-normalized Jain index over the run, paced − "
            "Reno; index " + "; ".join(_both(j, b) for b in _bufs(d)),
        )
    )
    res.values = {
        "jain_rtt_end": {f"{p},{b}": e.mean for (p, b), e in j.items()},
        "paired_jain_rtt": {b: vars(e) for b, e in paired(d, "jain_rtt", "leaky", "none").items()},
    }
    return res


def fig11(ctx: Context) -> FigureResult:
    _, d = fig9_data(ctx)
    bufs = _bufs(d)
    dr, q = per_pacing(d, "drop_rate"), per_pacing(d, "queue_mean_pkts")
    x = [float(b.removesuffix("pkt")) for b in bufs]
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p in ("none", "leaky"):
            ax.errorbar(
                x,
                [100 * dr[p, b].mean for b in bufs],
                yerr=[100 * np.nan_to_num(dr[p, b].half_width) for b in bufs],
                marker="o",
                capsize=3,
                label=LABEL[p],
            )
        ax.set_xlabel("buffer (packets)")
        ax.set_ylabel(plots.label("drop_rate"))
        ax.set_title(
            f"Fig. 11: drop rate, 50 flows, RTT 100 / 280 ms ({dr['none', bufs[0]].n} seeds)"
        )
        ax.legend()
        path = ctx.out / "fig11.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig11", "50 flows, RTT 100 / 280 ms: drop rate", [path.name])
    res.claims += [
        claim_all(
            "reno_more_drops",
            "Reno has a higher drop rate than pacing, also with a buffer of one BDP",
            study="figure",
            values=paired(d, "drop_rate"),
            test=above(0.0),
            digits=5,
            note="per-seed difference of the bottleneck's drop rate, Reno − paced; drop rate (%) "
            + "; ".join(_both(dr, b, 100, 2) for b in bufs),
        ),
        claim_all(
            "reno_larger_queue",
            "Reno forms larger queues at the bottleneck",
            study="words",
            values=paired(d, "queue_mean_pkts"),
            test=above(0.0),
            note="per-seed difference of the mean queue (packets), Reno − paced; "
            + "; ".join(_both(q, b, 1, 0) for b in bufs),
        ),
    ]
    res.values = {
        "drop_rate": {f"{p},{b}": e.mean for (p, b), e in dr.items()},
        "queue_mean_pkts": {f"{p},{b}": e.mean for (p, b), e in q.items()},
        "paired_drop_rate": {b: vars(e) for b, e in paired(d, "drop_rate").items()},
        "paired_queue": {b: vars(e) for b, e in paired(d, "queue_mean_pkts").items()},
    }
    return res


# ------------------------------------------------------------------ Figures 12-13

QUICK_CL = {"grid": {"workloads[0].size": ["10pkt", "100pkt", "3000pkt"]}, "seeds": 3}
# Figure 12 adds the 1000-packet flows of phase 2 (the first size that loses)
QUICK_CL12 = {"grid": {"workloads[0].size": ["10pkt", "100pkt", "1000pkt", "3000pkt"]}, "seeds": 3}
LONG = 1e5  # phase 4: fig12long.toml's flow size (packets)
PHASE3 = 3000.0  # phase 3: the size at which the paced flows' synchronized drops show

_CLOSED_LOOP_SQL = """
SELECT r.run_id, r.seed, {cols}
       avg(f.normalized_latency) AS latency, median(f.normalized_latency) AS median,
       count(*) AS flows, avg(f.losses) AS losses, avg(f.timeouts) AS timeouts
FROM flows f JOIN runs r USING (run_id)
WHERE r.status = 'done' AND f.fct_s IS NOT NULL AND NOT isnan(f.fct_s)
  AND f.start_s >= r.warmup_s
GROUP BY ALL
"""


def closed_loop_data(sw, params: dict[str, str]) -> pd.DataFrame:
    """One row per run of a closed-loop sweep: its *params* (column name -> swept
    path), seed, and over the flows that started after the warmup and finished, the
    mean and median of the core's per-flow ``normalized_latency`` (§5.4), how many
    flows, and their mean losses and timeouts per flow."""
    cols = "".join(f'r."{path}" AS {name}, ' for name, path in params.items())
    d = sw.query(_CLOSED_LOOP_SQL.format(cols=cols))
    if "size" in d:
        d["size"] = d["size"].map(lambda s: float(str(s).removesuffix("pkt")))
    return d.sort_values([*params, "seed"]).reset_index(drop=True)


def _cl(ctx: Context, name: str, quick: dict, size: float | None = None) -> pd.DataFrame:
    """Figures 12-13's runs; *size* where the sweep does not vary the flow size."""
    sw, _ = ctx.sweep(name, quick=quick)
    if size is not None:
        return closed_loop_data(sw, {"pacing": "tcp.pacing"}).assign(size=size)
    return closed_loop_data(sw, {"pacing": "tcp.pacing", "size": "workloads[0].size"})


def latency_estimates(d: pd.DataFrame) -> pd.DataFrame:
    """Per (pacing, size): mean normalized latency over seeds with its 95 % interval,
    and mean losses per flow."""
    e = estimates(d, ["pacing", "size"], "latency")
    loss = d.groupby(["pacing", "size"], as_index=False)["losses"].mean()
    return e.merge(loss, on=["pacing", "size"]).sort_values(["pacing", "size"])


def paired_latency(d: pd.DataFrame, size: float, how: str = "ratio") -> Estimate:
    """Per seed at *size*: paced / Reno (``ratio``) or Reno − paced (``diff``) of the
    mean normalized latency; the two runs of a seed share its drawn think times."""
    w = d[d["size"] == size].pivot_table(index="seed", columns="pacing", values="latency")
    x = w["leaky"] / w["none"] if how == "ratio" else w["none"] - w["leaky"]
    return estimate(x)


def _lat(e: pd.DataFrame, p: str, size: float) -> Estimate:
    r = e[(e["pacing"] == p) & (e["size"] == size)].iloc[0]
    return Estimate(float(r["mean"]), float(r["ci95"]), int(r["n"]))


def latency_plot(ctx: Context, name: str, e: pd.DataFrame, title: str) -> str:
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for p, g in e.groupby("pacing"):
            ax.errorbar(
                g["size"],
                g["mean"],
                yerr=g["ci95"].fillna(0.0),
                marker="o",
                capsize=3,
                label=LABEL[p],
            )
        ax.set_xscale("log")
        ax.set_xlabel("flow size (packets)")
        ax.set_ylabel("mean normalized latency")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_title(f"{title} ({int(e['n'].max())} seeds)")
        ax.legend()
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def _latency_table(e: pd.DataFrame) -> str:
    rows = []
    for size in sorted(e["size"].unique()):
        r, p = _lat(e, "none", size), _lat(e, "leaky", size)
        rows.append({"flow size (pkts)": f"{size:g}", "Reno": r.text(), "Paced Reno": p.text()})
    return markdown_table(pd.DataFrame(rows))


def fig12_claims(d: pd.DataFrame, long: pd.DataFrame | None) -> list[Claim]:
    e = latency_estimates(d)
    sizes = sorted(d["size"].unique())
    small = sizes[0]
    # phase 2: the smallest size at which Reno's flows lose packets (at least one per
    # flow on average: with more seeds a rare loss shows up at 300 packets)
    lossy = e[(e["pacing"] == "none") & (e["losses"] >= 1.0)]["size"]
    mid = float(lossy.min()) if len(lossy) else float("nan")

    def loss(p: str, size: float) -> float:
        return float(e[(e["pacing"] == p) & (e["size"] == size)]["losses"].iloc[0])

    claims = [
        claim(
            "phase1_paced_lags",
            "phase 1 (no losses): Paced Reno's latency is slightly higher (it spreads "
            "its packets over the RTT and lags behind Reno)",
            study="slightly higher",
            value=paired_latency(d, small),
            test=within(1.15, tol=0.15),
            note=f"per-seed ratio paced / Reno at {small:g} pkts in (1, 1.3); Reno "
            f"{_lat(e, 'none', small).text()}, paced {_lat(e, 'leaky', small).text()}",
        ),
    ]
    if np.isfinite(mid):
        c = claim(
            "phase2_paced_ahead",
            "phase 2: Reno experiences more losses in slow start; pacing has some "
            "performance advantage",
            study="paced slightly better",
            value=paired_latency(d, mid, "diff"),
            test=above(0.0),
            note=f"at {mid:g} pkts (the smallest size where Reno's flows lose ≥ 1 packet "
            f"each on average): per-seed "
            f"Reno − paced latency > 0 and Reno loses more per flow (Reno "
            f"{_lat(e, 'none', mid).text()}, paced {_lat(e, 'leaky', mid).text()}; losses "
            f"per flow {loss('none', mid):.1f} vs {loss('leaky', mid):.1f})",
        )
        c.holds = bool(c.holds) and loss("none", mid) > loss("leaky", mid)
        c.ccsim = f"{mid:g} pkts: {c.ccsim}"
    else:
        c = Claim("phase2_paced_ahead", "phase 2", "paced slightly better", "no size loses", False)
    claims.append(c)
    claims.append(
        claim(
            "phase3_paced_worse",
            "phase 3: synchronized drops severely diminish the paced flows' performance",
            study="paced much worse",
            value=paired_latency(d, PHASE3),
            test=above(1.5),
            note=f"per-seed ratio paced / Reno at {PHASE3:g} pkts; Reno "
            f"{_lat(e, 'none', PHASE3).text()}, paced {_lat(e, 'leaky', PHASE3).text()}",
        )
    )
    if long is not None:
        big = float(long["size"].max())
        el = latency_estimates(long)
        r_big, r_prev = paired_latency(long, big), paired_latency(d, sizes[-1])
        fades = claim(
            "phase4_fades",
            "phase 4: for very long flows the difference fades (the synchronizing events "
            "have an insignificant impact)",
            study="paced ≈ Reno",
            value=r_big,
            test=within(1.0, tol=0.1),
            note=f"per-seed ratio paced / Reno at {big:g} pkts (fig12long.toml, 1500 s) "
            f"within 10 % of 1 (insignificant), and below the ratio at {sizes[-1]:g} pkts "
            f"({r_prev.text()}; intervals apart: it fades); Reno "
            f"{_lat(el, 'none', big).text()}, paced {_lat(el, 'leaky', big).text()}",
        )
        fades.holds = bool(fades.holds) and falls_short_of(r_prev)(r_big)
        claims.append(fades)
    return claims


def fig12(ctx: Context) -> FigureResult:
    d = _cl(ctx, "fig12", QUICK_CL12)
    # phase 4's flows of 10^5 packets run for 1500 s: full mode only
    long = None if ctx.quick else _cl(ctx, "fig12long", {}, size=LONG)
    both = d if long is None else pd.concat([d, long], ignore_index=True)
    f = latency_plot(
        ctx, "fig12", latency_estimates(both), "Fig. 12: 20 closed-loop nodes, think 1 s, BDP/4"
    )
    res = FigureResult("fig12", "closed-loop flows, BDP/4: normalized latency vs size", [f])
    res.table = _latency_table(latency_estimates(both))
    res.claims += fig12_claims(d, long)
    res.values = {"runs": both.to_dict("records")}
    return res


def fig13(ctx: Context) -> FigureResult:
    d = _cl(ctx, "fig13", QUICK_CL)
    e = latency_estimates(d)
    f = latency_plot(ctx, "fig13", e, "Fig. 13: 20 closed-loop nodes, think 1 s, BDP")
    res = FigureResult("fig13", "closed-loop flows, BDP buffer: normalized latency vs size", [f])
    res.table = _latency_table(e)
    res.claims.append(
        claim_all(
            "reno_uniformly_better",
            "with a BDP buffer Reno performs uniformly better than pacing",
            study="every size",
            values={
                f"{s:g} pkts": paired_latency(d, s, "diff") for s in sorted(d["size"].unique())
            },
            test=below(0.0),
            note="per-seed Reno − paced mean normalized latency",
        )
    )
    res.values = {"runs": d.to_dict("records")}
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
    st = _group_stats(fl)
    res.claims.append(
        claim(
            "reno_better_mixed",
            "mixed together, Reno flows have much better latency than paced flows",
            study="Reno much better (Fig. 15, line A: Reno/paced < 1)",
            value=Estimate(**st["ratio_est"]),
            test=below(0.8),
            note=f"per seed, mean FCT Reno / paced (over all seeds: Reno {m['reno']:.2f} s, "
            f"paced {m['paced']:.2f} s, ratio {ratio:.2f}); {unfinished} unfinished (must "
            "be 0)",
        )
    )
    res.claims[-1].holds = bool(res.claims[-1].holds) and unfinished == 0
    res.values = {"mean_fct_s": {k: float(v) for k, v in m.items()}, "ratio": ratio}
    return res


FIG15_SIZES = [1000, 3000, 5000]  # simultaneous start (line B: 5000; line A: Fig. 14)
FIG15_SIZES_QUICK = [5000]
FIG15C_SIZES = [300, 1000, 3000, 5000]  # closed-loop nodes (line C)
FIG15C_SIZES_QUICK = [5000]
QUICK_15 = {"seeds": 10}  # line B: paced − Reno ≈ 4.9 s, one run's spread ≈ 0.4 s
QUICK_15C = {"seeds": 3, "set": {"duration": "120s"}}
LINE_B = 5000.0


def _group_stats(fl: pd.DataFrame) -> dict:
    """Mean FCT per group and their ratio Reno / paced, and the per-seed paired
    difference paced − Reno (mean and standard error over seeds)."""
    m = fl.groupby("group", observed=True)["fct_s"].mean()
    per = fl.groupby(["seed", "group"], observed=True)["fct_s"].mean().unstack()
    dif = (per["paced"] - per["reno"]).to_numpy(dtype=float)
    n = len(dif)
    ratio, diff = estimate(per["reno"] / per["paced"]), estimate(dif)
    return {
        # per seed: mean FCT Reno / paced and paced − Reno, with their 95 % intervals
        "ratio_est": vars(ratio),
        "diff_est": vars(diff),
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
    b_ratio, c_ratio = Estimate(**b["ratio_est"]), Estimate(**cb["ratio_est"])
    still = claim(
        "b_paced_still_worse",
        "with a large flow size of 5000 packets (20 flows starting together), pacing "
        "still performs worse",
        study="ratio Reno / paced < 1 (line B)",
        value=Estimate(**b["diff_est"]),
        test=above(0.0),
        digits=3,
        note=f"per seed, mean FCT paced − Reno (s) > 0 and Reno / paced {b_ratio.text()} < 1 "
        f"({b['seeds']} seeds; over all: Reno {b['reno']:.2f} s, paced {b['paced']:.2f} s); "
        f"every flow finished ({b['unfinished']} unfinished)",
    )
    still.holds = bool(still.holds) and below(1.0)(b_ratio) and b["unfinished"] == 0
    res.claims += [
        still,
        claim(
            "c_below_b",
            "with the closed-loop model of §5.4 (new flows keep starting) pacing "
            "deteriorates further",
            study="line C below line B",
            value=c_ratio,
            test=falls_short_of(b_ratio, label=f"line B {b_ratio.text()}"),
            note=f"per seed, ratio Reno / paced at {LINE_B:g} packets, line C (Reno "
            f"{cb['reno']:.1f} s, paced {cb['paced']:.1f} s, {cb['flows'].get('reno', 0)} + "
            f"{cb['flows'].get('paced', 0)} flows)",
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


# quick: the study's recipe (very low min_th, high max_th, low max_p) against the same
# RED with a high min_th, and drop-tail, paced flows of 3000 and 10 000 packets
def _red(min_th: int, max_th: int, max_p: float) -> dict:
    return {
        "kind": "red",
        "min_th": f"{min_th}pkt",
        "max_th": f"{max_th}pkt",
        "max_p": max_p,
        "mean_size": "576B",
    }


# quick: paced flows of 10 000 packets (where the settings differ most), the recipe
# (5-300 pkts, max_p 0.02) against the same with max_p 0.1 and both with min_th 100
QUICK_RED = {
    "grid": {
        "workloads[0].size": ["10000pkt"],
        "topology.queue": [_red(5, 300, 0.02), _red(5, 300, 0.1), _red(100, 300, 0.02)]
        + [_red(100, 300, 0.1)],
    },
    "seeds": 3,
}
LOW, HIGH = 5.0, 100.0  # the lowest and the highest minimum threshold of the grid
RECIPE = (5.0, 300.0, 0.02)  # "very low" min_th, "high" max_th, "low" max_p


def _queue_params(q) -> tuple[float, float, float] | None:
    """(min_th, max_th, max_p) of a RED queue as the sweep stores it (its JSON text);
    None for drop-tail."""
    import json

    if isinstance(q, str) and q.startswith("{"):
        q = json.loads(q)
    if isinstance(q, dict):
        return (
            float(str(q["min_th"]).removesuffix("pkt")),
            float(str(q["max_th"]).removesuffix("pkt")),
            float(q["max_p"]),
        )
    return None


def _queue_label(p: tuple[float, float, float] | None) -> str:
    return "drop-tail" if p is None else f"RED {p[0]:g}-{p[1]:g} pkts, max_p {p[2]:g}"


def fig16_data(ctx: Context) -> pd.DataFrame:
    """One row per run: RED setting (min_th, max_th, max_p; NaN for drop-tail), flow
    size, seed and the paced flows' mean normalized latency (``closed_loop_data``)."""
    sw, _ = ctx.sweep("fig16", quick=QUICK_RED)
    d = closed_loop_data(sw, {"queue": "topology.queue", "size": "workloads[0].size"})
    p = d["queue"].map(_queue_params)
    d["queue"] = p.map(_queue_label)
    for i, col in enumerate(("min_th", "max_th", "max_p")):
        d[col] = p.map(lambda x, i=i: np.nan if x is None else x[i])
    # drop-tail first, then the RED grid by min_th, max_th, max_p
    return d.sort_values(["min_th", "max_th", "max_p", "size", "seed"], na_position="first")


def fig16_plot(ctx: Context, e: pd.DataFrame) -> str:
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots(figsize=(7.0, 3.6))
        qs = list(dict.fromkeys(e["queue"]))
        sizes = sorted(e["size"].unique())
        width = 0.8 / len(sizes)
        for k, s in enumerate(sizes):
            g = e[e["size"] == s].set_index("queue").reindex(qs)
            x = np.arange(len(qs)) + (k - (len(sizes) - 1) / 2) * width
            ax.bar(x, g["mean"], width, yerr=g["ci95"].fillna(0.0), capsize=2, label=f"{s:g} pkts")
        ax.set_xticks(np.arange(len(qs)))
        ax.set_xticklabels(
            [q.replace("RED ", "").replace(" pkts, max_p ", "/") for q in qs],
            rotation=60,
            ha="right",
            fontsize=6,
        )
        ax.set_ylabel("mean normalized latency (paced)")
        ax.set_title("Fig. 16: paced closed-loop flows, BDP/4, RED min-max/max_p", fontsize=9)
        ax.legend(fontsize=7)
        path = ctx.out / "fig16.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def _per_seed(d: pd.DataFrame, mask) -> pd.Series:
    """Per (size, seed): the mean latency over the RED settings selected by *mask*."""
    return d[mask].groupby(["size", "seed"])["latency"].mean()


def fig16_claims(d: pd.DataFrame) -> list[Claim]:
    red = d[d["min_th"].notna()]
    sizes = sorted(d["size"].unique())
    # a high minimum threshold: per size and seed, the RED settings with min_th 100
    # against the same settings with min_th 5 (max_th and max_p alike)
    gap = _per_seed(red, red["min_th"] == HIGH) - _per_seed(red, red["min_th"] == LOW)
    high = {f"{s:g} pkts": estimate(gap.loc[s]) for s in sizes}
    # a low max_p: per size and seed, the settings with max_p 0.1 against the same
    # thresholds with max_p 0.02
    hi_p = _per_seed(red, red["max_p"] == red["max_p"].max())
    lo_p = _per_seed(red, red["max_p"] == red["max_p"].min())
    maxp = {f"{s:g} pkts": estimate((hi_p - lo_p).loc[s]) for s in sizes}
    # the recipe against every other RED setting: per seed, mean latency over sizes
    score = red.groupby(["min_th", "max_th", "max_p", "seed"])["latency"].mean()
    est = {k: estimate(g) for k, g in score.groupby(level=[0, 1, 2])}
    rec = est[RECIPE]
    rank = sorted(est, key=lambda k: est[k].mean).index(RECIPE) + 1
    better = [k for k, v in est.items() if k != RECIPE and falls_short_of(rec)(v)]
    worse = [k for k, v in est.items() if k != RECIPE and exceeds(rec)(v)]
    dt = estimate(d[d["min_th"].isna()].groupby("seed")["latency"].mean())
    return [
        claim_all(
            "high_min_th_bad",
            "for paced flows a RED with a high minimum threshold does not perform well",
            study="words",
            values=high,
            test=above(0.0),
            note=f"per seed, mean normalized latency of the RED settings with min_th "
            f"{HIGH:g} pkts minus the same settings with min_th {LOW:g} pkts",
        ),
        claim_all(
            "low_max_p_better",
            "a low maximum drop probability performs better",
            study="low max_p (part of the recipe)",
            values=maxp,
            test=above(0.0),
            note=f"per seed, mean normalized latency of the RED settings with max_p "
            f"{red['max_p'].max():g} minus the same thresholds with max_p {red['max_p'].min():g}",
        ),
        Claim(
            "low_thresholds_best",
            "very low min and high max thresholds with a low max_p work best",
            "words (best of the RED settings)",
            f"{_queue_label(RECIPE)}: {rec.text()} (mean over sizes), rank {rank} of "
            f"{len(est)} RED settings; clearly better: "
            + (", ".join(_queue_label(k) + f" {est[k].text()}" for k in better) or "none")
            + f"; clearly worse: {len(worse)} settings"
            + (f"; drop-tail {dt.text()}" if dt.n else ""),
            not better and len(worse) > 0,
            "no other RED setting's interval lies below the recipe's, and at least one "
            "lies above it (mean over sizes per seed, 95 % intervals)",
        ),
    ]


def fig16(ctx: Context) -> FigureResult:
    d = fig16_data(ctx)
    e = estimates(d, ["queue", "size"], "latency")
    res = FigureResult(
        "fig16", "closed-loop flows with RED: normalized latency", [fig16_plot(ctx, e)]
    )
    t = e.assign(
        latency=[
            Estimate(m, h, n).text() for m, h, n in zip(e["mean"], e["ci95"], e["n"], strict=True)
        ]
    )
    res.table = markdown_table(
        t.pivot(index="queue", columns="size", values="latency")
        .reindex(list(dict.fromkeys(e["queue"])))
        .rename(columns=lambda s: f"{s:g} pkts")
        .reset_index()
    )
    res.claims += fig16_claims(d)
    res.values = {"runs": d.to_dict("records")}
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
