"""Study 003: Augé, Roberts, *Performance of TCP over a Fair Queueing Link* (a draft).

The packet engine: one to four permanent TCP flows (Reno or HighSpeed TCP) share a
50 Mb/s link with Poisson packet background traffic, FIFO (drop-tail) or per-flow fair
queueing, buffers from 20 to 625 packets (the BDP). Figures 6 (one flow alone on
25 Mb/s), 7-9 (utilization against time), 10 (share of the available capacity against
the buffer), 12 (HSTCP) and 13 (fair queueing).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ccsim import plots
from ccsim.reproduce import Claim, Context, FigureResult, fmt, log_x, markdown_table, mean_by

MSS, WIRE = 1460.0, 1500.0  # the scenarios' packet: goodput counts MSS, the link wire bytes
BDP_50 = 625.0  # packets, 50 Mb/s x 150 ms / 1500 B


def _plt():
    import matplotlib.pyplot as plt

    return plt


def reno_share(buffer_pkts: float, bdp_pkts: float) -> float:
    """Long-run utilization of one Reno flow alone on a drop-tail link (deterministic
    sawtooth, no timeouts): the window climbs from (P + B)/2 to P + B and halves, P the
    BDP and B the buffer in packets; below P the link is W/P busy, above it full.
    With b = B/P < 1: U = (3 + 6b − b²) / (4(1 + b)); 3/4 at b = 0 (the draft's 75 %
    fluid bound), 1 from b = 1."""
    b = buffer_pkts / bdp_pkts
    return 1.0 if b >= 1 else (3 + 6 * b - b * b) / (4 * (1 + b))


def _pkts(v) -> float:
    return float(str(v).removesuffix("pkt"))


def _details(sw, runs: pd.DataFrame) -> pd.DataFrame:
    """Per run: the TCP flows' wire throughput, each flow's goodput, the Poisson
    background's loss fraction."""
    rows = []
    for rid in runs["run_id"]:
        run = sw.load(rid)
        src = run.summary.get("sources") or []
        sent = sum(s["sent"] for s in src)
        dropped = sum(s["dropped"] for s in src)
        gp = run.flows["goodput_bps"].to_numpy(dtype=float)
        rows.append(
            {
                "run_id": rid,
                "tcp_bps": float(gp.sum()) * WIRE / MSS,
                "goodputs": list(gp),
                "bg_loss": dropped / sent if sent else float("nan"),
                "cap_bps": float(run.summary["links"]["bottleneck"]["rate_bps"]),
            }
        )
    return runs.merge(pd.DataFrame(rows), on="run_id")


def _load(runs: pd.DataFrame, default: float = 0.5) -> pd.Series:
    if "poisson[0].load" in runs:
        return runs["poisson[0].load"].astype(float)
    return pd.Series(default, index=runs.index)


# ------------------------------------------------------------------ Figure 6


QUICK_BUFS = {"topology.buffer": ["20pkt", "80pkt", "312pkt", "625pkt"]}
QUICK = {"grid": QUICK_BUFS, "seeds": 1, "set": {"duration": "300s"}}


