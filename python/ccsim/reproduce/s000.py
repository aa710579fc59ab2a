"""Study 000: Alparslan, Arakawa, Murata, *Performance of Paced and Non-Paced
Transmission Control Algorithms in Small Buffered Networks*.

The packet engine: paced (P., one-token leaky bucket at cwnd/RTT) and non-paced (N.P.)
Reno, NewReno, HighSpeed TCP with SACK and XCP (original and conservative parameter
sets, ACK bytes counted by the routers), two-way traffic, 1000 B packets. Figure 1:
XCP with a BDP buffer, maximum queue and utilization against the number of flows (and
N.P. XCP against the link rate); Figure 2: every protocol with the small buffer P. XCP
C.P. needed in Figure 1; Figure 3: web-like XCP and TCP flows next to the long ones;
Figure 4 and Table 1: the parking lot, per-link utilization and Jain's index.

The study runs at 622 Mb/s with up to 800 flows (the scenario files, full mode); quick
mode runs Figures 1 and 2 at 100 Mb/s with 2 to 40 flows and 40 s runs, and Figures 3
and 4 at the study's rate with fewer web-node points or shorter runs (see
docs/reproductions/000.md for the buffers).

Each figure has three parts: a data function (``figN_data``) that runs the figure's
sweeps and returns a tidy frame, one row per run, of the core's own metrics (the
catalogue's summary columns: utilization, maximum queue, drops, Jain's index); a
plotting helper; and the claims, built with the named predicates of
:mod:`ccsim.reproduce.claims` on estimates over the replications (seeds) where a
figure has them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

import ccsim
from ccsim import plots
from ccsim.reproduce import Context, FigureResult, fmt, log_x, markdown_table, run_sweep
from ccsim.reproduce.claims import (
    Estimate,
    above,
    below,
    claim,
    estimate,
    estimates,
    exceeds,
    within,
)

XCP_CP = {"kind": "xcp", "preset": "conservative", "count_ack_bytes": True}
XCP_OP = {"kind": "xcp", "preset": "original", "count_ack_bytes": True}

# protocol -> (cc, recovery or None for the default, bottleneck queue)
PROTOCOLS: dict[str, tuple[str, str | None, Any]] = {
    "XCP": ("xcp", None, XCP_CP),
    "Reno": ("reno", "reno", "droptail"),
    "NewReno": ("newreno", "newreno", "droptail"),
    "HSTCP": ("highspeed", "sack", "droptail"),
}
TCPS = ("Reno", "NewReno", "HSTCP")

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
    *,
    seeds: int = 1,
    quick_set: bool = True,
) -> pd.DataFrame:
    """One sweep of ``<figure>.toml`` with *overrides* (plus the quick scale-down in quick
    mode, unless *quick_set* is false) into ``runs/<figure>-<tag>-<mode>``; returns the
    finished runs, each with its directory (``run_dir``, for the time series)."""
    mode = "quick" if ctx.quick else "full"
    values = {**QUICK_SET, **QUICK_STUDY_RATE.get(figure, {})} if ctx.quick and quick_set else {}
    values.update(overrides)
    sw, runs = run_sweep(
        ctx.scenario(figure),
        ctx.out / "runs" / f"{figure}-{tag}-{mode}",
        grid=dict(grid),
        seeds=seeds,
        set=values,
        workers=ctx.workers,
        progress=ctx.progress,
    )
    ctx._runs += len(runs)
    ctx._reused += sw.skipped
    runs = runs.copy()
    runs["run_dir"] = [str(sw.runs_dir / rid) for rid in runs["run_id"]]
    return runs


def _renamed(d: pd.DataFrame, columns: Mapping[str, str]) -> pd.DataFrame:
    """*d* with *columns* renamed, replacing any column already under a new name (the
    catalogue also has the primary bottleneck's metrics under bare names)."""
    clash = [c for c in columns.values() if c in d.columns and c not in columns]
    return d.drop(columns=clash).rename(columns=dict(columns))


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


def _link_util_series(run_dir: str, link: str = "bottleneck") -> pd.Series:
    s = ccsim.load(run_dir).series
    u = s[(s["entity"] == "link") & (s["metric"] == "utilization")]
    if "name" in u and link in set(u["name"]):
        u = u[u["name"] == link]
    else:
        u = u[u["id"] == 0]
    return u.set_index("time")["value"]


def _least(values: Mapping[str, Estimate | float]) -> Estimate | float:
    """The value whose interval reaches lowest (a predicate "above" holds for all of
    *values* exactly when it holds for this one)."""
    return min(values.values(), key=lambda e: e.low if isinstance(e, Estimate) else float(e))


def _most(values: Mapping[str, Estimate | float]) -> Estimate | float:
    """The value whose interval reaches highest (for "below" over all of *values*)."""
    return max(values.values(), key=lambda e: e.high if isinstance(e, Estimate) else float(e))


def _listing(values: Mapping[str, Any], digits: int = 3) -> str:
    return "; ".join(
        f"{k}: {v.text(digits) if isinstance(v, Estimate) else fmt(float(v), digits)}"
        for k, v in values.items()
    )


# ------------------------------------------------------------------ Figure 1


def _tidy_xcp(d: pd.DataFrame) -> pd.DataFrame:
    """The catalogue's rows as Fig. 1's frame: the core's bottleneck metrics over the
    measurement window (utilization, maximum queue, drops) and ``run_drops``, the
    packets dropped anywhere over the whole run (the summary's conservation counter:
    a start-up overflow before the window counts)."""
    d = d.copy()
    d["pacing"] = d["tcp.pacing"].astype(str)
    d["preset"] = ["C.P." if s == "conservative" else "O.P." for s in d["topology.queue.preset"]]
    d["variant"] = [
        f"{_label('XCP', p)} {s}" for p, s in zip(d["pacing"], d["preset"], strict=True)
    ]
    return _renamed(
        d,
        {
            "links.bottleneck.queue_max_bytes": "max_queue_B",
            "links.bottleneck.utilization": "utilization",
            "links.bottleneck.drops": "drops",
            "conservation_dropped": "run_drops",
            "bdp_bytes": "bdp_B",
        },
    )


FIG1_COLS = [
    "variant", "N", "pacing", "preset", "seed", "max_queue_B", "utilization", "drops",
    "run_drops", "bdp_B", "run_dir",
]  # fmt: skip


def fig1_data(ctx: Context) -> pd.DataFrame:
    """Fig. 1: P./N.P. XCP with O.P./C.P. and a BDP buffer, one row per run and number
    of flows ``N`` (each way). Shared by Fig. 2, which takes its buffers from the
    P. XCP C.P. runs."""
    rows = []
    for n in QUICK_N if ctx.quick else FULL_N:
        grid = {
            "tcp.pacing": ["none", "leaky"],
            "topology.queue.preset": ["original", "conservative"],
        }
        r = _sweep(ctx, "fig1", f"n{n}", grid, _counts(n))
        r["N"] = n
        rows.append(r)
    return _tidy_xcp(pd.concat(rows, ignore_index=True))[FIG1_COLS]


# N.P. XCP against the link rate: the Fig. 1 set-up with 2 flows each way (the study's
# Fig. 1(c)-(f)), the BDP buffer scaling with the rate, access links at the study's
# 2.4/0.622 of it, each run over the whole 100 s (warmup 0: the overflow, when there
# is one, comes in the start-up). With the per-interval feedback budget (ns-2's and
# ccsim's XCP router) and without it (``feedback_budget = false``), to test whether the
# budget is why ccsim's N.P. XCP does not overflow at the study's rate.
FULL_RATES = [20, 50, 100, 200, 400, 622]
QUICK_RATES = [20]
FULL_RATE_SEEDS, QUICK_RATE_SEEDS = 2, 3


def fig1_rates_data(ctx: Context) -> pd.DataFrame:
    """One row per run of N.P. XCP (2 flows each way, BDP buffer) at bottleneck rate
    ``rate_mbps``, with (``budget`` True) and without the per-interval feedback
    budget; ``run_drops``/``overflow``: whether the BDP buffer overflowed in the run."""
    rows = []
    rates = QUICK_RATES if ctx.quick else FULL_RATES
    seeds = QUICK_RATE_SEEDS if ctx.quick else FULL_RATE_SEEDS
    for rate in rates:
        for budget in (True, False):
            values = {
                **_counts(2),
                "topology.bottleneck_rate": f"{rate}Mbps",
                "topology.access_rate": f"{rate * 2400 / 622:.1f}Mbps",
                "topology.queue.feedback_budget": budget,
                "warmup": "0s",
            }
            if ctx.quick:
                values["duration"] = "40s"
            grid = {"tcp.pacing": ["none"], "topology.queue.preset": ["original", "conservative"]}
            tag = f"rate{rate}-{'budget' if budget else 'nobudget'}"
            r = _sweep(ctx, "fig1", tag, grid, values, seeds=seeds, quick_set=False)
            r["rate_mbps"], r["budget"] = rate, budget
            rows.append(r)
    d = _tidy_xcp(pd.concat(rows, ignore_index=True))
    d["overflow"] = (d["run_drops"] > 0).astype(float)
    d["max_queue_bdp"] = d["max_queue_B"] / d["bdp_B"]
    cols = ["rate_mbps", "budget", "preset", "seed", "run_drops", "overflow", "max_queue_bdp"]
    return d[cols + ["utilization"]]


def _plot_fig1(d: pd.DataFrame, rates: pd.DataFrame, path) -> None:
    bdp = float(d["bdp_B"].iloc[0])
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 4, figsize=(17, 3.8))
        for v, g in d.groupby("variant", sort=False):
            g = g.sort_values("N")
            axes[0].plot(g["N"], g["max_queue_B"], marker="o", label=v)
            axes[1].plot(g["N"], g["utilization"], marker="o", label=v)
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
        two = d[(d["N"] == d["N"].min()) & (d["preset"] == "O.P.")]
        for _, row in two.iterrows():
            u = _link_util_series(row["run_dir"])
            axes[2].plot(u.index, u.to_numpy(), lw=0.8, label=row["variant"])
        axes[2].set_ylim(0, 1.1)
        axes[2].set_xlabel("time (s)")
        axes[2].set_ylabel(plots.label("utilization"))
        axes[2].set_title(f"(c, e) {int(d['N'].min())} flows, O.P.")
        axes[2].legend(fontsize=7)
        # N.P. XCP against the link rate: share of the runs that overflowed.
        for (preset, budget), g in rates.groupby(["preset", "budget"], sort=False):
            m = g.groupby("rate_mbps")["overflow"].mean()
            ls = "-" if budget else "--"
            lab = f"N.P. XCP {preset}, {'budget' if budget else 'no budget'}"
            axes[3].plot(m.index, m.to_numpy(), ls=ls, marker="o", label=lab)
        log_x(axes[3], rates["rate_mbps"])
        axes[3].set_ylim(-0.05, 1.05)
        axes[3].set_xlabel("bottleneck rate (Mb/s)")
        axes[3].set_ylabel("runs that overflow the BDP buffer")
        axes[3].set_title("N.P. XCP, 2 flows, against the rate")
        axes[3].legend(fontsize=7)
        plots.save(fig, path)
        plt.close(fig)


