"""Study 000: Alparslan, Arakawa, Murata, *Performance of Paced and Non-Paced
Transmission Control Algorithms in Small Buffered Networks*.

The packet engine: paced (P., one-token leaky bucket at cwnd/RTT) and non-paced (N.P.)
Reno, NewReno, HighSpeed TCP with SACK and XCP (original and conservative parameter
sets, ACK bytes counted by the routers), two-way traffic, 1000 B packets. Figure 1:
XCP with a BDP buffer, maximum queue and utilization against the number of flows;
Figure 2: every protocol with the small buffer P. XCP C.P. needed in Figure 1;
Figure 4 and Table 1: the parking lot, per-link utilization and Jain's index.

The study runs at 622 Mb/s with up to 800 flows (the scenario files, full mode); quick
mode runs Figures 1 and 2 at 100 Mb/s with 2 to 40 flows and 40 s runs, and Figures 3
and 4 at the study's rate with fewer web-node points or shorter runs. Figure 3 runs web-like XCP
and TCP flows next to the long ones (see docs/reproductions/000.md for the buffers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ccsim import plots
from ccsim.reproduce import Claim, Context, FigureResult, fmt, log_x, markdown_table, run_sweep

XCP_CP = {"kind": "xcp", "preset": "conservative", "count_ack_bytes": True}
XCP_OP = {"kind": "xcp", "preset": "original", "count_ack_bytes": True}

# protocol -> (cc, recovery or None for the default, bottleneck queue)
PROTOCOLS: dict[str, tuple[str, str | None, Any]] = {
    "XCP": ("xcp", None, XCP_CP),
    "Reno": ("reno", "reno", "droptail"),
    "NewReno": ("newreno", "newreno", "droptail"),
    "HSTCP": ("highspeed", "sack", "droptail"),
}

# Quick mode: 100 Mb/s instead of 622 (access 400 Mb/s keeps the study's 3.9:1), 40 s
# runs measured over [20, 40] s instead of 100 s over [40, 100] s.
QUICK_SET = {
    "topology.bottleneck_rate": "100Mbps",
    "topology.access_rate": "400Mbps",
    "duration": "40s",
    "warmup": "20s",
}
# Figures 3 and 4 (and Table 1, which reuses Fig. 4's runs) keep the study's rate in
# quick mode, with fewer points or shorter runs: at 100 Mb/s the parking lot's short
# HSTCP flows keep their windows near HSTCP's Low_Window (38 packets), where it behaves
# like Reno, so P. HSTCP's unfairness (Table 1) vanishes; and 16-64 web nodes are too
# small a share of a 100 Mb/s link for the paced TCPs' rise with web traffic (Fig. 3)
# to show. Fig. 3 runs its scenario's own 50 s over [20, 50] s at 0 and 100 web nodes
# (P. NewReno's rise needs the 50 s); Fig. 4 runs 50 s over [25, 50] s instead of
# 100 s over [40, 100] s (with 40 s over [20, 40] s P. XCP has not yet reached its
# 0.9 on link 1).
QUICK_STUDY_RATE = {
    "fig3": {
        "topology.bottleneck_rate": "622Mbps",
        "topology.access_rate": "2.4Gbps",
        "duration": "50s",
        "warmup": "20s",
    },
    "fig4": {
        "topology.bottleneck_rate": "622Mbps",
        "topology.access_rate": "2.4Gbps",
        "duration": "50s",
        "warmup": "25s",
    },
}
FULL_N = [2, 10, 40, 100, 400, 800]
QUICK_N = [2, 10, 40]


def _plt():
    import matplotlib.pyplot as plt

    return plt


def _label(protocol: str, pacing: str) -> str:
    return f"{'P.' if pacing == 'leaky' else 'N.P.'} {protocol}"


def _sweep(
    ctx: Context,
    figure: str,
    tag: str,
    grid: Mapping[str, list[Any]],
    overrides: Mapping[str, Any],
) -> pd.DataFrame:
    """One sweep of ``<figure>.toml`` with *overrides* (plus the quick scale-down in quick
    mode) into ``runs/<figure>-<tag>-<mode>``; returns the finished runs."""
    mode = "quick" if ctx.quick else "full"
    values = {**QUICK_SET, **QUICK_STUDY_RATE.get(figure, {})} if ctx.quick else {}
    values.update(overrides)
    sw, runs = run_sweep(
        ctx.scenario(figure),
        ctx.out / "runs" / f"{figure}-{tag}-{mode}",
        grid=dict(grid),
        seeds=1,
        set=values,
        workers=ctx.workers,
        progress=ctx.progress,
    )
    ctx._runs += len(runs)
    ctx._reused += sw.skipped
    runs = runs.copy()
    runs["_sweep"] = [sw] * len(runs)
    return runs


def _protocol_set(protocol: str, groups: int) -> dict[str, Any]:
    cc, recovery, queue = PROTOCOLS[protocol]
    values: dict[str, Any] = {"topology.queue": queue}
    for i in range(groups):
        values[f"flows[{i}].cc"] = cc
        if recovery is not None:
            values[f"flows[{i}].recovery"] = recovery
    return values


def _bytes(values) -> str:
    return ", ".join(f"{float(q):,.0f}" for q in values)


def _counts(n: int) -> dict[str, Any]:
    return {"flows[0].count": n, "flows[1].count": n}


# ------------------------------------------------------------------ Figure 1


def _fig1_runs(ctx: Context) -> pd.DataFrame:
    """P./N.P. XCP with O.P./C.P. and a BDP buffer, per number of flows (shared by Fig. 2,
    which takes its buffers from the P. XCP C.P. runs)."""
    rows = []
    for n in QUICK_N if ctx.quick else FULL_N:
        r = _sweep(
            ctx,
            "fig1",
            f"n{n}",
            {
                "tcp.pacing": ["none", "leaky"],
                "topology.queue.preset": ["original", "conservative"],
            },
            _counts(n),
        )
        r["N"] = n
        rows.append(r)
    d = pd.concat(rows, ignore_index=True)
    d["variant"] = [
        f"{_label('XCP', p)} {'C.P.' if s == 'conservative' else 'O.P.'}"
        for p, s in zip(d["tcp.pacing"], d["topology.queue.preset"], strict=True)
    ]
    return d


def _link_util_series(run, link: str = "bottleneck") -> pd.Series:
    s = run.series
    u = s[(s["entity"] == "link") & (s["metric"] == "utilization")]
    if "name" in u and link in set(u["name"]):
        u = u[u["name"] == link]
    else:
        u = u[u["id"] == 0]
    return u.set_index("time")["value"]


def fig1(ctx: Context) -> FigureResult:
    d = _fig1_runs(ctx)
    bdp = float(d["bdp_bytes"].iloc[0])
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
        for v, g in d.groupby("variant", sort=False):
            g = g.sort_values("N")
            axes[0].plot(g["N"], g["links.bottleneck.queue_max_bytes"], marker="o", label=v)
            axes[1].plot(g["N"], g["links.bottleneck.utilization"], marker="o", label=v)
        axes[0].axhline(bdp, color="grey", ls=":", lw=0.8, label="BDP buffer")
        axes[0].set_yscale("log")
        axes[0].set_ylabel("maximum queue (bytes)")
        axes[0].set_title("(a) maximum queue, BDP buffer")
        axes[1].set_ylim(0, 1.05)
        axes[1].set_ylabel(plots.label("utilization"))
        axes[1].set_title("(b) bottleneck utilization")
        for ax in axes[:2]:
            log_x(ax, d["N"])
            ax.set_xlabel("long flows (each direction)")
        axes[0].legend(fontsize=7)
        # (c), (e): transient utilization of N.P. and P. XCP with O.P., two flows.
        two = d[(d["N"] == d["N"].min()) & (d["topology.queue.preset"] == "original")]
        for _, row in two.iterrows():
            u = _link_util_series(row["_sweep"].load(row["run_id"]))
            axes[2].plot(u.index, u.to_numpy(), lw=0.8, label=row["variant"])
        axes[2].set_ylim(0, 1.1)
        axes[2].set_xlabel("time (s)")
        axes[2].set_ylabel(plots.label("utilization"))
        axes[2].set_title(f"(c, e) {int(d['N'].min())} flows, O.P.")
        axes[2].legend(fontsize=7)
        path = ctx.out / "fig1.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult(
        "fig1", "XCP with a BDP buffer: maximum queue and utilization vs flows", [path.name]
    )
    tab = d[
        ["variant", "N", "links.bottleneck.queue_max_bytes", "links.bottleneck.utilization"]
    ].rename(
        columns={
            "links.bottleneck.queue_max_bytes": "max queue (B)",
            "links.bottleneck.utilization": "utilization",
        }
    )
    tab["drops"] = d["links.bottleneck.drops"]
    res.table = markdown_table(tab)
    p_cp = d[d["variant"] == "P. XCP C.P."].sort_values("N")
    p_op = d[d["variant"] == "P. XCP O.P."].sort_values("N")
    np_ = d[d["tcp.pacing"] == "none"]
    p_ = d[d["tcp.pacing"] == "leaky"]
    q_cp = p_cp["links.bottleneck.queue_max_bytes"].to_numpy(dtype=float)
    u_cp = p_cp["links.bottleneck.utilization"].to_numpy(dtype=float)
    q_op = p_op["links.bottleneck.queue_max_bytes"].to_numpy(dtype=float)
    ratio = float(q_cp.max() / bdp)
    few = int(d["N"].min())
    np_few = np_[np_["N"] == few]
    p_few = p_[p_["N"] == few]
    res.claims += [
        Claim(
            "cp_queue_tiny",
            "P. XCP with C.P. keeps its maximum queue orders of magnitude below the BDP",
            "23,360 B at 100 flows vs a 6.4 MB BDP (0.37 %)",
            f"max queue {', '.join(f'{q:,.0f}' for q in q_cp)} B at N = "
            f"{', '.join(str(n) for n in p_cp['N'])}; at most {100 * ratio:.2f} % of the "
            f"BDP ({bdp:,.0f} B)",
            ratio < 0.02,
            "max queue < 2 % of the BDP (over 50× below it) at every N",
        ),
        Claim(
            "cp_util_capacity",
            "P. XCP with C.P. holds utilization at its 90 % capacity parameter",
            "≈ 0.9",
            ", ".join(fmt(u) for u in u_cp),
            bool(((u_cp > 0.87) & (u_cp < 0.93)).all()),
            "0.87 < utilization < 0.93 at every N",
        ),
        Claim(
            "cp_below_op",
            "C.P. lowers P. XCP's maximum queue below O.P.'s",
            "C.P. decreases the buffer requirement greatly",
            f"C.P. {', '.join(f'{q:,.0f}' for q in q_cp)} B vs O.P. "
            f"{', '.join(f'{q:,.0f}' for q in q_op)} B",
            bool((q_cp <= q_op).all()),
            "max queue C.P. ≤ O.P. at every N",
        ),
        Claim(
            "np_burstier",
            f"N.P. XCP queues far more than P. XCP with few flows ({few} each way)",
            "N.P. XCP oscillates; its queue exceeds the BDP with few flows",
            f"N.P. max queue {_bytes(np_few['links.bottleneck.queue_max_bytes'])} B vs "
            f"P. {_bytes(p_few['links.bottleneck.queue_max_bytes'])} B",
            float(np_few["links.bottleneck.queue_max_bytes"].min())
            > 10 * float(p_few["links.bottleneck.queue_max_bytes"].max()),
            "every N.P. variant's max queue > 10 × every P. variant's at the smallest N",
        ),
        Claim(
            "np_overflows_bdp",
            "the BDP buffer is not enough for N.P. XCP with few flows: losses, low utilization",
            "drops, utilization well below P. XCP's at 2 flows",
            f"N.P. drops {', '.join(str(int(x)) for x in np_few['links.bottleneck.drops'])}, "
            f"utilization {', '.join(fmt(u) for u in np_few['links.bottleneck.utilization'])}",
            bool((np_few["links.bottleneck.drops"] > 0).any()),
            "some N.P. variant drops packets at the smallest N",
        ),
    ]
    res.values = {
        "bdp_bytes": bdp,
        "table": tab.to_dict("records"),
    }
    return res


# ------------------------------------------------------------------ Figure 2


def _small_buffers(ctx: Context) -> dict[int, int]:
    """N -> the maximum queue (bytes) of P. XCP C.P. with a BDP buffer (Fig. 1(a)), at
    least one packet: the study's small buffer for that number of flows."""
    d = _fig1_runs(ctx)
    cp = d[d["variant"] == "P. XCP C.P."]
    return {
        int(n): max(int(q), 1000)
        for n, q in zip(cp["N"], cp["links.bottleneck.queue_max_bytes"], strict=True)
    }


