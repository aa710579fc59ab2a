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

Quick mode keeps the two 100 ms environments (500 and 1000 Mb/s) and the study's four
test flows (no Vegas): 24 of the 60 runs, at the study's scale otherwise. Shorter runs
lose the main finding: FAST falls below Compound and Illinois only as the NewReno flows
fill the 8333-packet buffer, which at 100 ms takes most of the 700 s (over [50 s, 300 s]
FAST is still ahead); scaling the rate down instead shrinks the buffer next to FAST's
α = 200 packets, and FAST keeps a quarter of a 100 Mb/s link (α over an 833-packet
queue). At 50 ms one environment is the lock-out cell (docs/reproductions/002.md) and
the other never converges, so the 100 ms pair is the one where every reproduced
finding can hold.

The calibration (§7.1, Figures 7-18): each protocol alone on the same network, 600 s
from 0 s (``calibration.toml``), drawn as the study's throughput-against-time plots, one
figure per buffer (``calibration-bdp``: Figures 7-10, ``calibration-stanford``: 11-14,
``calibration-tiny``: 15-18), the three from one sweep. Quick mode keeps the two
500 Mb/s environments (at 1000 Mb/s the access link paces a lone flow to the bottleneck
rate, so the buffer never fills and the three buffers give the same runs) and 150 s
runs.
"""

from __future__ import annotations

import math

import numpy as np
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
    "grid": {
        "flows[1].cc": ["newreno", "compound", "fast", "illinois"],
        "topology.bottleneck_rate": ["500Mbps", "1000Mbps"],
        "topology.bottleneck_delay": ["36ms"],
    },
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
    # The BDP buffer: 8333 packets, the BDP of 1 Gb/s x 100 ms, in every environment, as
    # in the study.
    s = str(v)
    return "bdp" if s == "8333pkt" else s


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


def _pairs(envs: list[str], vary: str) -> list[tuple[str, str]]:
    """(low, high) environment pairs that differ only in *vary*, "rate" or "rtt": its
    lowest and highest value, at each value of the other that has both."""
    split = [tuple(e.split("/")) for e in envs]
    i = {"rate": 0, "rtt": 1}[vary]
    values = sorted({x[i] for x in split}, key=int)
    pairs = []
    for other in sorted({x[1 - i] for x in split}, key=int):
        if i == 0:
            lo, hi = (values[0], other), (values[-1], other)
        else:
            lo, hi = (other, values[0]), (other, values[-1])
        if len(values) > 1 and lo in split and hi in split:
            pairs.append(("/".join(lo), "/".join(hi)))
    return pairs


def _main_env(d: pd.DataFrame) -> str:
    """The environment of the single-environment claims: the largest rate at 100 ms
    (1000/100 in both modes)."""
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


# ------------------------------------------------------------------ Figures 7-18

# Quick mode of the calibration (module docstring): the two 500 Mb/s environments, where
# the buffers matter (at 1000 Mb/s a lone flow never queues at the bottleneck), 150 s.
QUICK_CAL = {
    "grid": {"topology.bottleneck_rate": ["500Mbps"]},
    "set": {"duration": "150s"},
}

PAYLOAD = 1460 / 1500  # goodput of a saturated link / its rate (MSS 1460 B, 1500 B packets)
QUICKLY_S = 60.0  # "quickly able to scale": 90 % of the link within a tenth of the 600 s run
CAL_FIG = {"bdp": 7, "166pkt": 11, "20pkt": 15}  # the study's first figure of each buffer


def _first_at(t, y, level: float) -> float:
    """First sample time at which *y* reaches *level*; inf if never (within the run)."""
    i = np.flatnonzero(y >= level)
    return float(t[i[0]]) if len(i) else math.inf


def _calibration(ctx: Context) -> dict[tuple[str, str, str], dict]:
    """Per (environment, protocol, buffer): the lone flow's 1 s goodput samples and the
    scalars of the claims (seeds averaged; the first seed's series)."""
    sw, runs = ctx.sweep("calibration", quick=QUICK_CAL)
    out: dict[tuple[str, str, str], list[dict]] = {}
    for _, row in runs.iterrows():
        run = sw.load(row["run_id"])
        s = run.series
        th = s[(s["entity"] == "flow") & (s["metric"] == "throughput_bps")].sort_values("time")
        t = th["time"].to_numpy(dtype=float)
        cap = float(run.summary["links"]["bottleneck"]["rate_bps"]) * PAYLOAD
        y = th["value"].to_numpy(dtype=float) / cap  # share of the link's payload rate
        f = run.flows.iloc[0]
        end = float(t[-1])
        late = y[t > end / 2]  # the second half of the run: after the ramp-up
        key = (
            f"{_rate_mbps(row['topology.bottleneck_rate'])}/"
            f"{_rtt_ms(row['topology.bottleneck_delay'])}",
            str(row["flows[0].cc"]),
            _buffer(row["topology.buffer"]),
        )
        out.setdefault(key, []).append(
            {
                "t": t,
                "mbps": y * cap / 1e6,
                "share": float(f["goodput_bps"]) / cap,
                "late_share": float(late.mean()),
                "late_cov": float(late.std() / late.mean()) if late.mean() > 0 else math.inf,
                "t80": _first_at(t, y, 0.8),
                "t90": _first_at(t, y, 0.9),
                "cov": float(f["cov_mean"]),
                "losses": int(f["losses"]),
                "timeouts": int(f["timeouts"]),
                "end": end,
            }
        )
    d = {}
    for key, rs in out.items():
        v = {k: float(np.mean([r[k] for r in rs])) for k in rs[0] if k not in ("t", "mbps")}
        v["t"], v["mbps"] = rs[0]["t"], rs[0]["mbps"]
        d[key] = v
    return d


def _cal_envs(d: dict) -> list[str]:
    return sorted({e for e, _, _ in d}, key=lambda e: tuple(int(x) for x in e.split("/")))


def _cal_plot(ctx: Context, d: dict, buffer: str, name: str) -> str:
    """2 x 2 panels (one per environment, the study's four figures): each protocol's 1 s
    goodput against time, running alone."""
    envs = _cal_envs(d)
    ccs = [c for c in NAMES if any(k[1] == c for k in d)]
    cols = 2 if len(envs) > 1 else 1
    rows = math.ceil(len(envs) / cols)
    plt = _plt()
    with plt.rc_context(plots.STYLE):
        fig, axes = plt.subplots(
            rows, cols, figsize=(3.6 * cols, 2.4 * rows), squeeze=False, sharex=True
        )
        for n, e in enumerate(envs):
            ax = axes[n // cols][n % cols]
            rate = int(e.split("/")[0])
            for i, c in enumerate(ccs):
                v = d.get((e, c, buffer))
                if v is not None:
                    ax.plot(v["t"], v["mbps"], lw=0.8, color=f"C{i}", label=NAMES[c])
            ax.set_ylim(0, rate * 1.05)
            num = CAL_FIG[buffer] + n if len(envs) == 4 else None
            ax.set_title(
                (f"Fig. {num}: " if num else "") + f"{rate} Mb/s, {e.split('/')[1]} ms",
                fontsize=8,
            )
            if n // cols == rows - 1:
                ax.set_xlabel("time (s)")
            if n % cols == 0:
                ax.set_ylabel("goodput (Mb/s, 1 s)")
        for n in range(len(envs), rows * cols):
            axes[n // cols][n % cols].set_visible(False)
        axes[0][-1].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.suptitle(f"Calibration, each protocol alone: {BUFS[buffer]} buffer", fontsize=9)
        path = ctx.out / f"{name}.png"
        plots.save(fig, path)
        plt.close(fig)
    return path.name


def _cal_table(d: dict, buffer: str) -> str:
    rows = [
        {
            "env": e,
            "protocol": NAMES[c],
            "mean share": v["share"],
            "2nd half": v["late_share"],
            "t90 (s)": v["t90"],
            "1 s CoV, 2nd half": v["late_cov"],
            "CoV (5 s, §7.3)": v["cov"],
            "losses": v["losses"],
            "timeouts": v["timeouts"],
        }
        for (e, c, b), v in sorted(d.items(), key=lambda kv: _cal_envs(d).index(kv[0][0]))
        if b == buffer
    ]
    return markdown_table(pd.DataFrame(rows))


def _t(x: float) -> str:
    return "never" if not math.isfinite(x) else f"{x:.0f} s"


def _cal_figure(ctx: Context, buffer: str, name: str) -> tuple[FigureResult, dict]:
    d = _calibration(ctx)
    first = CAL_FIG[buffer]
    res = FigureResult(
        name,
        f"Figs. {first}-{first + 3}: calibration, each protocol alone, {BUFS[buffer]} buffer",
        [_cal_plot(ctx, d, buffer, name)],
    )
    res.table = _cal_table(d, buffer)
    res.values = {
        "table": [
            {"env": e, "cc": c, "buffer": b}
            | {k: x for k, x in v.items() if k not in ("t", "mbps")}
            for (e, c, b), v in d.items()
            if b == buffer
        ]
    }
    return res, d


def _cal_get(d: dict, buffer: str):
    """``g(key, cc, env)``: one scalar of the runs with *buffer*."""

    def g(key: str, cc: str, env: str, buf: str = buffer) -> float:
        return float(d[(env, cc, buf)][key])

    return g


def _cal_show(d: dict, buffer: str, key: str, ccs, envs, show=fmt) -> str:
    g = _cal_get(d, buffer)
    return "; ".join(
        f"{e}: " + ", ".join(f"{NAMES[c]} {show(g(key, c, e))}" for c in ccs) for e in envs
    )


def _by_rate(envs: list[str]) -> tuple[list[str], list[str]]:
    """(the lower rate's environments, the higher rate's): 500 and 1000 Mb/s in full mode."""
    rates = sorted({int(e.split("/")[0]) for e in envs})
    lo = [e for e in envs if int(e.split("/")[0]) == rates[0]]
    hi = [e for e in envs if int(e.split("/")[0]) == rates[-1]] if len(rates) > 1 else []
    return lo, hi


def _rtt_pair(envs: list[str]) -> tuple[str, str] | None:
    """(short-RTT, long-RTT) environment at the lower rate, if both were run."""
    lo, _ = _by_rate(envs)
    return (lo[0], lo[-1]) if len(lo) > 1 else None


# "steady", "stable", "little variation": the CoV of the 1 s goodput samples over the second
# half of the run (what the study's time plots show once the flow has ramped up) below
# this; "bursty": the highest of the four.
STEADY_COV = 0.1


def calibration_bdp(ctx: Context) -> FigureResult:
    res, d = _cal_figure(ctx, "bdp", "calibration-bdp")
    g = _cal_get(d, "bdp")
    envs = _cal_envs(d)
    lo, hi = _by_rate(envs)
    pair = _rtt_pair(envs)
    ci = ("compound", "illinois")
    res.claims += [
        Claim(
            "cal_bdp_compound_illinois_scale_quickly",
            "alone with the BDP buffer, Compound and Illinois quickly scale and thoroughly "
            "utilize the link (§7.1.1, Figs. 7-10; every environment)",
            "quickly able to scale and thoroughly utilize the link",
            _cal_show(d, "bdp", "t90", ci, envs, _t)
            + " (time to 90 %); second half: "
            + _cal_show(d, "bdp", "late_share", ci, envs),
            all(
                g("t90", c, e) <= QUICKLY_S and g("late_share", c, e) >= 0.9
                for c in ci
                for e in envs
            ),
            f"90 % of the link within {QUICKLY_S:.0f} s and ≥ 0.9 of it over the second "
            "half of the run, Compound and Illinois, every environment",
        ),
        Claim(
            "cal_bdp_fast_far_lower",
            "alone with the BDP buffer, FAST is held back by α and attains far lower "
            "throughput than Compound and Illinois (§7.1.1, Figs. 7-10; every environment)",
            "far lower throughput; held back severely",
            _cal_show(d, "bdp", "share", ("fast", *ci), envs) + " (mean share of the link)",
            all(g("share", "fast", e) < 0.5 * min(g("share", c, e) for c in ci) for e in envs),
            "FAST's mean share < 0.5 × min(Compound, Illinois), every environment",
        ),
        Claim(
            "cal_bdp_fast_stable",
            "alone with the BDP buffer, FAST is exceedingly stable (§7.1.1; every environment)",
            "exceedingly stable",
            _cal_show(d, "bdp", "late_cov", ("fast",), envs) + " (1 s CoV, 2nd half)",
            all(g("late_cov", "fast", e) < STEADY_COV for e in envs),
            f"FAST's 1 s CoV over the second half < {STEADY_COV}, every environment",
        ),
        Claim(
            "cal_bdp_newreno_slower_long_rtt",
            "alone with the BDP buffer, as the RTT grows at the lower rate NewReno scales "
            "much slower than Compound and Illinois (§7.1.1, Figs. 7-8)",
            "much slower as the RTT increases",
            _cal_show(d, "bdp", "t90", ("newreno", *ci), lo, _t) + " (time to 90 %)",
            all(g("t90", "newreno", e) > 2 * max(g("t90", c, e) for c in ci) for e in lo)
            and (pair is None or g("t90", "newreno", pair[1]) > g("t90", "newreno", pair[0])),
            "NewReno's time to 90 % of the link > 2 × Compound's and Illinois', and longer "
            "at the longer RTT (never = ∞)",
        ),
        Claim(
            "cal_bdp_newreno_follows_at_high_rate",
            "alone with the BDP buffer at the higher rate, NewReno follows Compound and "
            "Illinois in taking up the bandwidth (§7.1.1, Figs. 9-10)",
            "NewReno follows suit",
            _cal_show(d, "bdp", "t90", ("newreno",), hi, _t) + " (time to 90 %)"
            if hi
            else "one rate only",
            all(math.isfinite(g("t90", "newreno", e)) for e in hi) if hi else None,
            "NewReno reaches 90 % of the link within the run at the higher rate",
        ),
    ]
    return res


def calibration_stanford(ctx: Context) -> FigureResult:
    res, d = _cal_figure(ctx, "166pkt", "calibration-stanford")
    g = _cal_get(d, "166pkt")
    envs = _cal_envs(d)
    lo, hi = _by_rate(envs)
    pair = _rtt_pair(envs)
    ci = ("compound", "illinois")
    four = ("newreno", "compound", "fast", "illinois")
    res.claims += [
        Claim(
            "cal_stanford_compound_bursty",
            "alone with 166 packets at the lower rate, Compound displays a lot of "
            "burstiness (§7.1.2, Figs. 11-12)",
            "a lot of burstiness",
            _cal_show(d, "166pkt", "late_cov", four, lo) + " (1 s CoV, 2nd half)",
            all(
                g("late_cov", "compound", e)
                > max(g("late_cov", c, e) for c in four if c != "compound")
                for e in lo
            ),
            "Compound's 1 s CoV (2nd half) the highest of the four, every lower-rate environment",
        ),
        Claim(
            "cal_stanford_illinois_steady",
            "alone with 166 packets at the lower rate, Illinois increases its throughput "
            "with little variation (§7.1.2, Figs. 11-12)",
            "steadily increases, little variation",
            _cal_show(d, "166pkt", "late_cov", ("illinois",), lo) + " (1 s CoV, 2nd half)",
            all(g("late_cov", "illinois", e) < STEADY_COV for e in lo),
            f"Illinois' 1 s CoV (2nd half) < {STEADY_COV}, every lower-rate environment",
        ),
        Claim(
            "cal_stanford_newreno_slower",
            "alone with 166 packets at the lower rate, NewReno scales at a much slower "
            "pace, especially at the longer RTT (§7.1.2, Figs. 11-12)",
            "much slower, especially under longer RTTs",
            _cal_show(d, "166pkt", "t90", ("newreno", *ci), lo, _t) + " (time to 90 %)",
            all(g("t90", "newreno", e) > 2 * max(g("t90", c, e) for c in ci) for e in lo)
            and (pair is None or g("t90", "newreno", pair[1]) > g("t90", "newreno", pair[0])),
            "NewReno's time to 90 % > 2 × Compound's and Illinois', and longer at the longer RTT",
        ),
        Claim(
            "cal_stanford_fast_low",
            "alone with 166 packets at the lower rate, FAST's throughput stays low "
            "(§7.1.2, Figs. 11-12)",
            "low throughput",
            _cal_show(d, "166pkt", "share", ("fast", *ci), lo) + " (mean share)",
            all(g("share", "fast", e) < 0.5 * min(g("share", c, e) for c in ci) for e in lo),
            "FAST's mean share < 0.5 × min(Compound, Illinois), every lower-rate environment",
        ),
        Claim(
            "cal_stanford_fast_steady",
            "alone with 166 packets at the lower rate, FAST remains steady (§7.1.2, Figs. 11-12)",
            "remains steady",
            _cal_show(d, "166pkt", "late_cov", ("fast",), lo) + " (1 s CoV, 2nd half)",
            all(g("late_cov", "fast", e) < STEADY_COV for e in lo),
            f"FAST's 1 s CoV (2nd half) < {STEADY_COV}, every lower-rate environment",
        ),
        Claim(
            "cal_stanford_high_rate_quick_but_fast",
            "alone with 166 packets at the higher rate, NewReno, Compound and Illinois "
            "quickly take up the bandwidth available (§7.1.2, Figs. 13-14)",
            "quickly able to scale and take up as much of the bandwidth as is available",
            _cal_show(d, "166pkt", "t90", ("newreno", *ci), hi, _t) + " (time to 90 %)"
            if hi
            else "one rate only",
            all(g("t90", c, e) <= QUICKLY_S for c in ("newreno", *ci) for e in hi) if hi else None,
            f"90 % of the link within {QUICKLY_S:.0f} s, NewReno, Compound, Illinois, every "
            "higher-rate environment",
        ),
        Claim(
            "cal_stanford_fast_behind_high_rate",
            "alone with 166 packets at the higher rate, FAST does not take up the "
            'bandwidth as the others do (§7.1.2: "sans Fast", Figs. 13-14)',
            "sans Fast",
            _cal_show(d, "166pkt", "share", ("fast", *ci), hi) + " (mean share)"
            if hi
            else "one rate only",
            all(g("share", "fast", e) < 0.5 * min(g("share", c, e) for c in ci) for e in hi)
            if hi
            else None,
            "FAST's mean share < 0.5 × min(Compound, Illinois), every higher-rate environment",
        ),
    ]
    return res


def calibration_tiny(ctx: Context) -> FigureResult:
    res, d = _cal_figure(ctx, "20pkt", "calibration-tiny")
    g = _cal_get(d, "20pkt")
    bdp = _cal_get(d, "bdp")
    stan = _cal_get(d, "166pkt")
    envs = _cal_envs(d)
    lo, hi = _by_rate(envs)
    pair = _rtt_pair(envs)
    ci = ("compound", "illinois")
    e15 = lo[0]  # Fig. 15: the lower rate, short RTT
    e16 = lo[-1]  # Fig. 16: the lower rate, long RTT
    res.claims += [
        Claim(
            "cal_tiny_compound_suffers",
            "alone with 20 packets at the lower rate, Compound's throughput suffers "
            "severely (§7.1.3, Figs. 15-16)",
            "suffers severely; remains low",
            "; ".join(
                f"{e}: {fmt(bdp('share', 'compound', e))} → {fmt(g('share', 'compound', e))}"
                for e in lo
            )
            + " (mean share, BDP → 20 packets)",
            all(g("share", "compound", e) < 0.5 * bdp("share", "compound", e) for e in lo),
            "Compound's mean share at 20 packets < 0.5 × with the BDP buffer, every "
            "lower-rate environment",
        ),
        Claim(
            "cal_tiny_illinois_builds_up",
            "alone with 20 packets at the lower rate and shorter RTT, Illinois builds up "
            "its throughput, where Compound suffers and NewReno is slower (§7.1.3, Fig. 15)",
            "Illinois steadily builds up its throughput",
            _cal_show(d, "20pkt", "share", ("illinois", "compound", "newreno"), [e15])
            + " (mean share)",
            g("share", "illinois", e15)
            > max(g("share", "compound", e15), g("share", "newreno", e15)),
            "Illinois' mean share > Compound's and NewReno's",
        ),
        Claim(
            "cal_tiny_newreno_slower_than_illinois",
            "alone with 20 packets at the lower rate and shorter RTT, NewReno scales at a "
            "much slower pace than Illinois (§7.1.3, Fig. 15)",
            "much slower pace than Illinois",
            _cal_show(d, "20pkt", "t90", ("newreno", "illinois"), [e15], _t) + " (time to 90 %)",
            g("t90", "newreno", e15) > 2 * g("t90", "illinois", e15),
            "NewReno's time to 90 % > 2 × Illinois' (never = ∞)",
        ),
        Claim(
            "cal_tiny_long_rtt_dulls_growth",
            "alone with 20 packets at the lower rate, the longer RTT dulls the growth of "
            "Illinois and NewReno (§7.1.3, Figs. 15-16)",
            "slower response time dulls the growth rates",
            _cal_show(d, "20pkt", "share", ("illinois", "newreno"), list(pair)) + " (mean share)"
            if pair
            else "one RTT only",
            all(g("share", c, pair[1]) < g("share", c, pair[0]) for c in ("illinois", "newreno"))
            if pair
            else None,
            "mean share at the longer RTT < at the shorter, Illinois and NewReno",
        ),
        Claim(
            "cal_tiny_compound_burstiest_below_stanford",
            "alone with 20 packets at the lower rate and longer RTT, Compound is the "
            "burstiest of the three high-speed protocols, though less than with 166 "
            "packets (§7.1.3, Fig. 16)",
            "burstiness less than in Stanford, still the greatest of the three",
            _cal_show(d, "20pkt", "late_cov", HIGH_SPEED, [e16])
            + f"; Compound with 166 packets {fmt(stan('late_cov', 'compound', e16))} "
            "(1 s CoV, 2nd half)",
            g("late_cov", "compound", e16)
            > max(g("late_cov", "fast", e16), g("late_cov", "illinois", e16))
            and g("late_cov", "compound", e16) < stan("late_cov", "compound", e16),
            "Compound's 1 s CoV (2nd half) > FAST's and Illinois', and < its own with 166 packets",
        ),
        Claim(
            "cal_tiny_fast_little",
            "alone with 20 packets at the lower rate, FAST is unable to achieve much "
            "throughput (§7.1.3, Fig. 16)",
            "unable to achieve much throughput",
            _cal_show(d, "20pkt", "share", ("fast",), lo) + " (mean share)",
            all(g("share", "fast", e) < 0.1 for e in lo),
            "FAST's mean share < 0.1 of the link, every lower-rate environment",
        ),
        Claim(
            "cal_tiny_compound_illinois_quick_high_rate",
            "alone with 20 packets at the higher rate, Compound and Illinois quickly scale "
            "and utilize all of the link (§7.1.3, Figs. 17-18)",
            "quickly able to scale and utilize all of the link",
            _cal_show(d, "20pkt", "t90", ci, hi, _t)
            + " (time to 90 %); second half: "
            + _cal_show(d, "20pkt", "late_share", ci, hi)
            if hi
            else "one rate only",
            all(
                g("t90", c, e) <= QUICKLY_S and g("late_share", c, e) >= 0.9 for c in ci for e in hi
            )
            if hi
            else None,
            f"90 % of the link within {QUICKLY_S:.0f} s and ≥ 0.9 over the second half, "
            "Compound and Illinois, every higher-rate environment",
        ),
        Claim(
            "cal_tiny_fast_higher_but_not_scaling",
            "alone with 20 packets at the higher rate, FAST's throughput is marginally "
            "higher but it does not scale like Compound and Illinois (§7.1.3, Figs. 17-18)",
            "marginally higher, unable to scale effectively",
            "; ".join(
                f"{eh}: FAST {fmt(g('share', 'fast', eh))} (at {el}: "
                f"{fmt(g('share', 'fast', el))}), Compound {fmt(g('share', 'compound', eh))}, "
                f"Illinois {fmt(g('share', 'illinois', eh))}"
                for el, eh in zip(lo, hi, strict=False)
            )
            + " (mean share)"
            if hi
            else "one rate only",
            all(
                g("share", "fast", el) < g("share", "fast", eh)
                and g("share", "fast", eh) < 0.5 * min(g("share", c, eh) for c in ci)
                for el, eh in zip(lo, hi, strict=False)
            )
            if hi
            else None,
            "FAST's mean share higher than at the lower rate (same RTT) and < 0.5 × "
            "min(Compound, Illinois)",
        ),
    ]
    return res


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
    fast_tiny = _each(d, "20pkt", "test_share", ("fast",))
    rate_pairs = _pairs(_envs(d), "rate")
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
        Claim(
            "fast_surge_tiny_high_rate",
            "under the 20-packet buffer FAST surges in throughput at the higher rate, where "
            "it achieves little at the lower (§7.2.3, Figs. 29-30)",
            "a surprising surge in throughput under larger bandwidth delay environments",
            "; ".join(
                f"FAST {lo} {fmt(fast_tiny[lo]['fast'])} → {hi} {fmt(fast_tiny[hi]['fast'])}"
                for lo, hi in rate_pairs
            )
            or "one rate only",
            all(
                fast_tiny[hi]["fast"] > 0.5 and fast_tiny[lo]["fast"] < 0.1 for lo, hi in rate_pairs
            )
            if rate_pairs
            else None,
            "FAST's goodput with 20 packets > 0.5 × link rate at the higher rate and < 0.1 × "
            "at the lower, same RTT",
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
    rtt_pairs = _pairs(envs, "rtt")
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
            all(max(x["compound"], x["illinois"]) < 0.5 * x["newreno"] for x in t.values()),
            "convergence time of Compound and Illinois < 0.5 × a NewReno test flow's, BDP "
            "buffer, every environment (never = +inf)",
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


FIGURES = {
    "calibration-bdp": calibration_bdp,
    "calibration-stanford": calibration_stanford,
    "calibration-tiny": calibration_tiny,
    "throughput": throughput,
    "cov": cov,
    "convergence": convergence,
}