def fig1(ctx: Context) -> FigureResult:
    d = fig1_data(ctx)
    rates = fig1_rates_data(ctx)
    path = ctx.out / "fig1.png"
    _plot_fig1(d, rates, path)
    res = FigureResult(
        "fig1", "XCP with a BDP buffer: maximum queue and utilization vs flows", [path.name]
    )
    tab = d[["variant", "N", "max_queue_B", "utilization", "drops", "run_drops"]].rename(
        columns={
            "max_queue_B": "max queue (B)",
            "drops": "drops (window)",
            "run_drops": "drops (whole run)",
        }
    )
    over = rates.groupby(["rate_mbps", "preset", "budget"], sort=False)
    rtab = over.agg(
        runs=("overflow", "size"),
        overflowed=("overflow", "sum"),
        drops_mean=("run_drops", "mean"),
        max_queue_bdp=("max_queue_bdp", "max"),
    ).reset_index()
    res.table = markdown_table(tab) + "\n\n" + markdown_table(rtab)
    bdp = float(d["bdp_B"].iloc[0])
    by = {v: g.sort_values("N") for v, g in d.groupby("variant", sort=False)}
    p_cp, p_op = by["P. XCP C.P."], by["P. XCP O.P."]
    few = int(d["N"].min())
    np_few = d[(d["pacing"] == "none") & (d["N"] == few)].set_index("variant")
    p_few = d[(d["pacing"] == "leaky") & (d["N"] == few)].set_index("variant")
    u_cp = dict(zip(p_cp["N"].astype(str), p_cp["utilization"], strict=True))
    q_ratio = (p_cp["max_queue_B"].to_numpy() / p_op["max_queue_B"].to_numpy()).max()
    op = rates[(rates["preset"] == "O.P.") & rates["budget"]]
    op_any = op.groupby("rate_mbps")["overflow"].max()
    share = rates[rates["preset"] == "O.P."].groupby(["budget", "rate_mbps"])["overflow"].mean()
    budget_text = "; ".join(
        f"{'with' if b else 'without'} the budget: "
        + ", ".join(f"{r} Mb/s {share[b, r]:.2f}" for r in sorted(op_any.index))
        for b in (True, False)
    )
    res.claims += [
        claim(
            "cp_queue_tiny",
            "P. XCP with C.P. keeps its maximum queue orders of magnitude below the BDP",
            study="23,360 B at 100 flows vs a 6.4 MB BDP (0.37 %)",
            value=float(p_cp["max_queue_B"].max() / bdp),
            test=below(0.02),
            digits=4,
            note=f"largest max queue / BDP over N; {_bytes(p_cp['max_queue_B'])} B at "
            f"N = {', '.join(str(n) for n in p_cp['N'])}, BDP {bdp:,.0f} B",
        ),
        claim(
            "cp_util_capacity",
            "P. XCP with C.P. holds utilization at its 90 % capacity parameter",
            study="≈ 0.9",
            value=max(u_cp.values(), key=lambda u: abs(u - 0.9)),
            test=within(0.9, tol=0.03),
            note=f"the N farthest from 0.9 ({_listing(u_cp)})",
        ),
        claim(
            "cp_below_op",
            "C.P. lowers P. XCP's maximum queue below O.P.'s",
            study="C.P. decreases the buffer requirement greatly",
            value=float(q_ratio),
            test=below(1.0),
            note=f"largest C.P./O.P. max-queue ratio over N (C.P. {_bytes(p_cp['max_queue_B'])} "
            f"B; O.P. {_bytes(p_op['max_queue_B'])} B)",
        ),
        claim(
            "np_burstier",
            f"N.P. XCP queues far more than P. XCP with few flows ({few} each way)",
            study="N.P. XCP oscillates; its queue exceeds the BDP with few flows",
            value=float(np_few["max_queue_B"].min() / p_few["max_queue_B"].max()),
            test=above(10),
            note="least N.P. max queue / largest P. max queue at the smallest N",
        ),
        claim(
            "np_overflows_bdp",
            "the BDP buffer is not enough for N.P. XCP with few flows: it overflows",
            study="N.P. XCP loses many packets with few flows",
            value=float(np_few["run_drops"].max()),
            test=above(0),
            shown=", ".join(f"{v}: {int(x)}" for v, x in np_few["run_drops"].items()),
            note=f"packets dropped over the whole run (start-up included) at N = {few}",
        ),
        claim(
            "np_low_utilization",
            "… and N.P. XCP's average utilization is low with few flows",
            study="low average utilization at few flows (Fig. 1(b))",
            value=float(np_few.loc["N.P. XCP O.P.", "utilization"]),
            test=below(float(p_few.loc["P. XCP O.P.", "utilization"]) - 0.1),
            note="N.P. XCP O.P. < P. XCP O.P. − 0.1 over the measurement window",
        ),
        claim(
            "np_overflow_every_rate",
            "N.P. XCP O.P. with 2 flows each way overflows the BDP buffer at every rate of "
            "the scan, in at least one seed (the budget in place)",
            study="(ccsim's rate scan; the study runs 622 Mb/s only)",
            value=float(op_any.min()),
            test=above(0.0),
            shown=", ".join(f"{r} Mb/s: {int(v)}" for r, v in op_any.items()),
            note="per rate, 1 when some seed's run drops packets",
        ),
        claim(
            "budget_effect",
            "without the per-interval feedback budget N.P. XCP O.P. overflows more often",
            study="(the page's explanation, tested)",
            value=None,
            test=None,
            shown=budget_text,
            note="share of the seeds whose run overflows; a record, no check (few seeds)",
        ),
    ]
    res.values = {
        "bdp_bytes": bdp,
        "table": tab.to_dict("records"),
        "rates": rtab.to_dict("records"),
    }
    return res