def fig6(ctx: Context) -> FigureResult:
    sw, runs = ctx.sweep("fig6", quick=QUICK)
    d = _details(sw, runs)
    d["B"] = d["topology.buffer"].map(_pkts)
    d["share"] = d["tcp_bps"] / d["cap_bps"]
    tab = mean_by(d, ["B"], ["share"]).sort_values("B").reset_index(drop=True)
    bdp = 312.5  # 25 Mb/s x 150 ms / 1500 B
    tab["theory"] = [reno_share(b, bdp) for b in tab["B"]]
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        ax.plot(tab["B"], tab["share"], marker="o", label="ccsim: Reno alone, 25 Mb/s")
        bs = np.linspace(0, tab["B"].max(), 200)
        ax.plot(bs, [reno_share(b, bdp) for b in bs], "--", label="sawtooth model (75 % at 0)")
        ax.set_xlabel("buffer (packets)")
        ax.set_ylabel("share of the capacity used")
        ax.set_ylim(0, 1.05)
        ax.set_title("Fig. 6: one Reno flow, no background")
        ax.legend()
        path = ctx.out / "fig6.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig6", "one TCP flow alone on 25 Mb/s: share vs buffer", [path.name])
    res.table = markdown_table(tab.rename(columns={"B": "buffer (pkts)", "share": "ccsim"}))
    mid = tab[tab["B"] >= 80]
    err = float((mid["share"] - mid["theory"]).abs().max())
    s20 = tab.loc[tab["B"] == tab["B"].min()].iloc[0]
    res.claims += [
        Claim(
            "model",
            "throughput grows with the buffer from the 75 % fluid bound (no buffer) "
            "to the full link at one BDP",
            "75 % at B = 0, ~linear growth",
            f"max |ccsim − model| = {err:.3f} for B ≥ 80 pkts",
            err <= 0.05,
            "within 5 points of (3 + 6b − b²)/(4(1 + b)) at every B ≥ 80",
        ),
        Claim(
            "full_at_bdp",
            "a buffer of one BDP (or more) fills the link",
            "≈ 100 %",
            fmt(float(tab["share"].iloc[-1])),
            float(tab["share"].iloc[-1]) > 0.97,
            "share > 0.97 at the largest buffer",
        ),
        Claim(
            "morris_small",
            "at very small buffers the flow behaves badly (Morris): below the model",
            "words",
            f"{fmt(s20['share'])} vs model {fmt(s20['theory'])} at {s20['B']:g} pkts",
            s20["share"] < s20["theory"] - 0.02,
            "share(20) < model − 0.02",
        ),
    ]
    res.values = {"table": tab.to_dict("records")}
    return res


# ------------------------------------------------------------------ Figures 7-9


def _timeseries(ctx: Context, name: str, title: str, quick=None):
    sw, runs = ctx.sweep(name, quick=quick)
    d = _details(sw, runs)
    return sw, d


def _plot_util_time(ax, run, label: str) -> None:
    s = run.series
    u = s[(s["entity"] == "link") & (s["id"] == 0) & (s["metric"] == "utilization")]
    ax.plot(u["time"], u["value"], label=f"link ({label})")
    th = s[(s["entity"] == "flow") & (s["metric"] == "throughput_bps")]
    tcp = th.groupby("time", observed=True)["value"].sum() * WIRE / MSS
    rate = run.summary["links"]["bottleneck"]["rate_bps"]
    ax.plot(tcp.index, tcp.to_numpy() / rate, label=f"TCP ({label})")


QUICK_TS = {"set": {"duration": "300s"}}


def _fig78(
    ctx: Context, name: str, title: str, quick: dict | None
) -> tuple[FigureResult, pd.DataFrame]:
    sw, d = _timeseries(ctx, name, title, quick)
    d = d.copy()
    d["cc"] = d["flows[0].cc"].astype(str) if "flows[0].cc" in d else "reno"
    d["tcp_link"] = d["tcp_bps"] / d["cap_bps"]
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for _, row in d.iterrows():
            _plot_util_time(ax, sw.load(row["run_id"]), f"{row['cc']}, {row['topology.buffer']}")
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(plots.label("utilization"))
        ax.set_ylim(0, 1.05)
        ax.set_title(title)
        ax.legend(fontsize=7)
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult(name, title, [path.name])
    res.values = {
        cc: {
            "utilization": float(r["utilization"]),
            "tcp_link_share": float(r["tcp_link"]),
            "bg_loss": float(r["bg_loss"]),
        }
        for cc, r in d.set_index("cc").iterrows()
    }
    return res, d.set_index("cc")


def fig7(ctx: Context) -> FigureResult:
    res, d = _fig78(ctx, "fig7", "Fig. 7: 50 % Poisson + 1 Reno, buffer 20 packets", QUICK_TS)
    row = d.loc["reno"]
    res.claims += [
        Claim(
            "tcp_below_40",
            "the TCP flow cannot use the available capacity: it falls well below 40 % "
            "of the link (50 % is available)",
            "< 40 % of the link",
            f"TCP {fmt(row['tcp_link'])} of the link ({fmt(row['tcp_link'] / 0.5)} of the "
            f"available); link {fmt(row['utilization'])}",
            row["tcp_link"] < 0.4,
            "TCP's wire throughput < 0.4 C",
        ),
    ]
    return res


