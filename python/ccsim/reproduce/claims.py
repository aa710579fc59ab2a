"""Claims with named predicates, and estimates with intervals, for the reproductions.

A figure's claims are built from three parts, so that a reader sees what was measured,
what was tested and why it holds::

    u = estimate(runs.loc[runs.buffer == "0.1bdp", "utilization"])   # mean ± 95 % CI
    claim("util_01", "AIMD at 0.1 BDP", study="0.895", value=u,
          test=within(0.895, tol=0.02))

A predicate is a named test with keyword arguments (``within(target, tol=...)``,
``above(bound)``, ``exceeds(other, margin=...)``...). Given an :class:`Estimate`
(several replications), a predicate holds only when the whole 95 % interval satisfies
it, so that seed noise cannot flip a verdict; given a plain number (one deterministic
run, or a quantity that has no sampling noise) it tests the number. The interval is the
core's (``_core.confidence_interval``: Student t, n − 1 degrees of freedom), the one
interval of every sweep table and report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ccsim import _core
from ccsim.reproduce import Claim


@dataclass(frozen=True)
class Estimate:
    """A mean over *n* replications and the half-width of its 95 % interval (NaN below
    two replications)."""

    mean: float
    half_width: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - (0.0 if math.isnan(self.half_width) else self.half_width)

    @property
    def high(self) -> float:
        return self.mean + (0.0 if math.isnan(self.half_width) else self.half_width)

    def text(self, digits: int = 3) -> str:
        if self.n < 2 or math.isnan(self.half_width):
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} ± {self.half_width:.{digits}f} (n = {self.n})"

    def __format__(self, spec: str) -> str:
        return self.text(int(spec[1:-1]) if spec.startswith(".") and spec.endswith("f") else 3)

    def __float__(self) -> float:
        return float(self.mean)


Value = float | Estimate


def estimate(values: Iterable[float]) -> Estimate:
    """Mean and 95 % interval of *values* (NaNs dropped) from the core's
    ``confidence_interval``."""
    vals = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    if not vals:
        return Estimate(float("nan"), float("nan"), 0)
    mean, hw, n = _core.confidence_interval(vals)
    return Estimate(float(mean), float(hw), int(n))


def estimates(runs, by: Sequence[str], metric: str):
    """One row per combination of *by* (grid order kept) with ``mean``, ``ci95``, ``n``
    and ``low``/``high`` of *metric* over the rows (replications) in that group."""
    import pandas as pd

    rows = []
    for key, g in runs.groupby(list(by), sort=False, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        e = estimate(g[metric])
        rows.append(
            {**dict(zip(by, key, strict=True)), "mean": e.mean, "ci95": e.half_width, "n": e.n}
            | {"low": e.low, "high": e.high}
        )
    return pd.DataFrame(rows)


def _lo(v: Value) -> float:
    return v.low if isinstance(v, Estimate) else float(v)


def _hi(v: Value) -> float:
    return v.high if isinstance(v, Estimate) else float(v)


def _show(v: Value, digits: int = 3) -> str:
    return v.text(digits) if isinstance(v, Estimate) else f"{float(v):.{digits}g}"


@dataclass(frozen=True)
class Predicate:
    """A named test of one value; ``describe`` is the check as printed in the report."""

    name: str
    describe: str
    test: Callable[[Value], bool]

    def __call__(self, value: Value) -> bool:
        if isinstance(value, Estimate) and value.n == 0:
            return False
        return bool(self.test(value))


def above(bound: float) -> Predicate:
    """Every value in the interval is greater than *bound*."""
    return Predicate("above", f"> {bound:g}", lambda v: _lo(v) > bound)


def below(bound: float) -> Predicate:
    """Every value in the interval is less than *bound*."""
    return Predicate("below", f"< {bound:g}", lambda v: _hi(v) < bound)


def within(target: float, *, tol: float) -> Predicate:
    """The interval lies inside [target − tol, target + tol]."""
    return Predicate(
        "within",
        f"within ±{tol:g} of {target:g}",
        lambda v: _lo(v) >= target - tol and _hi(v) <= target + tol,
    )


def within_rel(target: float, *, rel: float) -> Predicate:
    """The interval lies inside target·(1 ± rel)."""
    lo, hi = sorted((target * (1 - rel), target * (1 + rel)))
    return Predicate(
        "within_rel", f"within {rel:.0%} of {target:g}", lambda v: _lo(v) >= lo and _hi(v) <= hi
    )


def exceeds(other: Value, *, margin: float = 0.0, label: str = "") -> Predicate:
    """The value's interval lies above *other*'s interval by more than *margin* (two
    95 % intervals that do not overlap: a difference at well under the 5 % level)."""
    name = label or _show(other)
    more = f" + {margin:g}" if margin else ""
    return Predicate(
        "exceeds", f"> {name}{more} (intervals apart)", lambda v: _lo(v) > _hi(other) + margin
    )


def falls_short_of(other: Value, *, margin: float = 0.0, label: str = "") -> Predicate:
    """The value's interval lies below *other*'s interval by more than *margin*."""
    name = label or _show(other)
    less = f" − {margin:g}" if margin else ""
    return Predicate(
        "falls_short_of",
        f"< {name}{less} (intervals apart)",
        lambda v: _hi(v) < _lo(other) - margin,
    )


def indistinguishable(other: Value, *, tol: float = 0.0, label: str = "") -> Predicate:
    """The two intervals overlap, or their means differ by at most *tol*."""
    name = label or _show(other)
    return Predicate(
        "indistinguishable",
        f"≈ {name}" + (f" (±{tol:g})" if tol else " (intervals overlap)"),
        lambda v: (
            (_lo(v) <= _hi(other) and _lo(other) <= _hi(v)) or abs(float(v) - float(other)) <= tol
        ),
    )


def claim(
    key: str,
    text: str,
    *,
    study: str,
    value: Value | None,
    test: Predicate | None,
    digits: int = 3,
    shown: str | None = None,
    note: str = "",
) -> Claim:
    """A :class:`Claim` whose verdict is ``test(value)``; ``None`` for *test* (or
    *value*) records a measured value that no check decides ("—" in the report)."""
    holds: bool | None = None if test is None or value is None else test(value)
    ccsim = shown if shown is not None else ("—" if value is None else _show(value, digits))
    check = "" if test is None else test.describe
    if note:
        check = f"{check}; {note}" if check else note
    return Claim(key, text, study, ccsim, holds, check)


def all_of(values: dict[str, Value], test: Predicate) -> tuple[bool, str]:
    """Whether *test* holds for every value, and the values that fail it (for a claim
    over several points: a grid, each m, each rate)."""
    bad = [k for k, v in values.items() if not test(v)]
    return (not bad, ", ".join(bad))


def claim_all(
    key: str,
    text: str,
    *,
    study: str,
    values: dict[str, Value],
    test: Predicate,
    digits: int = 3,
    note: str = "",
) -> Claim:
    """A :class:`Claim` over several points (a grid, each rate, each size) whose verdict
    is that *test* holds at every one of *values* (:func:`all_of`); the report lists
    every point's value and names the points that fail. No points: ``None``."""
    ok, bad = all_of(values, test)
    ccsim = ", ".join(f"{k}: {_show(v, digits)}" for k, v in values.items()) or "—"
    if bad:
        ccsim += f" (fails at {bad})"
    check = f"{test.describe} at every point"
    if note:
        check = f"{check}; {note}"
    return Claim(key, text, study, ccsim, ok if values else None, check)


