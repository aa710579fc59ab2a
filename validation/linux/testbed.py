#!/usr/bin/env python3
"""Real-Linux reference testbed for ccsim's linux TCP profile (issue 15, item 4).

Topology (four network namespaces, veth pairs, all offloads off):

    snd --- rtr ==[HTB rate R, pfifo limit B packets]==> dly --- rcv
                                                       (NFQUEUE hold D/2 each way)

* snd runs iperf3 clients (-C reno|cubic|bbr), rcv runs iperf3 servers.
* rtr: egress towards dly is the bottleneck: HTB class (rate = ceil = R) with a
  pfifo child of B packets.  Nothing else queues (veths are noqueue).
* dly: every forwarded packet (both directions) goes to NFQUEUE 0 and is held
  D/2 by nfq_delay (constant delay, FIFO, no drops), so RTT = D + ~0.1 ms.
* sampling: `ss -tin` in snd and `tc -s qdisc` in rtr every --interval seconds.

Every run is bounded by timeouts, and the namespaces, qdiscs and processes are
removed in a finally block (and on SIGTERM/SIGINT).  Nothing is reachable from
outside: the namespaces have no link to the host.

Usage (root):
    python3 testbed.py verify                  # delay program and HTB checks
    python3 testbed.py run --cc cubic --flows 1 --rate 20 --rtt 50 --buf 41 --dur 45
    python3 testbed.py campaign --plan A       # the committed measurement plan
    python3 testbed.py analyze                 # runs.csv + summary.csv from raw/
    python3 testbed.py bursts                  # senders' burst sizes at the router (bursts.json)
    python3 testbed.py rerun POINT --quickack --out quickack_check.json  # ACK every segment
"""
import argparse
import csv
import gzip
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NFQ_SRC = os.path.join(HERE, "nfq_delay.c")
NFQ_BIN = "/tmp/ccsim-linux-testbed/nfq_delay"
RAW = os.environ.get("LT_RAW", "/tmp/ccsim-linux-testbed/raw")
PREFIX = "ccsimlt-"
NS = {k: PREFIX + k for k in ("snd", "rtr", "dly", "rcv")}
RCV_ADDR = "10.77.3.2"
WIRE = 1514  # bytes per full-sized packet as HTB and tc count it (1448 + 52 + 14)
MSS = 1448

SYSCTLS_SND = {  # set in the sender namespace (per-netns values)
    "net.ipv4.tcp_no_metrics_save": "1",
    "net.ipv4.tcp_sack": "1",
    "net.ipv4.tcp_timestamps": "1",
    "net.ipv4.tcp_ecn": "2",
    # The reference was measured with bbr, this host's default: iperf3 sets -C after
    # connect(), so each socket is set up by bbr, whose bbr_init turns Linux's own pacing
    # on (SK_PACING_NEEDED), and Reno and CUBIC keep it (README, "Pacing"). Pinned so that
    # a host with another default measures the same; `run --default-cc reno` gives
    # unpaced Reno and CUBIC (a namespace may set only tcp_allowed_congestion_control).
    "net.ipv4.tcp_congestion_control": "bbr",
}
# Extra attributes of the receiver's route back to the sender: `run --quickack` and
# `rerun --quickack` add `quickack 1` (RTAX_QUICKACK: tcp_in_quickack_mode holds, so the
# receiver ACKs every segment at once, no delayed ACK and no ACK at the application's
# reads), the experiment of docs/linux.md, "Remaining differences".
RCV_ROUTE_EXTRA: list[str] = []
RECORD_SYSCTLS = [
    "net.ipv4.tcp_no_metrics_save", "net.ipv4.tcp_sack", "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_ecn", "net.ipv4.tcp_recovery", "net.ipv4.tcp_early_retrans",
    "net.ipv4.tcp_frto", "net.ipv4.tcp_wmem", "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_limit_output_bytes", "net.ipv4.tcp_autocorking",
    "net.ipv4.tcp_pacing_ss_ratio", "net.ipv4.tcp_pacing_ca_ratio",
    "net.ipv4.tcp_min_tso_segs", "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_adv_win_scale", "net.ipv4.tcp_notsent_lowat",
    "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_dsack",
    "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_reordering",
]

_procs = []