def fig8(ctx: Context) -> FigureResult:
    # Not shortened in quick mode: two runs of 600 s cost a few seconds, and the
    # measurement then spans several of the buffer's overflows, some of which end in a
    # timeout (4 in 600 s, each a dip of a few seconds; docs/reproductions/003.md).
    res, d = _fig78(
        ctx, "fig8", "Fig. 8: 50 % Poisson + 1 TCP flow, buffer 625 packets (BDP)", None
    )
    row = d.loc["reno"]
    other = (
        f"; NewReno: link {fmt(d.loc['newreno', 'utilization'])}" if "newreno" in d.index else ""
    )
    res.claims += [
        Claim(
            "near_100",
            "with a BDP buffer the link utilization is again close to 100 %",
            "≈ 100 %",
            f"Reno: link {fmt(row['utilization'])}, TCP {fmt(row['tcp_link'])} of the link{other}",
            row["utilization"] > 0.95,
            "link utilization > 0.95 (Reno)",
        ),
    ]
    return res


def fig9(ctx: Context) -> FigureResult:
    sw, d = _timeseries(ctx, "fig9", "", QUICK_TS)
    d = d.sort_values("flows[0].count")
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for _, row in d.iterrows():
            _plot_util_time(ax, sw.load(row["run_id"]), f"{row['flows[0].count']} flows")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(plots.label("utilization"))
        ax.set_ylim(0, 1.05)
        ax.set_title("Fig. 9: 50 % Poisson + 1 or 4 Reno flows, buffer 20 packets")
        ax.legend(fontsize=7)
        path = ctx.out / "fig9.png"
        plots.save(fig, path)
        plt.close(fig)
    u = dict(zip(d["flows[0].count"].astype(int), d["utilization"], strict=True))
    res = FigureResult("fig9", "50 % Poisson + 4 Reno flows, 20-packet buffer", [path.name])
    res.claims += [
        Claim(
            "multiplexing_helps",
            "multiplexing 4 flows reduces the impact of the small buffer: the link is "
            "used better than with 1 flow",
            "figure",
            f"link {fmt(u[1])} (1 flow) → {fmt(u[4])} (4 flows)",
            u[4] > u[1] + 0.02,
            "util(4 flows) > util(1 flow) + 0.02",
        ),
    ]
    res.values = {"utilization": {str(k): float(v) for k, v in u.items()}}
    return res


# ------------------------------------------------------------------ Figure 10


def fig10(ctx: Context) -> FigureResult:
    # Full-length runs at the figure's load only (as Fig. 8: the large-buffer points
    # average over the few overflows that end in a timeout).
    q = {"grid": QUICK_BUFS | {"poisson[0].load": [0.5]}, "seeds": 1}
    sw, runs = ctx.sweep("fig10", quick=q)
    d = _details(sw, runs)
    d["B"] = d["topology.buffer"].map(_pkts)
    d["load"] = _load(d)
    d["share"] = d["tcp_bps"] / (d["cap_bps"] * (1 - d["load"]))
    tab = mean_by(d, ["load", "B"], ["share", "utilization", "bg_loss"])
    tab = tab.sort_values(["load", "B"]).reset_index(drop=True)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots()
        for load, g in tab.groupby("load"):
            ax.plot(g["B"], g["share"], marker="o", label=f"Poisson load {load:g}")
        bs = np.linspace(0, 625, 200)
        # Without background the available 25 Mb/s has a BDP of 312.5 packets (Fig. 6).
        ax.plot(
            bs,
            [reno_share(b, 312.5) for b in bs],
            "--",
            c="grey",
            label="alone on 25 Mb/s (model, Fig. 6)",
        )
        ax.set_xlabel("buffer (packets)")
        ax.set_ylabel("share of the available capacity")
        ax.set_ylim(0, 1.05)
        ax.set_title("Fig. 10: one Reno flow with Poisson background, 50 Mb/s")
        ax.legend()
        path = ctx.out / "fig10.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig10", "share of the available capacity vs buffer", [path.name])
    res.table = markdown_table(
        tab.rename(columns={"B": "buffer (pkts)", "bg_loss": "background loss"}), 4
    )
    h = tab[np.isclose(tab["load"], 0.5)].set_index("B")
    s20, s625 = float(h["share"].iloc[0]), float(h["share"].iloc[-1])
    res.claims += [
        Claim(
            "small_buffer_poor",
            "with 20 packets and 50 % Poisson load one Reno flow uses well under the "
            "available capacity",
            "well under (Fig. 7: < 40 % of the link)",
            f"{fmt(s20)} of the available",
            s20 < 0.7,
            "share(20 pkts) < 0.7",
        ),
        Claim(
            "bdp_full",
            "with a BDP buffer (625 packets) it uses close to all of it",
            "≈ 100 %",
            fmt(s625),
            s625 > 0.9,
            "share(625 pkts) > 0.9",
        ),
        Claim(
            "below_no_background",
            "the background makes small buffers much worse than for the flow alone (Fig. 6)",
            "words",
            f"{fmt(s20)} vs {fmt(reno_share(20, 312.5))} alone (model)",
            s20 < reno_share(20, 312.5) - 0.1,
            "share(20) < model without background − 0.1",
        ),
    ]
    res.values = {"table": tab.to_dict("records")}
    return res