# ------------------------------------------------------------------ Figure 2

# The TCPs' order (P. NewReno > P. HSTCP > P. Reno; N.P. HSTCP best, N.P. Reno worst)
# rests on differences of 0.01-0.04: at these flow counts each TCP runs ORDER_SEEDS
# replications (seeds draw the RTTs and start times), paced and not.
ORDER_N_FULL = [10, 40, 100]
ORDER_N_QUICK = [10, 40]
ORDER_SEEDS = 5


def _small_buffers(d1: pd.DataFrame) -> dict[int, int]:
    """N -> the maximum queue (bytes) of P. XCP C.P. with a BDP buffer (Fig. 1(a)), at
    least one packet: the study's small buffer for that number of flows."""
    cp = d1[d1["variant"] == "P. XCP C.P."]
    return {int(n): max(int(q), 1000) for n, q in zip(cp["N"], cp["max_queue_B"], strict=True)}


def fig2_data(ctx: Context) -> pd.DataFrame:
    """Fig. 2: every protocol, paced and not, with the small buffer of each N; one row
    per run (``seed`` > 1 only for the TCPs at the order's flow counts)."""
    buffers = _small_buffers(fig1_data(ctx))
    order_n = ORDER_N_QUICK if ctx.quick else ORDER_N_FULL
    rows = []
    for n, buf in buffers.items():
        for proto in PROTOCOLS:
            values = {**_counts(n), **_protocol_set(proto, 2), "topology.buffer": f"{buf}B"}
            seeds = ORDER_SEEDS if proto in TCPS and n in order_n else 1
            r = _sweep(
                ctx, "fig2", f"n{n}-{proto.lower()}", {"tcp.pacing": ["none", "leaky"]}, values,
                seeds=seeds,
            )  # fmt: skip
            r["N"], r["protocol"], r["buffer_B"] = n, proto, buf
            rows.append(r)
    d = pd.concat(rows, ignore_index=True)
    d["pacing"] = d["tcp.pacing"].astype(str)
    d["variant"] = [_label(p, s) for p, s in zip(d["protocol"], d["pacing"], strict=True)]
    d = _renamed(d, {"links.bottleneck.utilization": "utilization"})
    cols = ["variant", "protocol", "pacing", "N", "seed", "buffer_B", "utilization", "run_dir"]
    return d[cols]


