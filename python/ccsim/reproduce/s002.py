"""Study 002: Muraya, *Exploring Delay-Based High-Speed TCP Protocols under Different
Router Buffer Regimes*.

The packet engine: a NewReno "pre" flow at 0 s, the tested flow (Compound, FAST,
Illinois; NewReno as the calibration; Vegas added) at 50 s and a NewReno "post" flow at
100 s share a dumbbell bottleneck with the BDP buffer of the largest environment (8333
packets), a Stanford (166 packets) or a tiny (20 packets) buffer, in the study's four
environments (500 or 1000 Mb/s, RTT 50 or 100 ms). One sweep (``throughput.toml``)
serves the three sections: throughput (§7.2, Figures 19-30), burstiness as the CoV of
throughput over 5 s windows (§7.3, Figures 31-42) and TCP fairness and convergence time
(§7.4, Figures 43-68); the later figures reuse the runs of the first.

Quick mode keeps one environment, scaled down to 100 Mb/s and 100 ms, with the buffers
as packet counts (BDP = 833 packets there, 166, 20), 300 s runs (the stages at 0, 50
and 100 s kept) and two seeds.
"""

from __future__ import annotations

import math

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
HIGH_SPEED = ("compound", "fast", "illinois")


def _plt():
    import matplotlib.pyplot as plt

    return plt


QUICK = {
    "seeds": 2,
    "grid": {
        "topology.bottleneck_rate": ["100Mbps"],
        "topology.bottleneck_delay": ["36ms"],
        "topology.buffer": ["bdp", "166pkt", "20pkt"],
    },
    "set": {"duration": "300s"},
}


def _rate_mbps(v: str) -> int:
    s = str(v)
    if s.endswith("Gbps"):
        return round(float(s[:-4]) * 1000)
    if s.endswith("Mbps"):
        return round(float(s[:-4]))
    raise ValueError(f"topology.bottleneck_rate: cannot read {v!r}")


def _rtt_ms(delay: str) -> int:
    # Mean two-way propagation RTT: 2 x (bottleneck + 2 x 7 ms mean access delay), the
    # scenario's comment block.
    s = str(delay)
    if not s.endswith("ms"):
        raise ValueError(f"topology.bottleneck_delay: cannot read {delay!r}")
    return round(2 * (float(s[:-2]) + 14))


def _buffer(v: str) -> str:
    # The BDP buffer is written "8333pkt" in the full scenario (one size for every
    # environment, as in the study) and "bdp" in quick mode (833 packets at 100 Mb/s).
    s = str(v)
    return "bdp" if s in ("bdp", "8333pkt") else s


def _runs(ctx: Context) -> pd.DataFrame:
    """One row per (environment, test protocol, buffer): the seeds' mean of the
    per-run metrics. A convergence time that never happened is +inf (so a mean with
    one never-converging seed is inf: "not within the run")."""
    sw, runs = ctx.sweep("throughput", quick=QUICK)
    rows = []
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        f = run.flows.set_index("group")
        b = run.summary["links"]["bottleneck"]
        rate = float(b["rate_bps"])

        def conv(g: str, f=f) -> float:
            x = float(f.loc[g, "convergence_s"])
            return math.inf if math.isnan(x) else x

        rows.append(
            {
                "env": f"{_rate_mbps(row['topology.bottleneck_rate'])}/"
                f"{_rtt_ms(row['topology.bottleneck_delay'])}",
                "cc": str(row["flows[1].cc"]),
                "buffer": _buffer(row["topology.buffer"]),
                "test_share": float(f.loc["test", "goodput_bps"]) / rate,
                "pre_share": float(f.loc["pre", "goodput_bps"]) / rate,
                "post_share": float(f.loc["post", "goodput_bps"]) / rate,
                "utilization": float(b["utilization"]),
                "test_cov": float(f.loc["test", "cov_mean"]),
                "test_convergence_s": conv("test"),
                "post_convergence_s": conv("post"),
            }
        )
    d = pd.DataFrame(rows)
    d = d.groupby(["env", "cc", "buffer"], as_index=False, sort=False).mean()
    # TCP friendliness (§7.4: "the throughputs ... of the pre and post TCP flows with and
    # without a high-speed flow"): their goodput with this test protocol over their
    # goodput with a NewReno test flow, same environment and buffer. 1 = as friendly
    # as NewReno; below 1 the test protocol takes from the NewReno flows.
    legacy = d["pre_share"] + d["post_share"]
    base = d[d["cc"] == "newreno"].set_index(["env", "buffer"])
    ref = [
        float(base.loc[(e, b), "pre_share"] + base.loc[(e, b), "post_share"])
        for e, b in zip(d["env"], d["buffer"], strict=True)
    ]
    d["friendliness"] = legacy / ref
    return d