# ------------------------------------------------------------------ Figure 12


def fig12(ctx: Context) -> FigureResult:
    q = {"grid": {"topology.buffer": ["20pkt", "312pkt"]}, "seeds": 1, "set": {"duration": "300s"}}
    sw, runs = ctx.sweep("fig12", quick=q)
    d = _details(sw, runs)
    d["B"] = d["topology.buffer"].map(_pkts)
    d["pair"] = d["flows[0].cc"].astype(str) + "+" + d["flows[1].cc"].astype(str)
    d["first_share"] = d["goodputs"].map(lambda g: g[0] / sum(g) if sum(g) > 0 else np.nan)
    tab = mean_by(d, ["pair", "B"], ["utilization", "bg_loss", "first_share"])
    tab = tab.sort_values(["pair", "B"]).reset_index(drop=True)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
        for pair, g in tab.groupby("pair"):
            if pair == "reno+highspeed":
                continue  # the mirror of highspeed+reno
            axes[0].plot(g["B"], g["utilization"], marker="o", label=pair)
            axes[1].plot(g["B"], 100 * g["bg_loss"], marker="o", label=pair)
        axes[0].set_ylabel(plots.label("utilization"))
        axes[1].set_ylabel("background packets lost (%)")
        for ax in axes:
            ax.set_xlabel("buffer (packets)")
            log_x(ax, tab["B"])
        axes[0].legend()
        axes[0].set_title("Fig. 12: HSTCP vs Reno, 50 % Poisson, 50 Mb/s")
        path = ctx.out / "fig12.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig12", "HighSpeed TCP with Poisson background", [path.name])
    res.table = markdown_table(
        tab.rename(
            columns={
                "B": "buffer (pkts)",
                "bg_loss": "background loss",
                "first_share": "flow A's share of TCP goodput",
            }
        ),
        4,
    )
    by = tab.groupby("pair")
    u_hs, u_re = by.get_group("highspeed+highspeed"), by.get_group("reno+reno")
    mix = by.get_group("highspeed+reno")
    du = (u_hs["utilization"].to_numpy() - u_re["utilization"].to_numpy()).mean()
    dl = (u_hs["bg_loss"].to_numpy() - u_re["bg_loss"].to_numpy()).mean()
    bias = float(mix["first_share"].mean())
    res.claims += [
        Claim(
            "hstcp_util",
            "HSTCP improves utilization",
            "words",
            f"HSTCP+HSTCP − Reno+Reno: {du:+.3f} (mean over buffers)",
            du > 0.01,
            "mean utilization gain > 0.01",
        ),
        Claim(
            "hstcp_bg_loss",
            "but more loss for the non-bottlenecked (Poisson) flows",
            "words",
            f"background loss {dl * 100:+.3f} points (mean over buffers)",
            dl > 0,
            "background loss higher with HSTCP",
        ),
        Claim(
            "hstcp_bias",
            "severe bias in favour of HSTCP against Reno",
            "words",
            f"HSTCP's share of the TCP goodput {fmt(bias)}",
            bias > 0.6,
            "HSTCP share > 0.6 (mean over buffers)",
        ),
    ]
    res.values = {"table": tab.to_dict("records")}
    return res