def _plot_fig2(d: pd.DataFrame, est: pd.DataFrame, path) -> None:
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        for v, g in est.groupby("variant", sort=False):
            g = g.sort_values("N")
            ls = "-" if v.startswith("P.") else "--"
            axes[0].errorbar(
                g["N"], g["mean"], yerr=g["ci95"].fillna(0), ls=ls, marker="o", capsize=2,
                label=v,
            )  # fmt: skip
        log_x(axes[0], d["N"])
        axes[0].set_xlabel("long flows (each direction)")
        axes[0].set_ylabel(plots.label("utilization"))
        axes[0].set_ylim(0, 1.05)
        axes[0].set_title("(a) small buffers (P. XCP C.P.'s max queue)")
        axes[0].legend(fontsize=7, ncol=2)
        nmax = int(d["N"].max())
        last = d[(d["N"] == nmax) & (d["pacing"] == "leaky")]
        for _, row in last.sort_values("seed").groupby("variant", sort=False).head(1).iterrows():
            u = _link_util_series(row["run_dir"])
            axes[1].plot(u.index, u.to_numpy(), lw=0.8, label=row["variant"])
        axes[1].set_ylim(0, 1.1)
        axes[1].set_xlabel("time (s)")
        axes[1].set_ylabel(plots.label("utilization"))
        axes[1].set_title(f"(b) transient, {nmax} flows, paced")
        axes[1].legend(fontsize=7)
        plots.save(fig, path)
        plt.close(fig)


def _order_means(d: pd.DataFrame, variants: list[str], ns: list[int]) -> dict[str, Estimate]:
    """Per variant: the estimate over the seeds of its utilization averaged over *ns*
    (each seed one replication of the whole set of flow counts)."""
    sub = d[d["variant"].isin(variants) & d["N"].isin(ns)]
    per_seed = sub.groupby(["variant", "seed"])["utilization"].mean().reset_index()
    return {v: estimate(per_seed.loc[per_seed["variant"] == v, "utilization"]) for v in variants}