def sh(cmd, ns=None, check=True, timeout=20, capture=True):
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    r = subprocess.run(cmd, capture_output=capture, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: rc={r.returncode} {r.stderr.strip()}")
    return r.stdout if capture else ""


def spawn(cmd, ns=None, **kw):
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    p = subprocess.Popen(cmd, start_new_session=True, **kw)
    _procs.append(p)
    return p


def build_nfq():
    os.makedirs(os.path.dirname(NFQ_BIN), exist_ok=True)
    if not os.path.exists(NFQ_BIN) or os.path.getmtime(NFQ_BIN) < os.path.getmtime(NFQ_SRC):
        sh(["gcc", "-O2", "-Wall", "-o", NFQ_BIN, NFQ_SRC, "-lnetfilter_queue", "-lnfnetlink"])


def teardown():
    for p in _procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for p in _procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(timeout=5)
    _procs.clear()
    for ns in NS.values():
        if os.path.exists(f"/run/netns/{ns}"):
            # kill anything still left inside the namespace (only our processes live there)
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def setup(rate_mbit, rtt_ms, buf_pkts, nfq_maxlen=65536, htb_burst=None):
    """Build the four namespaces.  Returns the nfq_delay Popen."""
    teardown()
    for ns in NS.values():
        sh(["ip", "netns", "add", ns])
    links = [("snd", "s0", "rtr", "r0"), ("rtr", "r1", "dly", "d0"), ("dly", "d1", "rcv", "v0")]
    addrs = {"s0": "10.77.1.1/24", "r0": "10.77.1.2/24", "r1": "10.77.2.1/24",
             "d0": "10.77.2.2/24", "d1": "10.77.3.1/24", "v0": "10.77.3.2/24"}
    for a, ia, b, ib in links:
        sh(["ip", "link", "add", ia, "netns", NS[a], "type", "veth", "peer", "name", ib, "netns", NS[b]])
    for n in NS.values():
        sh(["ip", "link", "set", "lo", "up"], ns=n)
        sh(["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"], ns=n)
        sh(["sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1"], ns=n)
    nsof = {ia: a for a, ia, _, _ in links} | {ib: b for _, _, b, ib in links}
    for ifc, ns in nsof.items():
        sh(["ip", "addr", "add", addrs[ifc], "dev", ifc], ns=NS[ns])
        sh(["ip", "link", "set", ifc, "up"], ns=NS[ns])
        # all offloads off (veth offers tso/gso/gro/tx-checksumming...; lro is fixed off)
        sh(["ethtool", "-K", ifc, "tso", "off", "gso", "off", "gro", "off"], ns=NS[ns], check=False)
        sh(["ethtool", "-K", ifc, "lro", "off"], ns=NS[ns], check=False)
        sh(["ethtool", "-K", ifc, "tx-checksumming", "off", "rx-checksumming", "off", "sg", "off"],
           ns=NS[ns], check=False)
    sh(["ip", "route", "add", "default", "via", "10.77.1.2"], ns=NS["snd"])
    sh(["ip", "route", "add", "10.77.3.0/24", "via", "10.77.2.2"], ns=NS["rtr"])
    sh(["ip", "route", "add", "10.77.1.0/24", "via", "10.77.2.1"], ns=NS["dly"])
    sh(["ip", "route", "add", "default", "via", "10.77.3.1", *RCV_ROUTE_EXTRA], ns=NS["rcv"])
    for n in ("rtr", "dly"):
        sh(["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"], ns=NS[n])
    for k, v in SYSCTLS_SND.items():
        for n in ("snd", "rcv"):
            sh(["sysctl", "-q", "-w", f"{k}={v}"], ns=NS[n])
    # bottleneck: HTB + pfifo at rtr egress towards dly
    burst = htb_burst or 2 * WIRE
    sh(["tc", "qdisc", "add", "dev", "r1", "root", "handle", "1:", "htb", "default", "1"], ns=NS["rtr"])
    sh(["tc", "class", "add", "dev", "r1", "parent", "1:", "classid", "1:1", "htb",
        "rate", f"{rate_mbit}mbit", "ceil", f"{rate_mbit}mbit",
        "burst", str(burst), "cburst", str(burst), "quantum", str(WIRE)], ns=NS["rtr"])
    sh(["tc", "qdisc", "add", "dev", "r1", "parent", "1:1", "handle", "10:", "pfifo",
        "limit", str(buf_pkts)], ns=NS["rtr"])
    # delay hop: NFQUEUE every forwarded packet (both directions), held rtt/2
    sh(["iptables", "-A", "FORWARD", "-j", "NFQUEUE", "--queue-num", "0"], ns=NS["dly"])
    # SCHED_FIFO so that other load on the machine does not delay releases
    nfq = spawn(["chrt", "-f", "50", NFQ_BIN, "0", str(int(rtt_ms * 1000 / 2)), str(nfq_maxlen)], ns=NS["dly"],
                stderr=open(os.path.join(RAW, "_nfq.log"), "w"),
                env=dict(os.environ, NFQ_LATE_LOG=os.path.join(RAW, "_nfq_late.log")))
    time.sleep(0.3)
    if nfq.poll() is not None:
        raise RuntimeError("nfq_delay did not start")
    return nfq


def nfq_proc_counters():
    """/proc/net/netfilter/nfnetlink_queue in dly: queue_total, dropped, user_dropped."""
    out = sh(["cat", "/proc/net/netfilter/nfnetlink_queue"], ns=NS["dly"], check=False)
    f = out.split()
    if len(f) < 9:
        return {}
    return {"queue_total": int(f[2]), "queue_dropped": int(f[5]), "user_dropped": int(f[6])}


def stop_nfq(nfq):
    counters = nfq_proc_counters()
    os.killpg(nfq.pid, signal.SIGTERM)
    nfq.wait(timeout=5)
    log = open(os.path.join(RAW, "_nfq.log")).read()
    m = re.search(r"packets (\d+) max_late_us ([\d.]+) mean_late_us ([\d.]+) max_held (\d+) "
                  r"late_over_1ms (\d+) late_over_5ms (\d+)", log)
    if m:
        counters.update(packets=int(m[1]), max_late_us=float(m[2]), mean_late_us=float(m[3]),
                        max_held=int(m[4]), late_over_1ms=int(m[5]), late_over_5ms=int(m[6]))
    return counters


def record_sysctls():
    out = {}
    for k in RECORD_SYSCTLS:
        out[k] = sh(["sysctl", "-n", k], ns=NS["snd"], check=False).strip().replace("\t", " ")
    out["net.core.default_qdisc(host)"] = open("/proc/sys/net/core/default_qdisc").read().strip()
    out["kernel"] = os.uname().release
    out["snd_qdisc"] = sh(["tc", "qdisc", "show", "dev", "s0"], ns=NS["snd"]).strip()
    out["offloads_s0"] = " ".join(
        l.strip() for l in sh(["ethtool", "-k", "s0"], ns=NS["snd"]).splitlines()
        if re.match(r"\s*(tcp-segmentation-offload|generic-segmentation-offload|"
                    r"generic-receive-offload|large-receive-offload):", l))
    out["iperf3"] = subprocess.run(["iperf3", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    return out


# ---------------------------------------------------------------- one run

def run_one(name, flows, rate, rtt, buf, dur, warm, interval=0.02, tail=3.0, htb_burst=None,
            capture=None, capture_at=("r0",), stagger_ms=0.0):
    """flows: list of cc names, one iperf3 client per flow, all started together; htb_burst:
    the HTB class's burst and cburst in bytes (default two frames); capture: (start, seconds)
    to record the router's interfaces *capture_at* (r0: its ingress from the sender; r1: its
    egress after HTB), headers only, into <iface>.pcap."""
    os.makedirs(RAW, exist_ok=True)
    d = os.path.join(RAW, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    meta = dict(name=name, flows=flows, rate_mbit=rate, rtt_ms=rtt, buf_pkts=buf, dur_s=dur,
                warm_s=warm, interval_s=interval, mss=MSS, wire_bytes=WIRE,
                htb_burst=htb_burst or 2 * WIRE, rcv_route_extra=RCV_ROUTE_EXTRA)
    try:
        nfq = setup(rate, rtt, buf, htb_burst=htb_burst)
        meta["sysctls"] = record_sysctls()
        ports = [5201 + i for i in range(len(flows))]
        for p in ports:
            spawn(["iperf3", "-s", "-1", "-p", str(p)], ns=NS["rcv"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        total = dur + 3
        smp = [
            spawn(["nice", "-n", "5", sys.executable, os.path.join(HERE, "sampler.py"), str(interval), str(total),
                   os.path.join(d, "ss.txt"), "ss", "-tinH", "state", "established", "dst", RCV_ADDR],
                  ns=NS["snd"]),
            spawn(["nice", "-n", "5", sys.executable, os.path.join(HERE, "sampler.py"), str(interval), str(total),
                   os.path.join(d, "tc.txt"), "tc", "-s", "qdisc", "show", "dev", "r1"], ns=NS["rtr"]),
        ]
        time.sleep(0.3)
        t0 = time.monotonic()
        cl = []
        for i, (cc, p) in enumerate(zip(flows, ports)):
            if i and stagger_ms:
                time.sleep(stagger_ms / 1e3)  # --stagger: each client this much after the last
            cl.append(spawn(["timeout", str(dur + 15), "iperf3", "-c", RCV_ADDR, "-p", str(p),
                             "-t", str(dur), "-C", cc, "-J", "--connect-timeout", "3000"],
                            ns=NS["snd"], stdout=open(os.path.join(d, f"iperf{i}.json"), "w"),
                            stderr=subprocess.STDOUT))
        meta["t0"] = t0
        if capture:
            start, secs = capture
            time.sleep(max(0.0, t0 + start - time.monotonic()))
            caps = [spawn(["timeout", str(secs + 10), "tshark", "-q", "-i", ifc, "-s", "96", "-F",
                           "pcap", "-a", f"duration:{secs}", "-w", os.path.join(d, f"{ifc}.pcap")],
                          ns=NS["rtr"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    for ifc in capture_at]
            for cap in caps:
                cap.wait(timeout=secs + 15)
        for c in cl:
            c.wait(timeout=dur + 20)
        for s in smp:
            s.wait(timeout=10)
        meta["nfq"] = stop_nfq(nfq)
        # the delay hop's wake-ups that released packets over 1 ms late (nfq_delay.c)
        shutil.move(os.path.join(RAW, "_nfq_late.log"), os.path.join(d, "nfq_late.log"))
        meta["iperf_rc"] = [c.returncode for c in cl]
        # the sender's TCP counters (a fresh namespace starts them at 0): which HyStart
        # detector ended slow start (TcpExtTCPHystart*), retransmissions, SACK recovery
        counters = [ln.split()[:2] for ln in
                    sh(["nstat", "-az"], ns=NS["snd"], check=False).splitlines()]
        meta["nstat"] = {c[0]: int(c[1]) for c in counters
                         if len(c) == 2 and c[0].startswith("Tcp") and c[1].isdigit()
                         and c[1] != "0"}
    finally:
        teardown()
    meta["ports"] = [5201 + i for i in range(len(flows))]
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return d


# ---------------------------------------------------------------- parsing

def pcap_packets(path):
    """The TCP segments of a classic pcap (Ethernet or raw IPv4; µs or ns timestamps), in
    order: (time, source port, sequence number, IP length, payload bytes)."""
    import struct
    with open(path, "rb") as f:
        raw = f.read()
    magic = struct.unpack("<I", raw[:4])[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        raise ValueError(f"{path}: not a little-endian classic pcap (magic {magic:#x})")
    frac = 1e-9 if magic == 0xA1B23C4D else 1e-6
    link = struct.unpack("<I", raw[20:24])[0]
    l2 = {1: 14, 101: 0, 228: 0}.get(link)  # Ethernet, raw IP, raw IPv4
    if l2 is None:
        raise ValueError(f"{path}: link type {link} is neither Ethernet nor raw IP")
    i = 24
    while i + 16 <= len(raw):
        sec, sub_, incl, _ = struct.unpack("<IIII", raw[i:i + 16])
        pkt = raw[i + 16:i + 16 + incl]
        i += 16 + incl
        ip = pkt[l2:]
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack(">H", ip[2:4])[0]
        tcp = ip[ihl:]
        if len(tcp) < 20:
            continue
        port, seq = struct.unpack(">H", tcp[0:2])[0], struct.unpack(">I", tcp[4:8])[0]
        yield sec + sub_ * frac, port, seq, tot, tot - ihl - (tcp[12] >> 4) * 4


def pcap_bursts(path, gap_us=60.0, t_from=0.0):
    """Data segments of a classic pcap (see pcap_packets), grouped by TCP source port, into
    bursts: segments less than *gap_us* apart belong to one. Segments before *t_from* (the
    trace's clock) are left out. Returns {port: {size: count}}. At these rates a paced
    sender's segments are 0.6 ms or more apart and a burst's are a few µs apart (12 µs at
    1 Gb/s)."""
    last, run, out = {}, {}, {}
    for t, port, _, _, payload in pcap_packets(path):
        if payload <= 0 or t < t_from:
            continue  # a pure ACK
        hist = out.setdefault(port, {})
        if port in last and (t - last[port]) * 1e6 < gap_us:
            run[port] += 1
        else:
            if port in run:
                hist[run[port]] = hist.get(run[port], 0) + 1
            run[port] = 1
        last[port] = t
    for port, k in run.items():
        out[port][k] = out[port].get(k, 0) + 1
    return out


def htb_release_lateness(r0_path, r1_path, rate_bps, burst_bytes, l2_bytes=14):
    """How late HTB releases each data frame, from the router's ingress (r0) and egress (r1)
    captures of the same packets: HTB may send a frame once it has arrived and the class's
    tokens are >= 0 (sch_htb.c, htb_class_mode), tokens accruing at the rate up to the
    burst and each frame paying its L2 length (IP + 14 bytes) at the rate. Replaying the
    egress times through that rule gives each frame's earliest release; the lateness is
    the capture's time minus it (>= 0 up to timestamp noise). HTB's tokens are known after
    a gap between releases long enough to fill the bucket (the burst plus the last frame's
    time): the replay starts at the first such gap, frames before it left out, and takes
    the bucket as full after every later one. A capture without such a gap (one long
    backlog) is replayed from its first frame, taken as released when its tokens reached
    zero. Returns the lateness in µs of the frames matched in both captures (by source port
    and sequence number; retransmitted sequence numbers are left out)."""
    seen, dup = {}, set()
    for t, port, seq, _, payload in pcap_packets(r0_path):
        if payload > 0:
            if (port, seq) in seen:
                dup.add((port, seq))
            seen[(port, seq)] = t
    burst_s = burst_bytes * 8 / rate_bps
    frames = [(t, port, seq, (tot + l2_bytes) * 8 / rate_bps)
              for t, port, seq, tot, payload in pcap_packets(r1_path) if payload > 0]
    full = [k for k in range(1, len(frames))
            if frames[k][0] - frames[k - 1][0] >= burst_s + frames[k - 1][3]]
    first = full[0] if full else 0
    zero, out = None, []
    for k in range(first, len(frames)):
        t, port, seq, tx = frames[k]
        if k > first and frames[k][0] - frames[k - 1][0] >= burst_s + frames[k - 1][3]:
            zero = t - burst_s  # the bucket has been full since before t
        elif k == first:
            zero = t - burst_s if full else None
        arrived = seen.get((port, seq))
        if zero is not None and arrived is not None and (port, seq) not in dup:
            out.append((t - max(arrived, zero)) * 1e6)
        zero = (t if zero is None else max(zero, t - burst_s)) + tx
    return out


def htb_release_stats(d, rate_mbit, burst_bytes):
    """Percentiles of htb_release_lateness over a run's r0.pcap and r1.pcap."""
    late = sorted(htb_release_lateness(os.path.join(d, "r0.pcap"), os.path.join(d, "r1.pcap"),
                                       rate_mbit * 1e6, burst_bytes))
    n = len(late)
    q = {f"p{int(p * 100)}_us": round(late[min(n - 1, int(p * n))], 1)
         for p in (0.01, 0.1, 0.5, 0.9, 0.99)}
    frame_us = WIRE * 8 / rate_mbit
    return {"frames": n, "mean_us": round(sum(late) / n, 1), **q, "max_us": round(late[-1], 1),
            "frame_time_us": round(frame_us, 1),
            "over_a_frame_time": round(sum(x > frame_us for x in late) / n, 4),
            "early_over_20us": round(sum(x < -20 for x in late) / n, 4)}


def parse_samples(path):
    t, buf = None, []
    with open(path) as f:
        for line in f:
            if line.startswith("@@ "):
                if t is not None:
                    yield t, "".join(buf)
                t, buf = float(line[3:]), []
            else:
                buf.append(line)
    if t is not None:
        yield t, "".join(buf)


def parse_tc(path):
    """-> list of (t, sent_bytes, sent_pkts, dropped, backlog_bytes, backlog_pkts) for the pfifo."""
    rows = []
    for t, txt in parse_samples(path):
        m = re.search(r"qdisc pfifo 10:.*?Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits \d+ "
                      r"requeues \d+\)\s+backlog (\d+)b (\d+)p", txt, re.S)
        if m:
            rows.append((t,) + tuple(int(x) for x in m.groups()))
    return rows


SS_RE = {k: re.compile(p) for k, p in {
    "cwnd": r"\bcwnd:(\d+)", "ssthresh": r"\bssthresh:(\d+)", "rtt": r"\brtt:([\d.]+)/",
    "bytes_acked": r"\bbytes_acked:(\d+)", "retrans": r"\bretrans:\d+/(\d+)",
    "unacked": r"\bunacked:(\d+)", "pacing": r"\bpacing_rate (\S+)", "minrtt": r"\bminrtt:([\d.]+)",
    "lost": r"\blost:(\d+)", "bbr_bw": r"\bbbr:\(bw:([\d.]+[KMG]?)bps",
    "pacing_gain": r"\bpacing_gain:([\d.]+)"}.items()}
_SI = {"K": 1e3, "M": 1e6, "G": 1e9}


def _bps(text):
    """A rate as ss prints it, less the 'bps' ('19.1M', '229920') -> bits/s."""
    return float(text[:-1]) * _SI[text[-1]] if text[-1] in _SI else float(text)


def parse_ss(path):
    """-> list of dict(t, dport, cwnd, ssthresh, rtt, bytes_acked, ...).  Entries with -H: one line
    per socket ('ESTAB ... 10.77.1.1:port 10.77.3.2:5201 \\n\\t cubic wscale...') -> join pairs."""
    out = []
    for t, txt in parse_samples(path):
        lines = txt.splitlines()
        i = 0
        while i < len(lines):
            l = lines[i]
            m = re.search(r"10\.77\.3\.2:(\d+)", l)
            if m and i + 1 < len(lines):
                info = lines[i + 1]
                i += 2
            elif m:
                info = l
                i += 1
            else:
                i += 1
                continue
            if "cwnd:" not in info and "cwnd:" in l:
                info = l
            r = {"t": t, "dport": int(m[1])}
            for k, rx in SS_RE.items():
                mm = rx.search(info)
                if mm:
                    r[k] = mm[1] if k == "pacing" else _bps(mm[1]) if k == "bbr_bw" else float(mm[1])
            out.append(r)
    return out


def flow_series(ss_rows, ports):
    """Per port, the data connection (the one with the most bytes acked)."""
    series = {}
    for p in ports:
        rows = [r for r in ss_rows if r["dport"] == p and "cwnd" in r]
        # two sockets per port (control + data); keep samples of the one that ends with most bytes
        by_peer = {}
        for r in rows:
            by_peer.setdefault(r.get("_k", 0), []).append(r)
        # control connection never reaches 64 kB acked; keep rows with bytes_acked > 64 kB or cwnd > 10
        data = [r for r in rows if r.get("bytes_acked", 0) > 65536 or r.get("unacked", 0) > 2]
        series[p] = data
    return series


def value_at(rows, t, key):
    """Last sample at or before t (rows sorted by t)."""
    v = None
    for r in rows:
        if r["t"] > t:
            break
        if key in r:
            v = r[key]
    return v


def drop_events(tc_rows, t_lo, t_hi, gap):
    """Group drop increments into events: increments separated by less than `gap` s join one."""
    events = []
    prev = None
    for r in tc_rows:
        if prev is not None and t_lo <= r[0] <= t_hi and r[3] > prev[3]:
            n = r[3] - prev[3]
            if events and r[0] - events[-1]["t_last"] < gap:
                events[-1]["drops"] += n
                events[-1]["t_last"] = r[0]
            else:
                events.append({"t": r[0], "t_last": r[0], "drops": n})
        prev = r
    return events


def reductions(rows, t_lo, t_hi, merge_s):
    """Window reductions from ss samples -> list of (t, cwnd_before, ssthresh_after).

    Linux lowers cwnd only on loss (CA_Recovery with PRR, or CA_Loss after an RTO) at these
    settings, so a reduction starts at the first sample whose cwnd is below the previous one;
    further decreases within merge_s (the recovery, PRR takes about one RTT) belong to it.
    cwnd_before is the last sample before the decrease; ssthresh_after is the ssthresh of the
    first decreased sample (set when recovery starts).  ssthresh changes alone are not used:
    Reno's steady state repeats the same ssthresh every cycle.
    """
    out = []
    prev = None
    last_start = -1e9
    for r in rows:
        if prev is not None and r["cwnd"] < prev["cwnd"] and t_lo <= r["t"] <= t_hi:
            if r["t"] - last_start > merge_s:
                out.append((r["t"], prev["cwnd"], r.get("ssthresh", 0)))
                last_start = r["t"]
            else:
                last_start = r["t"]  # extend the event while cwnd keeps falling
        prev = r
    return out


def unmatched(ing, egr) -> set[int]:
    """Indexes of the ingress rows *ing* (pcap_packets rows) that no egress row matches: an
    egress copy of a segment is matched to the latest earlier unmatched ingress copy, so a
    lost original and its delivered retransmission count once."""
    import bisect

    outs: dict[tuple, list[float]] = {}
    for t, port, seq, _, _ in egr:
        outs.setdefault((port, seq), []).append(t)
    by_key: dict[tuple, list[int]] = {}
    for i, (_, port, seq, _, _) in enumerate(ing):
        by_key.setdefault((port, seq), []).append(i)
    lost = []
    for k, idx in by_key.items():
        out = outs.get(k, ())
        if len(idx) == 1:  # sent once (nearly all): matched by any copy out after it
            if not out or max(out) + 1e-6 < ing[idx[0]][0]:
                lost.append(idx[0])
            continue
        ts = [ing[i][0] for i in idx]
        used = [False] * len(ts)
        for te in out:
            j = bisect.bisect_right(ts, te + 1e-6) - 1
            while j >= 0 and used[j]:
                j -= 1
            if j >= 0:
                used[j] = True
        lost += [i for i, u in zip(idx, used, strict=True) if not u]
    return set(lost)


def drop_stats(ing, egr, ports, t_lo, t_hi, gap_s=0.25):
    """Who loses at a bottleneck, from its ingress and egress packets (pcap_packets rows;
    ports: sender port -> name): each ingress copy of a segment not matched by an egress
    copy is a drop (an egress copy is matched to the latest earlier ingress copy, so a lost
    original and its delivered retransmission count once); drops in [t_lo, t_hi] less than
    gap_s apart form one congestion event. Per flow: its segments, the share dropped, drops
    per event, and where the dropped segments sat in their bursts (segments < 60 us apart:
    "2of2" is the second of a pair); events by which flows lost in them."""
    ing = [p for p in ing if p[4] > 0 and p[1] in ports]
    egr = [p for p in egr if p[4] > 0 and p[1] in ports]
    drops = sorted((ing[i][0], ing[i][1]) for i in unmatched(ing, egr))
    pos, last, run = {}, {}, {}
    for t, port, _, _, _ in ing + [(float("inf"), p, 0, 0, 0) for p in ports]:
        if port in last and t - last[port] < 60e-6:
            run[port].append(t)
            last[port] = t
            continue
        for k, tt in enumerate(run.get(port, [])):
            pos[(port, tt)] = f"{k + 1}of{len(run[port])}"
        run[port], last[port] = [t], t
    drops = [x for x in drops if t_lo <= x[0] <= t_hi]
    events = []
    for t, port in drops:
        if events and t - events[-1][-1][0] < gap_s:
            events[-1].append((t, port))
        else:
            events.append([(t, port)])
    kinds = {}
    for e in events:
        k = "+".join(sorted({ports[p] for _, p in e}))
        kinds[k] = kinds.get(k, 0) + 1
    out = {"seconds": round(t_hi - t_lo, 2), "events": len(events), "drops": len(drops),
           "events_by_losers": kinds, "flows": {}}
    for port, cc in ports.items():
        sent = sum(1 for t, p, *_ in ing if p == port and t_lo <= t <= t_hi)
        mine = [t for t, p in drops if p == port]
        where = {}
        for t in mine:
            where[pos.get((port, t), "?")] = where.get(pos.get((port, t), "?"), 0) + 1
        per_event = round(len(mine) / len(events), 2) if events else None
        out["flows"][cc] = {"segments": sent, "dropped": len(mine),
                            "loss": round(len(mine) / sent, 5) if sent else None,
                            "drops_per_event": per_event,
                            "dropped_in_burst": dict(sorted(where.items()))}
    return out


def pcap_tcp_headers(path):
    """(time, TCP header and payload bytes, payload length) of each TCP packet of a pcap
    file (Ethernet, raw IP or Linux cooked captures, µs or ns timestamps)."""
    import struct

    raw = open(path, "rb").read()
    frac = 1e-9 if struct.unpack("<I", raw[:4])[0] == 0xA1B23C4D else 1e-6
    l2 = {1: 14, 101: 0, 228: 0}[struct.unpack("<I", raw[20:24])[0]]
    i = 24
    while i + 16 <= len(raw):
        sec, sub_, incl, _ = struct.unpack("<IIII", raw[i:i + 16])
        ip = raw[i + 16 + l2:i + 16 + incl]
        i += 16 + incl
        if len(ip) >= 40 and ip[9] == 6:
            ihl = (ip[0] & 15) * 4
            tcp = ip[ihl:]
            payload = struct.unpack(">H", ip[2:4])[0] - ihl - (tcp[12] >> 4) * 4
            yield sec + sub_ * frac, tcp, payload


ACK_TIMING_P = (0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)


def _has_sack(tcp):
    """Whether a TCP header carries a SACK option (kind 5, RFC 2018)."""
    i, end = 20, (tcp[12] >> 4) * 4
    while i < end:
        kind = tcp[i]
        if kind == 0:
            return False
        if kind == 1:
            i += 1
            continue
        if kind == 5:
            return True
        i += max(tcp[i + 1], 2) if i + 1 < end else end
    return False


def ack_timing(data_pcap, ack_pcaps=(), t_lo=0.0, t_hi=1e9):
    """How the return path times the ACKs, seen at the bottleneck: for each ACK that first
    acknowledges the end of a data segment sent once (a segment of that flow in
    *data_pcap* whose sequence end equals the ACK number; duplicates and retransmitted
    ends are left out, and so is every ACK that carries SACK blocks or follows one: a
    recovery's cumulative ACK covers segments that arrived long before), the time from
    the segment's capture to the ACK's capture in *ack_pcaps* (none: *data_pcap* itself,
    as the testbed's r1, which sees both). Per flow, the excess
    over the flow's least such delay; over ACKs captured in [t_lo, t_hi] s after
    *data_pcap*'s first packet: the excess's
    quantiles (ms) at ACK_TIMING_P, and the shares of consecutive ACKs whose excess grows
    by more than 0.5, 1 and 2 ms (the gap the return path adds between two ACKs: what
    breaks HyStart's ACK train, `hystart_ack_delta_us` = 2 ms)."""
    import struct

    sent, dup, t0 = {}, set(), None
    for t, tcp, payload in pcap_tcp_headers(data_pcap):
        t0 = t if t0 is None else t0
        if payload > 0:
            key = (tcp[0:2], tcp[2:4], struct.unpack(">I", tcp[4:8])[0] + payload)
            if key in sent:
                dup.add(key)
            sent.setdefault(key, t)
    by_flow, seen, sacked = {}, set(), {}
    acks = sorted(
        (a for path in ack_pcaps or [data_pcap] for a in pcap_tcp_headers(path) if not a[2]),
        key=lambda a: a[0],
    )
    for t, tcp, payload in acks:
        if payload:
            continue
        key = (tcp[2:4], tcp[0:2], struct.unpack(">I", tcp[8:12])[0])
        sack, sacked[key[:2]] = sacked.get(key[:2], False), _has_sack(tcp)
        if key in seen:
            continue
        seen.add(key)
        if sack or sacked[key[:2]]:
            continue
        if key in sent and key not in dup and t_lo <= t - t0 <= t_hi:
            by_flow.setdefault(key[:2], []).append((t - sent[key]) * 1e3)
    excess, grows = [], []
    for ds in by_flow.values():
        m = min(ds)
        excess += [d - m for d in ds]
        grows += [b - a for a, b in zip(ds, ds[1:], strict=False)]
    excess.sort()
    n, g = len(excess), max(len(grows), 1)
    return {
        "acks": n,
        "excess_ms": {str(p): round(excess[int(p * (n - 1))], 4) for p in ACK_TIMING_P}
        if n else {},
        "grows_over_ms": {str(x): round(sum(d > x for d in grows) / g, 5) for x in (0.5, 1.0, 2.0)},
    }


LOOP_P = (0.01, 0.1, 0.5, 0.9)
LOOP_RELEASE_S = 100e-6  # an ACK's release leaves the sender within tens of µs of it


def full_loop(departures, acks, arrivals, turn=0.0, t_lo=0.0, t_hi=1e9):
    """The ACK clock's round trip at the bottleneck: for each segment sent once whose end
    an ACK without SACK blocks first acknowledges, the time from the segment's departure
    (*departures*: {(source port, sequence end): time}) to the arrival at the bottleneck
    of the first segment its flow sends after the ACK (*arrivals*: {port: sorted times}),
    if that arrives within LOOP_RELEASE_S of the ACK's time (*acks*: time-ordered
    (time, port, ACK number, has SACK) at the router) plus *turn* (the senders' round
    trip from where the ACKs were seen: none in the testbed). Quantiles (ms) at LOOP_P
    over ACKs in [t_lo, t_hi]. What the phase of the flows' arrivals against the
    bottleneck's departures follows (docs/linux.md, "The first dropper's drops, in each
    mode")."""
    import bisect

    loops, seen = [], set()
    for t, port, ack, has_sack in acks:
        if (port, ack) in seen or not t_lo <= t <= t_hi:
            continue
        seen.add((port, ack))
        sent = departures.get((port, ack))
        if sent is None or has_sack:
            continue
        a = arrivals.get(port, [])
        i = bisect.bisect_left(a, t + turn)
        if i < len(a) and a[i] - (t + turn) < LOOP_RELEASE_S:
            loops.append((a[i] - sent) * 1e3)
    loops.sort()
    n = len(loops)
    return {"releases": n, "loop_ms": {str(p): round(loops[int(p * (n - 1))], 4) for p in LOOP_P}
            if n else {}}


def testbed_full_loop(d, t_lo=1.0, t_hi=1e9):
    """full_loop of a testbed run with r0 and r1 captures: departures at r1 (HTB's
    release), ACKs and arrivals at r0 (the sender answers in tens of µs), over [t_lo,
    t_hi] s after r0's first packet. Segments sent more than once are left out."""
    import struct

    dep, dup = {}, set()
    for t, tcp, payload in pcap_tcp_headers(os.path.join(d, "r1.pcap")):
        if payload > 0:
            key = (struct.unpack(">H", tcp[0:2])[0], struct.unpack(">I", tcp[4:8])[0] + payload)
            if key in dep:
                dup.add(key)
            dep.setdefault(key, t)
    acks, arrivals, t0 = [], {}, None
    for t, tcp, payload in pcap_tcp_headers(os.path.join(d, "r0.pcap")):
        t0 = t if t0 is None else t0
        sp, dp = struct.unpack(">HH", tcp[:4])
        if payload > 0:
            arrivals.setdefault(sp, []).append(t)
        elif (dp, struct.unpack(">I", tcp[8:12])[0]) not in dup:
            acks.append((t, dp, struct.unpack(">I", tcp[8:12])[0], _has_sack(tcp)))
    return full_loop(dep, acks, arrivals, 0.0, t0 + t_lo, t0 + t_hi)


def pcap_psh_bursts(path, gap_us=60.0, t_from=0.0):
    """Each data flow's bursts (segments less than *gap_us* apart, as pcap_bursts) by
    their PSH flags in order ('.' without, 'P' with; '.P' is a pair whose second segment
    carries PSH): {source port: {pattern: count}}. Segments before *t_from* are left out."""
    import struct

    last, cur, out = {}, {}, {}
    for t, tcp, payload in pcap_tcp_headers(path):
        if payload <= 0 or t < t_from:
            continue
        port = struct.unpack(">H", tcp[0:2])[0]
        flag = "P" if tcp[13] & 0x08 else "."
        if port in last and (t - last[port]) * 1e6 < gap_us:
            cur[port] += flag
        else:
            if port in cur:
                h = out.setdefault(port, {})
                h[cur[port]] = h.get(cur[port], 0) + 1
            cur[port] = flag
        last[port] = t
    for port, pat in cur.items():
        h = out.setdefault(port, {})
        h[pat] = h.get(pat, 0) + 1
    return out


def capture_psh_patterns(d, top=8):
    """pcap_psh_bursts of a run's r0.pcap by congestion control (capture_bursts' names):
    each flow's *top* most frequent patterns."""
    names = {int(k.split(":")[1]): k.split(":")[0] for k in capture_bursts(d)}
    out = {}
    for port, h in pcap_psh_bursts(os.path.join(d, "r0.pcap")).items():
        if port in names:
            out[names[port]] = dict(sorted(h.items(), key=lambda kv: -kv[1])[:top])
    return out


def capture_drops(d, gap_s=0.25):
    """drop_stats of a run's r0.pcap (the router's ingress) and r1.pcap (its egress after
    HTB), over the capture less 0.5 s at each end, by algorithm; and, per algorithm, the
    segments each ACK newly acknowledges (0 for a duplicate), the share of segments that
    carry PSH, and of the one-segment ACKs that acknowledge such a segment (Linux's
    receiver ACKs a full-sized PSH segment at the application's next read, alone if need
    be: ICSK_ACK_PUSHED, tcp_measure_rcv_mss)."""
    import struct

    ports = {}  # the senders' ports -> algorithm (numbered where two share one)
    n = len(json.load(open(os.path.join(d, "meta.json")))["ports"])
    ccs = [json.load(open(os.path.join(d, f"iperf{i}.json")))["end"]["sender_tcp_congestion"]
           for i in range(n)]
    for i, cc in enumerate(ccs):
        j = json.load(open(os.path.join(d, f"iperf{i}.json")))
        ports[j["start"]["connected"][0]["local_port"]] = cc if ccs.count(cc) == 1 else f"{cc}{i}"
    ing = [p for p in pcap_packets(os.path.join(d, "r0.pcap")) if p[4] > 0 and p[1] in ports]
    t_lo, t_hi = ing[0][0] + 0.5, ing[-1][0] - 0.5
    out = drop_stats(ing, pcap_packets(os.path.join(d, "r1.pcap")), ports, t_lo, t_hi, gap_s)

    def tcp_headers(name):
        return pcap_tcp_headers(os.path.join(d, name))

    # PSH: which data segments leaving HTB carry it (by the sequence number they end at)
    psh, n_psh = {}, {}
    for _, tcp, payload in tcp_headers("r1.pcap"):
        sport = struct.unpack(">H", tcp[0:2])[0]
        if payload > 0 and sport in ports:
            end = (struct.unpack(">I", tcp[4:8])[0] + payload) % (1 << 32)
            psh[(sport, end)] = bool(tcp[13] & 0x08)
            n_psh[sport] = n_psh.get(sport, 0) + psh[(sport, end)]
    # ACKs, as r0 forwards them to the sender: segments newly acknowledged by each, and
    # whether the one-segment ACKs acknowledge a segment that carried PSH
    prev, sizes, single = {}, {}, {}
    for t, tcp, payload in tcp_headers("r0.pcap"):
        dport = struct.unpack(">H", tcp[2:4])[0]
        if dport not in ports or payload:
            continue
        ack = struct.unpack(">I", tcp[8:12])[0]
        if dport in prev and t_lo <= t <= t_hi:
            k = str(round(((ack - prev[dport]) % (1 << 32)) / MSS))
            h = sizes.setdefault(ports[dport], {})
            h[k] = h.get(k, 0) + 1
            if k == "1":
                c = single.setdefault(ports[dport], [0, 0])
                c[0] += 1
                c[1] += psh.get((dport, ack), False)
        prev[dport] = ack
    for port, cc in ports.items():
        f = out["flows"][cc]
        sent = sum(1 for k in psh if k[0] == port)
        f["psh_share_of_segments"] = round(n_psh.get(port, 0) / sent, 4) if sent else None
        h = sizes.get(cc, {})
        n = sum(h.values())
        by_size = sorted(h.items(), key=lambda kv: int(kv[0]))
        f["ack_sizes"] = {k: round(v / n, 4) for k, v in by_size if v / n >= 0.002}
        c = single.get(cc, [0, 0])
        f["one_segment_acks_of_a_psh_segment"] = round(c[1] / c[0], 4) if c[0] else None
    return out


def capture_bursts(d):
    """The burst sizes of each data flow in a run's r0.pcap (see pcap_bursts), by its
    congestion control (read from ss.txt); written to bursts.json in the run's directory."""
    hist = pcap_bursts(os.path.join(d, "r0.pcap"))
    cc_of = {}
    lines = open(os.path.join(d, "ss.txt")).read().splitlines()
    for a, b in zip(lines, lines[1:], strict=False):
        m = re.search(r"10\.77\.1\.1:(\d+)\s", a + " ")
        if m and b.startswith("\t"):
            cc_of[int(m.group(1))] = b.split()[0]
    out = {}
    for port, h in sorted(hist.items()):
        n = sum(k * c for k, c in h.items())
        if n < 100:
            continue  # iperf3's control connection
        out[f"{cc_of.get(port, '?')}:{port}"] = {
            "segments": n, "bursts": {str(k): h[k] for k in sorted(h)},
            "mean_burst": n / sum(h.values())}
    with open(os.path.join(d, "bursts.json"), "w") as f:
        json.dump(out, f, indent=1)
    return out


def analyze_run(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    t0, warm, dur = meta["t0"], meta["warm_s"], meta["dur_s"]
    lo, hi = t0 + warm, t0 + dur - 1.0
    tc = parse_tc(os.path.join(d, "tc.txt"))
    ss = parse_ss(os.path.join(d, "ss.txt"))
    rate_bps = meta["rate_mbit"] * 1e6
    rtt_s = meta["rtt_ms"] / 1e3
    win = [r for r in tc if lo <= r[0] <= hi]
    a, b = win[0], win[-1]
    T = b[0] - a[0]
    sent_b, sent_p, drops = b[1] - a[1], b[2] - a[2], b[3] - a[3]
    # one congestion event: drops closer than twice the largest RTT (base RTT + full-buffer drain
    # time): a sender keeps growing its window for about one RTT after the first drop, and its
    # reduction reaches the queue after up to one more (and samples are --interval apart)
    gap = 2 * (rtt_s + meta["buf_pkts"] * WIRE * 8 / rate_bps)
    ev = drop_events(tc, a[0], b[0], gap)
    backlog = [r[5] for r in win]
    bq = sorted(backlog)
    row = {
        "run": os.path.basename(d), "cc_mix": "+".join(meta["flows"]), "n_flows": len(meta["flows"]),
        "rate_mbit": meta["rate_mbit"], "rtt_ms": meta["rtt_ms"], "buf_pkts": meta["buf_pkts"],
        "dur_s": dur, "warm_s": warm, "window_s": round(T, 3),
        "utilization": sent_b * 8 / (T * rate_bps),
        "loss_rate": drops / (sent_p + drops) if sent_p + drops else 0.0,
        "drops": drops, "pkts_sent": sent_p, "drop_events": len(ev),
        "drops_per_event": drops / len(ev) if ev else 0.0,
        "event_interval_s": T / len(ev) if ev else "",
        "queue_mean_pkts": statistics.fmean(backlog), "queue_p50_pkts": bq[len(bq) // 2],
        "queue_p95_pkts": bq[int(0.95 * (len(bq) - 1))], "queue_max_pkts": bq[-1],
    }
    # per-flow throughput share from bytes_acked (ss) across the window
    ser = flow_series(ss, meta["ports"])
    thr = []
    for i, p in enumerate(meta["ports"]):
        rows = ser[p]
        ba0, ba1 = value_at(rows, lo, "bytes_acked"), value_at(rows, hi, "bytes_acked")
        t_a = [r["t"] for r in rows if r["t"] <= lo]
        t_b = [r["t"] for r in rows if r["t"] <= hi]
        if ba0 is None or ba1 is None:
            thr.append(float("nan"))
            continue
        thr.append((ba1 - ba0) * 8 / (t_b[-1] - t_a[-1]) / 1e6)
    row["flow_goodput_mbit"] = ";".join(f"{x:.3f}" for x in thr)
    tot = sum(x for x in thr if not math.isnan(x))
    row["flow_share"] = ";".join(f"{x / tot:.4f}" for x in thr) if tot else ""
    fl = meta["flows"]
    jain = tot ** 2 / (len(thr) * sum(x * x for x in thr)) if tot else ""
    row["jain"] = jain
    # share by cc (for mixes): fraction of goodput of the first cc in the mix name
    ccs = sorted(set(fl), key=fl.index)
    for c in ccs:
        row[f"share_{c}"] = sum(x for x, f in zip(thr, fl) if f == c) / tot if tot else ""
    # window reductions (per flow) for loss-based flows
    epochs, betas = [], []
    per = {}
    for p, c in zip(meta["ports"], fl):
        if c not in ("cubic", "reno"):
            continue
        red = reductions(ser[p], lo, hi, max(0.2, 3 * rtt_s))
        b_ = [s / cw for _, cw, s in red if cw]
        e_ = [red[i + 1][0] - red[i][0] for i in range(len(red) - 1)]
        betas += b_
        epochs += e_
        per.setdefault(c, ([], []))
        per[c][0].extend(b_)
        per[c][1].extend(e_)
    for c, (b_, e_) in per.items():
        if len(per) > 1:  # mixes: per algorithm as well
            row[f"beta_{c}"] = statistics.fmean(b_) if b_ else ""
            row[f"epoch_{c}_s"] = statistics.fmean(e_) if e_ else ""
    row["reductions"] = len(betas)
    row["drops_per_reduction"] = drops / len(betas) if betas else ""
    row["epoch_mean_s"] = statistics.fmean(epochs) if epochs else ""
    row["beta_mean"] = statistics.fmean(betas) if betas else ""
    rtts = [r["rtt"] for p in meta["ports"] for r in ser[p] if lo <= r["t"] <= hi and "rtt" in r]
    row["srtt_mean_ms"] = statistics.fmean(rtts) if rtts else ""
    row["retrans_segs"] = sum((value_at(ser[p], hi, "retrans") or 0) - (value_at(ser[p], lo, "retrans") or 0)
                              for p in meta["ports"])
    row["nfq_queue_dropped"] = meta.get("nfq", {}).get("queue_dropped", "")
    row["nfq_user_dropped"] = meta.get("nfq", {}).get("user_dropped", "")
    row["nfq_max_late_us"] = meta.get("nfq", {}).get("max_late_us", "")
    row["nfq_mean_late_us"] = meta.get("nfq", {}).get("mean_late_us", "")
    row["nfq_late_over_1ms"] = meta.get("nfq", {}).get("late_over_1ms", "")
    row["nfq_late_over_5ms"] = meta.get("nfq", {}).get("late_over_5ms", "")
    # equivalent ccsim scenario parameters
    row["ccsim_rate_bps"] = int(rate_bps)
    row["ccsim_access_delay_ms"] = 0.0
    row["ccsim_bottleneck_delay_ms"] = meta["rtt_ms"] / 2
    row["ccsim_buffer_pkts"] = meta["buf_pkts"]
    row["ccsim_flows"] = " ".join(fl)
    row["ccsim_duration_s"] = dur
    row["ccsim_warmup_s"] = warm
    row["ccsim_packet_bytes"] = WIRE
    row["ccsim_mss"] = MSS
    # traces for the simulator comparisons (small: t, flow, cwnd, ssthresh, srtt; BBR's own bw
    # estimate (bits/s of MSS payload, as ss prints bbr_get_info) and pacing gain; and queue)
    with gzip.open(os.path.join(d, "trace_cwnd.csv.gz"), "wt") as f:
        w = csv.writer(f)
        w.writerow(["t_s", "flow", "cc", "cwnd", "ssthresh", "srtt_ms", "bytes_acked", "minrtt_ms",
                    "bbr_bw_bps", "pacing_gain"])
        for i, (p, c) in enumerate(zip(meta["ports"], fl)):
            for r in ser[p]:
                w.writerow([f"{r['t'] - t0:.3f}", i, c, int(r["cwnd"]), int(r.get("ssthresh", 0)) or "",
                            r.get("rtt", ""), int(r.get("bytes_acked", 0)), r.get("minrtt", ""),
                            f"{r['bbr_bw']:.0f}" if "bbr_bw" in r else "", r.get("pacing_gain", "")])
    with gzip.open(os.path.join(d, "trace_queue.csv.gz"), "wt") as f:
        w = csv.writer(f)
        w.writerow(["t_s", "sent_bytes", "sent_pkts", "dropped", "backlog_pkts"])
        for r in tc:
            w.writerow([f"{r[0] - t0:.3f}", r[1], r[2], r[3], r[5]])
    return row


# ---------------------------------------------------------------- verify

def verify(args):
    """Delay accuracy (ping) and throughput of the delay hop + HTB (one cubic flow, large buffer)."""
    os.makedirs(RAW, exist_ok=True)
    res = {}
    for rtt in (0, 50, 100):
        try:
            nfq = setup(50, rtt, 1000)
            out = sh(["ping", "-c", "40", "-i", "0.05", "-q", RCV_ADDR], ns=NS["snd"], timeout=30)
            m = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms", out)
            loss = re.search(r"([\d.]+)% packet loss", out)
            res[f"ping_rtt{rtt}"] = dict(min=float(m[1]), avg=float(m[2]), max=float(m[3]),
                                         mdev=float(m[4]), loss_pct=float(loss[1]))
            res[f"ping_rtt{rtt}"]["nfq"] = stop_nfq(nfq)
        finally:
            teardown()
        print(rtt, res[f"ping_rtt{rtt}"], flush=True)
    # throughput: 50 Mb/s bottleneck, 100 ms RTT, buffer 4 BDP (no drops expected after start-up)
    # and headroom: one BBR flow (keeps the queue short) through a 200 Mb/s bottleneck
    for rate, rtt, cc in ((50, 100, "cubic"), (20, 50, "cubic"), (200, 50, "bbr")):
        bdp = round(rate * 1e6 * rtt / 1e3 / 8 / WIRE)
        name = f"verify_{rate}m_{rtt}ms_{cc}"
        d = run_one(name, [cc], rate, rtt, 4 * bdp, 30, 10)
        row = analyze_run(d)
        res[name] = {k: row[k] for k in ("utilization", "loss_rate", "drops", "srtt_mean_ms",
                                         "queue_mean_pkts", "flow_goodput_mbit", "nfq_queue_dropped",
                                         "nfq_user_dropped", "nfq_max_late_us")}
        res[name]["nfq"] = json.load(open(os.path.join(d, "meta.json")))["nfq"]
        res[name]["buf_pkts"] = 4 * bdp
        res[name]["cc"] = cc
        print(name, res[name], flush=True)
    with open(os.path.join(HERE, "verify.json"), "w") as f:
        json.dump(res, f, indent=1)


# ---------------------------------------------------------------- campaign

def bdp_pkts(rate, rtt):
    return rate * 1e6 * rtt / 1e3 / 8 / WIRE


def plan(name):
    pts = []
    if name == "A":
        rate, rtt, dur, warm = 20, 50, 45, 10
        bdp = bdp_pkts(rate, rtt)
        b = {f: max(2, round(f * bdp)) for f in (0.25, 0.5, 1.0, 3.0)}
        for cc in ("reno", "cubic"):
            for n in (1, 4):
                for f in (0.25, 0.5, 1.0):
                    pts.append(("buffer", [cc] * n, rate, rtt, b[f], f, dur, warm))
        for mix in (["reno", "cubic"], ["bbr", "cubic"], ["bbr"]):
            for f in (0.25, 3.0):
                pts.append(("share" if len(mix) > 1 else "bbr", mix, rate, rtt, b[f], f, dur, warm))
    elif name == "A2":  # two flows at 0.5 BDP (added after A)
        rate, rtt, dur, warm = 20, 50, 45, 10
        b = max(2, round(0.5 * bdp_pkts(rate, rtt)))
        for cc in ("reno", "cubic"):
            pts.append(("buffer", [cc] * 2, rate, rtt, b, 0.5, dur, warm))
    elif name == "B":
        rate, rtt, dur, warm = 50, 100, 60, 15
        bdp = bdp_pkts(rate, rtt)
        b = {f: max(2, round(f * bdp)) for f in (0.25, 1.0, 3.0)}
        for cc in ("cubic",):
            for f in (0.25, 1.0):
                pts.append(("buffer", [cc], rate, rtt, b[f], f, dur, warm))
        for mix in (["bbr", "cubic"], ["bbr"]):
            for f in (0.25, 3.0):
                pts.append(("share" if len(mix) > 1 else "bbr", mix, rate, rtt, b[f], f, dur, warm))
    elif name == "R":
        # More repetitions (run with --reps 10) of the share points whose three runs spread
        # as widely as the comparison's tolerances (shares 0.03, loss rate 25 %): added after
        # A and B, the same set-up and durations.
        for rate, rtt, dur, warm, mixes in (
            (20, 50, 45, 10, ((["bbr", "cubic"], 3.0), (["reno", "cubic"], 3.0),
                              (["reno", "cubic"], 0.25))),
            (50, 100, 60, 15, ((["bbr", "cubic"], 3.0),)),
        ):
            bdp = bdp_pkts(rate, rtt)
            for mix, f in mixes:
                pts.append(("share", mix, rate, rtt, max(2, round(f * bdp)), f, dur, warm))
    return pts


def point_id(kind, flows, rate, rtt, buf):
    from collections import Counter
    c = Counter(flows)
    mix = "+".join(f"{n}{k}" for k, n in c.items())
    return f"{rate}m_{rtt}ms_b{buf}_{mix}"


# The points whose senders' bursts `bursts` records: (point, flows, rate, rtt, buffer), each
# run for 20 s and captured over [12, 16] s (past start-up, BBR in PROBE_BW).
BURST_POINTS = [
    ("20m_50ms_b21_1bbr+1cubic", ["bbr", "cubic"], 20, 50, 21),
    ("20m_50ms_b248_1bbr+1cubic", ["bbr", "cubic"], 20, 50, 248),
    ("50m_100ms_b103_1bbr+1cubic", ["bbr", "cubic"], 50, 100, 103),
    ("50m_100ms_b1238_1bbr", ["bbr"], 50, 100, 1238),
    # Loss-based senders alone: CUBIC's skbs at 50 Mb/s (4 segments, TSO deferral), Reno's
    # at 20 Mb/s (2) (docs/linux.md, "How Linux sends").
    ("50m_100ms_b413_1cubic", ["cubic"], 50, 100, 413),
    ("20m_50ms_b41_1reno", ["reno"], 20, 50, 41),
]
BURST_CAPTURE = (12.0, 4.0)


def bursts(args):
    """How each sender's segments reach the bottleneck router: burst sizes (segments < 60 us
    apart at r0) per flow, one run per BURST_POINTS entry, into bursts.json next to this
    script (docs/linux.md, "Bursts")."""
    path = os.path.join(HERE, "bursts.json")
    out = {"capture_s": list(BURST_CAPTURE), "gap_us": 60, "points": {}}
    only = set(args.points.split(",")) if args.points else None
    if only:
        with open(path) as f:
            out = json.load(f)  # add to / replace in the committed table
    for point, flows, rate, rtt, buf in BURST_POINTS:
        if only and point not in only:
            continue
        d = run_one(f"bursts_{point}", flows, rate, rtt, buf, 20, 2, capture=BURST_CAPTURE)
        b = capture_bursts(d)
        out["points"][point] = {k.split(":")[0]: v for k, v in b.items()}
        print(point, {k: round(v["mean_burst"], 2) for k, v in b.items()}, flush=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


# The points whose HTB release times `htb` records (BURST_POINTS' form): one or more flows
# keeping the bottleneck's queue busy, at both rates.
HTB_POINTS = [
    ("20m_50ms_b248_1bbr", ["bbr"], 20, 50, 248),
    ("20m_50ms_b21_4cubic", ["cubic"] * 4, 20, 50, 21),
    ("50m_100ms_b1238_1bbr", ["bbr"], 50, 100, 1238),
    ("50m_100ms_b103_1bbr+1cubic", ["bbr", "cubic"], 50, 100, 103),
]


def htb_release(args):
    """How late the bottleneck's HTB releases frames (htb_release_lateness: the router's
    ingress and egress captured over [12, 16] s of a 20 s run), one run per HTB_POINTS entry,
    into htb_release.json next to this script (docs/linux.md, item 2)."""
    out = {"capture_s": list(BURST_CAPTURE), "burst_bytes": 2 * WIRE, "points": {}}
    for point, flows, rate, rtt, buf in HTB_POINTS:
        d = run_one(f"htb_{point}", flows, rate, rtt, buf, 20, 2, capture=BURST_CAPTURE,
                    capture_at=("r0", "r1"))
        out["points"][point] = htb_release_stats(d, rate, 2 * WIRE)
        print(point, out["points"][point], flush=True)
    with open(os.path.join(HERE, "htb_release.json"), "w") as f:
        json.dump(out, f, indent=1)


def bbr_estimate(d, rate_mbit, warm_s):
    """Linux's BBR estimate over the link's payload rate in a run (its trace_cwnd.csv.gz, past
    the warm-up, outside PROBE_RTT): (median, 90th percentile) of bbr_bw_bps / payload rate."""
    payload_bps = rate_mbit * 1e6 / (WIRE * 8) * MSS * 8
    with gzip.open(os.path.join(d, "trace_cwnd.csv.gz"), "rt") as f:
        xs = sorted(float(r["bbr_bw_bps"]) / payload_bps for r in csv.DictReader(f)
                    if r["bbr_bw_bps"] and float(r["t_s"]) > warm_s and int(r["cwnd"]) > 4)
    return xs[len(xs) // 2], xs[int(0.9 * len(xs))]


# BBR alone at 3 BDP, the reference table's two points with their durations: (point, rate,
# rtt, buffer, duration, warm-up).
BBR_ALONE_POINTS = [
    ("20m_50ms_b248_1bbr", 20, 50, 248, 45, 10),
    ("50m_100ms_b1238_1bbr", 50, 100, 1238, 60, 15),
]


def bbr_alone(args):
    """BBR alone at 3 BDP again, --reps runs per point: its standing queue and its estimate
    over the link rate run by run (the reference table's three runs spread widely), into
    bbr_alone_rerun.json next to this script (docs/linux.md, item 2)."""
    out = {"points": {}}
    for point, rate, rtt, buf, dur, warm in BBR_ALONE_POINTS:
        runs = []
        for rep in range(args.reps):
            d = run_one(f"rerun_{point}_r{rep}", ["bbr"], rate, rtt, buf, dur, warm)
            a = analyze_run(d)
            med, p90 = bbr_estimate(d, rate, warm)
            runs.append({"queue_mean_pkts": round(a["queue_mean_pkts"], 2),
                         "utilization": round(a["utilization"], 4),
                         "bw_over_link_p50": round(med, 4), "bw_over_link_p90": round(p90, 4),
                         "nfq_mean_late_us": a["nfq_mean_late_us"],
                         "nfq_late_over_1ms": a["nfq_late_over_1ms"]})
            print(point, rep, runs[-1], flush=True)
        out["points"][point] = {"dur_s": dur, "warm_s": warm, "runs": runs}
    with open(os.path.join(HERE, "bbr_alone_rerun.json"), "w") as f:
        json.dump(out, f, indent=1)


def rerun(args):
    """More runs of committed points (summary.csv's parameters), --reps each, on this machine
    and day: every run's metrics (analyze_run's, and BBR's estimate over the link rate where a
    BBR flow runs alone) into --out next to this script, beside the reference's own runs."""
    ref = {r["point"]: r for r in csv.DictReader(open(os.path.join(HERE, "summary.csv")))}
    out = {"points": {}}
    for point in args.points:
        if point not in ref:
            sys.exit(f"rerun: no point {point!r} in summary.csv")
        r = ref[point]
        rate, rtt, buf = float(r["rate_mbit"]), float(r["rtt_ms"]), int(r["buf_pkts"])
        dur, warm = int(float(r["dur_s"])), int(float(r["warm_s"]))
        flows = r["ccsim_flows"].split()
        runs = []
        for rep in range(args.reps):
            d = run_one(f"rerun_{point}_r{rep}", flows, rate, rtt, buf, dur, warm)
            a = analyze_run(d)
            keep = {k: a[k] for k in ("utilization", "loss_rate", "drops_per_event",
                                      "queue_mean_pkts", "epoch_mean_s", "beta_mean", "jain",
                                      "nfq_mean_late_us", "nfq_max_late_us", "nfq_late_over_1ms",
                                      "nfq_late_over_5ms")}
            keep.update({k: v for k, v in a.items() if k.startswith("share_") and v != ""})
            if flows == ["bbr"]:
                keep["bw_over_link_p50"], keep["bw_over_link_p90"] = bbr_estimate(d, rate, warm)
            runs.append(keep)
            print(point, rep, keep, flush=True)
            if args.traces:
                # traces/rerun/<point>_<out's stem>_r<rep>.{cwnd,queue}.csv.gz and the delay
                # hop's late wake-ups (nfq_late.log), for analyses beyond the summary's metrics
                tdir = os.path.join(HERE, "traces", "rerun")
                os.makedirs(tdir, exist_ok=True)
                stem = f"{point}_{os.path.splitext(args.out)[0]}_r{rep}"
                for t in ("trace_cwnd.csv.gz", "trace_queue.csv.gz"):
                    kind = t[6:].split(".")[0]  # cwnd, queue
                    shutil.copy(os.path.join(d, t), os.path.join(tdir, f"{stem}.{kind}.csv.gz"))
                with open(os.path.join(d, "nfq_late.log"), "rb") as src, \
                        gzip.open(os.path.join(tdir, f"{stem}.nfq_late.log.gz"), "wb") as dst:
                    shutil.copyfileobj(src, dst)
        out["points"][point] = {"dur_s": dur, "warm_s": warm, "runs": runs,
                                "receiver_route": " ".join(RCV_ROUTE_EXTRA) or "default",
                                "default_cc": SYSCTLS_SND["net.ipv4.tcp_congestion_control"]}
    with open(os.path.join(HERE, args.out), "w") as f:
        json.dump(out, f, indent=1)


def campaign(args):
    pts = plan(args.plan)
    deadline = time.time() + args.budget_s if args.budget_s else None
    for rep in range(args.reps):
        for kind, flows, rate, rtt, buf, f, dur, warm in pts:
            pid = point_id(kind, flows, rate, rtt, buf)
            name = f"{pid}_r{rep}"
            if os.path.exists(os.path.join(RAW, name, "meta.json")):
                continue
            if deadline and time.time() + dur + 10 > deadline:
                print("budget reached", flush=True)
                return
            t = time.time()
            d = run_one(name, flows, rate, rtt, buf, dur, warm)
            meta = json.load(open(os.path.join(d, "meta.json")))
            meta.update(point=pid, kind=kind, buf_bdp=f, rep=rep)
            json.dump(meta, open(os.path.join(d, "meta.json"), "w"), indent=1)
            try:
                r = analyze_run(d)
                print(f"{name}: util {r['utilization']:.3f} loss {r['loss_rate']:.4f} "
                      f"dpe {r['drops_per_event']:.1f} share {r['flow_share']} "
                      f"epoch {r['epoch_mean_s']} beta {r['beta_mean']} ({time.time() - t:.0f}s)", flush=True)
            except Exception as e:  # keep going; analyze again later
                print(f"{name}: analysis failed: {e}", flush=True)


def analyze(args):
    rows = []
    for name in sorted(os.listdir(RAW)):
        d = os.path.join(RAW, name)
        if name.startswith("verify") or not os.path.exists(os.path.join(d, "meta.json")):
            continue
        meta = json.load(open(os.path.join(d, "meta.json")))
        r = analyze_run(d)
        r.update(point=meta.get("point", ""), kind=meta.get("kind", ""), buf_bdp=meta.get("buf_bdp", ""),
                 rep=meta.get("rep", ""))
        rows.append(r)
        tdir = os.path.join(HERE, "traces")
        os.makedirs(tdir, exist_ok=True)
        for t in ("trace_cwnd.csv.gz", "trace_queue.csv.gz"):
            shutil.copy(os.path.join(d, t), os.path.join(tdir, f"{name}.{t.split('.')[0][6:]}.csv.gz"))
    keys = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    front = ["point", "kind", "rep", "buf_bdp"]
    keys = front + [k for k in keys if k not in front]
    with open(os.path.join(HERE, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, keys)
        w.writeheader()
        w.writerows(rows)
    # aggregate per point: mean, sd, min, max of the numeric metrics
    metrics = ["utilization", "loss_rate", "drops_per_event", "drops_per_reduction", "retrans_segs", "event_interval_s", "queue_mean_pkts",
               "queue_p95_pkts", "jain", "epoch_mean_s", "beta_mean", "epoch_cubic_s", "beta_cubic",
               "epoch_reno_s", "beta_reno", "srtt_mean_ms", "share_reno",
               "share_cubic", "share_bbr"]
    const = ["kind", "cc_mix", "n_flows", "rate_mbit", "rtt_ms", "buf_pkts", "buf_bdp", "dur_s", "warm_s",
             "ccsim_rate_bps", "ccsim_access_delay_ms", "ccsim_bottleneck_delay_ms", "ccsim_buffer_pkts",
             "ccsim_flows", "ccsim_duration_s", "ccsim_warmup_s", "ccsim_packet_bytes", "ccsim_mss"]
    pts = {}
    for r in rows:
        pts.setdefault(r["point"], []).append(r)
    order = {"buffer": 0, "share": 1, "bbr": 2}

    def key(item):
        r = item[1][0]
        return (-float(r["rate_mbit"]) if False else float(r["rate_mbit"]), float(r["rtt_ms"]),
                order.get(r.get("kind", ""), 9), r["cc_mix"].split("+")[0], int(r["n_flows"]),
                r["cc_mix"], int(r["buf_pkts"]))
    out = []
    for p, rs in sorted(pts.items(), key=key):
        a = {"point": p, "reps": len(rs)}
        for k in const:
            a[k] = rs[0].get(k, "")
        for m in metrics:
            v = [float(r[m]) for r in rs if r.get(m, "") not in ("", None)]
            if not v:
                continue
            a[f"{m}_mean"] = statistics.fmean(v)
            a[f"{m}_sd"] = statistics.stdev(v) if len(v) > 1 else 0.0
            a[f"{m}_min"] = min(v)
            a[f"{m}_max"] = max(v)
        out.append(a)
    keys = []
    for a in out:
        for k in a:
            if k not in keys:
                keys.append(k)
    with open(os.path.join(HERE, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, keys)
        w.writeheader()
        w.writerows(out)
    with open(os.path.join(HERE, "summary.json"), "w") as f:
        json.dump(out, f, indent=1)
    sdir = os.path.join(HERE, "scenarios")
    os.makedirs(sdir, exist_ok=True)
    for a in out:
        with open(os.path.join(sdir, f"{a['point']}.toml"), "w") as f:
            f.write(scenario_toml(a))
    print(f"{len(rows)} runs, {len(out)} points")


# The delay hop's lateness at 50 Mb/s (docs/linux.md, "The testbed's ACK timing"): NFQUEUE
# releases packets at timer wake-ups that come late by tens of µs, now and then by a
# millisecond, in order. As ccsim's topology.bottleneck_jitter (both directions, FIFO),
# fitted so that ccsim's ACKs show the excess delay and the gap growth of the r1 captures
# at 50 Mb/s (ack_timing.json). Half the releases are on time (an atom at 0): a
# continuous law keeps producing new least RTT samples, and BBR then postpones its
# PROBE_RTT, which the testbed's BBR enters every 10.3-11 s. An experiment
# (`compare.py --set topology.bottleneck_jitter=...`), not part of the scenarios: it moves
# some points towards Linux and others away (docs/linux.md).
DELAY_HOP_JITTER_50M = (
    '{ quantiles = [[0, "0us"], [0.5, "0us"], [0.75, "40us"], [0.9, "110us"], '
    '[0.95, "180us"], [0.98, "290us"], [0.99, "370us"], [0.995, "450us"], '
    '[0.999, "650us"], [1, "1100us"]] }'
)

# The ACK timing at the points of the last two differences (ack_timing_check.json,
# docs/linux.md, "The ACK timing at the last two"), each as topology.bottleneck_jitter
# fitted so that ccsim's ACKs show the excess delay of that point's r1 captures at every
# quantile from p50 to p99.9 (within 25 %), not fitted to any compared metric. Two Reno
# flows unpaced at 25 Mb/s x 60 ms, 0.25 BDP, with the testbed's delayed, read-driven
# ACKs (the receiver's reads and the delay hop together: p50 0.13-0.17 ms, p99 1.0-1.3 ms,
# p99.9 3.3-3.7 ms; ccsim's read model alone 0.08, 0.14, 0.16):
ACK_JITTER_25M_TWO_RENO = (
    '{ quantiles = [[0, "0us"], [0.6, "0us"], [0.75, "30us"], [0.9, "160us"], '
    '[0.95, "280us"], [0.98, "450us"], [0.99, "650us"], [0.995, "1000us"], '
    '[0.999, "2600us"], [1, "5000us"]] }'
)
# Reno + CUBIC paced at 20 Mb/s x 50 ms, 0.25 BDP, with a receiver that ACKs every segment
# (`--quickack`: no reads, so the delay hop and the receiver's softirq alone: p50 0.10 ms,
# p99 0.53-0.84, p99.9 0.90-1.24; ccsim's 0.00-0.01 ms at every quantile). Continuous (no
# atom at 0): no BBR here, whose min-RTT filter a continuous law refreshes.
ACK_JITTER_20M_QUICKACK = (
    '{ quantiles = [[0, "0us"], [0.3, "30us"], [0.5, "50us"], [0.75, "70us"], '
    '[0.9, "110us"], [0.95, "160us"], [0.98, "280us"], [0.99, "380us"], '
    '[0.995, "480us"], [0.999, "650us"], [1, "900us"]] }'
)


def scenario_toml(a):
    """The equivalent ccsim scenario of one measured point (dumbbell, drop-tail in packets)."""
    from collections import Counter
    rtt = a["rtt_ms"]
    ip_rate = a["rate_mbit"] * 1e6 * (WIRE - 14) / WIRE
    lines = [
        f"# Linux testbed point {a['point']} (validation/linux/summary.csv): {a['cc_mix']},",
        f"# {a['rate_mbit']} Mb/s HTB (counts 1514-byte frames) = {ip_rate / 1e6:.4f} Mb/s of 1500-byte IP",
        f"# packets, RTT {rtt} ms, pfifo {a['buf_pkts']} packets ({a['buf_bdp']} BDP), all flows start at 0 s.",
        f'name = "linux-{a["point"]}"',
        "seed = 1",
        f'duration = "{a["dur_s"]}s"',
        f'warmup = "{a["warm_s"]}s"',
        'sample_interval = "20ms"',
        "",
        "[topology]",
        'kind = "dumbbell"',
        f'bottleneck_rate = "{ip_rate / 1e6:.4f}Mbps"',
        f'bottleneck_delay = "{rtt / 2 - 1:g}ms"   # + 2 x 0.5 ms access = RTT/2 one way',
        'access_rate = "1Gbps"',
        'access_delay = "0.5ms"',
        f'buffer = "{a["buf_pkts"]}pkt"',
        'queue = "droptail"',
        f'shaper = {{ burst = "{2 * (WIRE - 14)}B" }}   # HTB burst {2 * WIRE} of {WIRE}-byte '
        "frames",
        "",
        "[tcp]",
        'profile = "linux"',
        'mss = "1448B"',
        # iperf3 sets -C after connect(), so every socket is set up by the namespace's
        # default algorithm, bbr, whose bbr_init asks for pacing (SK_PACING_NEEDED), and
        # the switch to reno or cubic leaves that on (README, "Pacing").
        'pacing = "linux"   # Reno and CUBIC are paced at sk_pacing_rate here (README, Pacing)',
        # The receiver ACKs at iperf3's reads (tcp_cleanup_rbuf; ftrace: 1,641 of 1,642
        # ACKs); iperf3 wakes a median 104 us (p90 135 us) after the segment's release, the
        # delay hop's 20 us lateness included: 85 us, sd 25 us (docs/linux.md, "How the
        # testbed's receiver ACKs").
        'read_latency = { normal = { mean = "85us", sd = "25us" } }   # iperf3 ACKs at its '
        "reads (docs/linux.md)",
    ]
    for cc, n in Counter(a["ccsim_flows"].split()).items():
        lines += ["", "[[flows]]", f"count = {n}", f'cc = "{cc}"', 'start = "0s"']
    return "\n".join(lines) + "\n"


def table(args):
    """Markdown tables of summary.csv (mean ± sd over repetitions)."""
    rows = list(csv.DictReader(open(os.path.join(HERE, "summary.csv"))))

    def ms(r, k, fmt="{:.3f}"):
        if not r.get(f"{k}_mean"):
            return "—"
        m, sd = float(r[f"{k}_mean"]), float(r[f"{k}_sd"])
        return (fmt + " ± " + fmt).format(m, sd)
    print("| point | flows | buffer (pkt, BDP) | reps | utilization | loss rate | drops/event | "
          "event interval (s) | epoch (s) | β | mean queue (pkt) | srtt (ms) | shares |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        sh_ = " ".join(f"{c}:{ms(r, 'share_' + c, '{:.2f}')}" for c in ("reno", "cubic", "bbr")
                       if r.get(f"share_{c}_mean") and r["n_flows"] != "1" and len(set(r["cc_mix"].split("+"))) > 1)
        if not sh_ and r["n_flows"] != "1":
            sh_ = "Jain " + ms(r, "jain", "{:.3f}")
        from collections import Counter
        if r.get("beta_cubic_mean") and r.get("beta_reno_mean"):  # reno + cubic: per algorithm
            ep = f"R {ms(r, 'epoch_reno_s', '{:.2f}')}, C {ms(r, 'epoch_cubic_s', '{:.2f}')}"
            be = f"R {ms(r, 'beta_reno', '{:.3f}')}, C {ms(r, 'beta_cubic', '{:.3f}')}"
        else:
            ep, be = ms(r, "epoch_mean_s", "{:.2f}"), ms(r, "beta_mean", "{:.3f}")
        mix = " + ".join(f"{n}×{c}" if n > 1 else c for c, n in Counter(r["cc_mix"].split("+")).items())
        print(f"| {r['rate_mbit']}M/{r['rtt_ms']}ms | {mix} | {r['buf_pkts']} ({r['buf_bdp']}) | "
              f"{r['reps']} | {ms(r, 'utilization')} | {ms(r, 'loss_rate', '{:.5f}')} | "
              f"{ms(r, 'drops_per_event', '{:.2f}')} | {ms(r, 'event_interval_s', '{:.2f}')} | "
              f"{ep} | {be} | "
              f"{ms(r, 'queue_mean_pkts', '{:.1f}')} | {ms(r, 'srtt_mean_ms', '{:.1f}')} | {sh_} |")


# what `acktiming --metrics` keeps of analyze_run
ACKTIMING_METRICS = (
    "utilization",
    "loss_rate",
    "drops_per_event",
    "queue_mean_pkts",
    "jain",
    "share_cubic",
    "share_reno",
    "beta_mean",
    "epoch_mean_s",
    "nfq_max_late_us",
)


def acktiming(args):
    """`acktiming`: per run directory, its point, the sender's HyStart counters (nstat) and,
    where it has an r1 capture, ack_timing over its window; with --metrics, the run's
    metrics (analyze_run) and, with r0 and r1, where its congestion events drop and how
    full the queue is when the first dropper hears of it (trains.testbed_run), and the
    ACK clock's round trip at the bottleneck (testbed_full_loop)."""
    out = {"how": "testbed.py acktiming " + " ".join(args.runs), "runs": {}}
    for spec in args.runs:
        d, *win = spec.split(":")
        meta = json.load(open(os.path.join(d, "meta.json")))
        row = {k: meta[k] for k in ("flows", "rate_mbit", "rtt_ms", "buf_pkts", "dur_s")}
        row["hystart"] = {k: v for k, v in meta.get("nstat", {}).items() if "Hystart" in k}
        pcap = os.path.join(d, "r1.pcap")
        if os.path.exists(pcap):
            lo, hi = (float(win[0]), float(win[1])) if win else (0.0, 1e9)
            row["window_s"] = [lo, hi]
            row["ack_timing"] = ack_timing(pcap, t_lo=lo, t_hi=hi)
        if args.metrics:
            m = analyze_run(d)
            row["metrics"] = {k: m[k] for k in ACKTIMING_METRICS if k in m}
            if os.path.exists(os.path.join(d, "r0.pcap")) and os.path.exists(pcap):
                import trains  # reads this module's pcap helpers

                t = trains.testbed_run(d)
                row["events"] = {"zones": t["_zones"], "queue": t["_queue"]}
                lo, hi = (float(win[0]), float(win[1])) if win else (1.0, 1e9)
                row["full_loop"] = testbed_full_loop(d, lo, hi)
        out["runs"][os.path.basename(d.rstrip("/"))] = row
    with open(os.path.join(HERE, args.out), "w") as f:
        json.dump(out, f, indent=1)
    print(f"{len(out['runs'])} runs -> {args.out}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("verify")
    r = sub.add_parser("run")
    r.add_argument("--cc", default="cubic", help="comma-separated, one per flow (e.g. bbr,cubic)")
    r.add_argument("--flows", type=int, default=1, help="repeat --cc this many times")
    r.add_argument("--rate", type=float, default=20)
    r.add_argument("--rtt", type=float, default=50)
    r.add_argument("--buf", type=int, default=41)
    r.add_argument("--dur", type=int, default=45)
    r.add_argument("--warm", type=int, default=10)
    r.add_argument("--name", default="manual")
    r.add_argument("--default-cc", default=None,
                   help="the sender's default algorithm (bbr: Reno and CUBIC paced, README)")
    r.add_argument("--stagger", type=float, default=0.0, metavar="MS",
                   help="spawn each iperf3 client MS ms after the one before (default: at once)")
    r.add_argument("--htb-burst", type=int, default=None,
                   help="HTB burst/cburst in bytes (default 2 frames, 3028)")
    r.add_argument("--capture", type=float, nargs=2, metavar=("START", "SECONDS"), default=None,
                   help="record the router's ingress (tshark on r0) from START s for SECONDS s and "
                        "print each flow's burst sizes (segments < 60 us apart)")
    r.add_argument("--capture-at", default="r0",
                   help="comma-separated router interfaces --capture records (r0: ingress; r1: "
                        "egress after HTB); with r1 too, also print HTB's release lateness")
    r.add_argument("--quickack", action="store_true",
                   help="the receiver ACKs every segment at once (route attribute quickack 1)")
    c = sub.add_parser("campaign")
    c.add_argument("--plan", default="A")
    c.add_argument("--reps", type=int, default=3)
    c.add_argument("--budget-s", type=float, default=0)
    sub.add_parser("analyze")
    sub.add_parser("table")
    bu = sub.add_parser("bursts", help="record the senders' burst sizes (bursts.json)")
    bu.add_argument("--points", help="only these BURST_POINTS (comma-separated), merged in")
    sub.add_parser("htb", help="record how late HTB releases frames (htb_release.json)")
    b = sub.add_parser("bbr-alone", help="BBR alone at 3 BDP again (bbr_alone_rerun.json)")
    b.add_argument("--reps", type=int, default=3)
    rr = sub.add_parser("rerun", help="more runs of committed points, into a JSON file")
    rr.add_argument("points", nargs="+")
    rr.add_argument("--reps", type=int, default=5)
    rr.add_argument("--out", required=True, help="file name next to this script")
    rr.add_argument("--traces", action="store_true",
                    help="keep each run's traces and the delay hop's late log in traces/rerun/")
    rr.add_argument("--quickack", action="store_true",
                    help="the receiver ACKs every segment at once (route attribute quickack 1)")
    rr.add_argument("--default-cc", default=None,
                    help="the namespaces' default congestion control (reno: Reno, CUBIC unpaced)")
    at = sub.add_parser("acktiming", help="the ACK timing of `run --capture ... --capture-at r1` "
                        "runs and their HyStart counters, into a JSON file")
    at.add_argument("runs", nargs="+", help="run directories, each as DIR or DIR:LO:HI (the "
                    "window in s after the capture's first packet)")
    at.add_argument("--out", required=True, help="file name next to this script")
    at.add_argument("--metrics", action="store_true",
                    help="also each run's metrics and, with r0 and r1, its events' drops and queue")
    args = ap.parse_args()
    if args.cmd == "analyze":  # reads raw/ only: never touches namespaces
        return analyze(args)
    if args.cmd == "acktiming":  # reads run directories only
        return acktiming(args)
    if args.cmd == "table":
        return table(args)
    if os.geteuid() != 0:
        sys.exit("needs root (network namespaces)")
    build_nfq()
    os.makedirs(RAW, exist_ok=True)
    if getattr(args, "quickack", False):
        RCV_ROUTE_EXTRA.extend(["quickack", "1"])

    def on_sig(s, f):
        teardown()
        sys.exit(1)
    signal.signal(signal.SIGTERM, on_sig)
    signal.signal(signal.SIGINT, on_sig)
    try:
        if args.cmd == "verify":
            verify(args)
        elif args.cmd == "run":
            if args.default_cc:
                SYSCTLS_SND["net.ipv4.tcp_congestion_control"] = args.default_cc
            d = run_one(args.name, args.cc.split(",") * args.flows, args.rate, args.rtt, args.buf,
                        args.dur, args.warm, htb_burst=args.htb_burst, capture=args.capture,
                        stagger_ms=args.stagger,
                        capture_at=tuple(args.capture_at.split(",")))
            print(json.dumps(analyze_run(d), indent=1))
            if args.capture and "r0" in args.capture_at.split(","):
                print(json.dumps(capture_bursts(d), indent=1))
            if args.capture and {"r0", "r1"} <= set(args.capture_at.split(",")):
                print("HTB release lateness:", json.dumps(
                    htb_release_stats(d, args.rate, args.htb_burst or 2 * WIRE)))
                print("Drops:", json.dumps(capture_drops(d), indent=1))
        elif args.cmd == "campaign":
            campaign(args)
        elif args.cmd == "bursts":
            bursts(args)
        elif args.cmd == "htb":
            htb_release(args)
        elif args.cmd == "bbr-alone":
            bbr_alone(args)
        elif args.cmd == "rerun":
            if args.default_cc:
                SYSCTLS_SND["net.ipv4.tcp_congestion_control"] = args.default_cc
            rerun(args)
    finally:
        teardown()


if __name__ == "__main__":
    main()