def _fig2_runs(ctx: Context, buffers: dict[int, int]) -> pd.DataFrame:
    rows = []
    for n, buf in buffers.items():
        for proto in PROTOCOLS:
            values = {**_counts(n), **_protocol_set(proto, 2), "topology.buffer": f"{buf}B"}
            r = _sweep(
                ctx, "fig2", f"n{n}-{proto.lower()}", {"tcp.pacing": ["none", "leaky"]}, values
            )
            r["N"], r["protocol"], r["buffer_B"] = n, proto, buf
            rows.append(r)
    d = pd.concat(rows, ignore_index=True)
    d["variant"] = [_label(p, s) for p, s in zip(d["protocol"], d["tcp.pacing"], strict=True)]
    return d


def fig2(ctx: Context) -> FigureResult:
    buffers = _small_buffers(ctx)
    d = _fig2_runs(ctx, buffers)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        for v, g in d.groupby("variant", sort=False):
            g = g.sort_values("N")
            ls = "-" if v.startswith("P.") else "--"
            axes[0].plot(g["N"], g["links.bottleneck.utilization"], ls=ls, marker="o", label=v)
        log_x(axes[0], d["N"])
        axes[0].set_xlabel("long flows (each direction)")
        axes[0].set_ylabel(plots.label("utilization"))
        axes[0].set_ylim(0, 1.05)
        axes[0].set_title("(a) small buffers (P. XCP C.P.'s max queue)")
        axes[0].legend(fontsize=7, ncol=2)
        nmax = int(d["N"].max())
        for _, row in d[(d["N"] == nmax) & (d["tcp.pacing"] == "leaky")].iterrows():
            u = _link_util_series(row["_sweep"].load(row["run_id"]))
            axes[1].plot(u.index, u.to_numpy(), lw=0.8, label=row["variant"])
        axes[1].set_ylim(0, 1.1)
        axes[1].set_xlabel("time (s)")
        axes[1].set_ylabel(plots.label("utilization"))
        axes[1].set_title(f"(b) transient, {nmax} flows, paced")
        axes[1].legend(fontsize=7)
        path = ctx.out / "fig2.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult(
        "fig2", "all protocols with small buffers: utilization vs flows", [path.name]
    )
    piv = d.pivot_table(
        index="N", columns="variant", values="links.bottleneck.utilization", sort=False
    )
    tab = piv.reset_index()
    tab.insert(1, "buffer (B)", [buffers[int(n)] for n in tab["N"]])
    res.table = markdown_table(tab)
    p_tcp = [c for c in piv.columns if c.startswith("P.") and "XCP" not in c]
    np_tcp = [c for c in piv.columns if c.startswith("N.P.") and "XCP" not in c]
    u_p = piv[p_tcp]
    xcp = piv["P. XCP"]
    gain = {p: piv[f"P. {p}"] - piv[f"N.P. {p}"] for p in ("Reno", "NewReno", "HSTCP")}
    few = int(piv.index.min())
    res.claims += [
        Claim(
            "paced_tcp_over_80",
            "every P. TCP exceeds 80 % utilization with the small buffers",
            "> 0.8",
            f"lowest P. TCP utilization {fmt(float(u_p.min().min()))}",
            bool((u_p > 0.8).all().all()),
            "every P. TCP variant > 0.8 at every N",
        ),
        Claim(
            "paced_tcp_over_80_n10",
            "every P. TCP exceeds 80 % utilization with the small buffers, 10 flows or more",
            "> 0.8",
            f"lowest P. TCP utilization at N ≥ 10: {fmt(float(u_p[u_p.index >= 10].min().min()))}",
            bool((u_p[u_p.index >= 10] > 0.8).all().all()) and bool((u_p.index >= 10).any()),
            "every P. TCP variant > 0.8 at every N ≥ 10",
        ),
        Claim(
            "xcp_at_capacity",
            "P. XCP with C.P. stays at its 90 % capacity parameter with the small buffers",
            "≈ 0.9",
            ", ".join(fmt(u) for u in xcp),
            bool(((xcp > 0.87) & (xcp < 0.93)).all()),
            "0.87 < utilization < 0.93 at every N",
        ),
        Claim(
            "paced_beats_nonpaced",
            "paced TCPs reach higher utilization than non-paced ones with tiny buffers",
            "N.P. TCPs very low unless there are many flows",
            "; ".join(f"{p} +{fmt(float(gain[p].loc[few]))} at N = {few}" for p in gain),
            all(float(gain[p].loc[few]) > 0.1 for p in gain),
            f"P. − N.P. utilization > 0.1 for each TCP at N = {few}",
        ),
        Claim(
            "np_rise_with_n",
            "N.P. TCPs' utilization rises with the number of flows",
            "over 90 % at 800 flows, very low with few",
            "; ".join(
                f"{c}: {fmt(float(piv[c].iloc[0]))} → {fmt(float(piv[c].iloc[-1]))}" for c in np_tcp
            ),
            all(float(piv[c].iloc[-1]) > float(piv[c].iloc[0]) for c in np_tcp),
            "utilization at the largest N > at the smallest, each N.P. TCP",
        ),
        Claim(
            "paced_order",
            "among P. TCPs, NewReno ≥ HSTCP > Reno",
            "NewReno marginally above HSTCP, Reno last",
            "; ".join(f"{c}: {fmt(float(piv[c].mean()))}" for c in p_tcp) + " (mean over N)",
            float(piv["P. NewReno"].mean())
            >= float(piv["P. HSTCP"].mean())
            > float(piv["P. Reno"].mean()),
            "mean over N: P. NewReno ≥ P. HSTCP > P. Reno",
        ),
    ]
    res.values = {"buffers": buffers, "utilization": piv.reset_index().to_dict("records")}
    return res


