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

Two readings of the staged set-up. ``throughput.toml`` runs every flow from the ns-2
profile's initial ssthresh of 64 packets (one seed, every buffer): the pre flow is then
still far from the link's rate when the test flow starts, against the study's "each
flow allowed to stabilize". ``stabilized.toml`` reads it that way (the NewReno pre and
post flows slow-start to their first loss; ns-2's 50-packet access queues) with the BDP
buffer, at 500/100, and three seeds. Each large-buffer claim (§7.2.1, §7.3.1, §7.4,
§7.5) is checked under both (:func:`bdp_claims`; keys ending ``_stab`` for the second,
with 95 % intervals); the small-buffer claims on ``throughput.toml`` only.

Quick mode keeps the two 100 ms environments (500 and 1000 Mb/s) and the study's four
test flows (no Vegas): 24 of the 60 runs, at the study's scale otherwise; the stabilized
runs are full mode only. Shorter runs lose the main finding: FAST falls
below Compound and Illinois only as the NewReno flows fill the 8333-packet buffer, which
at 100 ms takes most of the 700 s (over [50 s, 300 s] FAST is still ahead); scaling the
rate down instead shrinks the buffer next to FAST's α = 200 packets, and FAST keeps a
quarter of a 100 Mb/s link (α over an 833-packet queue). At 50 ms one environment is
the lock-out cell (docs/reproductions/002.md) and the other never converges, so the
100 ms pair is the one where every reproduced finding can hold.

The calibration (§7.1, Figures 7-18): each protocol alone on the same network, 600 s
from 0 s (``calibration.toml``), drawn as the study's throughput-against-time plots, one
figure per buffer (``calibration-bdp``: Figures 7-10, ``calibration-stanford``: 11-14,
``calibration-tiny``: 15-18), the three from one sweep. Quick mode keeps the two
500 Mb/s environments (at 1000 Mb/s the access link paces a lone flow to the bottleneck
rate, so the buffer never fills and the three buffers give the same runs) and 150 s
runs. Both modes run three seeds (the access delays, hence the RTT, drawn anew), and
the claims that compare protocols pair them by seed (``Cal.rel``: one seed's
protocols share its network). Two sweeps vary what the study leaves out, for conditional verdicts:
Compound's γ with 166 packets (``gamma.toml``, Figs. 11-12) and FAST's α and a window
cap with the BDP buffer (``window.toml``, Figs. 7-10).

Per figure: a data function that returns a tidy frame (one row per run) from the core's
own metrics (the groups table, ``flows.parquet``, the catalogue, the series), one
plotting helper, and the claims built with the named predicates of
:mod:`ccsim.reproduce.claims` on :class:`~ccsim.reproduce.claims.Estimate` values (a
mean over seeds and its 95 % interval; one seed gives the plain value).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from ccsim import _core, plots
from ccsim.reproduce import Claim, Context, FigureResult, markdown_table
from ccsim.reproduce.claims import (
    Estimate,
    Predicate,
    Value,
    above,
    below,
    claim,
    claim_each,
    exceeds,
    falls_short_of,
    within,
)

NAMES = {
    "newreno": "NewReno",
    "compound": "Compound",
    "fast": "FAST",
    "illinois": "Illinois",
    "vegas": "Vegas",
}
BUFS = {
    "bdp": "BDP",
    "166pkt": "Stanford (166)",
    "20pkt": "tiny (20)",
    "bdp-stab": "BDP, stabilized (3 seeds)",
}
HIGH_SPEED = ("compound", "fast", "illinois")
FOUR = ("newreno", *HIGH_SPEED)

# The study's RTT of each environment, by the bottleneck delay that the scenario files
# set for it: 2 x (bottleneck + 2 x 7 ms, the mean of the access delays drawn in
# [3, 11] ms), their comment blocks. Each run's measured propagation RTTs are in
# flows.parquet (`rtt_prop_s`).
STUDY_RTT_MS = {11: 50, 36: 100}  # bottleneck delay (ms, the core's `delay_s`) -> RTT
FAIR = 1 / 3  # a third of the link: the fair share of three flows


def _plt():
    import matplotlib.pyplot as plt

    return plt


# Quick mode of the staged runs: the two 100 ms environments, the study's four test
# flows, seed 1 (the full mode runs throughput.toml's three seeds).
QUICK = {
    "grid": {
        "flows[1].cc": ["newreno", "compound", "fast", "illinois"],
        "topology.bottleneck_rate": ["500Mbps", "1000Mbps"],
        "topology.bottleneck_delay": ["36ms"],
    },
    "seeds": 1,
}


# ------------------------------------------------------------------ data


def _buffer(v: str) -> str:
    # The BDP buffer: 8333 packets, the BDP of 1 Gb/s x 100 ms, in every environment, as
    # in the study.
    s = str(v)
    return "bdp" if s == "8333pkt" else s


def _env_frame(runs: pd.DataFrame, cc_param: str) -> pd.DataFrame:
    """The runs' identifying columns: environment (rate Mb/s / study RTT ms), the swept
    algorithm (as the param's value), buffer, seed."""
    rate = (runs["links.bottleneck.rate_bps"].astype(float) / 1e6).round().astype(int)
    rtt = (runs["links.bottleneck.delay_s"].astype(float) * 1e3).round().astype(int)
    rtt = rtt.map(STUDY_RTT_MS)
    if rtt.isna().any():
        raise ValueError("study 002: a bottleneck delay with no study RTT (STUDY_RTT_MS)")
    return pd.DataFrame(
        {
            "run_id": runs["run_id"],
            "env": rate.astype(str) + "/" + rtt.astype(int).astype(str),
            "rate_mbps": rate,
            "rtt_ms": rtt.astype(int),
            "param": runs[cc_param].astype(str),
            "buffer": runs["links.bottleneck.buffer"].map(_buffer),
            "seed": runs["seed"].astype(int),
            "utilization": runs["links.bottleneck.utilization"].astype(float),
        }
    )


def _per_group(sw) -> pd.DataFrame:
    """One row per run with ``<group>_<metric>`` columns: the groups table's
    ``capacity_share`` (goodput / bottleneck rate), ``losses``, ``timeouts`` and the
    flows table's ``cov_mean`` and ``convergence_s`` (each group is one flow here)."""
    grp = sw.query("SELECT run_id, name, cc, capacity_share, losses, timeouts FROM groups")
    fl = sw.query('SELECT run_id, "group" AS name, cov_mean, convergence_s, rtt_prop_s FROM flows')
    both = grp.merge(fl, on=["run_id", "name"], how="left")
    wide = both.pivot(index="run_id", columns="name")
    wide.columns = [f"{name}_{metric}" for metric, name in wide.columns]
    return wide.reset_index()


def staged_frame(sw, runs: pd.DataFrame, *, buffer_label: str | None = None) -> pd.DataFrame:
    """Tidy frame of the staged experiment (pre, test, post): one row per run with the
    environment, test algorithm, buffer, seed, the three flows' share of the link, the
    link's utilization, the test flow's CoV (5 s windows, docs/metrics.md) and
    convergence time (+inf where it never happened), and the NewReno flows'
    friendliness (below). *buffer_label* renames the buffer (the stabilized runs)."""
    d = _env_frame(runs, "flows[1].cc").merge(_per_group(sw), on="run_id")
    d = d.rename(columns={"param": "cc"})
    d["cc"] = d["test_cc"]
    d = d.rename(
        columns={
            "test_capacity_share": "test_share",
            "pre_capacity_share": "pre_share",
            "post_capacity_share": "post_share",
            "test_cov_mean": "test_cov",
        }
    )
    for g in ("test", "post"):
        d[f"{g}_convergence_s"] = d[f"{g}_convergence_s"].astype(float).fillna(math.inf)
    if buffer_label is not None:
        d["buffer"] = buffer_label
    # §7.4 friendliness, "comparing the throughputs ... of the pre and post TCP flows with
    # and without a high-speed flow": their share with this test flow over their share
    # with a NewReno test flow, same environment, buffer and seed (the same access
    # delays). 1: the test flow leaves them what a NewReno flow would ("shares like
    # NewReno"); below 1 it takes from them, above 1 it takes less than NewReno would.
    # The friendliest flow is the one closest to 1 (`friendliness_gap` = |ratio − 1|): a
    # flow that under-uses the link is not friendlier for it.
    legacy = d["pre_share"] + d["post_share"]
    ref = d[d["cc"] == "newreno"].assign(ref=legacy).set_index(["env", "buffer", "seed"])["ref"]
    keys = pd.MultiIndex.from_frame(d[["env", "buffer", "seed"]])
    d["friendliness"] = legacy.to_numpy() / ref.reindex(keys).to_numpy()
    d["friendliness_gap"] = (d["friendliness"] - 1).abs()
    # Paired differences within one run (the same seed's access delays).
    d["pre_minus_test"] = d["pre_share"] - d["test_share"]
    return d