def _envs(d: pd.DataFrame) -> list[str]:
    # Study order: 500/50, 500/100, 1000/50, 1000/100.
    return sorted(set(d["env"]), key=lambda e: tuple(int(x) for x in e.split("/")))


def _main_env(d: pd.DataFrame) -> str:
    """The environment of the single-environment claims: the largest rate at 100 ms
    (1000/100 in full mode, 100/100 in quick mode)."""
    return _envs(d)[-1]


def _bars(
    ctx: Context,
    d: pd.DataFrame,
    keys: list[tuple],
    name: str,
    title: str,
    ylim: tuple[float, float] | None = None,
    clip: float | None = None,
    logy: bool = False,
) -> str:
    """One row of panels per metric, one panel per buffer; x: environment (rate Mb/s /
    RTT ms), one bar per test protocol. *keys*: ``(column, y label[, y top])``; a bar
    above its row's top (or *clip*) is drawn at it."""
    ccs = [c for c in NAMES if c in set(d["cc"])]
    bufs = [b for b in BUFS if b in set(d["buffer"])]
    envs = _envs(d)
    v = d.set_index(["env", "cc", "buffer"])
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(
            len(keys),
            len(bufs),
            figsize=(3.3 * len(bufs), 2.6 * len(keys)),
            squeeze=False,
            sharey="row",
        )
        width = 0.8 / len(ccs)
        for r, (key, ylabel, *top) in enumerate(keys):
            for j, b in enumerate(bufs):
                ax = axes[r][j]
                for i, c in enumerate(ccs):
                    xs = [k + (i - (len(ccs) - 1) / 2) * width for k in range(len(envs))]
                    ys = [float(v.loc[(e, c, b), key]) for e in envs]
                    cap = top[0] if top else clip
                    if cap is not None:
                        ys = [min(y, cap) for y in ys]
                    ax.bar(xs, ys, width, label=NAMES[c], color=f"C{i}")
                ax.set_xticks(range(len(envs)))
                ax.set_xticklabels(envs, fontsize=7)
                if ylim is not None:
                    ax.set_ylim(*ylim)
                if logy:
                    ax.set_yscale("log")
                if top:
                    ax.set_ylim(0, top[0])
                if r == 0:
                    ax.set_title(BUFS[b], fontsize=9)
                if r == len(keys) - 1:
                    ax.set_xlabel("Mb/s / ms", fontsize=7)
                if j == 0:
                    ax.set_ylabel(ylabel, fontsize=8)
        axes[0][-1].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.suptitle(title, fontsize=9, y=1.0 + 0.05 / len(keys))
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def _table(d: pd.DataFrame, cols: list[str]) -> str:
    tab = d[["env", "cc", "buffer", *cols]].assign(
        cc=d["cc"].map(NAMES), buffer=d["buffer"].map(BUFS)
    )
    return markdown_table(tab)


def _each(d: pd.DataFrame, buffer: str, key: str, ccs) -> dict[str, dict[str, float]]:
    """{env: {cc: value}} for one buffer."""
    v = d.set_index(["env", "cc", "buffer"])
    return {e: {c: float(v.loc[(e, c, buffer), key]) for c in ccs} for e in _envs(d)}


def _show(m: dict[str, dict[str, float]]) -> str:
    return "; ".join(
        f"{e}: " + ", ".join(f"{NAMES[c]} {fmt(x)}" for c, x in vals.items())
        for e, vals in m.items()
    )


