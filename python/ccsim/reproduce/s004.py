"""Study 004: Kumar, Xue, Park, *Impact of Loss Synchronization on Reliable High Speed
Networks: A Model Based Simulation* (J. Computer Networks and Communications, 2014).

The fluid engine (``engine = "fluid"``) with the loss-synchronization module; figures
2-4 (two-flow cwnd traces), 8 (model verification, 1 Gb/s HSTCP), 9 (utilization vs
buffer at 10 Gb/s for HSTCP, CUBIC, AIMD, H-TCP), 10-12 (utilization and fairness vs a
fixed synchronization level m).
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
    fmt,
    log_x,
    markdown_table,
    mean_by,
)

NAMES = {
    "highspeed": "HSTCP",
    "cubic": "CUBIC",
    "reno": "AIMD",
    "htcp": "H-TCP",
    "scalable": "STCP",
}


def _plt():
    import matplotlib.pyplot as plt

    return plt


# ------------------------------------------------------------------ Figures 2-4


# (study's Jain, utilization) for (a) full and (b) partial synchronization.
REPORTED_2_4 = {
    "fig2": ((0.502684, 0.936842), (0.950005, 0.971398)),
    "fig3": ((0.50343, 0.974767), (0.998814, 0.969627)),
    "fig4": (None, None),
}
TITLES_2_4 = {
    "fig2": "cwnd of STCP + AIMD, 1 Gb/s, RTT 120 ms, 0.1 BDP",
    "fig3": "cwnd of two STCP flows, RTT 40 / 120 ms, 1 Gb/s, 0.1 BDP",
    "fig4": "cwnd of two STCP flows, the second starting at 10 s, 1 Gb/s, 0.1 BDP",
}


def _two_flow(ctx: Context, name: str) -> FigureResult:
    sw, runs = ctx.sweep(name)
    runs = runs.assign(partial=runs["fluid.sync.level"].astype(str) != "all")
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), sharey=True)
        vals = {}
        for ax, partial in zip(axes, (False, True), strict=True):
            row = runs[runs["partial"] == partial].iloc[0]
            run = sw.load(row["run_id"])
            s = run.series
            cw = s[(s["entity"] == "flow") & (s["metric"] == "cwnd_pkts")]
            labels = list(run.flows.get("group", run.flows["cc"]))
            for fid, g in cw.groupby("id", observed=True):
                lab = labels[int(fid)] if int(fid) < len(labels) else f"flow {fid}"
                ax.plot(g["time"], g["value"], label=str(lab))
            j, u = float(row["flows_jain_fairness"]), float(row["utilization"])
            gp = run.flows["goodput_bps"].to_numpy()
            vals["partial" if partial else "full"] = {"jain": j, "util": u, "goodput": gp}
            ax.set_title(
                f"({'b' if partial else 'a'}) {'partial' if partial else 'full'} sync: "
                f"Jain {j:.3f}, util {u:.3f}"
            )
            ax.set_xlabel("time (s)")
        axes[0].set_ylabel(plots.label("cwnd_pkts"))
        axes[0].legend()
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult(name, TITLES_2_4[name], files=[path.name])
    full, part = vals["full"], vals["partial"]
    rep = REPORTED_2_4[name]
    if rep[0] is not None:
        (sj_a, su_a), (sj_b, su_b) = rep
        res.claims += [
            Claim(
                "jain_full",
                "full synchronization: strongly unfair",
                f"Jain {sj_a}",
                f"Jain {fmt(full['jain'])}",
                full["jain"] < 0.7,
                "Jain < 0.7",
            ),
            Claim(
                "jain_partial",
                "dropping only the fastest flow: fair",
                f"Jain {sj_b}",
                f"Jain {fmt(part['jain'])}",
                part["jain"] > 0.9,
                "Jain > 0.9",
            ),
            Claim(
                "util",
                "utilization (a) / (b)",
                f"{su_a} / {su_b}",
                f"{fmt(full['util'])} / {fmt(part['util'])}",
                abs(full["util"] - su_a) <= 0.05 and abs(part["util"] - su_b) <= 0.05,
                "each within 5 points of the study",
            ),
        ]
    else:
        g = full["goodput"]
        res.claims += [
            Claim(
                "late_flow_loses",
                "full synchronization: the flow starting 10 s later gets less bandwidth",
                "shown, no number",
                f"goodput {g[1] / 1e6:.0f} vs {g[0] / 1e6:.0f} Mb/s",
                g[1] < g[0],
                "late flow's goodput < early flow's",
            ),
            Claim(
                "partial_fairer",
                "partial synchronization improves fairness",
                "shown, no number",
                f"Jain {fmt(full['jain'])} -> {fmt(part['jain'])}",
                part["jain"] > full["jain"],
                "Jain(b) > Jain(a)",
            ),
        ]
    res.values = {k: {"jain": v["jain"], "util": v["util"]} for k, v in vals.items()}
    return res


def fig2(ctx: Context) -> FigureResult:
    return _two_flow(ctx, "fig2")


def fig3(ctx: Context) -> FigureResult:
    return _two_flow(ctx, "fig3")


def fig4(ctx: Context) -> FigureResult:
    return _two_flow(ctx, "fig4")


# ------------------------------------------------------------------ Figures 8, 9


def _util_vs_buffer(
    ctx: Context, name: str, title: str, bdp_pkts: float | None, quick: dict
) -> tuple[FigureResult, pd.DataFrame]:
    sw, runs = ctx.sweep(name, quick=quick)
    runs = runs.assign(
        frac=buffer_fraction(runs["topology.buffer"], bdp_pkts),
        X=runs["fluid.sync.min_level"].astype(float),
    )
    tab = mean_by(runs, ["frac", "X"], ["utilization", "flows_jain_fairness"])
    tab = tab.sort_values(["X", "frac"], ascending=[False, True]).reset_index(drop=True)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for x, g in tab.groupby("X", sort=False):
            sd = runs[runs["X"] == x].groupby("frac")["utilization"].std().reindex(g["frac"])
            ax.errorbar(
                g["frac"],
                g["utilization"],
                yerr=sd.fillna(0).to_numpy(),
                marker="o",
                capsize=2,
                label=f"X = {x:g}",
            )
        log_x(ax, tab["frac"])
        ax.set_xlabel("buffer (fraction of the BDP); bars: sd across seeds")
        ax.set_ylabel(plots.label("utilization"))
        ax.set_title(title)
        ax.legend()
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    wide = tab.pivot(index="frac", columns="X", values="utilization")
    wide.columns = [f"util X={c:g}" for c in wide.columns]
    wide = wide.reset_index().rename(columns={"frac": "buffer (× BDP)"})
    res = FigureResult(name, title, files=[path.name], table=markdown_table(wide))
    res.values = {"table": tab.to_dict("records"), "seeds": int(runs["seed"].nunique())}
    return res, tab


def _u(tab: pd.DataFrame, frac: float, x: float) -> float:
    row = tab[np.isclose(tab["frac"], frac) & np.isclose(tab["X"], x)]
    return float(row["utilization"].iloc[0]) if len(row) else float("nan")


QUICK_8 = {
    "grid": {
        "topology.buffer": ["625pkt", "1250pkt", "6250pkt"],
        "fluid.sync.min_level": [1.0, 0.3],
    },
    "seeds": 2,
    "set": {"duration": "1000s"},
}


def fig8(ctx: Context) -> FigureResult:
    res, tab = _util_vs_buffer(
        ctx, "fig8", "HSTCP, 10 flows, 1 Gb/s, RTT 115.5-124.5 ms (fluid)", 12500.0, QUICK_8
    )
    small = [f for f in sorted(tab["frac"].unique()) if f <= 0.1]
    diffs = [_u(tab, f, 0.3) - _u(tab, f, 1.0) for f in small]
    res.claims += [
        Claim(
            "desync_raises_util",
            "lowering the synchronization (X = 1 → 0.3) raises utilization at small buffers",
            "X = 0.3 above X = 1 (figure, no number)",
            ", ".join(f"{f:g}: {d:+.3f}" for f, d in zip(small, diffs, strict=True)),
            all(d > 0 for d in diffs),
            "util(X=0.3) − util(X=1) > 0 at every buffer ≤ 0.1 BDP",
        ),
        Claim(
            "grows_with_buffer",
            "utilization grows with the buffer",
            "figure",
            f"X=1: {fmt(_u(tab, min(tab['frac']), 1.0))} → {fmt(_u(tab, max(tab['frac']), 1.0))}",
            _u(tab, max(tab["frac"]), 1.0) >= _u(tab, min(tab["frac"]), 1.0),
            "util at the largest buffer ≥ at the smallest (X = 1)",
        ),
    ]
    return res


QUICK_9 = {
    "grid": {
        "topology.buffer": ["0.02bdp", "0.05bdp", "0.1bdp", "0.3bdp"],
        "fluid.sync.min_level": [1.0, 0.3],
    },
    "seeds": 2,
}


def _fig9(ctx: Context, sub: str, cc: str) -> tuple[FigureResult, pd.DataFrame]:
    title = f"Fig. 9({sub}) {NAMES[cc]}, 10 flows, 10 Gb/s, RTT 80-260 ms (fluid)"
    return _util_vs_buffer(ctx, f"fig9{sub}", title, None, QUICK_9)


def _desync_claim(tab: pd.DataFrame, who: str, fracs=(0.02, 0.05, 0.1)) -> Claim:
    d = {f: _u(tab, f, 0.3) - _u(tab, f, 1.0) for f in fracs}
    return Claim(
        "desync_raises_util",
        f"lower synchronization (X = 0.3) raises {who}'s utilization at small buffers",
        "X = 0.3 above X = 1 (figure)",
        ", ".join(f"{f:g} BDP: {v:+.3f}" for f, v in d.items()),
        all(v > 0.002 for v in d.values()),
        "util(X=0.3) − util(X=1) > 0.002 at 0.02, 0.05 and 0.1 BDP",
    )


def _above90_claim(tab: pd.DataFrame, who: str) -> Claim:
    u = _u(tab, 0.1, 0.3)
    return Claim(
        "above_90_at_0.1",
        f"a buffer of < 10 % of the BDP gives {who} more than 90 % utilization (conclusion i)",
        "> 0.90",
        f"{fmt(u)} at 0.1 BDP, X = 0.3",
        u > 0.9,
        "util(0.1 BDP, X = 0.3) > 0.9",
    )


def fig9a(ctx: Context) -> FigureResult:
    res, tab = _fig9(ctx, "a", "highspeed")
    res.claims += [_desync_claim(tab, "HSTCP"), _above90_claim(tab, "HSTCP")]
    return res


def fig9b(ctx: Context) -> FigureResult:
    res, tab = _fig9(ctx, "b", "cubic")
    small = [f for f in (0.02, 0.05) if f in set(np.round(tab["frac"], 6))]
    us = [_u(tab, f, x) for f in small for x in sorted(tab["X"].unique())]
    res.claims += [
        Claim(
            "below_90_small",
            "CUBIC is drastically affected by small buffers: < 90 % utilization for every X",
            "< 0.90",
            f"max {fmt(max(us))} at ≤ 0.05 BDP",
            max(us) < 0.9,
            "util < 0.9 for every X at 0.02 and 0.05 BDP",
        ),
    ]
    return res


def fig9c(ctx: Context) -> FigureResult:
    res, tab = _fig9(ctx, "c", "reno")
    res.claims += [_desync_claim(tab, "AIMD"), _above90_claim(tab, "AIMD")]
    return res


def fig9d(ctx: Context) -> FigureResult:
    res, tab = _fig9(ctx, "d", "htcp")
    res.claims += [
        Claim(
            "poor_small_sync",
            "synchronized H-TCP performs poorly at 0.05 BDP; desynchronized flows do better",
            "figure",
            f"X=1 {fmt(_u(tab, 0.05, 1.0))}, X=0.3 {fmt(_u(tab, 0.05, 0.3))}",
            _u(tab, 0.05, 0.3) > _u(tab, 0.05, 1.0) and _u(tab, 0.05, 1.0) < 0.9,
            "util(0.05, X=1) < 0.9 and below util(0.05, X=0.3)",
        ),
    ]
    return res


# ------------------------------------------------------------------ Figures 10-12


QUICK_M = {"grid": {"fluid.sync.level": [1, 2, 3, 4, 6, 8, 10]}, "set": {"duration": "1500s"}}


def _vs_m(ctx: Context, name: str, title: str) -> tuple[FigureResult, pd.DataFrame]:
    sw, runs = ctx.sweep(name, quick=QUICK_M)
    runs = runs.assign(m=runs["fluid.sync.level"].astype(int))
    tab = mean_by(runs, ["m"], ["utilization", "flows_jain_fairness"]).sort_values("m")
    tab = tab.reset_index(drop=True)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        ax.plot(tab["m"], tab["flows_jain_fairness"], marker="o", label="Jain fairness")
        ax.plot(tab["m"], tab["utilization"], marker="s", label="utilization")
        ax.set_xlabel("synchronization level m (flows losing per congestion event)")
        ax.set_ylabel("Jain index / utilization")
        ax.set_ylim(0, 1.05)
        ax.set_title(title)
        ax.legend()
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    t = tab.rename(columns={"flows_jain_fairness": "Jain", "utilization": "util"})
    res = FigureResult(name, title, files=[path.name], table=markdown_table(t))
    res.values = {"table": tab.to_dict("records")}
    return res, tab


def _at(tab: pd.DataFrame, m: int, col: str) -> float:
    return float(tab.loc[tab["m"] == m, col].iloc[0])


def _low_high(tab, col, low=(1, 2, 3), high=None) -> tuple[float, float]:
    high = high or [m for m in tab["m"] if m > 4]
    lo = tab[tab["m"].isin(low)][col].mean()
    hi = tab[tab["m"].isin(high)][col].mean()
    return float(lo), float(hi)


def _mono_claim(tab, col, what, sign=-1) -> Claim:
    # Spearman's ρ: Pearson's correlation of the ranks (ties at their mean rank), as
    # scipy.stats.spearmanr, without scipy. A constant column (every m fills the link)
    # has no rank correlation: no trend.
    if tab[col].nunique() < 2:
        rho = 0.0
    else:
        rho = float(tab["m"].rank().corr(tab[col].rank()))
    return Claim(
        f"{col}_trend",
        what,
        "figure",
        f"Spearman ρ(m, {col}) = {rho:+.2f}; m=1 {fmt(_at(tab, 1, col))}, "
        f"m=10 {fmt(_at(tab, 10, col))}",
        rho * sign > 0.5,
        f"Spearman ρ {'<' if sign < 0 else '>'} {'-' if sign < 0 else ''}0.5",
    )


def fig10a(ctx: Context) -> FigureResult:
    res, tab = _vs_m(ctx, "fig10a", "Fig. 10(a) 10 CUBIC flows, 10 Gb/s, 0.1 BDP")
    res.claims += [
        _mono_claim(tab, "utilization", "utilization improves as m decreases"),
        Claim(
            "jain_near_1",
            "fairness is good (near 1) when all flows are synchronized and as m decreases",
            "figure",
            f"min Jain {fmt(tab['flows_jain_fairness'].min())}",
            tab["flows_jain_fairness"].min() > 0.9,
            "Jain > 0.9 at every m",
        ),
    ]
    return res


def fig10b(ctx: Context) -> FigureResult:
    res, tab = _vs_m(ctx, "fig10b", "Fig. 10(b) 10 HSTCP flows, 10 Gb/s, 0.1 BDP")
    best = int(tab.loc[tab["utilization"].idxmax(), "m"])
    res.claims += [
        Claim(
            "util_peak_3_5",
            "highest utilization for m = 3 to 5",
            "m = 3-5",
            f"highest at m = {best} ({fmt(tab['utilization'].max())}; m=1 "
            f"{fmt(_at(tab, 1, 'utilization'))}, m=10 {fmt(_at(tab, 10, 'utilization'))})",
            3 <= best <= 5,
            "argmax_m util in [3, 5]",
        ),
        _dip_claim(tab, "HSTCP"),
    ]
    return res


def fig10c(ctx: Context) -> FigureResult:
    res, tab = _vs_m(ctx, "fig10c", "Fig. 10(c) 10 H-TCP flows, 10 Gb/s, 0.1 BDP")
    res.claims += [_mono_claim(tab, "utilization", "utilization decreases (linearly) as m grows")]
    return res


def fig10d(ctx: Context) -> FigureResult:
    res, tab = _vs_m(ctx, "fig10d", "Fig. 10(d) 10 STCP flows, 10 Gb/s, 0.1 BDP")
    res.claims += [
        _mono_claim(tab, "utilization", "utilization decreases slightly as m grows"),
        _dip_claim(tab, "STCP"),
    ]
    return res


def fig11(ctx: Context) -> FigureResult:
    res, tab = _vs_m(ctx, "fig11", "Fig. 11 10 AIMD flows, 10 Gb/s, 0.1 BDP")
    res.claims += [
        _mono_claim(tab, "utilization", "decreasing m improves link utilization"),
        _mono_claim(tab, "flows_jain_fairness", "decreasing m improves fairness"),
    ]
    return res


def fig12(ctx: Context) -> FigureResult:
    res, tab = _vs_m(ctx, "fig12", "Fig. 12 2 × (AIMD, HSTCP, CUBIC, H-TCP, STCP), 10 Gb/s")
    ul, uh = _low_high(tab, "utilization")
    jl, jh = _low_high(tab, "flows_jain_fairness")
    res.claims += [
        Claim(
            "low_m_fairer",
            "fairness improves as m decreases below 4 (poor for m > 4)",
            "figure",
            f"mean Jain, m ≤ 3 vs m > 4: {fmt(jl)} vs {fmt(jh)}",
            jl > jh + 0.1,
            "mean Jain over m ≤ 3 > mean over m > 4 + 0.1",
        ),
        Claim(
            "low_m_util",
            "utilization improves as m decreases below 4 (poor for m > 4)",
            "figure",
            f"mean utilization, m ≤ 3 vs m > 4: {fmt(ul)} vs {fmt(uh)}",
            ul > uh + 0.01,
            "mean utilization over m ≤ 3 > mean over m > 4 + 0.01",
        ),
    ]
    return res


def _dip_claim(tab: pd.DataFrame, who: str) -> Claim:
    j = tab.set_index("m")["flows_jain_fairness"]
    m_min = int(j.idxmin())
    rise = float(j.loc[j.index.max()] - j.min())
    return Claim(
        "jain_dip",
        f"{who}: as m grows fairness first decreases, then increases again",
        "figure",
        f"min Jain {fmt(j.min())} at m = {m_min}, Jain(m = {j.index.max()}) "
        f"{fmt(j.loc[j.index.max()])}",
        m_min < j.index.max() and rise > 0.05,
        "Jain minimal at an m < max, and Jain(max m) > that minimum + 0.05",
    )


FIGURES = {
    "fig2": fig2,
    "fig3": fig3,
    "fig4": fig4,
    "fig8": fig8,
    "fig9a": fig9a,
    "fig9b": fig9b,
    "fig9c": fig9c,
    "fig9d": fig9d,
    "fig10a": fig10a,
    "fig10b": fig10b,
    "fig10c": fig10c,
    "fig10d": fig10d,
    "fig11": fig11,
    "fig12": fig12,
}