def claim_each(
    key: str,
    text: str,
    *,
    study: str,
    points: Mapping[str, tuple[Value, Predicate]],
    check: str = "",
    note: str = "",
) -> Claim:
    """A claim over several points (environments, protocols, buffers, m), each with its
    own value and the named predicate it must satisfy (:func:`claim_all`: one predicate
    for all); a predicate on an Estimate holds only when its whole 95 % interval does.
    It holds when every point does; the report lists every point and names those that
    fail. *check* defaults to the predicates' descriptions. No point: nothing to check
    (quick mode's missing environments)."""
    if not check:
        described = {p.describe for _, p in points.values()}
        check = (
            f"{next(iter(described))} at each point"
            if len(described) == 1
            else "each point: " + "; ".join(f"{k} {p.describe}" for k, (_, p) in points.items())
        )
    if not points:
        return Claim(key, text, study, "not run in this mode", None, check)
    bad = [k for k, (v, p) in points.items() if not p(v)]
    shown = "; ".join(f"{k}: {_show(v)} ({p.describe})" for k, (v, p) in points.items())
    if bad:
        check = f"{check}; fails at: {', '.join(bad)}"
    if note:
        check = f"{check}; {note}"
    return Claim(key, text, study, shown, not bad, check)


def linear_fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float]:
    """Least-squares ``(slope, intercept, r²)`` of *ys* on *xs* (for a "linear in x"
    claim: test r² as well as the slope's sign, a trend alone is not linearity)."""
    n = len(xs)
    if n < 2:
        return (float("nan"),) * 3
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0:
        return (float("nan"),) * 3
    slope = sxy / sxx
    r2 = 1.0 if syy == 0 else (sxy * sxy) / (sxx * syy)
    return slope, my - slope * mx, r2


def jain(values: Sequence[float]) -> float:
    """Jain's index with the core's convention: 1 for an empty or all-zero set (nobody
    is treated worse than anybody). Prefer the core's own ``flows_jain_fairness`` or
    the groups table's ``jain``; this is for sets the core does not summarise."""
    vals = [float(v) for v in values]
    s, s2 = sum(vals), sum(v * v for v in vals)
    return 1.0 if s2 == 0 else s * s / (len(vals) * s2)


def jain_rows(x):
    """Jain's index of each row of a 2-D array (e.g. the flows' cumulative throughputs at
    each sample time), with the core's convention: 1 where a row is all zero."""
    import numpy as np

    x = np.asarray(x, dtype=float)
    s2 = (x * x).sum(axis=1)
    out = np.ones(len(x))
    nz = s2 > 0
    out[nz] = x[nz].sum(axis=1) ** 2 / (x.shape[1] * s2[nz])
    return out