def _envs(d: pd.DataFrame) -> list[str]:
    # Study order: 500/50, 500/100, 1000/50, 1000/100.
    return sorted(set(d["env"]), key=lambda e: tuple(int(x) for x in e.split("/")))


def _est(values) -> Estimate:
    """Mean and 95 % interval (the core's) of one cell's seeds; +inf (never) anywhere
    makes the mean +inf, no interval."""
    vals = [float(v) for v in values if not math.isnan(float(v))]
    if not vals:
        return Estimate(math.nan, math.nan, 0)
    if any(math.isinf(v) for v in vals):
        return Estimate(math.inf, math.nan, len(vals))
    mean, hw, n = _core.confidence_interval(vals)
    return Estimate(float(mean), float(hw), int(n))


def cells(d: pd.DataFrame, metric: str) -> dict[tuple[str, str, str], Estimate]:
    """{(env, cc, buffer): Estimate of *metric* over the seeds}."""
    return {
        (e, c, b): _est(g[metric])
        for (e, c, b), g in d.groupby(["env", "cc", "buffer"], sort=False)
    }


def paired(d: pd.DataFrame, metric: str, cc: str, ref: str, buffer: str, env: str) -> Estimate:
    """Estimate of *metric* of *cc* minus that of *ref*, paired by seed (the runs with the
    same access delays), in one environment and buffer."""
    a = d[(d["cc"] == cc) & (d["buffer"] == buffer) & (d["env"] == env)].set_index("seed")
    b = d[(d["cc"] == ref) & (d["buffer"] == buffer) & (d["env"] == env)].set_index("seed")
    return _est((a[metric] - b[metric]).dropna())


