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


def test_dask_is_an_optional_extra(monkeypatch, tmp_path):
    import tomllib

    import ccsim

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("dask") for d in meta["dependencies"])
    extras = meta["optional-dependencies"]
    assert any(d.startswith("dask[distributed]") for d in extras["dask"])
    # CI installs ".[test]": it must bring what the suite imports.
    for need in ("pytest", "dask[distributed]", "nbclient", "ipykernel"):
        assert any(d.startswith(need) for d in extras["test"]), need
    # Without Dask, asking for a scheduler names the extra to install.
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails
    with pytest.raises(ccsim.ScenarioError, match=r"pip install 'ccsim\[dask\]'"):
        ccsim.sweep(EXAMPLE, {}, scheduler="tcp://127.0.0.1:1", directory=tmp_path / "s",
                    progress=False)  # fmt: skip
    assert not (tmp_path / "s").exists()  # refused before anything is written


def test_core_stubs_match_the_compiled_module():
    import ast
    import inspect

    from ccsim import _core

    here = ROOT / "python" / "ccsim"
    assert (here / "py.typed").is_file()
    tree = ast.parse((here / "_core.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    compiled = {k for k in dir(_core) if not k.startswith("_")}
    # Every name the core exports has a stub (the stub's extra names are its TypedDicts).
    assert compiled <= stubbed, sorted(compiled - stubbed)
    for n in tree.body:
        if isinstance(n, ast.FunctionDef):
            assert n.name in compiled, n.name
            # The stub's parameters are the compiled function's, in order.
            sig = inspect.signature(getattr(_core, n.name))
            assert [a.arg for a in n.args.args] == list(sig.parameters), n.name


def test_public_api_has_docstrings():
    import inspect

    import ccsim
    from ccsim import plots, store

    objects = [getattr(ccsim, n) for n in ccsim.__all__]
    for cls in (ccsim.Run, ccsim.Sweep):
        objects += [v for k, v in vars(cls).items() if not k.startswith("_")]
    objects += [store.query, store.table, store.catalogue, store.groups, plots.timeseries,
                plots.metric_vs_param, plots.cdf, plots.save]  # fmt: skip
    missing = [getattr(o, "__name__", repr(o)) for o in objects if not inspect.getdoc(o)]
    assert missing == []


def test_progress_bars_draw_in_a_terminal_or_jupyter(monkeypatch):
    import types

    from ccsim._progress import can_draw

    def console(terminal: bool, jupyter: bool):
        return types.SimpleNamespace(is_terminal=terminal, is_jupyter=jupyter)

    assert can_draw(console(True, False))
    assert not can_draw(console(False, False))  # a pipe or a log file
    # Jupyter: rich draws into an ipywidgets Output, so it needs ipywidgets.
    monkeypatch.setitem(sys.modules, "ipywidgets", types.ModuleType("ipywidgets"))
    assert can_draw(console(False, True))
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    assert not can_draw(console(False, True))
