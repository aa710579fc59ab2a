"""Which segment an RTT sample times, and what it decides (docs/linux.md, "Which segment an
RTT sample times"): from a testbed run's router capture (r0.pcap: the ACKs as the router
forwards them to the senders and the data they release, tens of µs later) or from ccsim's
traces of the same point (each sender's access links).

    python validation/linux/rtt_timing.py /tmp/ccsim-linux-testbed/raw/cap2reno_a [...]
    python validation/linux/rtt_timing.py --ccsim 25m_60ms_b31_2reno --seeds 1 2 \\
        --set tcp.pacing=none

Per run, over every flow:

- `echo`: of the ACKs that newly acknowledge two or more segments whose timestamps (TSval)
  differ, the share that echo the first one's (RFC 7323 §4.3: TS.Recent is set only by a
  segment at or below Last.ACK.sent; Linux's `tcp_replace_ts_recent`) and the last one's;
- `one_segment_acks`: what a flow sends at an ACK of one segment (no SACK), as the shares of
  ACKs that release 0, 1, 2 or 3 new segments, split by whether the ACK of the oldest segment
  then out is due more than 1 ms later by an SRTT estimated from the capture as Linux's
  sender estimates it (`tcp_ack_update_rtt`: each ACK of new data times the oldest segment
  it newly acknowledges, gain 1/8). With a room of one segment and a two-segment skb at the
  head, `tcp_tso_should_defer` sends at once when that ACK is due later than min(SRTT/2,
  1 ms) and otherwise waits for the next ACK;
- `ack_sizes`: the share of ACKs (no SACK) that acknowledge 1, 2, 3 or 4 segments.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from testbed import MSS, pcap_tcp_headers  # noqa: E402

DUE_S = 1e-3  # tcp_tso_should_defer: min(SRTT/2, 1 ms), 1 ms at these RTTs


def _options(tcp: bytes):
    """(kind, data) of each TCP option."""
    opts, i = tcp[20 : (tcp[12] >> 4) * 4], 0
    while i < len(opts):
        kind = opts[i]
        if kind == 0:
            return
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            return
        yield kind, opts[i + 2 : i + opts[i + 1]]
        i += opts[i + 1]


def _row(t: float, tcp: bytes, payload: int, is_data: bool) -> tuple:
    """(time, 'D' or 'A', sequence or ack number, TSval or TSecr, has SACK blocks)."""
    ts, sack = None, False
    for kind, data in _options(tcp):
        if kind == 8 and len(data) == 8:
            val, ecr = struct.unpack(">II", data)
            ts = val if is_data else ecr
        elif kind == 5:
            sack = True
    num = struct.unpack(">I", tcp[4:8] if is_data else tcp[8:12])[0]
    return (t, "D" if is_data else "A", num, ts, sack)


def flow_figures(rows: list[tuple]) -> dict[str, Counter]:
    """The counts behind `summarize` for one flow's rows (time order): echo, one-segment
    ACKs by due and released segments, ACK sizes."""
    sent: dict[int, tuple[float, int]] = {}  # sequence -> (last send time, TSval)
    out = {"echo": Counter(), "one": Counter(), "sizes": Counter()}
    srtt = last = high = None
    pending = None  # (due, segments released so far) of the last one-segment ACK
    for t, kind, num, ts, sack in rows:
        if kind == "D":
            sent[num] = (t, ts)
            if high is None or num >= high:
                high = num + MSS
                if pending is not None:
                    pending[1] += 1
            continue
        if pending is not None:
            out["one"][tuple(pending)] += 1
            pending = None
        if last is not None and num > last and not sack:
            n = (num - last) // MSS
            out["sizes"][n] += 1
            first_seg, last_seg = sent.get(last), sent.get(num - MSS)
            if n >= 2 and first_seg and last_seg and first_seg[1] != last_seg[1]:
                out["echo"][
                    "first" if ts == first_seg[1] else "last" if ts == last_seg[1] else "other"
                ] += 1
            if first_seg is not None:
                m = t - first_seg[0]
                srtt = m if srtt is None else srtt + (m - srtt) / 8
            head = sent.get(num)
            if n == 1 and srtt is not None and head is not None:
                pending = ["later" if head[0] + srtt - t > DUE_S else "soon", 0]
        if last is None or num > last:
            last = num
    return out


def summarize(counts: dict[str, Counter]) -> dict:
    echo = counts["echo"]
    n_echo = sum(echo.values())
    one: dict[str, dict] = {}
    for due in ("later", "soon", "all"):
        c = Counter()
        for (d, k), v in counts["one"].items():
            if due in (d, "all"):
                c[min(k, 3)] += v
        n = sum(c.values())
        one[due] = {"acks": n, **{str(k): round(c[k] / n, 4) if n else None for k in range(4)}}
    sizes = counts["sizes"]
    n = sum(sizes.values())
    return {
        "echo": {
            "acks": n_echo,
            "first": round(echo["first"] / n_echo, 4) if n_echo else None,
            "last": round(echo["last"] / n_echo, 4) if n_echo else None,
        },
        "one_segment_acks": one,
        "ack_sizes": {str(k): round(sizes[k] / n, 4) for k in range(1, 5)} if n else {},
    }


def _merge(into: dict[str, Counter], more: dict[str, Counter]) -> None:
    for k, c in more.items():
        into.setdefault(k, Counter()).update(c)


def testbed_run(d: str, skip_s: float = 0.5) -> dict[str, Counter]:
    """flow_figures of each flow of a testbed run (r0.pcap), leaving out its first *skip_s*."""
    from trains import _ports

    ports = _ports(d)
    rows: dict[int, list] = {p: [] for p in ports}
    t0 = None
    for t, tcp, payload in pcap_tcp_headers(os.path.join(d, "r0.pcap")):
        t0 = t if t0 is None else t0
        sp, dp = struct.unpack(">HH", tcp[:4])
        if t < t0 + skip_s:
            continue
        if payload > 0 and sp in ports:
            rows[sp].append(_row(t, tcp, payload, True))
        elif payload == 0 and dp in ports:
            rows[dp].append(_row(t, tcp, payload, False))
    total: dict[str, Counter] = {}
    for r in rows.values():
        _merge(total, flow_figures(r))
    return total


def ccsim_run(
    point: str, seed: int, overrides: dict | None = None, secs: float = 40.0, skip_s: float = 10.0
) -> dict[str, Counter]:
    """flow_figures of each flow of ccsim's run of *point* (its access links' traces; the
    ACKs moved to their arrival at the sender), after *skip_s*."""

    import compare

    import ccsim

    n = len(compare._point(point)["ccsim_flows"].split())
    links = [f"flow{i}.src_{d}" for i in range(n) for d in ("up", "down")]
    text = compare.scenario_text(point) + f"\n[output]\npcap = {links!r}\n".replace("'", '"')
    run = ccsim.run(text, set={"seed": seed, "duration": f"{secs}s", **(overrides or {})})
    access = compare._quantity(compare._topology_value(text, "access_delay"))
    total: dict[str, Counter] = {}
    for i in range(n):
        rows = [
            _row(t + access, tcp, pl, False)
            for t, tcp, pl in pcap_tcp_headers(run.pcap[f"flow{i}.src_down"])
            if pl == 0 and t >= skip_s
        ]
        rows += [
            _row(t, tcp, pl, True)
            for t, tcp, pl in pcap_tcp_headers(run.pcap[f"flow{i}.src_up"])
            if pl > 0 and t >= skip_s
        ]
        rows.sort(key=lambda r: r[0])
        _merge(total, flow_figures(rows))
    return total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*", help="testbed run directories (r0.pcap)")
    ap.add_argument("--ccsim", metavar="POINT")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    a = ap.parse_args(argv)
    for d in a.runs:
        print(d, json.dumps(summarize(testbed_run(d))))
    if a.ccsim:
        import compare

        total: dict[str, Counter] = {}
        for s in a.seeds:
            _merge(total, ccsim_run(a.ccsim, s, compare.parse_sets(a.set)))
        print(f"ccsim {a.ccsim} seeds {a.seeds}", json.dumps(summarize(total)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