def cell_table(d: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    """Per (env, cc, buffer): each column's mean over the seeds and its 95 % half-width
    (``<col>_ci95``, NaN with one seed), and ``seeds``."""
    rows = []
    for (e, c, b), g in d.groupby(["env", "cc", "buffer"], sort=False):
        row = {"env": e, "cc": c, "buffer": b, "seeds": len(g)}
        for k in cols:
            x = _est(g[k])
            row[k], row[f"{k}_ci95"] = x.mean, x.half_width
        rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ claims


def _show(v: Value, digits: int = 3) -> str:
    if isinstance(v, Estimate):
        if math.isinf(v.mean):
            return "never"
        return v.text(digits)
    return "never" if math.isinf(float(v)) else f"{float(v):.{digits}f}"


def _scaled(v: Estimate, k: float) -> Estimate:
    return Estimate(v.mean * k, v.half_width * k, v.n)


def _max(vs: list[Estimate]) -> Estimate:
    """The estimate with the highest upper end (for "above all of them")."""
    return max(vs, key=lambda v: v.high)


def _min(vs: list[Estimate]) -> Estimate:
    """The estimate with the lowest lower end (for "below all of them")."""
    return min(vs, key=lambda v: v.low)


# ------------------------------------------------------------------ plotting


def _bars(
    ctx: Context,
    tab: pd.DataFrame,
    keys: list[tuple],
    name: str,
    title: str,
    ylim: tuple[float, float] | None = None,
    clip: float | None = None,
    logy: bool = False,
) -> str:
    """One row of panels per metric, one panel per buffer; x: environment (rate Mb/s /
    RTT ms), one bar per test protocol, with its 95 % interval where there are seeds
    (*tab*: :func:`cell_table`). *keys*: ``(column, y label[, y top])``; a bar above its
    row's top (or *clip*) is drawn at it."""
    ccs = [c for c in NAMES if c in set(tab["cc"])]
    bufs = [b for b in BUFS if b in set(tab["buffer"])]
    envs = _envs(tab)
    v = tab.set_index(["env", "cc", "buffer"])
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
            cap = top[0] if top else clip
            for j, b in enumerate(bufs):
                ax = axes[r][j]
                for i, c in enumerate(ccs):
                    xs, ys, es = [], [], []
                    for k, e in enumerate(envs):
                        if (e, c, b) not in v.index:
                            continue
                        y = float(v.loc[(e, c, b), key])
                        err = float(v.loc[(e, c, b), f"{key}_ci95"])
                        xs.append(k + (i - (len(ccs) - 1) / 2) * width)
                        ys.append(min(y, cap) if cap is not None else y)
                        es.append(0.0 if math.isnan(err) or math.isinf(y) else err)
                    ax.bar(xs, ys, width, label=NAMES[c], color=f"C{i}")
                    if any(es):
                        ax.errorbar(xs, ys, yerr=es, fmt="none", ecolor="k", lw=0.6, capsize=1.5)
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


def _table(tab: pd.DataFrame, cols: list[str]) -> str:
    keep = ["env", "cc", "buffer", "seeds"]
    for k in cols:
        keep.append(k)
        if tab[f"{k}_ci95"].notna().any():
            keep.append(f"{k}_ci95")
    out = tab[keep].assign(cc=tab["cc"].map(NAMES), buffer=tab["buffer"].map(BUFS))
    return markdown_table(out)


# ------------------------------------------------------------------ Figures 7-18

# Quick mode of the calibration (module docstring): the two 500 Mb/s environments, where
# the buffers matter (at 1000 Mb/s a lone flow never queues at the bottleneck), 150 s
# (the CoV window: the second half, as in the scenario), the scenario's 3 seeds.
QUICK_CAL = {
    "grid": {"topology.bottleneck_rate": ["500Mbps"]},
    "set": {"duration": "150s", "metrics.cov_window": "75s"},
}
# The γ and window sweeps in quick mode: 500/100, the two ends of each sweep, 150 s.
QUICK_GAMMA = {
    "grid": {
        "flows[0].cc": [{"name": "compound", "gamma": 30}, {"name": "compound", "gamma": 200}],
        "topology.bottleneck_delay": ["36ms"],
    },
    "set": {"duration": "150s", "metrics.cov_window": "75s"},
}
QUICK_WINDOW = {
    "grid": {"flows[0].cc": [{"name": "fast", "alpha": 200}, "compound"]},
    "set": {"duration": "150s", "metrics.cov_window": "75s"},
}

PAYLOAD = (
    1460 / 1500
)  # goodput of a saturated link / its rate (ns-2 profile: MSS 1460 B, 1500 B packets)
QUICKLY_S = 60.0  # "quickly able to scale": 90 % of the link within a tenth of the 600 s run
CAL_FIG = {"bdp": 7, "166pkt": 11, "20pkt": 15}  # the study's first figure of each buffer
# "steady", "stable", "little variation": the CoV of the 1 s goodput over the second half
# of the run (the core's CoV, the scenario's [metrics]) below this.
STEADY_COV = 0.1


def _first_at(t, y, level: float) -> float:
    """First sample time at which *y* reaches *level*; inf if never (within the run)."""
    i = np.flatnonzero(y >= level)
    return float(t[i[0]]) if len(i) else math.inf


def _key(setting: str) -> str:
    """ASCII claim-key part of a setting label (``compound γ=200`` -> ``gamma200``)."""
    last = setting.split()[-1]
    return last.replace("γ", "gamma").replace("α", "alpha").replace("=", "")


def _param_name(v: str) -> str:
    """A swept ``cc``'s label: the name, with its parameters (``compound γ=200``)."""
    try:
        p = json.loads(v)
    except (TypeError, ValueError):
        return str(v)
    if not isinstance(p, dict):
        return str(p)
    greek = {"gamma": "γ", "alpha": "α"}
    rest = ", ".join(f"{greek.get(k, k)}={x:g}" for k, x in sorted(p.items()) if k != "name")
    return f"{p['name']} {rest}".strip()


def alone_frame(sw, runs: pd.DataFrame, *, extra: tuple[str, ...] = ()) -> pd.DataFrame:
    """Tidy frame of the runs of one flow alone: one row per run with the environment,
    algorithm (``cc``; ``setting``: its swept parameters and any *extra* swept paths),
    buffer, seed, and from the core: ``share`` (goodput over the run / the link's
    payload rate), ``losses``, ``timeouts``, ``late_cov`` (the CoV of the 1 s goodput
    over the run's second half: the scenario's last CoV window), and from the 1 s
    goodput series ``late_share`` (its mean over the second half / the payload rate),
    ``t80``/``t90`` (first second at 80/90 % of it; inf: never) and the series itself
    (``t``, ``mbps``) for the time plots."""
    d = _env_frame(runs, "flows[0].cc").merge(_per_group(sw), on="run_id")
    d["cc"] = d["alone_cc"]
    d["setting"] = d["param"].map(_param_name)
    for path in extra:
        d["setting"] = d["setting"] + f", {path.split('.')[-1]}=" + runs[path].astype(str).values
    d["share"] = d["alone_capacity_share"].astype(float) / PAYLOAD
    d["losses"] = d["alone_losses"].astype(int)
    d["timeouts"] = d["alone_timeouts"].astype(int)
    end = runs.set_index("run_id")["duration_s"].astype(float)
    th = sw.query(
        "SELECT run_id, time, value FROM series WHERE entity = 'flow' "
        "AND metric = 'throughput_bps' ORDER BY run_id, time"
    )
    cov = sw.query(
        "SELECT run_id, time, value FROM series WHERE entity = 'flow' "
        "AND metric = 'cov' ORDER BY run_id, time"
    )
    late_cov = cov.groupby("run_id")["value"].last()
    last_end = cov.groupby("run_id")["time"].last()
    series = {k: g for k, g in th.groupby("run_id")}
    rows = []
    for rid, rate in zip(d["run_id"], d["rate_mbps"], strict=True):
        g = series[rid]
        t = g["time"].to_numpy(dtype=float)
        y = g["value"].to_numpy(dtype=float) / (rate * 1e6 * PAYLOAD)
        half = float(end[rid]) / 2
        if abs(float(last_end[rid]) - float(end[rid])) > 1e-6:
            raise ValueError(f"study 002: run {rid}'s last CoV window does not end the run")
        rows.append(
            {
                "run_id": rid,
                "late_share": float(y[t > half].mean()),
                "late_cov": float(late_cov[rid]),
                "t80": _first_at(t, y, 0.8),
                "t90": _first_at(t, y, 0.9),
                "t": t,
                "mbps": y * rate * PAYLOAD,
            }
        )
    return d.merge(pd.DataFrame(rows), on="run_id")


class Cal:
    """The calibration runs, indexed: ``g(metric, cc, env, buffer)`` is the seeds'
    Estimate (one seed: the plain value as an Estimate of n = 1)."""

    def __init__(self, d: pd.DataFrame):
        self.d = d
        self.envs = sorted(set(d["env"]), key=lambda e: tuple(int(x) for x in e.split("/")))
        self._g = {k: g for k, g in d.groupby(["env", "cc", "buffer"], sort=False)}

    def __call__(self, metric: str, cc: str, env: str, buffer: str) -> Estimate:
        return _est(self._g[(env, cc, buffer)][metric])

    def rel(
        self,
        metric: str,
        cc: str,
        env: str,
        buffer: str,
        refs: tuple[str, ...],
        *,
        how: str = "max",
        ref_env: str | None = None,
        ref_buffer: str | None = None,
    ) -> Estimate:
        """Estimate over the seeds of *cc*'s *metric* divided by the highest (*how*
        "max") or lowest ("min") of *refs*' in the same seed (by default the same
        environment and buffer): the protocols of one seed share its drawn access
        delays, so the comparison is paired (∞ / finite is ∞: never)."""
        a = self._g[(env, cc, buffer)].set_index("seed")[metric].astype(float)
        others = pd.concat(
            [
                self._g[(ref_env or env, r, ref_buffer or buffer)]
                .set_index("seed")[metric]
                .astype(float)
                for r in refs
            ],
            axis=1,
        )
        ref = others.max(axis=1) if how == "max" else others.min(axis=1)
        return _est((a / ref).dropna())

    def series(self, env: str, cc: str, buffer: str):
        g = self._g.get((env, cc, buffer))
        if g is None:
            return None
        first = g.sort_values("seed").iloc[0]
        return first["t"], first["mbps"]

    def by_rate(self) -> tuple[list[str], list[str]]:
        """(the lower rate's environments, the higher rate's)."""
        rates = sorted({int(e.split("/")[0]) for e in self.envs})
        lo = [e for e in self.envs if int(e.split("/")[0]) == rates[0]]
        hi = [e for e in self.envs if int(e.split("/")[0]) == rates[-1]] if len(rates) > 1 else []
        return lo, hi

    def rtt_pair(self) -> tuple[str, str] | None:
        lo, _ = self.by_rate()
        return (lo[0], lo[-1]) if len(lo) > 1 else None


def _cal_plot(ctx: Context, cal: Cal, buffer: str, name: str) -> str:
    """2 x 2 panels (one per environment, the study's four figures): each protocol's 1 s
    goodput against time, running alone (the first seed)."""
    envs = cal.envs
    ccs = [c for c in NAMES if c in set(cal.d["cc"])]
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
                s = cal.series(e, c, buffer)
                if s is not None:
                    ax.plot(s[0], s[1] / 1e6, lw=0.8, color=f"C{i}", label=NAMES[c])
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


ALONE_COLS = ["share", "late_share", "t90", "late_cov", "losses", "timeouts"]


def _alone_table(d: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per *by*: the seeds' mean of each of ALONE_COLS (``seeds``: how many)."""
    rows = []
    for key, g in d.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key, strict=True)) | {"seeds": len(g)}
        for k in ALONE_COLS:
            x = _est(g[k])
            row[k] = x.mean
            if x.n > 1 and not math.isnan(x.half_width):
                row[f"{k}_ci95"] = x.half_width
        rows.append(row)
    return pd.DataFrame(rows)


def _cal_figure(ctx: Context, buffer: str, name: str) -> tuple[FigureResult, Cal]:
    sw, runs = ctx.sweep("calibration", quick=QUICK_CAL)
    cal = Cal(alone_frame(sw, runs))
    first = CAL_FIG[buffer]
    res = FigureResult(
        name,
        f"Figs. {first}-{first + 3}: calibration, each protocol alone, {BUFS[buffer]} buffer",
        [_cal_plot(ctx, cal, buffer, name)],
    )
    tab = _alone_table(cal.d[cal.d["buffer"] == buffer], ["env", "cc", "buffer"])
    res.table = markdown_table(tab.assign(cc=tab["cc"].map(NAMES), buffer=tab["buffer"].map(BUFS)))
    res.values = {"table": tab.to_dict("records")}
    return res, cal


def _pts(cal: Cal, metric: str, ccs, envs, buffer: str, test: Callable[[str, str], Predicate]):
    """Points for :func:`every`: ``"<env> <cc>"`` -> (Estimate, test(cc, env))."""
    return {f"{e} {NAMES[c]}": (cal(metric, c, e, buffer), test(c, e)) for e in envs for c in ccs}


CI = ("compound", "illinois")


def _rel_pts(
    g: Cal,
    metric: str,
    ccs,
    envs,
    buffer: str,
    refs: tuple[str, ...],
    test: Predicate,
    *,
    how: str = "max",
    ref_buffer: str | None = None,
) -> dict:
    """Points for :func:`every`, each paired by seed: ``"<env> <cc> / <how>(refs)"`` ->
    (Estimate of the per-seed ratio, *test*)."""
    names = ", ".join(NAMES[r] for r in refs)
    ref = names if len(refs) == 1 else f"{how}({names})"
    tail = "" if ref_buffer is None else f" with {BUFS[ref_buffer]}"
    return {
        f"{e} {NAMES[c]} / {ref}{tail}": (
            g.rel(metric, c, e, buffer, refs, how=how, ref_buffer=ref_buffer),
            test,
        )
        for e in envs
        for c in ccs
    }