def fig2(ctx: Context) -> FigureResult:
    d = fig2_data(ctx)
    est = estimates(d, ["variant", "N"], "utilization")
    path = ctx.out / "fig2.png"
    _plot_fig2(d, est, path)
    res = FigureResult(
        "fig2", "all protocols with small buffers: utilization vs flows", [path.name]
    )
    piv = est.pivot_table(index="N", columns="variant", values="mean", sort=False)
    buffers = d.groupby("N")["buffer_B"].first()
    tab = piv.reset_index()
    tab.insert(1, "buffer (B)", [int(buffers[n]) for n in tab["N"]])
    res.table = markdown_table(tab)
    order_n = sorted(int(n) for n in d.loc[d["seed"] > 1, "N"].unique())
    cell = {
        (r["variant"], int(r["N"])): Estimate(r["mean"], r["ci95"], int(r["n"]))
        for _, r in est.iterrows()
    }
    ns = sorted(int(n) for n in d["N"].unique())
    few = ns[0]
    p_tcp = [f"P. {p}" for p in TCPS]
    np_tcp = [f"N.P. {p}" for p in TCPS]
    u_p = {f"{v}, N = {n}": cell[v, n] for v in p_tcp for n in ns}
    u_p10 = {k: e for k, e in u_p.items() if int(k.rsplit(" ", 1)[1]) >= 10}
    xcp = {f"N = {n}": cell["P. XCP", n] for n in ns}
    gain = {p: cell[f"P. {p}", few].mean - cell[f"N.P. {p}", few].mean for p in TCPS}
    p_order = _order_means(d, p_tcp, order_n)
    np_order = _order_means(d, np_tcp, order_n)
    order_note = f"utilization averaged over N = {', '.join(map(str, order_n))}, per seed"
    res.claims += [
        claim(
            "paced_tcp_over_80",
            "every P. TCP exceeds 80 % utilization with the small buffers",
            study="> 0.8",
            value=_least(u_p),
            test=above(0.8),
            note="the lowest P. TCP point (every N)",
        ),
        claim(
            "paced_tcp_over_80_n10",
            "every P. TCP exceeds 80 % utilization with the small buffers, 10 flows or more",
            study="> 0.8",
            value=_least(u_p10) if u_p10 else None,
            test=above(0.8),
            note="the lowest P. TCP point at N ≥ 10",
        ),
        claim(
            "xcp_at_capacity",
            "P. XCP with C.P. stays at its 90 % capacity parameter with the small buffers",
            study="≈ 0.9",
            value=max(xcp.values(), key=lambda e: abs(e.mean - 0.9)),
            test=within(0.9, tol=0.03),
            note=f"the N farthest from 0.9 ({_listing(xcp)})",
        ),
        claim(
            "paced_beats_nonpaced",
            "paced TCPs reach higher utilization than non-paced ones with tiny buffers",
            study="N.P. TCPs very low unless there are many flows",
            value=min(gain.values()),
            test=above(0.1),
            shown="; ".join(f"{p} +{fmt(g)}" for p, g in gain.items()) + f" at N = {few}",
            note=f"the least P. − N.P. utilization gain at N = {few}",
        ),
        claim(
            "np_rise_with_n",
            "N.P. TCPs' utilization rises with the number of flows",
            study="over 90 % at 800 flows, very low with few",
            value=min(cell[c, ns[-1]].mean - cell[c, few].mean for c in np_tcp),
            test=above(0.0),
            shown="; ".join(
                f"{c}: {fmt(cell[c, few].mean)} → {fmt(cell[c, ns[-1]].mean)}" for c in np_tcp
            ),
            note="the least rise from the smallest N to the largest",
        ),
        claim(
            "paced_order_newreno_hstcp",
            "among P. TCPs NewReno is (marginally) above HSTCP",
            study="P. NewReno second best, marginally above P. HSTCP",
            value=p_order["P. NewReno"],
            test=exceeds(p_order["P. HSTCP"], label=f"P. HSTCP's {p_order['P. HSTCP']:.3f}"),
            note=order_note,
        ),
        claim(
            "paced_order_hstcp_reno",
            "among P. TCPs Reno is last (below HSTCP)",
            study="P. Reno the last one",
            value=p_order["P. HSTCP"],
            test=exceeds(p_order["P. Reno"], label=f"P. Reno's {p_order['P. Reno']:.3f}"),
            note=order_note,
        ),
        claim(
            "np_hstcp_best",
            "among N.P. TCPs HSTCP (SACK) is the best",
            study="N.P. HSTCP best of the N.P. TCPs",
            value=np_order["N.P. HSTCP"],
            test=exceeds(
                np_order["N.P. NewReno"], label=f"N.P. NewReno's {np_order['N.P. NewReno']:.3f}"
            ),
            note=order_note,
        ),
        claim(
            "np_reno_worst",
            "among N.P. TCPs Reno is the worst",
            study="N.P. Reno worst",
            value=np_order["N.P. NewReno"],
            test=exceeds(np_order["N.P. Reno"], label=f"N.P. Reno's {np_order['N.P. Reno']:.3f}"),
            note=order_note,
        ),
    ]
    res.values = {
        "buffers": {int(n): int(b) for n, b in buffers.items()},
        "utilization": piv.reset_index().to_dict("records"),
        "estimates": est.to_dict("records"),
        "order_n": order_n,
        "order": {
            v: {"mean": e.mean, "ci95": e.half_width, "n": e.n}
            for v, e in (p_order | np_order).items()
        },
    }
    return res


