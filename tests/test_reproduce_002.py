"""Study 002 (Muraya: delay-based high-speed TCPs under three buffer regimes)
reproduced in quick mode: the findings that docs/reproductions/002.md marks reproduced
must keep holding.

One quick run (30 runs of 300 s at 100 Mb/s, ~25 s on 2 cores) is shared by every
test: a NewReno "pre" flow at 0 s, the test flow at 50 s, a NewReno "post" flow at
100 s, RTT 100 ms, buffers BDP (833 packets), 166 and 20 packets.
"""

from __future__ import annotations

import pytest

from ccsim import reproduce


@pytest.fixture(scope="module")
def fig(tmp_path_factory):
    out = tmp_path_factory.mktemp("r002")
    return reproduce.reproduce("002", quick=True, out=out, workers=2).figure("throughput")


def _v(fig, cc: str, buf: str, key: str) -> float:
    rows = [r for r in fig.values["table"] if r["cc"] == cc and r["buffer"] == buf]
    assert rows, (cc, buf)
    return rows[0][key]


def test_fast_stays_well_below_the_link_rate_under_the_bdp_buffer(fig):
    """§7.2.1: with a BDP buffer FAST keeps only its α packets queued while the NewReno
    flows fill the buffer: its goodput stays below half the link rate."""
    assert _v(fig, "fast", "bdp", "test_share") < 0.5


def test_fast_is_the_most_stable_test_flow_under_the_bdp_buffer(fig):
    """§7.2.1 ("Fast, while largely stable"): FAST's throughput CoV over 5 s windows is
    below NewReno's, Compound's and Illinois' with the BDP buffer."""
    fast = _v(fig, "fast", "bdp", "test_cov")
    for cc in ("newreno", "compound", "illinois"):
        assert fast < _v(fig, cc, "bdp", "test_cov"), cc


def test_all_protocols_lose_throughput_as_the_buffer_shrinks_to_20_packets(fig):
    """§7.2.3: with a 20-packet buffer every protocol underperforms: the link
    utilization is lower than with the BDP buffer, whatever the test flow."""
    for cc in ("newreno", "compound", "fast", "illinois", "vegas"):
        assert _v(fig, cc, "20pkt", "utilization") < _v(fig, cc, "bdp", "utilization") - 0.05, cc
