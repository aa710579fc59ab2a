"""How far ccsim's CUBIC share is from Linux's over every Reno + CUBIC comparison: the
twelve (experiment, point) pairs of the tests (paced, unpaced, quiet host, every segment
ACKed paced and unpaced, held out paced and unpaced), ccsim's mean over seeds 1-10 and
1-20 against Linux's mean, and the mean distance over all twelve. For a change that moves
these shares, run it on both builds (docs/linux.md, "What the counter moved").

    python validation/linux/share_distance.py [--out FILE.json]"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402

R21, R248 = "20m_50ms_b21_1reno+1cubic", "20m_50ms_b248_1reno+1cubic"
H30, H3 = "30m_80ms_b99_1reno+1cubic", "10m_80ms_b66_1reno+1cubic+1bbr"


def experiments():
    qa = ("quickack_check.json", "quickack_rerun.json")
    qa_unpaced = (("quickack_check.json", "unpaced_points"), "quickack_unpaced_rerun.json")
    return [
        ("paced", compare.linux_summary(), {}, [R21, R248]),
        ("unpaced", compare.unpaced_summary(), {"tcp.pacing": "none"}, [R21, R248]),
        ("quiet", compare.quiet_summary(), {}, [R21, R248]),
        ("quickack", compare.rerun_summary(*qa), {"tcp.delayed_ack": False}, [R21]),
        (
            "quickack-unpaced",
            compare.rerun_summary(*qa_unpaced),
            {"tcp.delayed_ack": False, "tcp.pacing": "none"},
            [R21],
        ),
        ("holdout", compare.holdout_summary(), {}, [H30, H3]),
        ("holdout-unpaced", compare.holdout_unpaced_summary(), {"tcp.pacing": "none"}, [H30, H3]),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the figures as JSON")
    a = ap.parse_args(argv)
    out = {}
    for name, ref, overrides, pts in experiments():
        for p in pts:
            lin = float(ref[p]["share_cubic_mean"])
            v = [compare.run_point(p, s, overrides)["share_cubic"] for s in range(1, 21)]
            out[f"{name}:{p}"] = {
                "linux": lin,
                "ccsim_10": statistics.fmean(v[:10]),
                "ccsim_20": statistics.fmean(v),
            }
            r = out[f"{name}:{p}"]
            print(
                f"{name:17s} {p:32s} Linux {lin:.3f}  ccsim {r['ccsim_10']:.3f} (10 seeds) "
                f"{r['ccsim_20']:.3f} (20)",
                flush=True,
            )
    for k in ("ccsim_10", "ccsim_20"):
        d = statistics.fmean(abs(r[k] - r["linux"]) for r in out.values())
        print(f"mean distance, {k.removeprefix('ccsim_')} seeds: {d:.4f}")
    if a.out:
        Path(a.out).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