def throughput(ctx: Context) -> FigureResult:
    d = _runs(ctx)
    files = [
        _bars(
            ctx,
            d,
            [
                ("test_share", "test flow's goodput / C"),
                ("utilization", plots.label("utilization")),
            ],
            "throughput",
            "Figs. 19-30: test flow between NewReno pre/post",
            ylim=(0, 1.05),
        )
    ]
    res = FigureResult(
        "throughput", "test-flow throughput and utilization under three buffers", files
    )
    res.table = _table(d, ["test_share", "pre_share", "post_share", "utilization"])
    m = _main_env(d)
    v = d.set_index(["env", "cc", "buffer"])

    def val(c: str, b: str, k: str) -> float:
        return float(v.loc[(m, c, b), k])

    ccs = [c for c in NAMES if c in set(d["cc"])]
    fast_bdp = val("fast", "bdp", "test_share")
    others_cov = {c: val(c, "bdp", "test_cov") for c in ("newreno", "compound", "illinois")}
    lose = {
        (e, c): (
            float(v.loc[(e, c, "bdp"), "utilization"]),
            float(v.loc[(e, c, "20pkt"), "utilization"]),
        )
        for e in _envs(d)
        for c in ccs
    }
    stan = {c: val(c, "166pkt", "test_share") for c in HIGH_SPEED}
    share_bdp = _each(d, "bdp", "test_share", HIGH_SPEED)
    pre_bdp = _each(d, "bdp", "pre_share", ("compound", "illinois"))
    res.claims += [
        Claim(
            "fast_below_bdp",
            f"under the BDP buffer FAST stays well below the link rate ({m})",
            "continuously underperforms (Fig. 19-22)",
            f"FAST's goodput {fmt(fast_bdp)} of the link; Compound "
            f"{fmt(val('compound', 'bdp', 'test_share'))}, Illinois "
            f"{fmt(val('illinois', 'bdp', 'test_share'))}",
            fast_bdp < 0.5,
            "FAST's goodput < 0.5 × link rate under the BDP buffer",
        ),
        Claim(
            "fast_stable_bdp",
            f"FAST is largely stable under the BDP buffer ({m})",
            "stable",
            f"CoV FAST {fmt(val('fast', 'bdp', 'test_cov'))}; "
            + ", ".join(f"{NAMES[c]} {fmt(x)}" for c, x in others_cov.items()),
            val("fast", "bdp", "test_cov") < min(others_cov.values()),
            "FAST's CoV (5 s windows) below NewReno's, Compound's and Illinois'",
        ),
        Claim(
            "illinois_above_compound_bdp",
            f"under the BDP buffer Illinois achieves much higher throughput than Compound ({m})",
            "much higher",
            f"Illinois {fmt(val('illinois', 'bdp', 'test_share'))}, Compound "
            f"{fmt(val('compound', 'bdp', 'test_share'))}",
            val("illinois", "bdp", "test_share") > 1.2 * val("compound", "bdp", "test_share"),
            "Illinois > 1.2 × Compound",
        ),
        Claim(
            "fast_outdone_stanford",
            f"under the Stanford buffer FAST is woefully outdone by the others ({m})",
            "woefully outdone",
            ", ".join(f"{NAMES[c]} {fmt(x)}" for c, x in stan.items()),
            stan["fast"] < 0.5 * min(stan["compound"], stan["illinois"]),
            "FAST < 0.5 × min(Compound, Illinois)",
        ),
        Claim(
            "all_lose_tiny",
            "all protocols lose throughput as the buffer shrinks to 20 packets (every environment)",
            "all underperform at 20 packets",
            "; ".join(f"{e} {NAMES[c]} {fmt(a)} → {fmt(b)}" for (e, c), (a, b) in lose.items()),
            all(b < a - 0.05 for a, b in lose.values()),
            "link utilization at 20 packets < at the BDP − 0.05, every protocol and environment",
        ),
        Claim(
            "fast_lowest_bdp_every_env",
            "FAST consistently has far lower throughput than Compound and Illinois "
            "(§7.5; BDP buffer, every environment)",
            "consistently disappoints",
            _show(share_bdp),
            all(x["fast"] < min(x["compound"], x["illinois"]) for x in share_bdp.values()),
            "FAST's share < min(Compound, Illinois) under the BDP buffer in every environment",
        ),
        Claim(
            "compound_loses_illinois_wins_bdp",
            "in large buffers Compound loses bandwidth to the long-lived NewReno flow, "
            "Illinois outperforms it (§7.5; every environment)",
            "Compound < NewReno pre < Illinois",
            "; ".join(
                f"{e}: Compound {fmt(share_bdp[e]['compound'])} vs pre "
                f"{fmt(pre_bdp[e]['compound'])}, Illinois {fmt(share_bdp[e]['illinois'])} "
                f"vs pre {fmt(pre_bdp[e]['illinois'])}"
                for e in share_bdp
            ),
            all(
                share_bdp[e]["compound"] < pre_bdp[e]["compound"]
                and share_bdp[e]["illinois"] > pre_bdp[e]["illinois"]
                for e in share_bdp
            ),
            "test flow's goodput vs the pre flow's in the same run, BDP buffer, every environment",
        ),
    ]
    res.values = {"table": d.to_dict("records")}
    return res