# ------------------------------------------------------------------ Figure 3

FULL_WEB = [0, 100, 200, 400]
QUICK_WEB = [0, 100]  # at the study's rate (QUICK_STUDY_RATE)
TCPS = ("Reno", "NewReno", "HSTCP")


def _web(n: int, cc: str) -> dict[str, Any]:
    # N = 0: one idle web node per side whose first file would start after the run.
    web: dict[str, Any] = {"workloads[0].cc": cc}
    if n == 0:
        web["workloads[0].start"] = "100000s"
    return web


def fig3(ctx: Context) -> FigureResult:
    """Fig. 3: (a) P. XCP C.P.'s maximum queue with a BDP buffer against N web nodes;
    (b) utilization: P. XCP C.P. (BDP buffer), and N.P. XCP C.P. and the P./N.P. TCPs
    with (a)'s maximum queue at that N as their buffer (the study's procedure)."""
    rows, xcp_queue = [], {}
    for n in QUICK_WEB if ctx.quick else FULL_WEB:
        nodes = {"workloads[0].nodes": [max(n, 1)]}
        xcp = {**_protocol_set("XCP", 2), **_web(n, "xcp")}
        r = _sweep(
            ctx, "fig3", f"n{n}-xcp", {"tcp.pacing": ["leaky"], **nodes},
            {**xcp, "topology.buffer": "bdp"},
        )  # fmt: skip
        q = int(r["links.bottleneck.queue_max_bytes"].iloc[0])
        xcp_queue[n] = (q, int(r["links.bottleneck.drops"].iloc[0]))
        buf = max(q, 1000)  # the small buffer at this N: at least one packet
        r["N"], r["protocol"] = n, "XCP"
        rows.append(r)
        r = _sweep(
            ctx, "fig3", f"n{n}-npxcp", {"tcp.pacing": ["none"], **nodes},
            {**xcp, "topology.buffer": f"{buf}B"},
        )  # fmt: skip
        r["N"], r["protocol"] = n, "XCP"
        rows.append(r)
        for proto in TCPS:
            values = {**_protocol_set(proto, 2), "topology.buffer": f"{buf}B"}
            cc, recovery, _ = PROTOCOLS[proto]
            values.update(_web(n, cc))
            if recovery is not None:
                values["workloads[0].recovery"] = recovery
            grid = {"tcp.pacing": ["none", "leaky"], **nodes}
            r = _sweep(ctx, "fig3", f"n{n}-{proto.lower()}", grid, values)
            r["N"], r["protocol"] = n, proto
            rows.append(r)
    d = pd.concat(rows, ignore_index=True)
    d["variant"] = [_label(p, s) for p, s in zip(d["protocol"], d["tcp.pacing"], strict=True)]
    piv = d.pivot_table(
        index="N", columns="variant", values="links.bottleneck.utilization", sort=False
    )
    plt = _plt()
    ns = sorted(xcp_queue)
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        axes[0].plot(ns, [xcp_queue[n][0] for n in ns], marker="o", label="P. XCP C.P.")
        axes[0].set_xlabel("web nodes per side (plus 40 long flows)")
        axes[0].set_ylabel("maximum queue (B)")
        axes[0].set_ylim(bottom=0)
        axes[0].set_title("(a) P. XCP C.P., BDP buffer")
        ax = axes[1]
        for v in piv.columns:
            ls = "-" if v.startswith("P.") else "--"
            ax.plot(piv.index, piv[v], ls=ls, marker="o", label=v)
        ax.set_xlabel("web nodes per side (plus 40 long flows)")
        ax.set_ylabel(plots.label("utilization"))
        ax.set_ylim(0, 1.05)
        ax.set_title("(b) P. XCP: BDP buffer; the others: (a)'s queue")
        ax.legend(fontsize=7, ncol=2)
        path = ctx.out / "fig3.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig3", "web-like traffic: XCP queue, utilization vs web nodes", [path.name])
    tab = piv.reset_index()
    tab.insert(1, "P. XCP max queue (B)", [xcp_queue[int(n)][0] for n in tab["N"]])
    tab.insert(2, "small buffer (B)", [max(xcp_queue[int(n)][0], 1000) for n in tab["N"]])
    res.table = markdown_table(tab)
    pxcp = piv["P. XCP"]
    queues = [xcp_queue[n][0] for n in ns]
    p_cols = [f"P. {p}" for p in TCPS]
    np_cols = [f"N.P. {p}" for p in TCPS]

    def rise(cols):
        return "; ".join(
            f"{c}: {fmt(float(piv[c].iloc[0]))} → {fmt(float(piv[c].iloc[-1]))}" for c in cols
        )

    gap = float(min((piv[f"P. {p}"] - piv[f"N.P. {p}"]).min() for p in TCPS))
    res.claims += [
        Claim(
            "xcp_queue_flat",
            "P. XCP C.P.'s maximum queue hardly changes with the number of web nodes",
            "no big change (short flows inject < 30 % of the link)",
            f"{_bytes(queues)} B at N = {', '.join(map(str, ns))}",
            max(queues) <= 2 * max(min(queues), 1000),
            "largest maximum queue ≤ 2 × the smallest (at least one packet)",
        ),
        Claim(
            "xcp_no_drops",
            "P. XCP C.P. with a BDP buffer drops nothing with web traffic",
            "(implied: its queue stays far below the buffer)",
            f"drops {', '.join(str(xcp_queue[n][1]) for n in ns)}",
            all(xcp_queue[n][1] == 0 for n in ns),
            "no drop at any N",
        ),
        Claim(
            "p_xcp_falls",
            "P. XCP's utilization falls as web nodes are added (short flows leave their "
            "fair share unused)",
            "falls with N",
            f"P. XCP: {fmt(float(pxcp.iloc[0]))} → {fmt(float(pxcp.iloc[-1]))}",
            float(pxcp.iloc[-1]) < float(pxcp.iloc[0]) - 0.02,
            "P. XCP utilization at the largest N < at N = 0 − 0.02",
        ),
        Claim(
            "np_rise",
            "N.P. TCPs' utilization rises with the number of web nodes",
            "rises (aggregate of long and short flows)",
            rise(np_cols),
            all(float(piv[c].iloc[-1]) > float(piv[c].iloc[0]) + 0.02 for c in np_cols),
            "each N.P. TCP: utilization at the largest N > at N = 0 + 0.02",
        ),
        Claim(
            "p_rise",
            "P. TCPs' utilization rises with the number of web nodes (less synchronization)",
            "rises",
            rise(p_cols),
            all(float(piv[c].iloc[-1]) > float(piv[c].iloc[0]) + 0.02 for c in p_cols),
            "each P. TCP: utilization at the largest N > at N = 0 + 0.02",
        ),
        Claim(
            "paced_above",
            "P. TCPs stay above N.P. TCPs with the small buffer",
            "P. above N.P. at every N",
            f"least P. − N.P. gap {fmt(gap)}",
            all(bool((piv[f"P. {p}"] > piv[f"N.P. {p}"]).all()) for p in TCPS),
            "P. > N.P. for each TCP at every N",
        ),
        Claim(
            "np_reno_lowest",
            "among N.P. TCPs Reno is the lowest",
            "Reno worst; NewReno and HSTCP almost the same",
            rise(np_cols),
            float(piv["N.P. Reno"].mean())
            < min(float(piv["N.P. NewReno"].mean()), float(piv["N.P. HSTCP"].mean())),
            "mean over N: N.P. Reno < N.P. NewReno and N.P. HSTCP",
        ),
    ]
    res.values = {
        "xcp_max_queue_B": {n: xcp_queue[n][0] for n in ns},
        "xcp_drops": {n: xcp_queue[n][1] for n in ns},
        "utilization": piv.reset_index().to_dict("records"),
    }
    return res


