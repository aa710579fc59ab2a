"""How ns-3.44's TcpCubic leaves slow start, for ccsim's ns3 profile (issue 15, item 1).

One TcpCubic flow on the dumbbells of ``CASES`` (reference.py's topology: 10 Gb/s access
links of 0.5 ms, a drop-tail bottleneck of the given rate, RTT and buffer, no queue
disc), traced from its first millisecond: the sender's ssthresh at every change (the
first is HyStart's exit, ssthresh = cwnd, unless a loss comes first) and its cwnd every
10 ms of the first 0.6 s of data. Times are from the end of the handshake (ns-3's first
ssthresh trace, one RTT after the connection opens); ccsim has no handshake, so its
flows send at once.

    python -m venv /tmp/ns3 && /tmp/ns3/bin/pip install ns3==3.44.post0
    /tmp/ns3/bin/python validation/ns3/hystart.py

writes validation/ns3/hystart.json; tests/test_ns3_reference.py holds ccsim to it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from points import MSS, _point, scenario_of  # noqa: E402
from reference import run_ns3  # noqa: E402

# (rate Mb/s, RTT ms, buffer packets, run s): deep buffers, so that HyStart, not a
# loss, ends slow start; at 10 Mb/s the ACKs of delayed pairs are 2.4 ms apart, more
# than HyStartAckDelta (2 ms), so no ACK train forms and the delay test decides.
CASES = {
    "c100_50_b832": (100, 50, 832, 4),
    "c100_100_b1664": (100, 100, 1664, 6),
    "c20_50_b249": (20, 50, 249, 6),
    "c50_20_b250": (50, 20, 250, 4),
    "c10_100_b250": (10, 100, 250, 8),
}

TRACE = r"""
std::vector<double> g_ss_t, g_cw_t;
std::vector<uint32_t> g_ss, g_ss_cwnd, g_cw;
uint32_t g_cwnd_now = 0;
void HystartSs(uint32_t, uint32_t v) {
    g_ss_t.push_back(ns3::Simulator::Now().GetSeconds());
    g_ss.push_back(v);
    g_ss_cwnd.push_back(g_cwnd_now);
}
void HystartCw(uint32_t, uint32_t v) {
    g_cwnd_now = v;
    g_cw_t.push_back(ns3::Simulator::Now().GetSeconds());
    g_cw.push_back(v);
}
void HystartConnect() {
    const std::string s = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/";
    ns3::Config::ConnectWithoutContext(s + "SlowStartThreshold", ns3::MakeCallback(&HystartSs));
    ns3::Config::ConnectWithoutContext(s + "CongestionWindow", ns3::MakeCallback(&HystartCw));
}
"""


def case_point(name: str) -> dict:
    rate, rtt, buf, dur = CASES[name]
    return _point("cubic", 1, rate, rtt, buf, dur, dur - 1)


def scenario_text(name: str) -> str:
    """ccsim's scenario of case *name* (points.py's dumbbell, seed 1, ns3 profile)."""
    return scenario_of(case_point(name), name, 1)


def main() -> int:
    import cppyy
    from ns import ns  # loads ns-3 and puts its headers on cppyy's path

    assert ns.Simulator is not None
    cppyy.cppdef(TRACE)
    g = cppyy.gbl
    out = {"how": __doc__.splitlines()[0] + " (validation/ns3/hystart.py, ns3 3.44.post0)"}
    for name in CASES:
        for v in (g.g_ss_t, g.g_cw_t, g.g_ss, g.g_ss_cwnd, g.g_cw):
            v.clear()
        run_ns3(case_point(name), 1, hook=lambda ns: g.HystartConnect(), hook_s=0.002)
        t0 = g.g_ss_t[0]  # the handshake's end: ssthresh takes its initial value
        ss = [
            {
                "t_s": round(g.g_ss_t[i] - t0, 4),
                "ssthresh": g.g_ss[i] // MSS,
                "cwnd": g.g_ss_cwnd[i] // MSS,
            }
            for i in range(1, min(len(g.g_ss_t), 5))
        ]
        cw_t, cw = list(g.g_cw_t), list(g.g_cw)
        cwnd_10ms = []
        for k in range(1, 61):
            before = [c for t, c in zip(cw_t, cw, strict=True) if t <= t0 + k * 0.01]
            cwnd_10ms.append(before[-1] // MSS if before else 10)
        out[name] = {"ssthresh": ss, "cwnd_10ms": cwnd_10ms}
        print(name, ss[:2], flush=True)
    (HERE / "hystart.json").write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
