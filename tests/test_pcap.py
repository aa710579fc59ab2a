"""pcap traces and events.parquet end to end: tshark decodes the synthesized headers
as real TCP, with the flows, sequence numbers, SACK blocks and ECN bits ccsim sent."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import ccsim

TSHARK = shutil.which("tshark")
pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark not installed (.ci/run installs it)")

MSS = 1460

# Two SACK flows through a 20-packet drop-tail queue: losses, so that ACKs carry SACK
# blocks; 3 s keeps the trace small. The ns2 profile: MSS 1460 B behind 40 B.
SCENARIO = """
duration = "3s"
[tcp]
profile = "ns2"
[output]
events = true
pcap = ["bottleneck", "bottleneck_rev"]
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = "10ms"
buffer = "20pkt"
[[flows]]
count = 2
recovery = "sack"
"""


def tshark(path, *fields: str, display_filter: str | None = None) -> pd.DataFrame:
    # Absolute sequence numbers (SACK edges included); verify IPv4 header checksums.
    cmd = [TSHARK, "-r", str(path), "-n", "-T", "fields", "-E", "separator=\t"]
    cmd += ["-o", "tcp.relative_sequence_numbers:FALSE", "-o", "ip.check_checksum:TRUE"]
    if display_filter:
        cmd += ["-Y", display_filter]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    return pd.DataFrame(rows, columns=list(fields))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    run = ccsim.run(SCENARIO)
    d = run.write(tmp_path_factory.mktemp("pcap") / "run")
    return run, d


def test_data_trace_has_every_segment_of_both_flows(run_dir):
    run, d = run_dir
    t = tshark(
        d / "bottleneck.pcap",
        "tcp.stream",
        "ip.src",
        "tcp.srcport",
        "tcp.seq_raw",
        "tcp.len",
        "ip.checksum.status",
        "frame.len",
        "frame.cap_len",
    )
    # One record per packet the link sent, all decoded as TCP.
    assert len(t) == run.summary["links"]["bottleneck"]["tx_pkts"]
    assert sorted(t["tcp.stream"].unique()) == ["0", "1"]
    assert sorted(t["ip.src"].unique()) == ["10.64.0.0", "10.64.0.1"]
    assert (t["tcp.len"].astype(int) == MSS).all()
    # Headers only: the capture is shorter than the packet, as snaplen promises.
    assert (t["frame.cap_len"].astype(int) < t["frame.len"].astype(int)).all()
    # Wireshark's verdict on every IPv4 header checksum: 1 = good.
    assert (t["ip.checksum.status"] == "1").all()
    for stream, g in t.groupby("tcp.stream"):
        seq = g["tcp.seq_raw"].astype(np.int64).to_numpy()
        assert (seq % MSS == 0).all()
        segs = np.unique(seq // MSS)
        # Every segment from 0 to the highest sent crossed the bottleneck (the
        # sender's retransmissions fill what the queue dropped).
        flow = int(g["tcp.srcport"].iloc[0]) - 10_000
        highest = segs.max()
        d = run.drops
        dropped = set(d[(d["flow"] == flow) & (d["packet"] == "data")]["seq"])
        assert set(range(highest + 1)) - set(segs) <= dropped, stream


def test_ack_trace_carries_cumulative_acks_and_sack_blocks(run_dir):
    run, d = run_dir
    t = tshark(
        d / "bottleneck_rev.pcap",
        "tcp.stream",
        "tcp.ack_raw",
        "tcp.options.sack_le",
        "tcp.options.sack_re",
        "tcp.options.timestamp.tsval",
    )
    assert len(t) == run.summary["links"]["bottleneck_rev"]["tx_pkts"]
    for _, g in t.groupby("tcp.stream"):
        ack = g["tcp.ack_raw"].astype(np.int64).to_numpy()
        assert (np.diff(ack) >= 0).all(), "cumulative ACKs never go back on one path"
        assert (ack % MSS == 0).all()
        ts = g["tcp.options.timestamp.tsval"].astype(np.int64).to_numpy()
        assert (np.diff(ts) >= 0).all()
    sacked = t[t["tcp.options.sack_le"] != ""]
    assert len(sacked) > 0, "losses with SACK recovery produce SACK blocks"
    for _, r in sacked.iterrows():
        le = [int(x) for x in r["tcp.options.sack_le"].split(",")]
        re_ = [int(x) for x in r["tcp.options.sack_re"].split(",")]
        ack = int(r["tcp.ack_raw"])
        # RFC 2018: each block lies above the cumulative ACK; whole segments.
        assert all(ack < a < b and a % MSS == 0 for a, b in zip(le, re_, strict=True))


def test_events_parquet_lists_every_data_loss(run_dir):
    run, d = run_dir
    ev = pd.read_parquet(d / "events.parquet")
    drops = ev[(ev["kind"] == "drop") & (ev["packet"] == "data")]
    # flows.parquet counts each flow's data losses independently of the drop log.
    per_flow = drops.groupby("flow").size()
    for _, f in run.flows.iterrows():
        assert per_flow.get(f["flow"], 0) == f["losses"]
    cong = ev[ev["kind"] == "congestion"]
    assert len(cong) == run.summary["links"]["bottleneck"]["sync"]["events"]
    for _, e in cong.iterrows():
        members = drops[drops["event"] == e["event"]]
        assert len(members) == e["drops"]
        assert members["flow"].nunique() == e["flows_lost"]
        assert e["sync"] == pytest.approx(e["flows_lost"] / e["flows_active"])
    back = ccsim.load(d)
    pd.testing.assert_frame_equal(back.events, run.events)
    assert sorted(back.pcap) == ["bottleneck", "bottleneck_rev"]


def test_ecn_bits_reach_the_trace():
    # RED marking ECN-capable flows: ECT(0) on data, CE where RED marked, ECE echoed.
    sc = SCENARIO.replace(
        'buffer = "20pkt"', 'buffer = "100pkt"\nqueue = { kind = "red", ecn = true }'
    )
    sc = sc.replace('recovery = "sack"', 'recovery = "sack"\ntcp = { ecn = true }')
    run = ccsim.run(sc, set={"duration": "5s"})
    t = tshark(run.pcap["bottleneck"], "ip.dsfield.ecn")
    ecn = t["ip.dsfield.ecn"].astype(int)
    assert set(ecn.unique()) <= {2, 3}
    assert (ecn == 3).any(), "RED marked some packets CE"
    acks = tshark(run.pcap["bottleneck_rev"], "tcp.flags.ece")
    assert (acks["tcp.flags.ece"].isin(["1", "True"])).any()