# ------------------------------------------------------------------ Figure 4, Table 1

GROUPS_PL = 6  # long, short1, short2 and their reverse twins


def _parking_runs(ctx: Context) -> tuple[int, pd.DataFrame]:
    first = _sweep(
        ctx,
        "fig4",
        "bdp",
        {"tcp.pacing": ["leaky"]},
        {**_protocol_set("XCP", GROUPS_PL), "topology.buffer": "bdp"},
    )
    qmax = max(float(first[f"links.link{k}.queue_max_bytes"].max()) for k in (1, 2, 3))
    buf = max(int(qmax), 1000)
    rows = []
    for proto in PROTOCOLS:
        values = {**_protocol_set(proto, GROUPS_PL), "topology.buffer": f"{buf}B"}
        r = _sweep(ctx, "fig4", f"{proto.lower()}", {"tcp.pacing": ["none", "leaky"]}, values)
        r["protocol"] = proto
        rows.append(r)
    d = pd.concat(rows, ignore_index=True)
    d["variant"] = [_label(p, s) for p, s in zip(d["protocol"], d["tcp.pacing"], strict=True)]
    return buf, d


def fig4(ctx: Context) -> FigureResult:
    buf, d = _parking_runs(ctx)
    util = d.set_index("variant")[[f"links.link{k}.utilization" for k in (1, 2, 3)]]
    util.columns = ["link 1", "link 2", "link 3"]
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, ax = plt.subplots(figsize=(8, 3.8))
        width = 0.8 / len(util)
        for i, (v, row) in enumerate(util.iterrows()):
            ax.bar(
                [k + (i - len(util) / 2 + 0.5) * width for k in range(3)],
                row.to_numpy(),
                width,
                label=v,
                hatch="" if v.startswith("P.") else "//",
            )
        ax.set_xticks(range(3), util.columns)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(plots.label("utilization"))
        ax.set_title(f"Fig. 4: parking lot, buffer {buf:,} B on every middle link")
        ax.legend(fontsize=7, ncol=2)
        path = ctx.out / "fig4.png"
        plots.save(fig, path)
        plt.close(fig)
    res = FigureResult("fig4", "parking lot: utilization of the three middle links", [path.name])
    res.table = markdown_table(util.reset_index())
    paced = util[util.index.str.startswith("P.")]
    xcp = paced.loc["P. XCP"]
    others = paced.drop(index="P. XCP")
    hstcp3 = float(paced.loc["P. HSTCP", "link 3"])
    res.claims += [
        Claim(
            "xcp_long_flows",
            "on link 3 (long flows only) P. XCP has the highest utilization of the P. variants",
            "P. XCP highest",
            f"P. XCP {fmt(float(xcp['link 3']))}; "
            + ", ".join(f"{v} {fmt(float(u))}" for v, u in others["link 3"].items()),
            float(xcp["link 3"]) > float(others["link 3"].max()),
            "P. XCP's link-3 utilization > every other P. variant's",
        ),
        Claim(
            "hstcp_link3_low",
            "on link 3 (long flows only) P. HSTCP is very low: the short-RTT flows take the "
            "bottlenecks from the long ones",
            "P. HSTCP very low",
            ", ".join(f"{v} {fmt(float(u))}" for v, u in paced["link 3"].items()),
            hstcp3 < 0.15 and hstcp3 == float(paced["link 3"].min()),
            "P. HSTCP's link-3 utilization < 0.15 (a third of XCP's max-min 0.45) and the "
            "lowest of the P. variants",
        ),
        Claim(
            "xcp_bottlenecks",
            "on links 1 and 2 P. XCP has the highest utilization of the P. variants",
            "P. XCP highest, then NewReno, HSTCP, Reno",
            f"P. XCP {fmt(float(xcp['link 1']))}/{fmt(float(xcp['link 2']))}; "
            + ", ".join(
                f"{v} {fmt(float(r['link 1']))}/{fmt(float(r['link 2']))}"
                for v, r in others.iterrows()
            ),
            bool(
                (xcp["link 1"] > others["link 1"].max())
                and (xcp["link 2"] > others["link 2"].max())
            ),
            "P. XCP > every other P. variant on links 1 and 2",
        ),
        Claim(
            "np_xcp_collapses",
            "N.P. XCP with C.P. is unstable: below 0.5 % utilization",
            "< 0.005 on every link",
            ", ".join(fmt(float(u)) for u in util.loc["N.P. XCP"]),
            bool((util.loc["N.P. XCP"] < 0.005).all()),
            "N.P. XCP < 0.005 on every middle link",
        ),
    ]
    res.values = {"buffer_B": buf, "utilization": util.reset_index().to_dict("records")}
    return res