def cov(ctx: Context) -> FigureResult:
    d = _runs(ctx)
    files = [
        _bars(
            ctx,
            d,
            [("test_cov", "test flow's CoV (5 s windows)")],
            "cov",
            "Figs. 31-42: burstiness of the test flow (mean CoV over 5 s windows)",
            logy=True,
        )
    ]
    res = FigureResult("cov", "CoV of the test flow's throughput under three buffers", files)
    res.table = _table(d, ["test_cov"])
    ccs4 = ("newreno", *HIGH_SPEED)
    c = {b: _each(d, b, "test_cov", ccs4) for b in BUFS}
    envs = _envs(d)
    rtt_pairs = [
        (f"{r}/50", f"{r}/100")
        for r in sorted({e.split("/")[0] for e in envs}, key=int)
        if f"{r}/50" in envs and f"{r}/100" in envs
    ]
    res.claims += [
        Claim(
            "cov_bdp_like_newreno",
            "under the BDP buffer Compound's and Illinois' burstiness is fairly low, largely "
            "the same as NewReno's (§7.3.1)",
            "largely the same as NewReno",
            _show(c["bdp"]),
            all(
                max(x["compound"], x["illinois"]) < 2 * x["newreno"] + 0.02
                for x in c["bdp"].values()
            ),
            "CoV of Compound and Illinois < 2 × NewReno's + 0.02, BDP buffer, every environment",
        ),
        Claim(
            "cov_fast_burstier_bdp",
            "under the BDP buffer FAST is slightly burstier than the others (§7.3.1; §7.5 "
            "says the opposite: FAST the most stable under larger buffers)",
            "slightly larger burstiness",
            _show(c["bdp"]),
            all(
                x["fast"] > max(x["newreno"], x["compound"], x["illinois"])
                for x in c["bdp"].values()
            ),
            "FAST's CoV > NewReno's, Compound's, Illinois', BDP buffer, every environment",
        ),
        Claim(
            "cov_rtt_not_rate_bdp",
            "under the BDP buffer a longer RTT, not a higher rate, makes FAST and NewReno "
            "burstier (§7.3.1, Figs. 32-33)",
            "greater burstiness at 100 ms",
            "; ".join(
                f"{NAMES[k]} {a} {fmt(c['bdp'][a][k])} vs {b} {fmt(c['bdp'][b][k])}"
                for a, b in rtt_pairs
                for k in ("fast", "newreno")
            )
            or "one RTT only (quick mode)",
            all(c["bdp"][b][k] > c["bdp"][a][k] for a, b in rtt_pairs for k in ("fast", "newreno"))
            if rtt_pairs
            else None,
            "CoV at 100 ms > at 50 ms, same rate, FAST and NewReno",
        ),
        Claim(
            "cov_stanford_less_stable",
            "under the Stanford buffer the stability of the protocols begins to suffer (§7.3.2)",
            "CoV rises",
            "; ".join(
                f"{e}: "
                + ", ".join(
                    f"{NAMES[k]} {fmt(c['bdp'][e][k])} → {fmt(c['166pkt'][e][k])}" for k in ccs4
                )
                for e in envs
            ),
            all(c["166pkt"][e][k] > c["bdp"][e][k] for e in envs for k in ccs4),
            "CoV at 166 packets > at the BDP, every protocol and environment",
        ),
        Claim(
            "cov_fast_burstiest_stanford",
            "under the Stanford buffer FAST is far burstier than the other high-speed "
            "protocols (§7.3.2)",
            "far worse burstiness",
            _show(c["166pkt"]),
            all(x["fast"] > max(x["compound"], x["illinois"]) for x in c["166pkt"].values()),
            "FAST's CoV > Compound's and Illinois', 166 packets, every environment",
        ),
        Claim(
            "cov_all_burstier_tiny",
            "all protocols become burstier as the buffer falls (§7.5)",
            "extreme burstiness at small buffers",
            "; ".join(
                f"{e}: "
                + ", ".join(
                    f"{NAMES[k]} {fmt(c['bdp'][e][k])} → {fmt(c['20pkt'][e][k])}" for k in ccs4
                )
                for e in envs
            ),
            all(c["20pkt"][e][k] > c["bdp"][e][k] for e in envs for k in ccs4),
            "CoV at 20 packets > at the BDP, every protocol and environment",
        ),
        Claim(
            "cov_fast_burstiest_tiny",
            "under the 20-packet buffer FAST's burstiness outpaces NewReno's, Compound's "
            "and Illinois' (§7.3.3, §7.5)",
            "greatest burstiness",
            _show(c["20pkt"]),
            all(
                x["fast"] > max(x["newreno"], x["compound"], x["illinois"])
                for x in c["20pkt"].values()
            ),
            "FAST's CoV > every other protocol's, 20 packets, every environment",
        ),
    ]
    res.values = {"table": d.to_dict("records")}
    return res