# ------------------------------------------------------------------ Figure 3

FULL_WEB = [0, 100, 200, 400]
QUICK_WEB = [0, 100]  # at the study's rate (QUICK_STUDY_RATE)


def _web(n: int, cc: str) -> dict[str, Any]:
    # N = 0: one idle web node per side whose first file would start after the run.
    web: dict[str, Any] = {"workloads[0].cc": cc}
    if n == 0:
        web["workloads[0].start"] = "100000s"
    return web


def fig3_data(ctx: Context) -> pd.DataFrame:
    """Fig. 3 (the study's procedure): per N web nodes per side, P. XCP C.P. with a BDP
    buffer (``buffer`` "bdp"), then N.P. XCP C.P. and the P./N.P. TCPs with that run's
    maximum queue as their buffer. One row per run."""
    rows = []
    for n in QUICK_WEB if ctx.quick else FULL_WEB:
        nodes = {"workloads[0].nodes": [max(n, 1)]}
        xcp = {**_protocol_set("XCP", 2), **_web(n, "xcp")}
        r = _sweep(
            ctx, "fig3", f"n{n}-xcp", {"tcp.pacing": ["leaky"], **nodes},
            {**xcp, "topology.buffer": "bdp"},
        )  # fmt: skip
        r["N"], r["protocol"], r["buffer"] = n, "XCP", "bdp"
        rows.append(r)
        # the small buffer at this N: P. XCP's maximum queue, at least one packet
        buf = max(int(r["links.bottleneck.queue_max_bytes"].iloc[0]), 1000)
        r = _sweep(
            ctx, "fig3", f"n{n}-npxcp", {"tcp.pacing": ["none"], **nodes},
            {**xcp, "topology.buffer": f"{buf}B"},
        )  # fmt: skip
        r["N"], r["protocol"], r["buffer"] = n, "XCP", f"{buf}B"
        rows.append(r)
        for proto in TCPS:
            values = {**_protocol_set(proto, 2), "topology.buffer": f"{buf}B"}
            cc, recovery, _ = PROTOCOLS[proto]
            values.update(_web(n, cc))
            if recovery is not None:
                values["workloads[0].recovery"] = recovery
            grid = {"tcp.pacing": ["none", "leaky"], **nodes}
            r = _sweep(ctx, "fig3", f"n{n}-{proto.lower()}", grid, values)
            r["N"], r["protocol"], r["buffer"] = n, proto, f"{buf}B"
            rows.append(r)
    d = pd.concat(rows, ignore_index=True)
    d["pacing"] = d["tcp.pacing"].astype(str)
    d["variant"] = [_label(p, s) for p, s in zip(d["protocol"], d["pacing"], strict=True)]
    d = _renamed(
        d,
        {
            "links.bottleneck.utilization": "utilization",
            "links.bottleneck.queue_max_bytes": "max_queue_B",
            "links.bottleneck.drops": "drops",
        },
    )
    cols = ["variant", "protocol", "pacing", "N", "seed", "buffer", "utilization"]
    return d[cols + ["max_queue_B", "drops"]]


def _plot_fig3(xq: pd.DataFrame, piv: pd.DataFrame, path) -> None:
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        axes[0].plot(xq["N"], xq["max_queue_B"], marker="o", label="P. XCP C.P.")
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
        plots.save(fig, path)
        plt.close(fig)


