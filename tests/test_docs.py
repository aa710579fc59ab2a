"""The reference pages keep up with the code: every TCP option is in docs/tcp.md, every
summary key of a group in docs/metrics.md, and docs/from-ns3.md's ccsim snippets are
valid scenarios."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ccsim

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell.toml"


def known_tcp_options() -> list[str]:
    # The core lists the fields it knows when it refuses an unknown one.
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(EXAMPLE, set=["tcp.no_such_option=1"])
    names = re.findall(r"`(\w+)`", str(e.value).split("expected one of", 1)[1])
    assert len(names) > 15, str(e.value)
    return names


def test_every_tcp_option_is_documented():
    text = (ROOT / "docs" / "tcp.md").read_text()
    rows = set(re.findall(r"^\| `(\w+)`", text, re.M))
    missing = [o for o in known_tcp_options() if o != "profile" and o not in rows]
    assert missing == [], f"docs/tcp.md has no row for {missing}"
    assert '`profile = "linux" | "ns2" | "ns3"`' in text


def test_every_group_key_is_documented():
    run = ccsim.run(EXAMPLE, set=['duration="2s"', 'warmup="1s"'])
    text = (ROOT / "docs" / "metrics.md").read_text()
    section = text.split("## Per group", 1)[1].split("\n## ", 1)[0]
    for key in run.summary["groups"][0]:
        assert f"`{key}`" in section, key


def toml_blocks(page: str) -> list[str]:
    return re.findall(r"```toml\n(.*?)```", (ROOT / "docs" / page).read_text(), re.S)


def test_from_ns3_snippets_are_valid_scenarios():
    blocks = [b for b in toml_blocks("from-ns3.md") if "[topology]" in b]
    assert len(blocks) >= 3
    for b in blocks:
        ccsim.validate(b)
