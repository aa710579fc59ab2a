"""The reproductions' index (no simulation): every figure of every study can be run by
name and has a scenario file named after it in ``scenarios/papers/<study>/`` (a link
where figures share one experiment), a valid scenario with a sweep, shipped in the
package; docs/reproductions/README.md lists every figure under its study."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import ccsim
from ccsim import reproduce
from ccsim.sweep import plan

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("study", sorted(reproduce.STUDIES))
def test_every_figure_has_a_scenario_file_named_after_it(study):
    for name in reproduce.figures(study):
        path = ROOT / "scenarios" / "papers" / study / f"{name}.toml"
        assert path.is_file(), f"{study}: no {path.name} for figure {name}"
        # the installed package ships the same file (a link's target, copied)
        assert reproduce.scenario_path(study, name).read_text() == path.read_text()
        assert "sweep" in tomllib.loads(path.read_text()), f"{study}/{path.name}: no [sweep]"
        text, base, grid, seeds, specs = plan(str(path))
        assert specs, f"{study}/{path.name}: no run in its sweep"
        ccsim.validate(text, set=specs[0].overrides)


def test_the_index_page_lists_every_figure_under_its_study():
    index = (ROOT / "docs" / "reproductions" / "README.md").read_text()
    section = index[index.index("## Figures and their scenario files") :]
    section = section[: section.index("\n## ")]
    for study in reproduce.STUDIES:
        rows = "\n".join(r for r in section.splitlines() if r.startswith(f"| {study} |"))
        for name in reproduce.figures(study):
            assert f"`{name}`" in rows, (study, name)
