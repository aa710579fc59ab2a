"""Study 002: Muraya, *Exploring Delay-Based High-Speed TCP Protocols under Different
Router Buffer Regimes*.

The packet engine: a NewReno "pre" flow at 0 s, the tested flow (Compound, FAST,
Illinois; NewReno as the calibration; Vegas added) at 50 s and a NewReno "post" flow at
100 s share a dumbbell bottleneck with a BDP, a Stanford (BDP/50 at 1 Gb/s: 166
packets) or a tiny (20 packets) buffer. Only the throughput section (§7.2, Figures
19-30) is reproduced, for one environment; the CoV and convergence values of the same
runs are reported beside it. Quick mode scales the rate down to 100 Mb/s and the run to
300 s (the stages at 0, 50 and 100 s kept).
"""

from __future__ import annotations

import pandas as pd

from ccsim import plots
from ccsim.reproduce import Claim, Context, FigureResult, fmt, markdown_table

NAMES = {
    "newreno": "NewReno",
    "compound": "Compound",
    "fast": "FAST",
    "illinois": "Illinois",
    "vegas": "Vegas",
}
BUFS = {"bdp": "BDP", "166pkt": "Stanford (166)", "20pkt": "tiny (20)"}


def _plt():
    import matplotlib.pyplot as plt

    return plt


QUICK = {
    "seeds": 2,
    "set": {"topology.bottleneck_rate": "100Mbps", "duration": "300s"},
}


def _runs(ctx: Context) -> pd.DataFrame:
    sw, runs = ctx.sweep("throughput", quick=QUICK)
    rows = []
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        f = run.flows.set_index("group")
        b = run.summary["links"]["bottleneck"]
        rows.append(
            {
                "cc": str(row["flows[1].cc"]),
                "buffer": str(row["topology.buffer"]),
                "test_share": float(f.loc["test", "goodput_bps"]) / float(b["rate_bps"]),
                "utilization": float(b["utilization"]),
                "test_cov": float(f.loc["test", "cov_mean"]),
                "test_convergence_s": float(f.loc["test", "convergence_s"]),
            }
        )
    d = pd.DataFrame(rows)
    return d.groupby(["cc", "buffer"], as_index=False, sort=False).mean()


def throughput(ctx: Context) -> FigureResult:
    d = _runs(ctx)
    ccs = [c for c in NAMES if c in set(d["cc"])]
    bufs = [b for b in BUFS if b in set(d["buffer"])]
    v = d.set_index(["cc", "buffer"])
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
        width = 0.8 / len(ccs)
        for i, c in enumerate(ccs):
            xs = [j + (i - (len(ccs) - 1) / 2) * width for j in range(len(bufs))]
            axes[0].bar(xs, [v.loc[(c, b), "test_share"] for b in bufs], width, label=NAMES[c])
            axes[1].bar(xs, [v.loc[(c, b), "utilization"] for b in bufs], width, label=NAMES[c])
        for ax in axes:
            ax.set_xticks(range(len(bufs)))
            ax.set_xticklabels([BUFS[b] for b in bufs])
            ax.set_ylim(0, 1.05)
        axes[0].set_ylabel("test flow's goodput / link rate")
        axes[1].set_ylabel(plots.label("utilization"))
        axes[0].legend(fontsize=7)
        axes[0].set_title("Figs. 19-30: test flow between NewReno pre/post")
        path = ctx.out / "throughput.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult(
        "throughput", "test-flow throughput and utilization under three buffers", [path.name]
    )
    tab = d.assign(cc=d["cc"].map(NAMES), buffer=d["buffer"].map(BUFS))
    res.table = markdown_table(tab)

    def val(c: str, b: str, k: str) -> float:
        return float(v.loc[(c, b), k])

    fast_bdp = val("fast", "bdp", "test_share")
    others_cov = {c: val(c, "bdp", "test_cov") for c in ("newreno", "compound", "illinois")}
    lose = {c: (val(c, "bdp", "utilization"), val(c, "20pkt", "utilization")) for c in ccs}
    stan = {c: val(c, "166pkt", "test_share") for c in ("compound", "fast", "illinois")}
    res.claims += [
        Claim(
            "fast_below_bdp",
            "under the BDP buffer FAST stays well below the link rate",
            "continuously underperforms (Fig. 19-22)",
            f"FAST's goodput {fmt(fast_bdp)} of the link; Compound "
            f"{fmt(val('compound', 'bdp', 'test_share'))}, Illinois "
            f"{fmt(val('illinois', 'bdp', 'test_share'))}",
            fast_bdp < 0.5,
            "FAST's goodput < 0.5 × link rate under the BDP buffer",
        ),
        Claim(
            "fast_stable_bdp",
            "FAST is largely stable under the BDP buffer",
            "stable",
            f"CoV FAST {fmt(val('fast', 'bdp', 'test_cov'))}; "
            + ", ".join(f"{NAMES[c]} {fmt(x)}" for c, x in others_cov.items()),
            val("fast", "bdp", "test_cov") < min(others_cov.values()),
            "FAST's CoV (5 s windows) below NewReno's, Compound's and Illinois'",
        ),
        Claim(
            "illinois_above_compound_bdp",
            "under the BDP buffer Illinois achieves much higher throughput than Compound",
            "much higher",
            f"Illinois {fmt(val('illinois', 'bdp', 'test_share'))}, Compound "
            f"{fmt(val('compound', 'bdp', 'test_share'))}",
            val("illinois", "bdp", "test_share") > 1.2 * val("compound", "bdp", "test_share"),
            "Illinois > 1.2 × Compound",
        ),
        Claim(
            "fast_outdone_stanford",
            "under the Stanford buffer FAST is woefully outdone by the others",
            "woefully outdone",
            ", ".join(f"{NAMES[c]} {fmt(x)}" for c, x in stan.items()),
            stan["fast"] < 0.5 * min(stan["compound"], stan["illinois"]),
            "FAST < 0.5 × min(Compound, Illinois)",
        ),
        Claim(
            "all_lose_tiny",
            "all protocols lose throughput as the buffer shrinks to 20 packets",
            "all underperform at 20 packets",
            ", ".join(f"{NAMES[c]} {fmt(a)} → {fmt(b)}" for c, (a, b) in lose.items()),
            all(b < a - 0.05 for a, b in lose.values()),
            "link utilization at 20 packets < at the BDP − 0.05, every test protocol",
        ),
    ]
    res.values = {"table": d.to_dict("records")}
    return res


FIGURES = {"throughput": throughput}