def fig3(ctx: Context) -> FigureResult:
    """Fig. 3: (a) P. XCP C.P.'s maximum queue with a BDP buffer against N web nodes;
    (b) utilization: P. XCP C.P. (BDP buffer), and N.P. XCP C.P. and the P./N.P. TCPs
    with (a)'s maximum queue at that N as their buffer (the study's procedure)."""
    d = fig3_data(ctx)
    xq = d[d["buffer"] == "bdp"].sort_values("N")
    piv = d.pivot_table(index="N", columns="variant", values="utilization", sort=False)
    path = ctx.out / "fig3.png"
    _plot_fig3(xq, piv, path)
    res = FigureResult("fig3", "web-like traffic: XCP queue, utilization vs web nodes", [path.name])
    tab = piv.reset_index()
    q = dict(zip(xq["N"].astype(int), xq["max_queue_B"].astype(int), strict=True))
    tab.insert(1, "P. XCP max queue (B)", [q[int(n)] for n in tab["N"]])
    tab.insert(2, "small buffer (B)", [max(q[int(n)], 1000) for n in tab["N"]])
    res.table = markdown_table(tab)
    ns = sorted(q)
    pxcp = piv["P. XCP"]

    def rise(cols):
        return "; ".join(
            f"{c}: {fmt(float(piv[c].iloc[0]))} → {fmt(float(piv[c].iloc[-1]))}" for c in cols
        )

    p_cols, np_cols = [f"P. {p}" for p in TCPS], [f"N.P. {p}" for p in TCPS]
    least_rise = {
        cols[0][:2]: min(float(piv[c].iloc[-1] - piv[c].iloc[0]) for c in cols)
        for cols in (p_cols, np_cols)
    }
    gap = float(min((piv[f"P. {p}"] - piv[f"N.P. {p}"]).min() for p in TCPS))
    reno_margin = float(
        min(piv["N.P. NewReno"].mean(), piv["N.P. HSTCP"].mean()) - piv["N.P. Reno"].mean()
    )
    res.claims += [
        claim(
            "xcp_queue_flat",
            "P. XCP C.P.'s maximum queue hardly changes with the number of web nodes",
            study="no big change (short flows inject < 30 % of the link)",
            value=max(q.values()) / max(min(q.values()), 1000),
            test=below(2.0 + 1e-9),
            shown=f"{_bytes(q.values())} B at N = {', '.join(map(str, ns))}",
            note="largest maximum queue / the smallest (at least one packet) ≤ 2",
        ),
        claim(
            "xcp_no_drops",
            "P. XCP C.P. with a BDP buffer drops nothing with web traffic",
            study="(implied: its queue stays far below the buffer)",
            value=float(xq["drops"].max()),
            test=below(0.5),
            note="the most drops at any N (none)",
        ),
        claim(
            "p_xcp_falls",
            "P. XCP's utilization falls as web nodes are added (short flows leave their "
            "fair share unused)",
            study="falls with N",
            value=float(pxcp.iloc[0] - pxcp.iloc[-1]),
            test=above(0.02),
            shown=f"P. XCP: {fmt(float(pxcp.iloc[0]))} → {fmt(float(pxcp.iloc[-1]))}",
            note="fall from N = 0 to the largest N",
        ),
        claim(
            "np_rise",
            "N.P. TCPs' utilization rises with the number of web nodes",
            study="rises (aggregate of long and short flows)",
            value=least_rise["N."],
            test=above(0.02),
            shown=rise(np_cols),
            note="the least rise of the N.P. TCPs from N = 0 to the largest N",
        ),
        claim(
            "p_rise",
            "P. TCPs' utilization rises with the number of web nodes (less synchronization)",
            study="rises",
            value=least_rise["P."],
            test=above(0.02),
            shown=rise(p_cols),
            note="the least rise of the P. TCPs from N = 0 to the largest N",
        ),
        claim(
            "paced_above",
            "P. TCPs stay above N.P. TCPs with the small buffer",
            study="P. above N.P. at every N",
            value=gap,
            test=above(0.0),
            note="the least P. − N.P. gap (each TCP, every N)",
        ),
        claim(
            "np_reno_lowest",
            "among N.P. TCPs Reno is the lowest",
            study="Reno worst; NewReno and HSTCP almost the same",
            value=reno_margin,
            test=above(0.0),
            shown=rise(np_cols),
            note="min(N.P. NewReno, N.P. HSTCP) − N.P. Reno, means over N",
        ),
    ]
    res.values = {
        "xcp_max_queue_B": q,
        "xcp_drops": dict(zip(xq["N"].astype(int), xq["drops"].astype(int), strict=True)),
        "utilization": piv.reset_index().to_dict("records"),
    }
    return res


# ------------------------------------------------------------------ Figure 4, Table 1

GROUPS_PL = 6  # long, short1, short2 and their reverse twins
LINKS = ("link 1", "link 2", "link 3")


def parking_data(ctx: Context) -> pd.DataFrame:
    """Fig. 4 and Table 1: first P. XCP C.P. with BDP buffers (``buffer`` "bdp"); its
    largest maximum queue on the three middle links is then every middle link's buffer
    for every protocol, paced and not; and N.P. XCP once more with Reno's loss recovery
    (``recovery`` "reno", ns-2's XCP agent; the default is NewReno's). One row per run:
    the core's utilization of each middle link and Jain's index of the forward
    goodputs."""
    first = _sweep(
        ctx, "fig4", "bdp", {"tcp.pacing": ["leaky"]},
        {**_protocol_set("XCP", GROUPS_PL), "topology.buffer": "bdp"},
    )  # fmt: skip
    first["protocol"], first["buffer"], first["recovery"] = "XCP", "bdp", "default"
    qmax = max(float(first[f"links.link{k}.queue_max_bytes"].max()) for k in (1, 2, 3))
    buf = max(int(qmax), 1000)
    rows = [first]
    for proto in PROTOCOLS:
        values = {**_protocol_set(proto, GROUPS_PL), "topology.buffer": f"{buf}B"}
        r = _sweep(ctx, "fig4", f"{proto.lower()}", {"tcp.pacing": ["none", "leaky"]}, values)
        r["protocol"], r["buffer"] = proto, f"{buf}B"
        r["recovery"] = PROTOCOLS[proto][1] or "default"
        rows.append(r)
    values = {**_protocol_set("XCP", GROUPS_PL), "topology.buffer": f"{buf}B"}
    values.update({f"flows[{i}].recovery": "reno" for i in range(GROUPS_PL)})
    r = _sweep(ctx, "fig4", "xcp-renorecovery", {"tcp.pacing": ["none"]}, values)
    r["protocol"], r["buffer"], r["recovery"] = "XCP", f"{buf}B", "reno"
    rows.append(r)
    d = pd.concat(rows, ignore_index=True)
    d["pacing"] = d["tcp.pacing"].astype(str)
    d["variant"] = [_label(p, s) for p, s in zip(d["protocol"], d["pacing"], strict=True)]
    d.loc[(d["protocol"] == "XCP") & (d["recovery"] == "reno"), "variant"] += " (Reno recovery)"
    d = _renamed(d, {f"links.link{k}.utilization": f"link {k}" for k in (1, 2, 3)})
    d = _renamed(d, {"flows_jain_fairness": "jain"})
    cols = ["variant", "protocol", "pacing", "recovery", "buffer", "seed", *LINKS, "jain"]
    return d[cols]


