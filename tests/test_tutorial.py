"""docs/tutorial.ipynb runs from top to bottom in a headless kernel, and shows what it
promises: the groups table, per-group shares with intervals, and its figures."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "tutorial.ipynb"


def test_tutorial_notebook_executes(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # A cell that raises fails the test with the cell and its traceback.
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=300,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "\n".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "<ccsim.Run name='cubic-vs-newreno'" in text
    assert "12 runs in" in text
    assert "share_ci95" in text  # Sweep.table's interval column
    # The two figures are shown as images in the notebook, not as reprs.
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2
