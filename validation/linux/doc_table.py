"""The table of docs/linux.md ("ccsim against Linux"): every committed point with the
seeds tests/test_linux_reference.py gives it (and its precision rule adds), ccsim mean /
Linux mean, **x** where a metric is outside the tolerance.
`python validation/linux/doc_table.py > table.md`."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "validation" / "linux"))
sys.path.insert(0, str(ROOT / "tests"))
import compare  # noqa: E402

from test_linux_reference import SEEDS, SEEDS_OF  # noqa: E402


def _pair(e: dict, fmt: str) -> str:
    s = f"{fmt.format(e['ccsim'])} / {fmt.format(e['linux'])}"
    return s + (" **x**" if e.get("pass") is False else "")


def row(point: str) -> str:
    m = compare.compare_point(point, SEEDS_OF.get(point, SEEDS), max_seeds=compare.MAX_SEEDS)[
        "metrics"
    ]
    pct = "{:.3%}"

    def cell(key: str, fmt: str) -> str:
        return _pair(m[key], fmt).replace("%", " %") if key in m else "—"

    share = {k.removeprefix("share_"): e for k, e in m.items() if k.startswith("share_")}
    # One algorithm: no shares to show.
    shares = "; ".join(f"{k} {_pair(e, '{:.3f}')}" for k, e in share.items() if len(share) > 1)
    return (
        f"| {point} | {cell('utilization', '{:.3f}')} | {cell('loss_rate', pct)} | "
        f"{cell('beta_mean', '{:.3f}')} | {cell('epoch_mean_s', '{:.2f}')} | {shares or '—'} | "
        f"{_pair(m['drops_per_event'], '{:.2f}')} | {_pair(m['queue_mean_pkts'], '{:.1f}')} |"
    )


if __name__ == "__main__":
    cols = (
        "point | utilization | loss rate | β | epoch (s) | shares | drops/event | mean queue (pkt)"
    )
    print(f"| {cols} |")
    print("|---|---|---|---|---|---|---|---|")
    for p in compare.points():
        print(row(p), flush=True)
