"""ns-3.44 reference runs for ccsim's ns3 profile (issue 15, item 1).

Builds, in ns-3 itself (the `ns3` wheel, version 3.44.post0), the dumbbell that
``scenario_text`` describes to ccsim: N senders -> router -> bottleneck -> router -> N
receivers; access links 10 Gb/s with 0.5 ms delay; the bottleneck a point-to-point link
of RATE with (RTT/2 - 1 ms) delay and a drop-tail device queue of B packets, with no
queue disc (TrafficControlHelper.Uninstall: ns-3 would otherwise put FqCoDel in front);
one BulkSendApplication per sender, started at the same instants as ccsim's flows; TCP
defaults of ns-3.44 apart from SegmentSize = 1448 (every study sets it) and socket
buffers large enough never to limit. Goodput is read from the PacketSinks at the end of
the warm-up and of the run.

    python -m venv /tmp/ns3 && /tmp/ns3/bin/pip install ns3==3.44.post0
    /tmp/ns3/bin/python validation/ns3/reference.py [POINT ...] [--seeds 3] [--uneven]

writes validation/ns3/runs.csv (one row per run); with ``--uneven``, each flow's access
links get their own delay (0.5 ms ± 0.1 ms, ``points.access_delays_us``) and the rows go
to validation/ns3/runs_uneven.csv. Not run in CI: ns-3 takes minutes per
point; tests/test_ns3_reference.py holds ccsim to the committed table.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from points import POINTS, access_delays_us, start_times_us  # noqa: E402


def run_ns3(
    point: dict,
    seed: int,
    hook=None,
    access_us: list[int] | None = None,
    hook_s: float = 0.5,
) -> dict:
    """One ns-3 run; *hook(ns)*, if given, is called at t = *hook_s* (0.5 s: the sockets
    exist once the flows have started, within the first millisecond: trace connections);
    *access_us*: each flow's access-link delay in microseconds (default 0.5 ms for all)."""
    from ns import ns  # the ns3 wheel; imported here so that points.py needs no ns-3

    n = point["flows"]
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue(point["ns3_cc"]))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 23))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 23))
    left, right, routers = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    left.Create(n)
    right.Create(n)
    routers.Create(2)
    stack = ns.InternetStackHelper()
    for c in (left, right, routers):
        stack.Install(c)

    def access(delay_us: int):
        acc = ns.PointToPointHelper()
        acc.SetDeviceAttribute("DataRate", ns.StringValue("10Gbps"))
        acc.SetChannelAttribute("Delay", ns.StringValue(f"{delay_us}us"))
        acc.SetQueue(
            "ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize("100000p"))
        )
        return acc

    bot = ns.PointToPointHelper()
    bot.SetDeviceAttribute("DataRate", ns.StringValue(f"{point['rate_mbps']}Mbps"))
    bot.SetChannelAttribute("Delay", ns.StringValue(f"{point['rtt_ms'] / 2 - 1.0}ms"))
    bot.SetQueue(
        "ns3::DropTailQueue<Packet>",
        "MaxSize",
        ns.QueueSizeValue(ns.QueueSize(f"{point['buffer_pkts']}p")),
    )
    addr = ns.Ipv4AddressHelper()
    tch = ns.TrafficControlHelper()
    d = bot.Install(routers.Get(0), routers.Get(1))
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(d)
    tch.Uninstall(d)
    dst = []
    for i in range(n):
        acc = access(access_us[i] if access_us else 500)
        d = acc.Install(left.Get(i), routers.Get(0))
        addr.SetBase(ns.Ipv4Address(f"10.{1 + i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(d)
        tch.Uninstall(d)
        d = acc.Install(routers.Get(1), right.Get(i))
        addr.SetBase(
            ns.Ipv4Address(f"10.{101 + i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.0")
        )
        dst.append(addr.Assign(d).GetAddress(1))
        tch.Uninstall(d)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    sinks = []
    for i, start in enumerate(start_times_us(n, seed)):
        port = 5000 + i
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        sa = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(right.Get(i))
        sa.Start(ns.Seconds(0.0))
        sinks.append(ns.DynamicCast[ns.PacketSink](sa.Get(0)))
        to = ns.InetSocketAddress(dst[i], port).ConvertTo()
        bh = ns.BulkSendHelper("ns3::TcpSocketFactory", to)
        bh.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bh.Install(left.Get(i)).Start(ns.MicroSeconds(start))
    # Run to the end of the warm-up, read the sinks, run on to the end.
    if hook is not None:
        ns.Simulator.Stop(ns.Seconds(hook_s))
        ns.Simulator.Run()
        hook(ns)
        ns.Simulator.Stop(ns.Seconds(point["warmup_s"] - hook_s))
    else:
        ns.Simulator.Stop(ns.Seconds(point["warmup_s"]))
    ns.Simulator.Run()
    before = [s.GetTotalRx() for s in sinks]
    ns.Simulator.Stop(ns.Seconds(point["duration_s"] - point["warmup_s"]))
    ns.Simulator.Run()
    after = [s.GetTotalRx() for s in sinks]
    ns.Simulator.Destroy()
    window = point["duration_s"] - point["warmup_s"]
    return {"goodput_bps": [(b - a) * 8 / window for a, b in zip(before, after, strict=True)]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("points", nargs="*")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--uneven",
        action="store_true",
        help="per-flow access delays (points.access_delays_us); default output runs_uneven.csv",
    )
    a = ap.parse_args(argv)
    names = a.points or list(POINTS)
    out = Path(a.out or HERE / ("runs_uneven.csv" if a.uneven else "runs.csv"))
    rows = list(csv.DictReader(out.open())) if out.exists() else []
    done = {(r["point"], r["seed"]) for r in rows}
    for name in names:
        for seed in range(1, a.seeds + 1):
            if (name, str(seed)) in done:
                continue
            t = time.time()
            access = access_delays_us(POINTS[name]["flows"], seed) if a.uneven else None
            res = run_ns3(POINTS[name], seed, access_us=access)
            rows.append(
                {
                    "point": name,
                    "seed": str(seed),
                    "wall_s": f"{time.time() - t:.1f}",
                    "goodput_bps": " ".join(f"{g:.0f}" for g in res["goodput_bps"]),
                }
            )
            with out.open("w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=["point", "seed", "wall_s", "goodput_bps"])
                w.writeheader()
                w.writerows(rows)
            print(name, seed, rows[-1]["wall_s"], "s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