def convergence(ctx: Context) -> FigureResult:
    d = _runs(ctx)
    horizon = float(d["test_convergence_s"].replace(math.inf, math.nan).max())
    files = [
        _bars(
            ctx,
            d,
            [
                ("test_convergence_s", "test flow: time to 80 % of pre (s)"),
                # Capped at 3: the lock-out cells (docs/reproductions/002.md) reach 6.8.
                ("friendliness", "pre + post goodput\n/ same with NewReno test", 3.0),
            ],
            "convergence",
            "Figs. 43-68: convergence time and TCP friendliness of the test flow",
            clip=max(horizon, 1.0) * 1.1 if not math.isnan(horizon) else None,
        )
    ]
    res = FigureResult(
        "convergence", "convergence time and TCP friendliness of the test flow", files
    )
    res.table = _table(
        d, ["test_convergence_s", "post_convergence_s", "pre_share", "post_share", "friendliness"]
    )
    envs = _envs(d)
    t = _each(d, "bdp", "test_convergence_s", ("newreno", *HIGH_SPEED))
    fr = {b: _each(d, b, "friendliness", HIGH_SPEED) for b in BUFS}
    res.claims += [
        Claim(
            "hs_converge_faster_bdp",
            "under the BDP buffer Compound and Illinois scale much faster than NewReno: "
            "they reach 80 % of the pre flow sooner than a NewReno test flow (§7.1.1, "
            "§7.4.4)",
            "quickly able to scale; Illinois much faster than pre or post",
            _show(t),
            all(max(x["compound"], x["illinois"]) < x["newreno"] for x in t.values()),
            "convergence time of Compound and Illinois < NewReno test flow's, BDP buffer, "
            "every environment (never = +inf)",
        ),
        Claim(
            "compound_friendlier_than_illinois_bdp",
            "in large buffers Compound is the friendliest of the three to TCP, Illinois the "
            "most aggressive (§7.5)",
            "Compound friendliest, Illinois most aggressive",
            _show(fr["bdp"]),
            all(
                x["compound"] > max(x["fast"], x["illinois"])
                and x["illinois"] < min(x["fast"], x["compound"])
                for x in fr["bdp"].values()
            ),
            "friendliness (pre + post goodput over the same with a NewReno test flow): "
            "Compound highest and Illinois lowest of the three, BDP buffer, every "
            "environment",
        ),
        Claim(
            "illinois_unfriendly_bdp",
            "under the BDP buffer Illinois is unfriendly to the NewReno flows (§7.4.4)",
            "rather unfriendly to both flows",
            ", ".join(f"{e} {fmt(fr['bdp'][e]['illinois'])}" for e in envs),
            all(fr["bdp"][e]["illinois"] < 0.9 for e in envs),
            "friendliness of Illinois < 0.9, BDP buffer, every environment",
        ),
        Claim(
            "compound_friendliness_drops_stanford",
            "Compound's TCP friendliness drops drastically under the Stanford buffer (§7.4.2)",
            "drops drastically",
            ", ".join(
                f"{e} {fmt(fr['bdp'][e]['compound'])} → {fmt(fr['166pkt'][e]['compound'])}"
                for e in envs
            ),
            all(fr["166pkt"][e]["compound"] < 0.8 * fr["bdp"][e]["compound"] for e in envs),
            "friendliness of Compound at 166 packets < 0.8 × at the BDP, every environment",
        ),
    ]
    res.values = {"table": d.to_dict("records")}
    return res


FIGURES = {"throughput": throughput, "cov": cov, "convergence": convergence}