def _half_of_ci_min(g: Cal, envs, b: str) -> dict:
    """FAST's share over the lower of Compound's and Illinois' in the same seed, below
    one half."""
    return _rel_pts(g, "share", ("fast",), envs, b, CI, below(0.5), how="min")


def _newreno_slower_points(g: Cal, envs, b: str) -> dict:
    """NewReno's time to 90 % against twice Compound's and Illinois' in each of *envs*,
    and, where the calibration has two RTTs at one rate, longer at the longer RTT."""
    pts = _rel_pts(g, "t90", ("newreno",), envs, b, CI, above(2.0))
    pair = g.rtt_pair()
    if pair:
        ratio = g.rel("t90", "newreno", pair[1], b, ("newreno",), ref_env=pair[0])
        pts[f"NewReno {pair[1]} / {pair[0]}"] = (ratio, above(1.0))
    return pts


def _window_claims(ctx: Context) -> tuple[list[Claim], pd.DataFrame]:
    """FAST alone with the BDP buffer under each α and window cap of ``window.toml``.
    Uncapped, is it "held back" (mean share < 0.5 × an uncapped Compound's) at any α?
    Capped (ns-2's window_, a property of every agent), does the cap hold FAST back
    more than Compound (their shares paired by seed)?"""
    sw, runs = ctx.sweep("window", quick=QUICK_WINDOW)
    d = alone_frame(sw, runs)
    d["cap"] = d["run_id"].map(runs.set_index("run_id")["flows[0].tcp.rwnd"].astype(str))
    env = _envs(d)[0]
    comp = d[d["cc"] == "compound"]
    free = _est(comp[comp["cap"] == "unlimited"]["share"])
    claims = []
    for (setting, cap), g in d[d["cc"] == "fast"].groupby(["setting", "cap"], sort=False):
        if cap == "unlimited":
            claims.append(
                claim(
                    f"cal_bdp_fast_far_lower_{_key(setting)}_unlimited",
                    f"alone with the BDP buffer at {env}, FAST ({setting}, no window cap) is "
                    "held back by α and attains far lower throughput than Compound "
                    "(§7.1.1; window.toml)",
                    study="far lower throughput; held back severely",
                    value=_est(g["share"]),
                    test=falls_short_of(_scaled(free, 0.5), label=f"0.5 × Compound {free:.3f}"),
                    note=f"losses {g['losses'].mean():.0f}, timeouts {g['timeouts'].mean():.0f}",
                )
            )
        elif setting == "fast α=200":
            c = comp[comp["cap"] == cap].set_index("seed")["share"]
            diff = _est(g.set_index("seed")["share"] - c)
            claims.append(
                claim(
                    f"cal_bdp_window_cap_holds_back_fast_and_compound_alike_{cap}",
                    f"alone with the BDP buffer at {env}, a window cap of {cap} (below the "
                    f"BDP) holds FAST ({_show(_est(g['share']))}) back as much as Compound "
                    f"({_show(_est(c))}): a cap on every agent does not make FAST far lower "
                    "(window.toml)",
                    study="(ccsim's test of a reading: the study gives no window cap)",
                    value=diff,
                    test=within(0.0, tol=0.05),
                    note="FAST's share minus Compound's under the same cap, paired by seed",
                )
            )
    tab = _alone_table(d, ["env", "setting", "cap"])
    return claims, tab


def calibration_bdp(ctx: Context) -> FigureResult:
    res, g = _cal_figure(ctx, "bdp", "calibration-bdp")
    b = "bdp"
    envs = g.envs
    lo, hi = g.by_rate()

    res.claims += [
        claim_each(
            "cal_bdp_compound_illinois_scale_quickly",
            "alone with the BDP buffer, Compound and Illinois quickly scale and thoroughly "
            "utilize the link (§7.1.1, Figs. 7-10; every environment)",
            study="quickly able to scale and thoroughly utilize the link",
            points=_pts(g, "t90", CI, envs, b, lambda c, e: below(QUICKLY_S + 1e-9))
            | {
                f"{k} (2nd half)": v
                for k, v in _pts(g, "late_share", CI, envs, b, lambda c, e: above(0.9)).items()
            },
            check=f"time to 90 % of the link ≤ {QUICKLY_S:.0f} s and ≥ 0.9 of it over the "
            "second half of the run, Compound and Illinois, every environment",
        ),
        claim_each(
            "cal_bdp_fast_far_lower",
            "alone with the BDP buffer, FAST is held back by α and attains far lower "
            "throughput than Compound and Illinois (§7.1.1, Figs. 7-10; every environment; "
            "ccsim's FAST α = 200, no window cap)",
            study="far lower throughput; held back severely",
            points=_half_of_ci_min(g, envs, b),
            check="FAST's share < 0.5 × min(Compound, Illinois), per seed, every environment",
        ),
        claim_each(
            "cal_bdp_fast_stable",
            "alone with the BDP buffer, FAST is exceedingly stable (§7.1.1; every environment)",
            study="exceedingly stable",
            points=_pts(g, "late_cov", ("fast",), envs, b, lambda c, e: below(STEADY_COV)),
            check=f"FAST's CoV of the 1 s goodput over the second half < {STEADY_COV}, "
            "every environment",
        ),
        claim_each(
            "cal_bdp_newreno_slower_long_rtt",
            "alone with the BDP buffer, as the RTT grows at the lower rate NewReno scales "
            "much slower than Compound and Illinois (§7.1.1, Figs. 7-8)",
            study="much slower as the RTT increases",
            points=_newreno_slower_points(g, lo, b),
            check="NewReno's time to 90 % of the link > 2 × Compound's and Illinois', and "
            "longer at the longer RTT (per seed; never = ∞)",
        ),
        claim_each(
            "cal_bdp_newreno_follows_at_high_rate",
            "alone with the BDP buffer at the higher rate, NewReno follows Compound and "
            "Illinois in taking up the bandwidth (§7.1.1, Figs. 9-10)",
            study="NewReno follows suit",
            points=_pts(g, "t90", ("newreno",), hi, b, lambda c, e: below(math.inf)),
            check="NewReno reaches 90 % of the link within the run at the higher rate",
        ),
    ]
    window, tab = _window_claims(ctx)
    res.claims += window
    res.table += "\n\nFAST alone under other α and a window cap (window.toml):\n\n" + (
        markdown_table(tab)
    )
    res.values["window"] = tab.to_dict("records")
    return res


def _gamma_claims(ctx: Context, g: Cal) -> tuple[list[Claim], pd.DataFrame]:
    """Compound alone with 166 packets under each γ of ``gamma.toml``: is it bursty
    (CoV of the 1 s goodput over the second half above NewReno's and Illinois' in the
    calibration runs, and intervals apart from the paper's γ = 30)?"""
    sw, runs = ctx.sweep("gamma", quick=QUICK_GAMMA)
    d = alone_frame(sw, runs)
    claims = []
    for env, ge in d.groupby("env", sort=False):
        per = {s: _est(x["late_cov"]) for s, x in ge.groupby("setting", sort=False)}
        base = per.get("compound γ=30")
        for setting, cov in per.items():
            if setting == "compound γ=30" or base is None:
                continue
            others = [g("late_cov", c, env, "166pkt") for c in ("newreno", "illinois")]
            timeouts = ge[ge["setting"] == setting]["timeouts"].mean()
            claims.append(
                claim_each(
                    f"cal_stanford_compound_bursty_{_key(setting)}_{env.replace('/', '_')}",
                    f"alone with 166 packets at {env}, Compound with {setting.split()[-1]} "
                    "(at or above the buffer, the study's explanation) displays a lot of "
                    "burstiness (§7.1.2, Figs. 11-12; gamma.toml)",
                    study="a lot of burstiness",
                    points={
                        f"vs γ=30 {_show(base)}": (cov, exceeds(base, label="γ = 30")),
                        "vs NewReno, Illinois alone": (cov, above(_max(others).high)),
                    },
                    check="the CoV of the 1 s goodput over the second half: intervals apart "
                    "above Compound's with γ = 30, and above NewReno's and Illinois' alone",
                    note=f"{timeouts:.0f} timeouts per run",
                )
            )
    return claims, _alone_table(d, ["env", "setting"])