TABLE1 = {
    "P. XCP": 1.0,
    "P. Reno": 0.78,
    "P. NewReno": 0.76,
    "P. HSTCP": 0.44,
    "N.P. XCP": 0.76,
    "N.P. Reno": 0.72,
    "N.P. NewReno": 0.74,
    "N.P. HSTCP": 0.73,
}


def table1(ctx: Context) -> FigureResult:
    buf, d = _parking_runs(ctx)  # the runs of Fig. 4 (reused when it ran)
    jain = d.set_index("variant")["flows_jain_fairness"]
    tab = pd.DataFrame(
        {
            "variant": list(TABLE1),
            "study": list(TABLE1.values()),
            "ccsim": [float(jain[v]) for v in TABLE1],
        }
    )
    res = FigureResult("table1", "parking lot: Jain's index of the forward goodputs")
    res.table = markdown_table(tab)
    paced = {v: float(jain[v]) for v in TABLE1 if v.startswith("P.")}
    res.claims += [
        Claim(
            "xcp_fairest",
            "P. XCP has the best fairness in the parking lot (of all eight variants)",
            "P. XCP 1.00; the others 0.44-0.78",
            f"P. XCP {fmt(float(jain['P. XCP']))}; best other "
            f"{fmt(float(jain.drop('P. XCP').max()))}",
            float(jain["P. XCP"]) > float(jain.drop("P. XCP").max())
            and float(jain["P. XCP"]) > 0.95,
            "P. XCP > every other variant and > 0.95",
        ),
        Claim(
            "hstcp_least_fair",
            "P. HSTCP is far less fair than the other paced variants",
            "0.44 (others ≥ 0.76)",
            ", ".join(f"{v} {fmt(x)}" for v, x in paced.items()),
            paced["P. HSTCP"] < min(x for v, x in paced.items() if v != "P. HSTCP") - 0.1,
            "P. HSTCP < every other P. variant − 0.1",
        ),
    ]
    res.values = {"buffer_B": buf, "jain": tab.to_dict("records")}
    return res


FIGURES = {
    "fig1": fig1,
    "fig2": fig2,
    "fig3": fig3,
    "fig4": fig4,
    "table1": table1,
}
