"""The reproductions' claim predicates: an interval decides, not a lucky mean."""

from __future__ import annotations

import math

import pytest

from ccsim.reproduce.claims import (
    Estimate,
    above,
    below,
    claim,
    claim_all,
    estimate,
    exceeds,
    falls_short_of,
    indistinguishable,
    jain,
    linear_fit,
    within,
)


def test_estimate_is_the_student_t_interval():
    # mean 2, sd 1, n 3: half-width t(0.975, 2) / sqrt(3) = 4.302653 / 1.732051
    e = estimate([1.0, 2.0, 3.0])
    assert e.mean == pytest.approx(2.0)
    assert e.half_width == pytest.approx(4.302653 / math.sqrt(3), rel=1e-5)
    assert e.n == 3
    assert math.isnan(estimate([5.0]).half_width)
    assert estimate([float("nan"), 1.0, 3.0]).n == 2


def test_a_wide_interval_does_not_pass_a_bound_its_mean_passes():
    wide = Estimate(0.92, 0.05, 10)
    assert not above(0.9)(wide)  # the mean passes, the interval does not
    assert above(0.86)(wide)
    assert not below(0.95)(wide)
    assert below(0.98)(wide)
    assert within(0.93, tol=0.07)(wide)
    assert not within(0.93, tol=0.03)(wide)
    assert above(0.9)(0.92)  # one number is tested as a number


def test_comparisons_need_separated_intervals():
    a, b = Estimate(0.60, 0.02, 10), Estimate(0.55, 0.02, 10)
    assert exceeds(b)(a)
    assert not exceeds(b, margin=0.02)(a)
    assert falls_short_of(a)(b)
    c = Estimate(0.57, 0.02, 10)
    assert not exceeds(c)(a)  # overlapping: noise could order them either way
    assert indistinguishable(c)(a)
    assert not indistinguishable(b)(a)
    assert indistinguishable(b, tol=0.06)(a)


def test_claim_records_value_check_and_verdict():
    c = claim("u", "utilization", study="0.9", value=Estimate(0.95, 0.01, 5), test=above(0.9))
    assert c.holds is True and c.check == "> 0.9" and "± 0.010" in c.ccsim
    c = claim("u", "utilization", study="0.9", value=0.8, test=None)
    assert c.holds is None and c.check == ""
    assert (
        claim(
            "x", "t", study="s", value=Estimate(float("nan"), float("nan"), 0), test=above(0)
        ).holds
        is False
    )


def test_claim_all_holds_only_where_every_point_does_and_names_the_failures():
    pts = {"5 Mb/s": Estimate(0.40, 0.01, 10), "20 Mb/s": Estimate(0.02, 0.03, 10)}
    c = claim_all("gap", "paced ahead", study="> 0", values=pts, test=above(0.0), note="paired")
    assert c.holds is False
    assert "fails at 20 Mb/s" in c.ccsim and "5 Mb/s: 0.400 ± 0.010" in c.ccsim
    assert c.check == "> 0 at every point; paired"
    pts["20 Mb/s"] = Estimate(0.05, 0.03, 10)
    assert claim_all("gap", "t", study="s", values=pts, test=above(0.0)).holds is True
    assert claim_all("gap", "t", study="s", values={}, test=above(0.0)).holds is None


def test_linear_fit_and_jain():
    slope, icpt, r2 = linear_fit([1, 2, 3, 4], [3, 5, 7, 9])
    assert (slope, icpt, r2) == pytest.approx((2.0, 1.0, 1.0))
    assert linear_fit([1, 2, 3, 4], [1, 4, 9, 16])[2] < 0.97  # convex: not linear at r² 0.97+
    assert jain([0, 0, 0]) == 1.0  # the core's convention
    assert jain([1, 1, 1, 1]) == pytest.approx(1.0)
    assert jain([1, 0, 0, 0]) == pytest.approx(0.25)


def test_claim_each_holds_only_when_every_point_does():
    from ccsim.reproduce.claims import claim_each

    ok = claim_each(
        "k",
        "t",
        study="s",
        points={"a": (Estimate(0.9, 0.01, 5), above(0.8)), "b": (0.1, below(0.2))},
        check="each",
    )
    assert ok.holds is True
    bad = claim_each(
        "k",
        "t",
        study="s",
        points={"a": (Estimate(0.9, 0.2, 5), above(0.8)), "b": (0.1, below(0.2))},
        check="each",
    )
    assert bad.holds is False and "fails at: a" in bad.check
    assert claim_each("k", "t", study="s", points={}, check="each").holds is None


def test_jain_rows_follows_the_core_on_zero_rows():
    from ccsim.reproduce.claims import jain_rows

    out = jain_rows([[0, 0, 0], [1, 1, 1], [3, 0, 0]])
    assert list(out) == pytest.approx([1.0, 1.0, 1 / 3])