def calibration_stanford(ctx: Context) -> FigureResult:
    res, g = _cal_figure(ctx, "166pkt", "calibration-stanford")
    b = "166pkt"
    lo, hi = g.by_rate()
    rest = tuple(c for c in FOUR if c != "compound")

    res.claims += [
        claim_each(
            "cal_stanford_compound_bursty",
            "alone with 166 packets at the lower rate, Compound (γ = 30, the paper's) "
            "displays a lot of burstiness (§7.1.2, Figs. 11-12)",
            study="a lot of burstiness",
            points=_rel_pts(g, "late_cov", ("compound",), lo, b, rest, above(1.0)),
            check="Compound's CoV of the 1 s goodput (2nd half) the highest of the four "
            "(over the others' highest, per seed), every lower-rate environment",
        ),
        claim_each(
            "cal_stanford_illinois_steady",
            "alone with 166 packets at the lower rate, Illinois increases its throughput "
            "with little variation (§7.1.2, Figs. 11-12)",
            study="steadily increases, little variation",
            points=_pts(g, "late_cov", ("illinois",), lo, b, lambda c, e: below(STEADY_COV)),
            check=f"Illinois' CoV of the 1 s goodput (2nd half) < {STEADY_COV}, every "
            "lower-rate environment",
        ),
        claim_each(
            "cal_stanford_newreno_slower",
            "alone with 166 packets at the lower rate, NewReno scales at a much slower "
            "pace, especially at the longer RTT (§7.1.2, Figs. 11-12)",
            study="much slower, especially under longer RTTs",
            points=_newreno_slower_points(g, lo, b),
            check="NewReno's time to 90 % > 2 × Compound's and Illinois', and longer at the "
            "longer RTT (per seed)",
        ),
        claim_each(
            "cal_stanford_fast_low",
            "alone with 166 packets at the lower rate, FAST's throughput stays low "
            "(§7.1.2, Figs. 11-12)",
            study="low throughput",
            points=_half_of_ci_min(g, lo, b),
            check="FAST's share < 0.5 × min(Compound, Illinois), per seed, every lower-rate "
            "environment",
        ),
        *(
            claim_each(
                f"cal_stanford_fast_low_{e.replace('/', '_')}",
                f"alone with 166 packets at {e}, FAST's throughput stays low (§7.1.2)",
                study="low throughput",
                points=_half_of_ci_min(g, [e], b),
                check="FAST's share < 0.5 × min(Compound, Illinois), per seed",
            )
            for e in lo
        ),
        claim_each(
            "cal_stanford_fast_steady",
            "alone with 166 packets at the lower rate, FAST remains steady (§7.1.2, Figs. 11-12)",
            study="remains steady",
            points=_pts(g, "late_cov", ("fast",), lo, b, lambda c, e: below(STEADY_COV)),
            check=f"FAST's CoV of the 1 s goodput (2nd half) < {STEADY_COV}, every "
            "lower-rate environment",
        ),
        claim_each(
            "cal_stanford_high_rate_quick_but_fast",
            "alone with 166 packets at the higher rate, NewReno, Compound and Illinois "
            "quickly take up the bandwidth available (§7.1.2, Figs. 13-14)",
            study="quickly able to scale and take up as much of the bandwidth as is available",
            points=_pts(g, "t90", ("newreno", *CI), hi, b, lambda c, e: below(QUICKLY_S + 1e-9)),
            check=f"90 % of the link within {QUICKLY_S:.0f} s, NewReno, Compound, Illinois, "
            "every higher-rate environment",
        ),
        claim_each(
            "cal_stanford_fast_behind_high_rate",
            "alone with 166 packets at the higher rate, FAST does not take up the "
            'bandwidth as the others do (§7.1.2: "sans Fast", Figs. 13-14)',
            study="sans Fast",
            points=_half_of_ci_min(g, hi, b),
            check="FAST's share < 0.5 × min(Compound, Illinois), per seed, every higher-rate "
            "environment",
        ),
    ]
    gamma, tab = _gamma_claims(ctx, g)
    res.claims += gamma
    res.table += "\n\nCompound alone under other γ (gamma.toml):\n\n" + markdown_table(tab)
    res.values["gamma"] = tab.to_dict("records")
    return res


def calibration_tiny(ctx: Context) -> FigureResult:
    res, g = _cal_figure(ctx, "20pkt", "calibration-tiny")
    b = "20pkt"
    lo, hi = g.by_rate()
    pair = g.rtt_pair()
    e15 = lo[0]  # Fig. 15: the lower rate, short RTT
    e16 = lo[-1]  # Fig. 16: the lower rate, long RTT
    res.claims += [
        claim_each(
            "cal_tiny_compound_suffers",
            "alone with 20 packets at the lower rate, Compound's throughput suffers "
            "severely (§7.1.3, Figs. 15-16)",
            study="suffers severely; remains low",
            points=_rel_pts(
                g, "share", ("compound",), lo, b, ("compound",), below(0.5), ref_buffer="bdp"
            ),
            check="Compound's share at 20 packets < 0.5 × with the BDP buffer, per seed, "
            "every lower-rate environment",
        ),
        claim_each(
            "cal_tiny_illinois_builds_up",
            "alone with 20 packets at the lower rate and shorter RTT, Illinois builds up "
            "its throughput, where Compound suffers and NewReno is slower (§7.1.3, Fig. 15)",
            study="Illinois steadily builds up its throughput",
            points=_rel_pts(
                g, "share", ("illinois",), [e15], b, ("compound", "newreno"), above(1.0)
            ),
            check="Illinois' share > Compound's and NewReno's (per seed)",
        ),
        claim_each(
            "cal_tiny_newreno_slower_than_illinois",
            "alone with 20 packets at the lower rate and shorter RTT, NewReno scales at a "
            "much slower pace than Illinois (§7.1.3, Fig. 15)",
            study="much slower pace than Illinois",
            points=_rel_pts(g, "t90", ("newreno",), [e15], b, ("illinois",), above(2.0)),
            check="NewReno's time to 90 % > 2 × Illinois' (per seed; never = ∞)",
        ),
        claim_each(
            "cal_tiny_long_rtt_dulls_growth",
            "alone with 20 packets at the lower rate, the longer RTT dulls the growth of "
            "Illinois and NewReno (§7.1.3, Figs. 15-16)",
            study="slower response time dulls the growth rates",
            points={
                f"{NAMES[c]} {pair[1]} / {pair[0]}": (
                    g.rel("share", c, pair[1], b, (c,), ref_env=pair[0]),
                    below(1.0),
                )
                for c in ("illinois", "newreno")
            }
            if pair
            else {},
            check="share at the longer RTT < at the shorter (per seed), Illinois and NewReno",
        ),
        claim_each(
            "cal_tiny_compound_burstiest_below_stanford",
            "alone with 20 packets at the lower rate and longer RTT, Compound is the "
            "burstiest of the three high-speed protocols, though less than with 166 "
            "packets (§7.1.3, Fig. 16)",
            study="burstiness less than in Stanford, still the greatest of the three",
            points=_rel_pts(
                g, "late_cov", ("compound",), [e16], b, ("fast", "illinois"), above(1.0)
            )
            | _rel_pts(
                g,
                "late_cov",
                ("compound",),
                [e16],
                b,
                ("compound",),
                below(1.0),
                ref_buffer="166pkt",
            ),
            check="Compound's CoV of the 1 s goodput (2nd half) > FAST's and Illinois', and "
            "< its own with 166 packets (per seed)",
        ),
        claim_each(
            "cal_tiny_fast_little",
            "alone with 20 packets at the lower rate, FAST is unable to achieve much "
            "throughput (§7.1.3, Fig. 16)",
            study="unable to achieve much throughput",
            points=_pts(g, "share", ("fast",), lo, b, lambda c, e: below(0.1)),
            check="FAST's mean share < 0.1 of the link, every lower-rate environment",
        ),
        claim_each(
            "cal_tiny_compound_illinois_quick_high_rate",
            "alone with 20 packets at the higher rate, Compound and Illinois quickly scale "
            "and utilize all of the link (§7.1.3, Figs. 17-18)",
            study="quickly able to scale and utilize all of the link",
            points=_pts(g, "t90", CI, hi, b, lambda c, e: below(QUICKLY_S + 1e-9))
            | {
                f"{k} (2nd half)": v
                for k, v in _pts(g, "late_share", CI, hi, b, lambda c, e: above(0.9)).items()
            },
            check=f"90 % of the link within {QUICKLY_S:.0f} s and ≥ 0.9 over the second "
            "half, Compound and Illinois, every higher-rate environment",
        ),
        claim_each(
            "cal_tiny_fast_higher_but_not_scaling",
            "alone with 20 packets at the higher rate, FAST's throughput is marginally "
            "higher but it does not scale like Compound and Illinois (§7.1.3, Figs. 17-18)",
            study="marginally higher, unable to scale effectively",
            points={
                f"{eh} FAST / {el}": (
                    g.rel("share", "fast", eh, b, ("fast",), ref_env=el),
                    above(1.0),
                )
                for el, eh in zip(lo, hi, strict=False)
            }
            | _half_of_ci_min(g, hi, b),
            check="FAST's share higher than at the lower rate (same RTT) and < 0.5 × "
            "min(Compound, Illinois), per seed",
        ),
    ]
    return res