# ------------------------------------------------------------------ Figure 13


def fig13(ctx: Context) -> FigureResult:
    q = {"grid": {"topology.buffer": ["20pkt", "625pkt"]}, "seeds": 1, "set": {"duration": "300s"}}
    sw, runs = ctx.sweep("fig13", quick=q)
    d = _details(sw, runs)
    d["B"] = d["topology.buffer"].map(_pkts)
    d["queue"] = d["topology.queue"].astype(str).map({"droptail": "FIFO", "fq": "FQ"})
    d["hs_share"] = d["goodputs"].map(lambda g: g[0] / sum(g) if sum(g) > 0 else np.nan)
    tab = mean_by(d, ["queue", "B"], ["flows_jain_fairness", "utilization", "bg_loss", "hs_share"])
    tab = tab.sort_values(["queue", "B"]).reset_index(drop=True)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
        for q_, g in tab.groupby("queue"):
            axes[0].plot(g["B"], g["flows_jain_fairness"], marker="o", label=q_)
            axes[1].plot(g["B"], 100 * g["bg_loss"], marker="o", label=q_)
        axes[0].set_ylabel("Jain index (HSTCP, Reno)")
        axes[1].set_ylabel("background packets lost (%)")
        for ax in axes:
            ax.set_xlabel("buffer (packets)")
            log_x(ax, tab["B"])
        axes[0].legend()
        axes[0].set_title("Fig. 13: FIFO vs fair queueing, HSTCP + Reno")
        path = ctx.out / "fig13.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult(
        "fig13", "FIFO vs fair queueing: fairness between HSTCP and Reno", [path.name]
    )
    res.table = markdown_table(
        tab.rename(
            columns={
                "B": "buffer (pkts)",
                "flows_jain_fairness": "Jain",
                "bg_loss": "background loss",
                "hs_share": "HSTCP share",
            }
        ),
        4,
    )
    j = tab.set_index(["queue", "B"])["flows_jain_fairness"]
    loss = tab.set_index(["queue", "B"])["bg_loss"]
    bmin, bmax = tab["B"].min(), tab["B"].max()
    gain_big = float(j["FQ", bmax] - j["FIFO", bmax])
    gain_small = float(j["FQ", bmin] - j["FIFO", bmin])
    res.claims += [
        Claim(
            "fq_fair_large",
            "with a not too small buffer fair queueing solves the fairness issue",
            "words",
            f"Jain at {bmax:g} pkts: FIFO {fmt(j['FIFO', bmax])}, FQ {fmt(j['FQ', bmax])}",
            j["FQ", bmax] > 0.95 and gain_big > 0.05,
            "Jain(FQ) > 0.95 and > Jain(FIFO) + 0.05 at the largest buffer",
        ),
        Claim(
            "fq_no_effect_20",
            "with 20-packet buffers fair queueing has almost no effect on fairness",
            "words",
            f"Jain at {bmin:g} pkts: FIFO {fmt(j['FIFO', bmin])}, FQ {fmt(j['FQ', bmin])}",
            abs(gain_small) < 0.05,
            "|Jain(FQ) − Jain(FIFO)| < 0.05 at 20 packets",
        ),
        Claim(
            "fq_protects",
            "fair queueing protects the non-bottlenecked flows (losses)",
            "words",
            ", ".join(
                f"{b:g} pkts: FIFO {loss['FIFO', b] * 100:.3f} %, FQ {loss['FQ', b] * 100:.3f} %"
                for b in (bmin, bmax)
            ),
            all(loss["FQ", b] <= loss["FIFO", b] for b in (bmin, bmax)),
            "background loss(FQ) ≤ loss(FIFO) at the smallest and largest buffers",
        ),
    ]
    res.values = {
        "table": tab.to_dict("records"),
        "jain_gain_small": gain_small,
        "jain_gain_large": gain_big,
    }
    return res


FIGURES = {
    "fig6": fig6,
    "fig7": fig7,
    "fig8": fig8,
    "fig9": fig9,
    "fig10": fig10,
    "fig12": fig12,
    "fig13": fig13,
}
