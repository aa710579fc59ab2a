"""The start-up budget, as what is imported (never as seconds): ``import ccsim``,
``ccsim --version``, ``ccsim validate`` and a short ``ccsim run`` load none of the data
stack (pandas, numpy, pyarrow, DuckDB, matplotlib, Dask), which costs ~0.4 s and
~80 MB; pandas comes with the first table a caller asks for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"
SHORT = ["--set", 'duration="2s"', "--set", 'warmup="1s"']

HEAVY = {"pandas", "numpy", "pyarrow", "duckdb", "matplotlib", "dask", "distributed"}
# importlib.metadata pulls in the email package; the version is read without it.
SLOW = {"importlib.metadata", "email"}


def imported(args: list[str]) -> set[str]:
    """Top-level names of the modules a fresh interpreter imports running *args*."""
    p = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True,
                       text=True, timeout=120, cwd=ROOT)  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    names = set()
    for line in p.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            names.add(name)
            names.add(name.split(".")[0])
    assert "ccsim" in names  # the parse works: something was seen
    return names


@pytest.mark.parametrize(
    "args, allowed",
    [
        (["-c", "import ccsim"], set()),
        (["-m", "ccsim", "--version"], set()),
        (["-m", "ccsim", "validate", str(EXAMPLE)], set()),
        # A short run prints its summary (rich) but decodes no table with pandas.
        (["-m", "ccsim", "run", str(EXAMPLE), *SHORT], {"rich"}),
        (["-m", "ccsim", "run", "-q", str(EXAMPLE), *SHORT], set()),
    ],
)
def test_start_up_loads_no_data_stack(args, allowed):
    got = imported(args)
    assert not (got & HEAVY), sorted(got & HEAVY)
    assert not (got & SLOW), sorted(got & SLOW)
    if "rich" not in allowed:
        assert "rich" not in got


def test_tables_load_pandas_on_first_use():
    code = (
        "import sys, ccsim\n"
        f"run = ccsim.run({str(EXAMPLE)!r}, set=['duration=\"2s\"', 'warmup=\"1s\"'])\n"
        "assert 'pandas' not in sys.modules\n"
        "rows = run.rows('flows')\n"
        "assert 'pandas' not in sys.modules and len(rows) == 4\n"
        "df = run.flows\n"
        "assert 'pandas' in sys.modules\n"
        # The light decoding agrees with the DataFrame's, row for row.
        "import math\n"
        "for a, b in zip(rows, df.to_dict('records'), strict=True):\n"
        "    assert a.keys() == b.keys()\n"
        "    for k in a:\n"
        "        same = a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k])\n"
        "                                and math.isnan(b[k]))\n"
        "        assert same, (k, a[k], b[k])\n"
        "print(repr(run))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    # repr(Run) is a short description, not the tables.
    out = p.stdout.strip()
    assert out.startswith("<ccsim.Run name='dumbbell-example' engine='packet'") and len(out) < 300