# ------------------------------------------------------------------ Figures 19-68


def staged(ctx: Context) -> pd.DataFrame:
    """Both readings of the staged experiment, one row per run: ``throughput.toml``
    (initial ssthresh 64, every buffer, three seeds; quick mode one) and, in full
    mode, ``stabilized.toml`` (pre and post slow-start to their first loss, 50-packet
    access queues, BDP buffer, three seeds; its buffer is labelled ``bdp-stab``).
    Quick mode leaves the stabilized runs out (12 runs of 700 s, beyond CI's budget):
    the claims on them are then "not run in this mode"."""
    sw, runs = ctx.sweep("throughput", quick=QUICK)
    a = staged_frame(sw, runs)
    if ctx.quick:
        return a
    sw, runs = ctx.sweep("stabilized")
    b = staged_frame(sw, runs, buffer_label="bdp-stab")
    return pd.concat([a, b], ignore_index=True)


STAGED_COLS = [
    "test_share",
    "pre_share",
    "post_share",
    "utilization",
    "test_cov",
    "test_convergence_s",
    "post_convergence_s",
    "friendliness",
    "test_timeouts",
]


class Staged:
    """The staged runs, indexed: ``v(metric, cc, env, buffer)`` is the seeds' Estimate;
    ``envs(buffer)`` the environments run with that buffer."""

    def __init__(self, d: pd.DataFrame):
        self.d = d
        self._g = {k: g for k, g in d.groupby(["env", "cc", "buffer"], sort=False)}

    def __call__(self, metric: str, cc: str, env: str, buffer: str) -> Estimate:
        return _est(self._g[(env, cc, buffer)][metric])

    def envs(self, buffer: str) -> list[str]:
        return _envs(self.d[self.d["buffer"] == buffer])

    def pair(self, metric: str, cc: str, ref: str, env: str, buffer: str) -> Estimate:
        return paired(self.d, metric, cc, ref, buffer, env)


STAB = "bdp-stab"
READING = {
    "bdp": "throughput.toml: initial ssthresh 64, one seed",
    STAB: "stabilized.toml: pre/post slow start to the first loss, 50-packet access "
    "queues, 3 seeds, 95 % intervals",
}
# "Largely the same as NewReno": the CoV within ±0.01 of NewReno's (paired by seed): the
# BDP-buffer CoVs are 0.01-0.07, the quantization of a flow on a saturated link.
SAME_COV = 0.01


