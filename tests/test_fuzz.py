"""A reduced Python-level fuzz pass (the full one: ``python tests/fuzz_python.py 5000``):
mutated scenarios through ``ccsim.validate``, ``ccsim.run`` and the command line; each
is accepted or refused in one ``error:`` line (exit 2), without a traceback, writing
nothing."""

from __future__ import annotations

import pytest

import fuzz_python


@pytest.mark.timeout(600)
def test_mutated_scenarios_are_accepted_or_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("CCSIM_MEMORY_LIMIT", "1GB")
    counts = {"accepted": 0, "refused": 0}
    for k, text in enumerate(fuzz_python.inputs(150, seed=20261124)):
        work = tmp_path / str(k)
        work.mkdir()
        counts[fuzz_python.check_api(text)] += 1
        fuzz_python.check_cli(text, work)
    assert counts["accepted"] > 10 and counts["refused"] > 10, counts