def _plot_fig4(util: pd.DataFrame, buf: str, path) -> None:
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
        ax.set_title(f"Fig. 4: parking lot, buffer {buf} on every middle link")
        ax.legend(fontsize=7, ncol=2)
        plots.save(fig, path)
        plt.close(fig)


def fig4(ctx: Context) -> FigureResult:
    d = parking_data(ctx)
    small = d[d["buffer"] != "bdp"]
    util = small.set_index("variant")[list(LINKS)]
    buf = str(small["buffer"].iloc[0])
    path = ctx.out / "fig4.png"
    _plot_fig4(util, buf, path)
    res = FigureResult("fig4", "parking lot: utilization of the three middle links", [path.name])
    res.table = markdown_table(util.reset_index())
    paced = util[util.index.str.startswith("P.")]
    xcp = paced.loc["P. XCP"]
    others = paced.drop(index="P. XCP")
    np_xcp = util.loc["N.P. XCP"]
    np_xcp_reno = util.loc["N.P. XCP (Reno recovery)"]
    res.claims += [
        claim(
            "xcp_long_flows",
            "on link 3 (long flows only) P. XCP has the highest utilization of the P. variants",
            study="P. XCP highest",
            value=float(xcp["link 3"]),
            test=above(float(others["link 3"].max())),
            shown=f"P. XCP {fmt(float(xcp['link 3']))}; "
            + ", ".join(f"{v} {fmt(float(u))}" for v, u in others["link 3"].items()),
            note="the best other P. variant's link 3",
        ),
        claim(
            "hstcp_link3_low",
            "on link 3 (long flows only) P. HSTCP is very low: the short-RTT flows take the "
            "bottlenecks from the long ones",
            study="P. HSTCP very low",
            value=float(paced.loc["P. HSTCP", "link 3"]),
            test=below(min(0.15, float(others.drop(index="P. HSTCP")["link 3"].min()))),
            shown=", ".join(f"{v} {fmt(float(u))}" for v, u in paced["link 3"].items()),
            note="below 0.15 (a third of XCP's max-min 0.45) and below every other P. variant",
        ),
        claim(
            "xcp_bottlenecks",
            "on links 1 and 2 P. XCP has the highest utilization of the P. variants",
            study="P. XCP highest, then NewReno, HSTCP, Reno",
            value=float(
                min(xcp["link 1"] - others["link 1"].max(), xcp["link 2"] - others["link 2"].max())
            ),
            test=above(0.0),
            shown=f"P. XCP {fmt(float(xcp['link 1']))}/{fmt(float(xcp['link 2']))}; "
            + ", ".join(
                f"{v} {fmt(float(r['link 1']))}/{fmt(float(r['link 2']))}"
                for v, r in others.iterrows()
            ),
            note="P. XCP's margin over the best other P. variant, the lesser of links 1 and 2",
        ),
        claim(
            "np_xcp_collapses",
            "N.P. XCP with C.P. is unstable: below 0.5 % utilization",
            study="< 0.005 on every link",
            value=float(np_xcp.max()),
            test=below(0.005),
            shown=", ".join(fmt(float(u)) for u in np_xcp),
            note="the busiest middle link",
        ),
        claim(
            "np_xcp_very_low",
            "N.P. XCP with C.P. is very low on every middle link (in shape: under a tenth "
            "of P. XCP's utilization of that link), with NewReno's or Reno's loss recovery",
            study="< 0.005 on every link",
            value=float(max((np_xcp / xcp).max(), (np_xcp_reno / xcp).max())),
            test=below(0.1),
            shown=f"NewReno recovery {', '.join(fmt(float(u)) for u in np_xcp)}; "
            f"Reno recovery {', '.join(fmt(float(u)) for u in np_xcp_reno)}",
            note="the largest N.P. XCP / P. XCP utilization ratio over the links and both "
            "recoveries",
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
    d = parking_data(ctx)  # the runs of Fig. 4 (reused when it ran)
    small = d[d["buffer"] != "bdp"]
    jain = small.set_index("variant")["jain"]  # the core's Jain index of the flows
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
    best_other = float(jain.drop(["P. XCP"]).max())
    res.claims += [
        claim(
            "xcp_fairest",
            "P. XCP has the best fairness in the parking lot (of all eight variants)",
            study="P. XCP 1.00; the others 0.44-0.78",
            value=float(jain["P. XCP"]),
            test=above(max(best_other, 0.95)),
            note=f"every other variant (best {fmt(best_other)}) and 0.95",
        ),
        claim(
            "hstcp_least_fair",
            "P. HSTCP is far less fair than the other paced variants",
            study="0.44 (others ≥ 0.76)",
            value=paced["P. HSTCP"],
            test=below(min(x for v, x in paced.items() if v != "P. HSTCP") - 0.1),
            shown=", ".join(f"{v} {fmt(x)}" for v, x in paced.items()),
            note="every other P. variant − 0.1",
        ),
    ]
    res.values = {"buffer_B": str(small["buffer"].iloc[0]), "jain": tab.to_dict("records")}
    return res


FIGURES = {
    "fig1": fig1,
    "fig2": fig2,
    "fig3": fig3,
    "fig4": fig4,
    "table1": table1,
}