def bdp_claims(v: Staged, b: str) -> dict[str, Claim]:
    """The large-buffer claims (§7.2.1, §7.3.1, §7.4, §7.5) on the runs with buffer *b*:
    ``"bdp"`` (throughput.toml, keys as the study's claims) or ``STAB``
    (stabilized.toml, keys ending ``_stab``); every environment run with it."""
    es = v.envs(b)
    sfx = "" if b == "bdp" else "_stab"
    where = f" [{READING[b]}]"
    note = (
        ""
        if b == "bdp"
        else "FAST times out here: its window doubles per RTT in one step, a burst the "
        "50-packet access queue drops (timeouts per run: "
        + ", ".join(f"{e} {_show(v('test_timeouts', 'fast', e, b), 0)}" for e in es)
        + ")"
    )

    def x(metric: str, cc: str, e: str) -> Estimate:
        return v(metric, cc, e, b)

    out = [
        claim_each(
            "fast_below_bdp",
            "under the large (BDP) buffer FAST continuously underperforms: below its fair "
            "third of the link and below a NewReno flow in its place" + where,
            study="continuously underperforms (§7.2.1, Figs. 19-22)",
            points={f"{e} vs 1/3": (x("test_share", "fast", e), below(FAIR)) for e in es}
            | {
                f"{e} vs NewReno test flow {_show(x('test_share', 'newreno', e))}": (
                    x("test_share", "fast", e),
                    falls_short_of(x("test_share", "newreno", e), label="NewReno"),
                )
                for e in es
            },
            check="FAST's share of the link below 1/3 and (intervals apart where there are "
            "seeds) below a NewReno test flow's, every environment",
            note=note,
        ),
        claim_each(
            "fast_stable_bdp",
            "FAST is largely stable under the BDP buffer: the steadiest test flow" + where,
            study="stable (§7.2.1)",
            points={
                f"{e} vs {NAMES[c]} {_show(x('test_cov', c, e))}": (
                    x("test_cov", "fast", e),
                    falls_short_of(x("test_cov", c, e), label=NAMES[c]),
                )
                for e in es
                for c in ("newreno", "compound", "illinois")
            },
            check="FAST's CoV (5 s windows) below NewReno's, Compound's and Illinois' "
            "(intervals apart where there are seeds), every environment",
            note=note,
        ),
        claim_each(
            "illinois_above_compound_bdp",
            "under the BDP buffer Illinois achieves much higher throughput than Compound" + where,
            study="much higher (§7.2.1)",
            points={
                f"{e} vs 1.2 × Compound {_show(x('test_share', 'compound', e))}": (
                    x("test_share", "illinois", e),
                    exceeds(_scaled(x("test_share", "compound", e), 1.2), label="1.2 × Compound"),
                )
                for e in es
            },
            check="Illinois' share above 1.2 × Compound's (intervals apart where there are "
            "seeds), every environment",
        ),
        claim_each(
            "fast_lowest_bdp_every_env",
            "FAST consistently has far lower throughput than Compound and Illinois "
            "(§7.5; BDP buffer, every environment)" + where,
            study="consistently disappoints",
            points={
                f"{e} vs {NAMES[c]} {_show(x('test_share', c, e))}": (
                    x("test_share", "fast", e),
                    falls_short_of(x("test_share", c, e), label=NAMES[c]),
                )
                for e in es
                for c in ("compound", "illinois")
            },
            check="FAST's share below Compound's and Illinois' (intervals apart where there "
            "are seeds), every environment",
            note=note,
        ),
        claim_each(
            "compound_loses_illinois_wins_bdp",
            "in large buffers Compound loses bandwidth to the long-lived NewReno flow, "
            "Illinois outperforms it (§7.5; every environment)" + where,
            study="Compound < NewReno pre < Illinois",
            points={
                f"{e} pre − Compound": (x("pre_minus_test", "compound", e), above(0.0)) for e in es
            }
            | {f"{e} pre − Illinois": (x("pre_minus_test", "illinois", e), below(0.0)) for e in es},
            check="the pre flow's share minus the test flow's in the same run: above 0 for "
            "Compound, below 0 for Illinois (whole interval where there are seeds), every "
            "environment",
        ),
        claim_each(
            "cov_bdp_like_newreno",
            "under the BDP buffer Compound's and Illinois' burstiness is fairly low, largely "
            "the same as NewReno's (§7.3.1)" + where,
            study="largely the same as NewReno",
            points={
                f"{e} {NAMES[c]} − NewReno": (
                    v.pair("test_cov", c, "newreno", e, b),
                    within(0.0, tol=SAME_COV),
                )
                for e in es
                for c in ("compound", "illinois")
            },
            check=f"the CoV minus NewReno's (paired by seed): within ±{SAME_COV} (the whole "
            "interval where there are seeds), every environment",
        ),
        claim_each(
            "cov_fast_burstier_bdp",
            "under the BDP buffer FAST is slightly burstier than the others (§7.3.1; §7.5 "
            "says the opposite: FAST the most stable under larger buffers)" + where,
            study="slightly larger burstiness",
            points={
                f"{e} vs {NAMES[c]} {_show(x('test_cov', c, e))}": (
                    x("test_cov", "fast", e),
                    exceeds(x("test_cov", c, e), label=NAMES[c]),
                )
                for e in es
                for c in ("newreno", "compound", "illinois")
            },
            check="FAST's CoV above NewReno's, Compound's, Illinois' (intervals apart where "
            "there are seeds), every environment",
            note=note,
        ),
        claim_each(
            "hs_converge_faster_bdp",
            "under the BDP buffer Compound and Illinois scale much faster than NewReno: "
            "they reach 80 % of the pre flow sooner than a NewReno test flow (§7.1.1, "
            "§7.4.4)" + where,
            study="quickly able to scale; Illinois much faster than pre or post",
            points={
                f"{e} {NAMES[c]} vs NewReno {_show(x('test_convergence_s', 'newreno', e))}": (
                    x("test_convergence_s", c, e),
                    below(0.5 * x("test_convergence_s", "newreno", e).low),
                )
                for e in es
                for c in ("compound", "illinois")
            },
            check="convergence time of Compound and Illinois < 0.5 × a NewReno test flow's "
            "(its interval's low end where there are seeds), every environment (never = "
            "+inf)",
        ),
        claim_each(
            "compound_friendlier_than_illinois_bdp",
            "in large buffers Compound is the friendliest of the three to TCP: it leaves "
            "the NewReno flows closest to what a NewReno flow would (§7.5)" + where,
            study="Compound appears to be the friendliest to TCP (perhaps too friendly)",
            points={
                f"{e} |r − 1| vs {NAMES[c]} {_show(x('friendliness_gap', c, e))}": (
                    x("friendliness_gap", "compound", e),
                    falls_short_of(x("friendliness_gap", c, e), label=NAMES[c]),
                )
                for e in es
                for c in ("fast", "illinois")
            },
            check="r = the NewReno flows' share with the test flow / with a NewReno test "
            "flow (same seed); Compound's |r − 1| below FAST's and Illinois' (intervals "
            "apart where there are seeds), every environment",
            note=note,
        ),
        claim_each(
            "illinois_most_aggressive_bdp",
            "in large buffers Illinois is the most aggressive of the three: it leaves the "
            "NewReno flows the least (§7.5)" + where,
            study="Illinois seems to be the most aggressive of the three",
            points={
                f"{e} r vs {NAMES[c]} {_show(x('friendliness', c, e))}": (
                    x("friendliness", "illinois", e),
                    falls_short_of(x("friendliness", c, e), label=NAMES[c]),
                )
                for e in es
                for c in ("compound", "fast")
            },
            check="Illinois' r below Compound's and FAST's (intervals apart where there are "
            "seeds), every environment",
        ),
        claim_each(
            "illinois_unfriendly_bdp",
            "under the BDP buffer Illinois is unfriendly to the NewReno flows (§7.4.4)" + where,
            study="rather unfriendly to both flows",
            points={e: (x("friendliness", "illinois", e), below(0.9)) for e in es},
            check="Illinois' r < 0.9 (the whole interval where there are seeds), every environment",
        ),
    ]
    for c in out:
        c.key += sfx
    return {c.key: c for c in out}


def _bdp(v: Staged, *keys: str) -> list[Claim]:
    """The large-buffer claims *keys* under both readings (the stabilized ones where it
    was run)."""
    a, b = bdp_claims(v, "bdp"), bdp_claims(v, STAB) if v.envs(STAB) else {}
    return [a[k] for k in keys] + [b[k + "_stab"] for k in keys if k + "_stab" in b]


SMALL_BUFFERS = ("166pkt", "20pkt")


def small_buffer_claims(v: Staged) -> dict[str, Claim]:
    """The Stanford (166 packets) and tiny (20 packets) buffer claims of §7.2-§7.4 on the
    staged runs, every environment run with the BDP buffer. With one seed per cell
    (``throughput.toml``) each comparison is of two numbers; with several seeds (the
    page's 3-seed rerun, docs/reproductions/002.md) of two 95 % intervals, which must
    lie apart (``exceeds``, ``falls_short_of``), so that seed noise cannot decide a
    verdict."""
    envs = v.envs("bdp")
    ccs = [c for c in NAMES if c in set(v.d["cc"])]
    seeds = int(v.d.loc[v.d["buffer"].isin(SMALL_BUFFERS), "seed"].nunique())
    runs = "throughput.toml, one seed" if seeds == 1 else f"{seeds} seeds, intervals apart"

    def x(metric: str, cc: str, e: str, b: str) -> Estimate:
        return v(metric, cc, e, b)

    def rise(metric: str, buf: str) -> dict:
        return {
            f"{e} {NAMES[k]} (BDP {_show(x(metric, k, e, 'bdp'))})": (
                x(metric, k, e, buf),
                exceeds(x(metric, k, e, "bdp"), label="the BDP's"),
            )
            for e in envs
            for k in FOUR
        }

    out = [
        claim_each(
            "fast_lowest_stanford",
            "under the Stanford buffer FAST has the lowest throughput of the three "
            "high-speed protocols (every environment)",
            study="woefully outdone (§7.2.2)",
            points={
                f"{e} FAST − {NAMES[c]} (FAST {_show(x('test_share', 'fast', e, '166pkt'))}, "
                f"{NAMES[c]} {_show(x('test_share', c, e, '166pkt'))})": (
                    v.pair("test_share", "fast", c, e, "166pkt"),
                    below(0.0),
                )
                for e in envs
                for c in CI
            },
            check="FAST's share minus Compound's and Illinois', paired by seed (the same "
            f"access delays), below 0 ({runs.replace('intervals apart', 'whole interval')}), "
            "every environment",
        ),
        claim_each(
            "fast_outdone_stanford",
            "under the Stanford buffer FAST is woefully outdone by the others: below half "
            "of Compound's and Illinois' throughput (every environment)",
            study="woefully outdone (§7.2.2)",
            points={
                f"{e} vs half of {NAMES[c]} {_show(x('test_share', c, e, '166pkt'))}": (
                    x("test_share", "fast", e, "166pkt"),
                    falls_short_of(
                        _scaled(x("test_share", c, e, "166pkt"), 0.5), label=f"0.5 × {NAMES[c]}"
                    ),
                )
                for e in envs
                for c in CI
            },
            check=f"FAST < 0.5 × Compound's and Illinois' share ({runs}), every environment",
        ),
        claim_each(
            "all_lose_tiny",
            "all protocols lose throughput as the buffer shrinks to 20 packets (every environment)",
            study="all underperform at 20 packets (§7.2.3)",
            points={
                f"{e} {NAMES[c]} (BDP {_show(x('utilization', c, e, 'bdp'))})": (
                    x("utilization", c, e, "20pkt"),
                    falls_short_of(x("utilization", c, e, "bdp"), margin=0.05, label="the BDP's"),
                )
                for e in envs
                for c in ccs
            },
            check="link utilization at 20 packets < at the BDP − 0.05, every protocol and "
            f"environment ({runs})",
        ),
        claim_each(
            "fast_surge_tiny_high_rate",
            "under the 20-packet buffer FAST surges in throughput at the higher rate, where "
            "it achieves little at the lower (§7.2.3, Figs. 29-30)",
            study="a surprising surge in throughput under larger bandwidth delay environments",
            points={
                eh: (x("test_share", "fast", eh, "20pkt"), above(0.5))
                for el, eh in _rate_pairs(envs)
            }
            | {
                el: (x("test_share", "fast", el, "20pkt"), below(0.1))
                for el, eh in _rate_pairs(envs)
            },
            check="FAST's share with 20 packets > 0.5 at the higher rate and < 0.1 at the "
            f"lower, same RTT ({runs}; the whole interval)",
        ),
        claim_each(
            "cov_stanford_less_stable",
            "under the Stanford buffer the stability of the protocols begins to suffer (§7.3.2)",
            study="CoV rises",
            points=rise("test_cov", "166pkt"),
            check=f"CoV at 166 packets > at the BDP ({runs}), every protocol and environment",
        ),
        claim_each(
            "cov_fast_burstiest_stanford",
            "under the Stanford buffer FAST is far burstier than the other high-speed "
            "protocols (§7.3.2)",
            study="far worse burstiness",
            points={
                f"{e} vs 2 × {NAMES[c]} {_show(x('test_cov', c, e, '166pkt'))}": (
                    x("test_cov", "fast", e, "166pkt"),
                    exceeds(_scaled(x("test_cov", c, e, "166pkt"), 2.0), label=f"2 × {NAMES[c]}"),
                )
                for e in envs
                for c in CI
            },
            check=f"FAST's CoV > 2 × Compound's and Illinois', 166 packets ({runs}), every "
            "environment",
        ),
        claim_each(
            "cov_all_burstier_tiny",
            "all protocols become burstier as the buffer falls (§7.5)",
            study="extreme burstiness at small buffers",
            points=rise("test_cov", "20pkt"),
            check=f"CoV at 20 packets > at the BDP ({runs}), every protocol and environment",
        ),
        claim_each(
            "cov_fast_burstiest_tiny",
            "under the 20-packet buffer FAST's burstiness outpaces NewReno's, Compound's "
            "and Illinois' (§7.3.3, §7.5)",
            study="greatest burstiness",
            points={
                f"{e} vs {NAMES[c]} {_show(x('test_cov', c, e, '20pkt'))}": (
                    x("test_cov", "fast", e, "20pkt"),
                    exceeds(x("test_cov", c, e, "20pkt"), label=NAMES[c]),
                )
                for e in envs
                for c in FOUR
                if c != "fast"
            },
            check=f"FAST's CoV > every other protocol's, 20 packets ({runs}), every environment",
        ),
        claim_each(
            "compound_friendliness_drops_stanford",
            "Compound's TCP friendliness drops drastically under the Stanford buffer (§7.4.2)",
            study="drops drastically",
            points={
                f"{e} (BDP {_show(x('friendliness', 'compound', e, 'bdp'))})": (
                    x("friendliness", "compound", e, "166pkt"),
                    falls_short_of(
                        _scaled(x("friendliness", "compound", e, "bdp"), 0.8),
                        label="0.8 × the BDP's",
                    ),
                )
                for e in envs
            },
            check=f"r of Compound at 166 packets < 0.8 × at the BDP ({runs}), every environment",
        ),
    ]
    return {c.key: c for c in out}


def throughput(ctx: Context) -> FigureResult:
    d = staged(ctx)
    tab = cell_table(d, STAGED_COLS)
    files = [
        _bars(
            ctx,
            tab,
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
    res.table = _table(tab, ["test_share", "pre_share", "post_share", "utilization"])
    v = Staged(d)
    res.claims += _bdp(
        v,
        "fast_below_bdp",
        "fast_stable_bdp",
        "illinois_above_compound_bdp",
        "fast_lowest_bdp_every_env",
        "compound_loses_illinois_wins_bdp",
    )
    small = small_buffer_claims(v)
    res.claims += [
        small[k]
        for k in (
            "fast_lowest_stanford",
            "fast_outdone_stanford",
            "all_lose_tiny",
            "fast_surge_tiny_high_rate",
        )
    ]
    res.values = {"table": tab.to_dict("records")}
    return res


def _rate_pairs(envs: list[str]) -> list[tuple[str, str]]:
    """(lower-rate, higher-rate) environments at the same RTT."""
    split = [tuple(e.split("/")) for e in envs]
    rates = sorted({int(r) for r, _ in split})
    out = []
    for rtt in sorted({t for _, t in split}, key=int):
        lo, hi = (str(rates[0]), rtt), (str(rates[-1]), rtt)
        if len(rates) > 1 and lo in split and hi in split:
            out.append(("/".join(lo), "/".join(hi)))
    return out


def _rtt_pairs(envs: list[str]) -> list[tuple[str, str]]:
    """(short-RTT, long-RTT) environments at the same rate."""
    split = [tuple(e.split("/")) for e in envs]
    rtts = sorted({int(t) for _, t in split})
    out = []
    for rate in sorted({r for r, _ in split}, key=int):
        lo, hi = (rate, str(rtts[0])), (rate, str(rtts[-1]))
        if len(rtts) > 1 and lo in split and hi in split:
            out.append(("/".join(lo), "/".join(hi)))
    return out


def cov(ctx: Context) -> FigureResult:
    d = staged(ctx)
    tab = cell_table(d, STAGED_COLS)
    files = [
        _bars(
            ctx,
            tab,
            [("test_cov", "test flow's CoV (5 s windows)")],
            "cov",
            "Figs. 31-42: burstiness of the test flow (mean CoV over 5 s windows)",
            logy=True,
        )
    ]
    res = FigureResult("cov", "CoV of the test flow's throughput under three buffers", files)
    res.table = _table(tab, ["test_cov"])
    v = Staged(d)
    envs = v.envs("bdp")
    res.claims += _bdp(v, "cov_bdp_like_newreno", "cov_fast_burstier_bdp")
    res.claims += [
        claim_each(
            "cov_rtt_not_rate_bdp",
            "under the BDP buffer a longer RTT, not a higher rate, makes FAST and NewReno "
            "burstier (§7.3.1, Figs. 32-33)",
            study="greater burstiness at 100 ms",
            points={
                f"{NAMES[k]} {b} vs {a} {_show(v('test_cov', k, a, 'bdp'))}": (
                    v("test_cov", k, b, "bdp"),
                    above(v("test_cov", k, a, "bdp").mean),
                )
                for a, b in _rtt_pairs(envs)
                for k in ("fast", "newreno")
            },
            check="CoV at 100 ms > at 50 ms, same rate, FAST and NewReno (throughput.toml, "
            "one seed)",
        ),
    ]
    small = small_buffer_claims(v)
    res.claims += [
        small[k]
        for k in (
            "cov_stanford_less_stable",
            "cov_fast_burstiest_stanford",
            "cov_all_burstier_tiny",
            "cov_fast_burstiest_tiny",
        )
    ]
    res.values = {"table": tab.to_dict("records")}
    return res


def convergence(ctx: Context) -> FigureResult:
    d = staged(ctx)
    tab = cell_table(d, STAGED_COLS)
    conv = tab["test_convergence_s"].replace(math.inf, math.nan)
    horizon = float(conv.max()) if conv.notna().any() else math.nan
    files = [
        _bars(
            ctx,
            tab,
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
        tab, ["test_convergence_s", "post_convergence_s", "pre_share", "post_share", "friendliness"]
    )
    v = Staged(d)
    res.claims += _bdp(
        v,
        "hs_converge_faster_bdp",
        "compound_friendlier_than_illinois_bdp",
        "illinois_most_aggressive_bdp",
        "illinois_unfriendly_bdp",
    )
    res.claims.append(small_buffer_claims(v)["compound_friendliness_drops_stanford"])
    res.values = {"table": tab.to_dict("records")}
    return res


FIGURES = {
    "calibration-bdp": calibration_bdp,
    "calibration-stanford": calibration_stanford,
    "calibration-tiny": calibration_tiny,
    "throughput": throughput,
    "cov": cov,
    "convergence": convergence,
}
